// Opening a real checkpoint and tracing a sentence through it (real_model.h).
#include "models/real_model.h"

#include "models/seq2seq_real_model.h"

#include "models/architectures.h"
#include "models/gguf_model.h"
#include "models/real_trace_parts.h"
#include "models/tensor_ops.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace core::models {

std::string RealModel::maskText() const {
    const int id = tokenizer->maskId();
    return id < 0 ? std::string() : tokenizer->readable(id);
}

std::string RealModel::defaultSentence() const {
    if (!isEncoder() || !net->hasHead() || maskText().empty()) return kDefaultRealSentence;
    return "The cat sat on the " + maskText() + " because it was tired.";
}

Scene realModelScene(const RealModel& model, const std::vector<std::string>& sentences) {
    Scene scene;
    scene.sentences = sentences;
    scene.d_model = model.config().dModel;
    scene.heads = model.config().heads;
    scene.mask = model.isEncoder() ? MaskKind::None : MaskKind::Causal;
    scene.scale = ScaleKind::SqrtDHead;
    scene.weights = WeightsKind::Random; // no designed heads; the weights are the checkpoint's
    const ModelConfig& c = model.config();
    scene.kvHeads = c.kvHeadCount();
    // Learned positions are in layer 1's stream; rotary ones turn q and k in every layer.
    scene.positional = c.decoder.rope.empty() ? PositionalKind::Sinusoidal : PositionalKind::Rotary;
    if (!c.decoder.rope.empty()) scene.ropeTheta = c.decoder.rope.theta;
    return scene;
}

std::unique_ptr<RealModel> openRealModel(const std::string& dirOrName) {
    const auto start = std::chrono::steady_clock::now();
    auto model = std::make_unique<RealModel>();
    model->location = locateModel(dirOrName);
    if (model->location.kind == ModelFolderKind::Gguf) return openGgufModel(model->location);
    if (model->location.kind != ModelFolderKind::HuggingFace)
        throw std::invalid_argument(dirOrName + ": a run folder of mha-viz train, not a Hugging "
                                                "Face model");
    if (isSeq2SeqFolder(model->location)) // said plainly, not as an unknown model_type
        throw std::invalid_argument(
            dirOrName + ": an encoder-decoder (T5, BART, Marian): it opens as a model of its "
                        "own (Ctrl+Shift+O, or --model with --target / --generate), not as a "
                        "decoder or an encoder");
    const HfFiles files = hfFiles(model->location);
    const ModelConfig config = readModelConfig(files.config); // a model_type of the registry
    model->family = config.modelType;
    model->architecture = findArchitecture(config.modelType);
    model->tokenizer = model->architecture->openTokenizer(files, config);
    model->net = model->architecture->load(config, files);
    if (model->tokenizer->vocabSize() > config.vocabSize)
        throw std::invalid_argument(
            "the tokenizer has " + std::to_string(model->tokenizer->vocabSize()) +
            " tokens, config.json's vocab_size is " + std::to_string(config.vocabSize));
    model->loadMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return model;
}

namespace {

// topTokens from a row's log-probabilities, which the caller may need for the loss too.
std::vector<TokenChoice> topOfLogProbabilities(const ModelTokenizer& tokenizer,
                                               const Eigen::RowVectorXd& logp, int k) {
    k = std::clamp(k, 0, int(logp.size()));
    const auto before = [&](int a, int b) { // most likely first, then the lower id
        return logp(a) > logp(b) || (logp(a) == logp(b) && a < b);
    };
    std::vector<int> order; // the best k so far, in order: one pass, no sort of V ids
    order.reserve(std::size_t(k) + 1);
    for (int id = 0; id < int(logp.size()) && k > 0; ++id) {
        if (int(order.size()) == k && !before(id, order.back())) continue;
        order.insert(std::upper_bound(order.begin(), order.end(), id, before), id);
        if (int(order.size()) > k) order.pop_back();
    }
    std::vector<TokenChoice> top;
    for (int i = 0; i < k; ++i) {
        const int id = order[std::size_t(i)];
        std::string token; // an id past the tokenizer's (a padded vocabulary): "<50300>"
        if (id < tokenizer.vocabSize())
            token = tokenizer.readable(id);
        else
            token.append("<").append(std::to_string(id)).append(">");
        top.push_back({id, std::move(token), float(std::exp(logp(id)))});
    }
    return top;
}

} // namespace

std::size_t layerTraceBytes(const Transformer& net, std::size_t n) {
    const ModelConfig& c = net.config();
    return 4 * (7 * n * std::size_t(c.dModel) + 2 * std::size_t(c.heads) * n * n) +
           net.traceWeightBytes();
}

std::shared_ptr<const Trace> makeLayerTrace(const RealTrace& r, int l, Attention&& attention,
                                            Mat&& input /* N x d */) {
    const RealModel& model = *r.model;
    auto layer = std::make_shared<Trace>();
    layer->scene = realModelScene(model, {r.text});
    layer->modelWeights =
        "checkpoint " + model.location.source + ", layer " + std::to_string(l + 1);
    for (int h = 0; h < model.config().heads; ++h)
        layer->headNames.push_back("head " + std::to_string(h + 1));
    layer->sentences = {r.tokens};
    layer->input.queryLen = layer->input.keyLen = int(r.ids.size());
    layer->input.heads = model.config().heads;
    layer->input.causal = !model.isEncoder();
    layer->layer = l;
    layer->pairStart = r.pairStart; // the views mark where sentence B starts
    layer->weights = model.net->attentionWeights(l);
    layer->input.rotation = model.net->rotationOf(l, int(r.ids.size()));
    layer->input.x = std::move(input);
    layer->attention = std::move(attention);
    return layer;
}

Mat headMap(const Attention& a, int h) {
    return a.attention.middleRows(a.headRow(0, h), a.queryLen);
}

Mat firstKeyColumn(const Attention& a) {
    Mat column(a.queryLen, a.heads); // rows x H
    for (int h = 0; h < a.heads; ++h)
        column.col(h) = a.attention.block(a.headRow(0, h), 0, a.queryLen, 1);
    return column;
}

void stopIfCancelled(const RealTraceOptions& options) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw TraceCancelled();
}

void predictRows(const RealModel& model, const Mat& logits, int first, int topK, RealTrace& r) {
    const int N = int(r.ids.size()), rows = int(logits.rows());
    std::vector<std::vector<TokenChoice>> top(std::size_t(rows), std::vector<TokenChoice>{});
    std::vector<double> target(std::size_t(rows), 0.0);
    // Rows are independent: spread over the cores (a pasted text's thousand rows of V).
#pragma omp parallel for schedule(dynamic, 8) if (rows > 16)
    for (int i = 0; i < rows; ++i) {
        const Eigen::RowVectorXd logp = logSoftmax(logits.row(i)); // 1 x V
        top[std::size_t(i)] = topOfLogProbabilities(*model.tokenizer, logp, topK);
        if (first + i + 1 < N) target[std::size_t(i)] = logp(r.ids[std::size_t(first + i + 1)]);
    }
    for (int i = 0; i < rows; ++i) {
        r.predictions.push_back(std::move(top[std::size_t(i)]));
        if (!model.isEncoder() && first + i + 1 < N)
            r.targetLogProbs.push_back(target[std::size_t(i)]);
    }
}

void finishLoss(const RealModel& model, RealTrace& r) {
    r.loss = 0;
    if (model.isEncoder()) {
        r.loss = std::nan("");
        return;
    }
    for (double logp : r.targetLogProbs) r.loss -= logp; // in order: the same sum every way
    if (!r.targetLogProbs.empty()) r.loss /= double(r.targetLogProbs.size());
}

std::shared_ptr<const RealTrace> withPredictions(std::shared_ptr<const RealTrace> r,
                                                 const RealTraceOptions& options) {
    if (!r || !r->predictionsPending) return r;
    RealTrace made; // the predictions alone, until they are whole
    made.model = r->model, made.ids = r->ids;
    const RealModel& model = *r->model;
    const Mat& last = r->residual.back(); // N x d
    // In blocks of rows, so that text typed meanwhile stops it within a block's time.
    constexpr Eigen::Index kRows = 128;
    for (Eigen::Index a = 0; a < last.rows(); a += kRows) {
        stopIfCancelled(options);
        const Eigen::Index rows = std::min(kRows, last.rows() - a);
        predictRows(model, model.net->head(last.middleRows(a, rows)), int(a), r->topK, made);
    }
    stopIfCancelled(options);
    auto done = std::make_shared<RealTrace>(*r); // copied once, when it is kept
    done->predictionsPending = false;
    done->predictions = std::move(made.predictions);
    done->targetLogProbs = std::move(made.targetLogProbs);
    finishLoss(model, *done);
    return done;
}

std::vector<TokenChoice> topTokens(const RealModel& model, const Eigen::Ref<const RowVec>& logits,
                                   int k) {
    return topOfLogProbabilities(*model.tokenizer, logSoftmax(logits), k);
}

std::vector<TokenChoice> topTokens(const ModelTokenizer& tokenizer,
                                   const Eigen::Ref<const RowVec>& logits, int k) {
    return topOfLogProbabilities(tokenizer, logSoftmax(logits), k);
}

namespace {

// Per layer as the forward makes it: the mean over heads and the thumbnails always, a decoder's
// keys and values, the whole trace while the budget lasts.
void keepLayer(RealTrace& r, std::size_t& budget, int l, Attention&& attention, Mat&& input) {
    const int n = attention.queryLen;
    Mat mean = Mat::Zero(n, n); // N x N
    for (int h = 0; h < attention.heads; ++h) {
        const Mat map = headMap(attention, h); // N x N
        mean += map;
        r.thumbnails.push_back(poolMap(map, r.thumbnailStep));
    }
    r.meanAttention.push_back(mean / Scalar(std::max(attention.heads, 1)));
    r.firstKeyWeights.push_back(firstKeyColumn(attention));
    if (attention.causal) { // what a longer text's trace starts from
        r.keys.push_back(attention.k);
        r.values.push_back(attention.v);
    }
    const std::size_t bytes = layerTraceBytes(*r.model->net, std::size_t(n));
    if (bytes <= budget || r.layers.empty()) { // layer 1 always: the views' labels and mask
        budget -= std::min(bytes, budget);
        r.layers.push_back(makeLayerTrace(r, l, std::move(attention), std::move(input)));
    } else {
        budget = 0; // later layers are not kept either: what is kept is a prefix
        r.layers.push_back(nullptr);
    }
}

// The first layer whose switched-off heads differ between `resume` and `options` (L when none
// does), or 0 when `resume` is not a trace of this model on exactly these ids.
int firstChangedLayer(const RealTrace& r, const RealTraceOptions& options) {
    const RealTrace* old = options.resume.get();
    if (!old || old->model != r.model || old->ids != r.ids || old->types != r.types ||
        old->layerCount() != r.model->config().layers ||
        int(old->firstKeyWeights.size()) != old->layerCount() ||
        old->thumbnails.size() != std::size_t(old->layerCount() * r.model->config().heads) ||
        old->thumbnailStep != r.thumbnailStep || old->topK != r.topK)
        return 0;
    int l = 0;
    while (l < old->layerCount() && ablatedIn(old->ablated, l) == ablatedIn(options.ablated, l))
        ++l;
    return l;
}

// Layers [0, first) of the resumed trace, as they were: their streams, traces and maps.
void takeLayers(RealTrace& r, const RealTrace& old, int first, std::size_t& budget) {
    const std::size_t heads = std::size_t(r.model->config().heads);
    for (int l = 0; l < first; ++l) {
        r.residual.push_back(old.residual[std::size_t(l)]);
        r.meanAttention.push_back(old.meanAttention[std::size_t(l)]);
        r.firstKeyWeights.push_back(old.firstKeyWeights[std::size_t(l)]);
        if (std::size_t(l) < old.keys.size()) {
            r.keys.push_back(old.keys[std::size_t(l)]);
            r.values.push_back(old.values[std::size_t(l)]);
        }
        r.layers.push_back(std::size_t(l) < old.layers.size() ? old.layers[std::size_t(l)]
                                                              : nullptr);
        if (r.layers.back())
            budget -= std::min(budget, layerTraceBytes(*r.model->net, r.ids.size()));
        else
            budget = 0; // what is kept stays a prefix
    }
    r.thumbnails.assign(old.thumbnails.begin(), old.thumbnails.begin() + first * heads);
}

// The trace of r's tokens through every layer, or from the first whose switches changed.
void traceLayers(RealTrace& r, const RealTraceOptions& options) {
    const RealModel& model = *r.model;
    ForwardOptions run;
    run.ablated = options.ablated;
    run.logits = !options.deferPredictions || options.keepLogits;
    r.predictionsPending = !run.logits && model.net->hasHead();
    if (r.predictionsPending) r.loss = std::nan("");
    std::size_t budget = options.keepBytes;
    const int first = firstChangedLayer(r, options);
    if (first > 0) takeLayers(r, *options.resume, first, budget);
    const LayerSink sink = [&](int l, Attention&& attention, Mat&& input) {
        keepLayer(r, budget, l, std::move(attention), std::move(input));
        stopIfCancelled(options);
    };
    stopIfCancelled(options);
    ForwardResult out =
        first > 0 ? runForwardFrom(*model.net, options.resume->residual[std::size_t(first)], first,
                                   r.ids, r.types, run, sink)
                  : runForward(*model.net, r.ids, r.types, run, sink);
    if (out.logits.size() > 0) {
        predictRows(model, out.logits, 0, options.topK, r);
        finishLoss(model, r);
    }
    for (Mat& stream : out.stream) r.residual.push_back(std::move(stream));
    if (options.keepLogits) r.logits = std::move(out.logits);
}

} // namespace

RealTrace traceRealModel(const RealModel& model, const std::string& text,
                         const RealTraceOptions& options) {
    RealTrace r;
    r.model = &model;
    r.text = text, r.pair = options.pair;
    Encoding e = model.tokenizer->encode(text, options.pair.empty() ? nullptr : &options.pair,
                                         model.config().nPositions); // throws for bad text
    if (e.ids.empty()) throw std::invalid_argument("the sentence has no tokens");
    r.ids = std::move(e.ids), r.types = std::move(e.types), r.tokens = std::move(e.tokens);
    r.special = std::move(e.special), r.pairStart = e.pairStart;
    r.warnings = std::move(e.warnings);
    r.ablated = options.ablated;
    r.topK = options.topK;
    r.thumbnailStep = thumbnailStep(Eigen::Index(r.ids.size()), options.thumbnailSide);
    if (const int first = reusableRows(r, options); first > 0)
        traceAfterPrefix(r, first, options); // a decoder's text with more at its end
    else
        traceLayers(r, options);
    return r;
}

std::shared_ptr<const Trace> RealTrace::layer(int l) const {
    if (l < 0 || l >= layerCount())
        throw std::invalid_argument("no layer " + std::to_string(l + 1) + " in the trace");
    if (std::size_t(l) < layers.size() && layers[std::size_t(l)]) return layers[std::size_t(l)];
    Mat stream = residual[std::size_t(l)]; // N x d: exactly what the forward gave the layer
    Attention attention;
    Mat input;
    model->net->layer(l, stream, ablatedIn(ablated, l), attention, input);
    return makeLayerTrace(*this, l, std::move(attention), std::move(input));
}

std::vector<int> RealTrace::maskPositions() const {
    std::vector<int> positions;
    const int mask = model ? model->tokenizer->maskId() : -1;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (mask >= 0 && ids[i] == mask) positions.push_back(int(i));
    return positions;
}

int thumbnailStep(Eigen::Index n, int side) {
    side = std::max(side, 1);
    return n <= side ? 1 : int((n + side - 1) / side);
}

Mat poolMap(const Mat& map, Eigen::Index step) {
    if (step <= 1) return map;
    const Eigen::Index rows = (map.rows() + step - 1) / step, cols = (map.cols() + step - 1) / step;
    Mat out(rows, cols); // rows x cols, each cell a step x step block's largest
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j) {
            const Eigen::Index h = std::min(step, map.rows() - i * step);
            const Eigen::Index w = std::min(step, map.cols() - j * step);
            out(i, j) = map.block(i * step, j * step, h, w).maxCoeff();
        }
    return out;
}

Mat thumbnailOf(const Mat& map, int side) {
    return poolMap(map, thumbnailStep(std::max(map.rows(), map.cols()), side));
}

} // namespace core::models
