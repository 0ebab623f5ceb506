// Writing an encoder-decoder's v2 trace (seq2seq_trace_json.h).
#include "models/analyses/seq2seq_trace_json.h"

#include "io/json_writer.h"
#include "io/trace_json.h"
#include "models/analyses/trace_json_parts.h"
#include "models/formats/model_folder.h"

namespace core::models {
namespace {

void writeModel(JsonWriter& w, const Seq2SeqRealModel& model) {
    const Seq2SeqConfig& c = model.config();
    w.beginObject();
    w.field("family", model.family);
    w.field("source", model.location.source);
    w.field("dir", model.location.dir);
    w.field("encoder_layers", c.base.layers);
    w.field("decoder_layers", c.decoderLayers);
    w.field("heads", c.base.heads);
    w.field("d_model", c.base.dModel);
    w.field("d_head", c.base.headSize());
    w.field("vocab_size", c.base.vocabSize);
    w.field("n_positions", c.positions); // 0: relative positions (T5), no table
    w.field("dtype", model.net->dtype());
    w.field("decoder_start_token_id", c.decoderStartId);
    w.endObject();
}

void writeTokens(JsonWriter& w, const std::vector<std::string>& tokens) {
    w.key("tokens");
    w.beginArray();
    for (const std::string& t : tokens) w.value(t);
    w.endArray();
}

void writeSentence(JsonWriter& w, const Seq2SeqTrace& t) {
    w.beginObject();
    w.field("text", t.sourceText);
    std::vector<std::string> tokens;
    for (const Token& token : t.source.tokens.tokens) tokens.push_back(token.text);
    writeTokens(w, tokens);
    writeInts(w, "token_ids", t.source.ids);
    w.key("target");
    w.beginObject();
    if (!t.generated) w.field("text", t.targetText);
    w.field("generated", t.generated);
    writeTokens(w, t.decoderTokens);
    writeInts(w, "token_ids", t.decoderInput); // what the decoder read: the start token first
    writeInts(w, "labels", t.labels);          // what it should predict at each position
    w.key("predictions");
    writePredictions(w, t.predictions);
    w.field("loss", Scalar(t.loss));
    w.endObject();
    w.endObject();
}

void writeAblated(JsonWriter& w, const char* key, const Attention& a) {
    w.key(key);
    w.beginArray();
    for (int h = 0; h < int(a.headAblated.size()); ++h)
        if (a.headAblated[std::size_t(h)]) w.value(h + 1);
    w.endArray();
}

void writeLayers(JsonWriter& w, const Seq2SeqRun& run, std::ostream& out) {
    w.key("encoder");
    w.beginArray();
    for (std::size_t l = 0; l < run.encoder.size(); ++l) {
        w.beginObject();
        w.field("layer", int(l) + 1);
        writeAblated(w, "ablate", run.encoder[l]);
        w.key("attention"); // [1][H][Ns][Ns]
        writeAttentionTensor(w, run.encoder[l]);
        w.endObject();
        out.flush();
    }
    w.endArray();
    w.key("decoder");
    w.beginArray();
    for (std::size_t l = 0; l < run.decoderSelf.size(); ++l) {
        w.beginObject();
        w.field("layer", int(l) + 1);
        writeAblated(w, "ablate_self", run.decoderSelf[l]);
        writeAblated(w, "ablate_cross", run.cross[l]);
        w.key("self_attention"); // [1][H][Nt][Nt]
        writeAttentionTensor(w, run.decoderSelf[l]);
        w.key("cross_attention"); // [1][H][Nt][Ns]
        writeAttentionTensor(w, run.cross[l]);
        w.endObject();
        out.flush();
    }
    w.endArray();
}

} // namespace

void writeSeq2SeqTraceJson(const Seq2SeqRealModel& model, const Seq2SeqTrace& t, int precision,
                           std::ostream& out) {
    JsonWriter w(out);
    beginTraceJson(w, precision, true);
    w.key("model");
    writeModel(w, model);
    w.key("warnings");
    w.beginArray();
    for (const std::string& warning : t.warnings) w.value(warning);
    for (const std::string& warning : model.net->warnings()) w.value(warning);
    w.endArray();
    w.key("sentences");
    w.beginArray();
    writeSentence(w, t);
    w.endArray();
    writeLayers(w, t.run, out);
    w.endObject();
    out << '\n';
}

} // namespace core::models
