// Opening a real checkpoint and tracing a sentence through it (real_model.h).
#include "models/real_model.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

namespace core::models {
namespace {

Gpt2Tokenizer readTokenizer(const HfFiles& files) {
    if (!files.vocabJson.empty() && !files.merges.empty())
        return Gpt2Tokenizer::fromVocabAndMerges(files.vocabJson, files.merges);
    if (!files.tokenizerJson.empty()) return Gpt2Tokenizer::fromTokenizerJson(files.tokenizerJson);
    throw std::invalid_argument("no GPT-2 tokenizer: the folder needs vocab.json and merges.txt, "
                                "or tokenizer.json");
}

} // namespace

Scene realModelScene(const RealModel& model, const std::vector<std::string>& sentences) {
    Scene scene;
    scene.sentences = sentences;
    scene.d_model = model.config().dModel;
    scene.heads = model.config().heads;
    scene.mask = MaskKind::Causal;
    scene.scale = ScaleKind::SqrtDHead;
    scene.weights = WeightsKind::Random; // no designed heads; the weights are the checkpoint's
    scene.positional = true;             // learned positions, in layer 1's stream
    return scene;
}

namespace {

// Readable tokens with their byte ranges in the text (the pieces' bytes, back to back).
Tokenized readableTokens(const RealModel& model, const std::string& text,
                         const std::vector<int>& ids) {
    Tokenized t;
    t.text = text;
    std::size_t at = 0;
    for (int id : ids) {
        const std::size_t length = model.tokenizer.bytesOf(id).size();
        t.tokens.push_back({model.tokenizer.readable(id), at, std::min(at + length, text.size())});
        at += length;
    }
    return t;
}

std::vector<std::shared_ptr<const Trace>> layerTraces(const RealModel& model, const RealTrace& r,
                                                      Gpt2Forward& out) {
    Trace base; // what every layer's trace shares
    base.scene = realModelScene(model, {r.text});
    for (int h = 0; h < model.config().heads; ++h)
        base.headNames.push_back("head " + std::to_string(h + 1));
    base.sentences = {r.tokens};
    base.input.queryLen = base.input.keyLen = int(r.ids.size());
    base.input.heads = model.config().heads;
    base.input.causal = true;
    std::vector<std::shared_ptr<const Trace>> layers;
    for (std::size_t l = 0; l < out.layers.size(); ++l) {
        auto layer = std::make_shared<Trace>(base);
        layer->layer = int(l);
        layer->weights = model.weights.blocks[l].attention;
        layer->input.x = std::move(out.attentionInput[l]); // N x d
        layer->attention = std::move(out.layers[l]);
        layers.push_back(std::move(layer));
    }
    return layers;
}

} // namespace

std::unique_ptr<RealModel> openRealModel(const std::string& dirOrName) {
    const auto start = std::chrono::steady_clock::now();
    auto model = std::make_unique<RealModel>();
    model->location = locateModel(dirOrName);
    if (model->location.kind != ModelFolderKind::HuggingFace)
        throw std::invalid_argument(dirOrName + ": a run folder of mha-viz train, not a Hugging "
                                                "Face model");
    const HfFiles files = hfFiles(model->location);
    const ModelConfig config = readModelConfig(files.config);
    model->family = config.modelType;
    model->tokenizer = readTokenizer(files);
    model->weights = loadGpt2Weights(config, files);
    if (model->tokenizer.vocabSize() > config.vocabSize)
        throw std::invalid_argument(
            "the tokenizer has " + std::to_string(model->tokenizer.vocabSize()) +
            " tokens, config.json's vocab_size is " + std::to_string(config.vocabSize));
    model->loadMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return model;
}

namespace {

// topTokens from a row's log-probabilities, which the caller may need for the loss too.
std::vector<TokenChoice> topOfLogProbabilities(const RealModel& model,
                                               const Eigen::RowVectorXd& logp, int k) {
    std::vector<int> order(std::size_t(logp.size()));
    std::iota(order.begin(), order.end(), 0);
    k = std::clamp(k, 0, int(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return logp(a) > logp(b) || (logp(a) == logp(b) && a < b);
    });
    std::vector<TokenChoice> top;
    for (int i = 0; i < k; ++i) {
        const int id = order[std::size_t(i)];
        const bool named = id < model.tokenizer.vocabSize();
        top.push_back({id, named ? model.tokenizer.readable(id) : "<" + std::to_string(id) + ">",
                       float(std::exp(logp(id)))});
    }
    return top;
}

} // namespace

std::vector<TokenChoice> topTokens(const RealModel& model, const Eigen::Ref<const RowVec>& logits,
                                   int k) {
    return topOfLogProbabilities(model, logSoftmax(logits), k);
}

RealTrace traceRealModel(const RealModel& model, const std::string& text,
                         const RealTraceOptions& options) {
    RealTrace r;
    r.text = text;
    r.ids = model.tokenizer.encode(text); // throws for invalid UTF-8
    if (r.ids.empty()) throw std::invalid_argument("the sentence has no tokens");
    const std::size_t context = std::size_t(model.config().nPositions);
    if (r.ids.size() > context) {
        r.warnings.push_back("the text has " + std::to_string(r.ids.size()) +
                             " tokens; kept the first " + std::to_string(context) +
                             " (the model's context)");
        r.ids.resize(context);
    }
    r.tokens = readableTokens(model, text, r.ids);
    Gpt2Options run;
    run.ablated = options.ablated;
    Gpt2Forward out = gpt2Forward(model.weights, r.ids, run);
    const Eigen::Index N = Eigen::Index(r.ids.size());
    for (Eigen::Index i = 0; i < N; ++i) {
        const Eigen::RowVectorXd logp = logSoftmax(out.logits.row(i)); // 1 x V
        r.predictions.push_back(topOfLogProbabilities(model, logp, options.topK));
        if (i + 1 < N) r.loss -= logp(r.ids[std::size_t(i + 1)]);
    }
    if (N > 1) r.loss /= double(N - 1);
    r.layers = layerTraces(model, r, out);
    r.residual = std::move(out.residual);
    if (options.keepLogits) r.logits = std::move(out.logits);
    return r;
}

} // namespace core::models
