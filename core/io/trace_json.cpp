#include "io/trace_json.h"

#include "io/json_writer.h"

#include <cmath>
#include <sstream>
#include <utility>

namespace core {

namespace {

void writeSentences(JsonWriter& w, const std::vector<Tokenized>& sentences) {
    w.beginArray();
    for (const Tokenized& s : sentences) {
        w.beginObject();
        w.key("text");
        w.value(s.text);
        w.key("tokens");
        w.beginArray();
        for (const Token& t : s.tokens) w.value(t.text);
        w.endArray();
        if (s.droppedTokens > 0) {
            w.key("dropped_tokens");
            w.value(static_cast<unsigned long long>(s.droppedTokens));
        }
        w.endObject();
    }
    w.endArray();
}

// [B][H][N][cols]: per-head tensors stack (b, h) blocks of N rows.
void writePerHead(JsonWriter& w, const Mat& m, const Attention& a) {
    w.beginArray();
    for (int b = 0; b < a.batch; ++b) {
        w.beginArray();
        for (int h = 0; h < a.heads; ++h) w.matrix(m, a.headRow(b, h), a.queryLen);
        w.endArray();
    }
    w.endArray();
}

void writeBoolMatrix(JsonWriter& w, const BoolMat& m) {
    w.beginArray();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        w.beginArray();
        for (Eigen::Index c = 0; c < m.cols(); ++c) w.value(bool(m(r, c)));
        w.endArray();
    }
    w.endArray();
}

// "rope": {theta, dims, layout} when q and k were turned by rotary positions, else null.
void writeRope(JsonWriter& w, const Trace& t) {
    w.key("rope");
    const Rotation& r = t.input.rotation;
    if (r.empty()) return w.null();
    w.beginObject();
    const double theta = t.scene.ropeTheta;
    if (theta == std::floor(theta)) // 10000, 500000: whole, and exact as integers
        w.field("theta", static_cast<long long>(theta));
    else
        w.field("theta", Scalar(theta));
    w.field("dims", r.dims());
    w.field("layout", r.interleaved ? "interleaved" : "rotate_half");
    w.endObject();
}

// config: every setting that changes the numbers (docs/trace-json.md, "Version 1"). A layer of
// a model has no seed, weights kind or positional switch of a scene: "weights" is "model" and
// "weights_from" says whose.
void writeConfig(JsonWriter& w, const Trace& t) {
    const Scene& s = t.scene;
    const Attention& a = t.attention;
    w.beginObject();
    if (!t.weights && t.isModelLayer()) { // attention saved elsewhere: only what its maps say
        w.field("heads", a.heads);
        w.field("mask", toString(s.mask));
        w.field("weights", "none");
        w.field("weights_from", t.modelWeights);
        w.field("cross", s.isCross());
        w.endObject();
        return;
    }
    w.field("d_model", s.d_model);
    w.field("heads", s.heads);
    w.field("d_head", t.isModelLayer() ? a.d_head : s.dHead());
    w.field("mask", toString(s.mask));
    w.field("scale", toString(s.scale));
    if (t.isModelLayer()) {
        w.field("weights", "model");
        w.field("weights_from", t.modelWeights);
    } else {
        w.field("seed", static_cast<unsigned long long>(s.seed));
        w.field("weights", toString(s.weights));
        w.field("positional", positionalInUse(s) == PositionalKind::Sinusoidal); // added to x
        writeRope(w, t);
    }
    w.field("kv_heads", a.kvHeads);
    w.field("cross", s.isCross());
    w.field("out_proj", s.outProjection);
    w.key("ablate");
    w.beginArray();
    if (t.isModelLayer()) { // numbered from 1, as the CLI and the window show them
        for (int h = 0; h < int(a.headAblated.size()); ++h)
            if (a.headAblated[std::size_t(h)]) w.value(h + 1);
    } else {
        for (int h : s.ablatedHeads) w.value(h + 1);
    }
    w.endArray();
    w.field("reshape_bug", s.reshapeBug);
    w.endObject();
}

// x .. output: every tensor of the forward, in the order it is computed.
void writeTensors(JsonWriter& w, const Trace& t) {
    const Scene& s = t.scene;
    const Attention& a = t.attention;
    if (!t.weights) { // attention saved elsewhere: the weights are all it holds
        w.key("attention");
        writePerHead(w, a.attention, a);
        return;
    }
    w.key("x");
    w.tensor3(t.input.x, a.queryLen);
    if (s.isCross()) {
        w.key("x_source");
        w.tensor3(t.input.xSource, a.keyLen);
    }
    w.key("w_q");
    w.matrix(t.weights->wQ);
    w.key("w_k");
    w.matrix(t.weights->wK);
    w.key("w_v");
    w.matrix(t.weights->wV);
    w.key("w_o");
    w.matrix(t.weights->wO);
    // A real checkpoint's biases (q = x w_q + b_q ...); the toy weights have none.
    const std::pair<const char*, const RowVec*> biases[] = {{"b_q", &t.weights->bQ},
                                                            {"b_k", &t.weights->bK},
                                                            {"b_v", &t.weights->bV},
                                                            {"b_o", &t.weights->bO}};
    for (const auto& [name, bias] : biases)
        if (bias->size() > 0) {
            w.key(name);
            w.matrix(Mat(*bias)); // 1 x d_model
        }
    w.key("key_padding");
    writeBoolMatrix(w, a.keyPadding);
    w.key("q");
    w.tensor3(a.q, a.queryLen);
    w.key("k");
    w.tensor3(a.k, a.keyLen);
    w.key("v");
    w.tensor3(a.v, a.keyLen);
    w.key("scores");
    writePerHead(w, a.scores, a);
    w.key("attention");
    writePerHead(w, a.attention, a);
    w.key("head_outputs");
    writePerHead(w, a.headOutputs, a);
    w.key("concat");
    w.tensor3(a.concat, a.queryLen);
    w.key("output");
    w.tensor3(a.output, a.queryLen);
    if (a.outputShift.size() > 0) { // only when some head is ablated
        w.key("output_shift");
        w.beginArray();
        for (int b = 0; b < a.batch; ++b) {
            w.beginArray();
            for (int i = 0; i < a.queryLen; ++i)
                w.value(a.outputShift[Eigen::Index(b) * a.queryLen + i]);
            w.endArray();
        }
        w.endArray();
    }
}

// The whole v1 object, written into `w`: a file of its own, or an entry of v2's "layers".
void traceObject(JsonWriter& w, const Trace& t) {
    w.beginObject();
    w.field("format", "mha-trace");
    w.field("version", kTraceJsonVersion);
    w.key("config");
    writeConfig(w, t);
    w.key("head_names");
    w.beginArray();
    for (const std::string& name : t.headNames) w.value(name);
    w.endArray();
    w.key("warnings");
    w.beginArray();
    for (const std::string& warning : t.warnings) w.value(warning);
    w.endArray();
    w.key("sentences");
    writeSentences(w, t.sentences);
    if (t.scene.isCross()) {
        w.key("sources");
        writeSentences(w, t.sources);
    }
    writeTensors(w, t);
    w.endObject();
}

// model: what the v2 trace was computed with.
void writeModel(JsonWriter& w, const TrainedRun& run) {
    const train::ModelConfig& c = run.model.config;
    w.beginObject();
    w.field("task", toString(run.task));
    w.field("vocab_size", c.vocab);
    w.field("d_model", c.d_model);
    w.field("heads", c.heads);
    w.field("d_head", c.dHead());
    w.field("layers", c.layers);
    w.field("seq", c.seq);
    w.field("seed", static_cast<unsigned long long>(run.model.seed));
    w.field("step", run.step);
    w.field("run", run.dir);
    w.endObject();
}

// sentences of v2: in-vocab tokens with their ids, the unknown words, the top predictions.
void writeModelSentences(JsonWriter& w, const ModelTrace& t, const TrainedRun& run) {
    w.beginArray();
    for (const ModelSentence& s : t.sentences) {
        w.beginObject();
        w.field("text", s.tokens.text);
        w.key("tokens");
        w.beginArray();
        for (const Token& token : s.tokens.tokens) w.value(token.text);
        w.endArray();
        w.key("token_ids");
        w.beginArray();
        for (int id : s.ids) w.value(id);
        w.endArray();
        w.key("unknown");
        w.beginArray();
        for (const std::string& word : s.unknown) w.value(word);
        w.endArray();
        if (s.tokens.droppedTokens > 0)
            w.field("dropped_tokens", static_cast<unsigned long long>(s.tokens.droppedTokens));
        w.key("predictions");
        w.beginArray();
        for (const Prediction& p : s.predictions) {
            w.beginObject();
            w.field("token", run.model.vocab[std::size_t(p.token)]);
            w.field("probability", p.probability);
            w.endObject();
        }
        w.endArray();
        w.endObject();
    }
    w.endArray();
}

} // namespace

void writeTraceObject(JsonWriter& w, const Trace& t) {
    traceObject(w, t);
}

void writeAttentionTensor(JsonWriter& w, const Trace& t) {
    writePerHead(w, t.attention.attention, t.attention);
}

void writeAttentionTensor(JsonWriter& w, const Attention& a) {
    writePerHead(w, a.attention, a);
}

void writeTraceJson(const Trace& t, std::ostream& out) {
    JsonWriter w(out);
    traceObject(w, t);
    out << '\n';
}

void writeModelTraceJson(const ModelTrace& t, const TrainedRun& run, std::ostream& out) {
    JsonWriter w(out);
    w.beginObject();
    w.field("format", "mha-trace");
    w.field("version", kModelTraceJsonVersion);
    w.key("model");
    writeModel(w, run);
    w.key("warnings");
    w.beginArray();
    for (const std::string& warning : t.warnings) w.value(warning);
    w.endArray();
    w.key("sentences");
    writeModelSentences(w, t, run);
    w.key("logits"); // [B][N][V]
    w.tensor3(t.logits, t.layers.empty() ? 1 : t.layers.front()->queryLen());
    w.key("layers");
    w.beginArray();
    for (const std::shared_ptr<const Trace>& layer : t.layers) traceObject(w, *layer);
    w.endArray();
    w.endObject();
    out << '\n';
}

std::string modelTraceJson(const ModelTrace& trace, const TrainedRun& run) {
    std::ostringstream out;
    writeModelTraceJson(trace, run, out);
    return out.str();
}

std::string traceJson(const Trace& trace) {
    std::ostringstream out;
    writeTraceJson(trace, out);
    return out.str();
}

} // namespace core
