#include "io/trace_json.h"

#include "io/json_writer.h"

#include <sstream>

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

// config: every setting that changes the numbers (README, "Trace JSON").
void writeConfig(JsonWriter& w, const Scene& s) {
    w.beginObject();
    w.field("d_model", s.d_model);
    w.field("heads", s.heads);
    w.field("d_head", s.dHead());
    w.field("mask", toString(s.mask));
    w.field("scale", toString(s.scale));
    w.field("seed", static_cast<unsigned long long>(s.seed));
    w.field("weights", toString(s.weights));
    w.field("positional", s.positional);
    w.field("cross", s.isCross());
    w.field("out_proj", s.outProjection);
    w.key("ablate");
    w.beginArray();
    for (int h : s.ablatedHeads) w.value(h + 1); // numbered from 1, as the CLI and UI show them
    w.endArray();
    w.field("reshape_bug", s.reshapeBug);
    w.endObject();
}

// x .. output: every tensor of the forward, in the order it is computed.
void writeTensors(JsonWriter& w, const Trace& t) {
    const Scene& s = t.scene;
    const Attention& a = t.attention;
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

} // namespace

void writeTraceJson(const Trace& t, std::ostream& out) {
    JsonWriter w(out);
    w.beginObject();
    w.field("format", "mha-trace");
    w.field("version", kTraceJsonVersion);
    w.key("config");
    writeConfig(w, t.scene);
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
    out << '\n';
}

std::string traceJson(const Trace& trace) {
    std::ostringstream out;
    writeTraceJson(trace, out);
    return out.str();
}

} // namespace core
