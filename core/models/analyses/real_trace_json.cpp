// Writing a real model's v2 trace (real_trace_json.h).
#include "models/analyses/real_trace_json.h"

#include "models/analyses/trace_json_parts.h"

#include "io/json_writer.h"
#include "io/trace_json.h"

#include <algorithm>

namespace core::models {
namespace {

// {theta, scaling, rotated_dims} or null: learned positions.
void writeRope(JsonWriter& w, const RopeSpec& rope) {
    w.key("rope");
    if (rope.empty()) {
        w.null();
        return;
    }
    w.beginObject();
    w.field("theta", Scalar(rope.theta));
    w.field("scaling", rope.type);
    w.field("rotated_dims", rope.dims);
    w.endObject();
}

// [L] each layer's window (0: every earlier key), or null when no layer has one.
void writeWindows(JsonWriter& w, const ModelConfig& c) {
    w.key("sliding_window");
    const std::vector<int>& windows = c.decoder.window;
    if (std::none_of(windows.begin(), windows.end(), [](int v) { return v > 0; })) {
        w.null();
        return;
    }
    w.beginArray();
    for (int v : windows) w.value(v);
    w.endArray();
}

void writeModel(JsonWriter& w, const RealModel& model) {
    const ModelConfig& c = model.config();
    w.beginObject();
    w.field("family", model.family);
    w.field("source", model.location.source);
    w.field("dir", model.location.dir);
    if (!model.location.file.empty()) w.field("file", model.location.file); // a GGUF model's
    w.field("layers", c.layers);
    w.field("heads", c.heads);
    w.field("d_model", c.dModel);
    w.field("d_head", c.headSize());
    w.field("vocab_size", c.vocabSize);
    w.field("n_positions", c.nPositions);
    w.field("dtype", model.dtype());
    w.field("kv_heads", c.kvHeadCount());
    w.field("head_dim", c.headSize());
    writeRope(w, c.decoder.rope);
    writeWindows(w, c);
    if (model.isEncoder()) w.field("mlm_head", model.net->hasHead());
    w.endObject();
}

void writeSentence(JsonWriter& w, const RealModel& model, const RealTrace& t) {
    w.beginObject();
    w.field("text", t.text);
    if (!t.pair.empty()) {
        w.field("pair", t.pair);
        w.field("pair_start", t.pairStart); // the first token of sentence B
    }
    w.key("tokens");
    w.beginArray();
    for (const Token& token : t.tokens.tokens) w.value(token.text);
    w.endArray();
    writeInts(w, "token_ids", t.ids);
    if (model.isEncoder() && model.config().typeVocabSize > 0) writeInts(w, "token_types", t.types);
    if (model.isEncoder()) writeInts(w, "mask_positions", t.maskPositions());
    w.key("predictions"); // decoders: the next token; encoders: the MLM head's token here
    writePredictions(w, t.predictions);
    if (!model.isEncoder()) w.field("loss", Scalar(t.loss));
    w.endObject();
}

// A layer of an attention-only trace: its number (from 1), its heads switched off and the
// weights; what the full v1 object says beside them is left out.
void writeAttentionLayer(JsonWriter& w, const Trace& layer, int number) {
    w.beginObject();
    w.field("layer", number);
    w.key("ablate");
    w.beginArray();
    for (int h = 0; h < int(layer.attention.headAblated.size()); ++h)
        if (layer.attention.headAblated[std::size_t(h)]) w.value(h + 1);
    w.endArray();
    w.key("attention");
    writeAttentionTensor(w, layer);
    w.endObject();
}

} // namespace

void writeRealTraceJson(const RealModel& model, const RealTrace& t,
                        const RealTraceJsonOptions& options, std::ostream& out) {
    JsonWriter w(out);
    beginTraceJson(w, options.precision, options.attentionOnly);
    w.key("model");
    writeModel(w, model);
    w.key("warnings");
    w.beginArray();
    for (const std::string& warning : t.warnings) w.value(warning);
    for (const std::string& warning : model.net->warnings()) w.value(warning);
    w.endArray();
    w.key("sentences");
    w.beginArray();
    writeSentence(w, model, t);
    w.endArray();
    if (options.logits && t.logits.size() > 0) {
        w.key("logits"); // [B][N][V]
        w.tensor3(t.logits, t.logits.rows());
    }
    w.key("layers");
    w.beginArray();
    for (int l = 0; l < t.layerCount(); ++l) {
        const std::shared_ptr<const Trace> layer = t.layer(l); // kept, or recomputed and dropped
        if (options.attentionOnly)
            writeAttentionLayer(w, *layer, l + 1);
        else
            writeTraceObject(w, *layer);
        out.flush(); // layer by layer: a reader sees each as it is written
    }
    w.endArray();
    w.endObject();
    out << '\n';
}

} // namespace core::models
