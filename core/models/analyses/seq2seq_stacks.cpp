// An encoder-decoder's trace as the window's stacks, its scrubbed prefixes and the cross heads'
// detectors (seq2seq_stacks.h).
#include "models/analyses/seq2seq_stacks.h"

#include "models/tensor_ops.h"

#include <algorithm>
#include <cmath>

namespace core::models {
namespace {

const char* kindName(Seq2SeqKind kind) {
    return kind == Seq2SeqKind::Encoder       ? "encoder"
           : kind == Seq2SeqKind::DecoderSelf ? "decoder"
                                              : "cross-attention";
}

// What every layer of one kind shares as a trace.
struct StackParts {
    const Seq2SeqRealModel& model;
    Seq2SeqKind kind;
    const Tokenized& queries;
    const Tokenized* keys; // the source tokens of cross-attention, else null
    const Mat& encoded;    // Ns x d: what the cross-attention's keys and values read
};

} // namespace

Scene seq2seqLayerScene(const Seq2SeqRealModel& model, Seq2SeqKind kind) {
    const ModelConfig& c = model.config().base;
    Scene scene;
    scene.d_model = c.dModel;
    scene.heads = c.heads;
    scene.mask = kind == Seq2SeqKind::DecoderSelf ? MaskKind::Causal : MaskKind::None;
    // T5 folds the scale into its weights.
    const bool t5 = std::string(model.architecture->name) == "T5";
    scene.scale = t5 ? ScaleKind::None : ScaleKind::SqrtDHead;
    scene.weights = WeightsKind::Random; // never drawn: the trace holds the checkpoint's
    // T5's positions are a bias on the scores; BART's and Marian's are in the stream.
    scene.positional = t5 ? PositionalKind::None : PositionalKind::Sinusoidal;
    return scene;
}

namespace {

// The scene a kind's layers show in the controls: the model's sizes, its mask and scale.
Scene stackScene(const StackParts& p) {
    Scene scene = seq2seqLayerScene(p.model, p.kind);
    scene.sentences = {p.queries.text};
    if (p.keys) scene.sources = {p.keys->text};
    return scene;
}

// Layer l of a kind as the engine's trace: what its attention read, its projections, its run.
std::shared_ptr<const Trace> layerTrace(const StackParts& p, int l, const Attention& a,
                                        const Mat& read /* n x d */) {
    auto t = std::make_shared<Trace>();
    t->scene = stackScene(p);
    t->modelWeights = "checkpoint " + p.model.location.source + ", " + kindName(p.kind) +
                      " layer " + std::to_string(l + 1);
    for (int h = 0; h < a.heads; ++h) t->headNames.push_back("head " + std::to_string(h + 1));
    t->sentences = {p.queries};
    if (p.keys) t->sources = {*p.keys};
    t->layer = l;
    t->weights = p.model.net->attentionWeights(p.kind, l);
    t->input.batch = 1, t->input.queryLen = a.queryLen, t->input.keyLen = a.keyLen;
    t->input.heads = a.heads, t->input.causal = a.causal;
    t->input.x = read;
    if (p.keys) t->input.xSource = p.encoded;
    t->attention = a;
    return t;
}

SavedStackView stackOf(const StackParts& p, const std::vector<Attention>& layers,
                       const std::vector<Mat>& read) {
    SavedStackView view;
    view.causal = p.kind == Seq2SeqKind::DecoderSelf;
    view.heads = p.model.config().base.heads;
    for (std::size_t l = 0; l < layers.size(); ++l)
        view.layers.push_back(layerTrace(p, int(l), layers[l], read.at(l)));
    return view;
}

} // namespace

std::shared_ptr<const SavedAttention> seq2seqStacks(const Seq2SeqRealModel& model,
                                                    const Seq2SeqTrace& trace,
                                                    const SavedAttention* sameSource) {
    auto s = std::make_shared<SavedAttention>();
    s->path = model.location.source;
    s->name = model.location.source;
    s->dtype = model.net->dtype();
    s->tokensFrom = "the model's tokenizer";
    s->tokens = joinTokens(trace.decoderTokens);
    s->ids = trace.decoderInput;
    s->sourceTokens = trace.source.tokens;
    s->sourceIds = trace.source.ids;
    s->warnings = trace.warnings;
    const Seq2SeqRun& r = trace.run;
    using K = Seq2SeqKind;
    s->self =
        stackOf({model, K::DecoderSelf, s->tokens, nullptr, r.encoded}, r.decoderSelf, r.selfRead);
    if (sameSource) // the encoder's traces and analyses are shared, not made again
        s->encoder = sameSource->encoder;
    else
        s->encoder = stackOf({model, K::Encoder, s->sourceTokens, nullptr, r.encoded}, r.encoder,
                             r.encoderRead);
    s->cross =
        stackOf({model, K::Cross, s->tokens, &s->sourceTokens, r.encoded}, r.cross, r.crossRead);
    analyseSavedStack(s->self, s->ids, true);
    if (!sameSource) analyseSavedStack(s->encoder, s->sourceIds, true);
    analyseSavedStack(s->cross, {}, false);
    s->cross.detectors = detectCrossHeads(s->cross.layers);
    return s;
}

namespace {

// Each head's first n query rows of a (H*N) x cols block matrix: (H*n) x cols.
Mat headRows(const Mat& m, int heads, int N, int n, Eigen::Index cols) {
    if (m.size() == 0) return m;
    Mat out(Eigen::Index(heads) * n, cols); // (H*n) x cols
    for (int h = 0; h < heads; ++h)
        out.middleRows(Eigen::Index(h) * n, n) =
            m.block(Eigen::Index(h) * N, 0, n, std::min<Eigen::Index>(cols, m.cols()));
    return out;
}

// A decoder attention's first n queries (and, causal, its first n keys).
void firstQueries(Attention& a, int n) {
    const int N = a.queryLen;
    const Eigen::Index keys = a.causal ? n : a.keyLen;
    a.q.conservativeResize(n, Eigen::NoChange);
    if (a.causal)
        a.k.conservativeResize(n, Eigen::NoChange), a.v.conservativeResize(n, Eigen::NoChange);
    a.scores = headRows(a.scores, a.heads, N, n, keys);
    a.attention = headRows(a.attention, a.heads, N, n, keys);
    a.headOutputs = headRows(a.headOutputs, a.heads, N, n, a.headOutputs.cols());
    a.concat.conservativeResize(n, Eigen::NoChange);
    a.output.conservativeResize(n, Eigen::NoChange);
    if (a.outputShift.size() > 0) a.outputShift.conservativeResize(n);
    a.queryLen = n;
    if (a.causal) a.keyLen = n;
}

} // namespace

Seq2SeqTrace firstTargetTokens(const Seq2SeqTrace& trace, int tokens) {
    const int all = int(trace.labels.size());
    Seq2SeqTrace t = trace;
    const int n = std::clamp(tokens, 1, std::max(1, all));
    if (n >= all) return t;
    t.labels.resize(std::size_t(n));
    t.decoderInput.resize(std::size_t(n));
    t.decoderTokens.resize(std::size_t(n));
    if (t.predictions.size() > std::size_t(n)) t.predictions.resize(std::size_t(n));
    for (Attention& a : t.run.decoderSelf) firstQueries(a, n);
    for (Attention& a : t.run.cross) firstQueries(a, n);
    for (Mat& m : t.run.selfRead) m.conservativeResize(n, Eigen::NoChange);
    for (Mat& m : t.run.crossRead) m.conservativeResize(n, Eigen::NoChange);
    t.run.logits.conservativeResize(n, Eigen::NoChange);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum -= logSoftmax(t.run.logits.row(i))(t.labels[std::size_t(i)]);
    t.loss = sum / double(n);
    return t;
}

std::vector<HeadDetectorScores>
detectCrossHeads(const std::vector<std::shared_ptr<const Trace>>& cross) {
    if (cross.empty()) return {};
    const Attention& first = cross.front()->attention;
    const int L = int(cross.size()), H = first.heads, Nt = first.queryLen, Ns = first.keyLen;
    HeadDetectorScores diagonal{"diagonal", Mat::Zero(L, H),
                                "share of each target token's attention within one source token "
                                "of the diagonal scaled to both lengths (a monotonic alignment)"};
    HeadDetectorScores sharp{"sharp", Mat::Zero(L, H),
                             "1 - each target token's attention entropy / log(source tokens): 1 "
                             "when it reads one source token, 0 when it spreads evenly"};
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            const Attention& a = cross[std::size_t(l)]->attention;
            double near = 0, focus = 0;
            for (int i = 0; i < Nt; ++i) {
                const auto row = a.attention.row(a.headRow(0, h, i)); // 1 x Ns
                const double centre = Nt > 1 ? double(i) * (Ns - 1) / (Nt - 1) : 0.0;
                double entropy = 0;
                for (int j = 0; j < Ns; ++j) {
                    const double w = double(row(j));
                    if (std::abs(j - centre) <= 1.0) near += w;
                    if (w > 0) entropy -= w * std::log(w);
                }
                focus += Ns > 1 ? 1.0 - entropy / std::log(double(Ns)) : 1.0;
            }
            diagonal.scores(l, h) = Scalar(near / Nt), sharp.scores(l, h) = Scalar(focus / Nt);
        }
    diagonal.onSentence = sharp.onSentence = true;
    return {diagonal, sharp};
}

std::string writtenText(const Seq2SeqRealModel& model, const std::vector<int>& ids) {
    const std::string_view mark = "\u2423"; // a space as readable() shows it
    std::string text;
    for (int id : ids) {
        if (id == model.config().eosId) continue;
        const std::string token = model.target->readable(id);
        for (std::size_t at = 0; at < token.size();) {
            const bool space = std::string_view(token).substr(at, mark.size()) == mark;
            if (!(space && text.empty())) text.push_back(space ? ' ' : token[at]);
            at += space ? mark.size() : 1;
        }
    }
    return text;
}

} // namespace core::models
