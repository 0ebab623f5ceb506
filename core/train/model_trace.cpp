#include "train/model_trace.h"

#include "engine/scene.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace core::train {

namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw std::invalid_argument(message);
}

std::string asciiLower(std::string text) {
    for (char& c : text)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return text;
}

// What the error for a sentence without a known word shows of the vocabulary.
std::string vocabSample(const std::vector<std::string>& vocab) {
    std::string text;
    const std::size_t shown = std::min<std::size_t>(vocab.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) text += (i ? " " : "") + vocab[i];
    if (shown < vocab.size()) text += " ... " + vocab.back();
    return text;
}

int lookUp(const std::vector<std::string>& vocab, const std::string& word) {
    const auto exact = std::find(vocab.begin(), vocab.end(), word);
    if (exact != vocab.end()) return int(exact - vocab.begin());
    const auto lower = std::find(vocab.begin(), vocab.end(), asciiLower(word));
    return lower != vocab.end() ? int(lower - vocab.begin()) : -1;
}

// x0 = embed[id] + pos[t] for every real token, as forwardPass embeds; padded rows stay 0.
Mat embedSentences(const TrainedModel& model, const std::vector<ModelSentence>& sentences,
                   int len) {
    Mat x = Mat::Zero(Eigen::Index(sentences.size()) * len, model.config.d_model); // (B*N) x D
    for (std::size_t b = 0; b < sentences.size(); ++b)
        for (std::size_t t = 0; t < sentences[b].ids.size(); ++t)
            x.row(Eigen::Index(b) * len + Eigen::Index(t)) =
                model.embed.row(sentences[b].ids[t]) + model.pos.row(Eigen::Index(t));
    return x;
}

// The scene every layer's trace carries: what the window's controls show, read-only.
Scene modelScene(const TrainedModel& model, const std::vector<std::string>& texts) {
    Scene scene;
    scene.sentences = texts;
    scene.d_model = model.config.d_model;
    scene.heads = model.config.heads;
    scene.mask = MaskKind::Causal;
    scene.scale = ScaleKind::SqrtDHead;
    scene.seed = model.seed;
    scene.weights = WeightsKind::Random; // no designed heads; the weights are the checkpoint's
    scene.positional = PositionalKind::Sinusoidal; // learned positions, in layer 1's x
    return scene;
}

// Argmax of each real position's logits, with its softmax probability.
void predict(const Mat& logits /* (B*N) x V */, int len, std::vector<ModelSentence>& sentences) {
    for (std::size_t b = 0; b < sentences.size(); ++b) {
        ModelSentence& s = sentences[b];
        s.predictions.clear();
        for (std::size_t t = 0; t < s.ids.size(); ++t) {
            const auto row = logits.row(Eigen::Index(b) * len + Eigen::Index(t)); // 1 x V
            Eigen::Index best = 0;
            const Scalar top = row.maxCoeff(&best);
            const Scalar sum = (row.array() - top).exp().sum();
            s.predictions.push_back({int(best), float(1.0 / sum)});
        }
    }
}

void checkBatch(const TrainedModel& model, const std::vector<std::string>& sentences) {
    if (sentences.empty()) refuse("no sentence given");
    if (sentences.size() > std::size_t(kMaxSentences))
        refuse("got " + std::to_string(sentences.size()) + " sentences (at most " +
               std::to_string(kMaxSentences) + ")");
    const double cells =
        double(sentences.size()) * model.config.heads * model.config.seq * double(model.config.seq);
    if (cells > double(kMaxAttentionCells))
        refuse("too many sentences for this model: B*H*seq*seq = " +
               std::to_string(static_cast<long long>(cells)) + " attention weights (at most " +
               std::to_string(kMaxAttentionCells) + ")");
}

} // namespace

TrainedModel makeTrainedModel(const ModelConfig& config, std::vector<std::string> vocab,
                              std::uint64_t seed, Params params) {
    validate(config);
    if (int(vocab.size()) != config.vocab)
        refuse("the vocabulary has " + std::to_string(vocab.size()) + " tokens, the model " +
               std::to_string(config.vocab));
    const Params expected = zeroParams(config); // the shapes the params must have
    const auto want = namedTensors(expected);
    const auto have = namedTensors(std::as_const(params));
    for (std::size_t i = 0; i < want.size(); ++i)
        if (i >= have.size() || have[i].tensor->rows() != want[i].tensor->rows() ||
            have[i].tensor->cols() != want[i].tensor->cols())
            refuse("parameter " + want[i].name + " does not have the model's shape");
    TrainedModel model{
        config, std::move(vocab),         seed, std::move(params.embed), std::move(params.pos),
        {},     std::move(params.unembed)};
    for (Weights& w : params.layers)
        model.layers.push_back(std::make_shared<const Weights>(std::move(w)));
    return model;
}

ModelSentence tokenizeForModel(std::string_view text, const std::vector<std::string>& vocab,
                               int seq, int index, std::vector<std::string>& warnings) {
    const std::string name = "sentence " + std::to_string(index + 1);
    const Tokenized words = tokenize(text);
    if (words.tokens.empty()) refuse(name + " is empty");
    ModelSentence s;
    s.tokens.text = words.text;
    for (const Token& word : words.tokens) {
        const int id = lookUp(vocab, word.text);
        if (id < 0) {
            s.unknown.push_back(word.text);
        } else if (int(s.ids.size()) < seq) {
            s.tokens.tokens.push_back(word);
            s.ids.push_back(id);
        } else {
            ++s.tokens.droppedTokens;
        }
    }
    if (s.ids.empty())
        refuse(name + " has no word in the model's vocabulary (" + vocabSample(vocab) + ")");
    if (s.tokens.droppedTokens > 0)
        warnings.push_back(name + " has " + std::to_string(s.ids.size() + s.tokens.droppedTokens) +
                           " words the model knows; kept the first " + std::to_string(seq) +
                           " (the model's seq)");
    if (words.droppedTokens > 0)
        warnings.push_back(name + " has more than " + std::to_string(kMaxTokens) +
                           " words; read the first " + std::to_string(kMaxTokens));
    s.tokens.droppedTokens += words.droppedTokens;
    return s;
}

ModelTrace traceModel(const TrainedModel& model, const std::vector<std::string>& texts,
                      const std::vector<std::string>& modelWarnings) {
    checkBatch(model, texts);
    ModelTrace out;
    out.warnings = modelWarnings;
    for (std::size_t b = 0; b < texts.size(); ++b)
        out.sentences.push_back(
            tokenizeForModel(texts[b], model.vocab, model.config.seq, int(b), out.warnings));
    const int B = int(texts.size());
    int len = 0;
    for (const ModelSentence& s : out.sentences) len = std::max(len, int(s.ids.size()));

    Trace base; // what every layer's trace shares
    base.scene = modelScene(model, texts);
    for (int h = 0; h < model.config.heads; ++h)
        base.headNames.push_back("head " + std::to_string(h + 1));
    for (const ModelSentence& s : out.sentences) base.sentences.push_back(s.tokens);
    base.warnings = out.warnings;
    AttentionInput& in = base.input;
    in.batch = B;
    in.queryLen = in.keyLen = len;
    in.heads = model.config.heads;
    in.causal = true;
    in.scale = ScaleKind::SqrtDHead;
    in.keyPadding.setConstant(B, len, false); // B x N
    for (int b = 0; b < B; ++b)
        for (int j = int(out.sentences[std::size_t(b)].ids.size()); j < len; ++j)
            in.keyPadding(b, j) = true;

    Mat x = embedSentences(model, out.sentences, len); // (B*N) x D, the residual stream
    for (const std::shared_ptr<const Weights>& weights : model.layers) {
        auto layer = std::make_shared<Trace>(base);
        layer->layer = int(out.layers.size());
        layer->modelWeights = "trained (mha-viz train, seed " + std::to_string(model.seed) +
                              "), layer " + std::to_string(layer->layer + 1);
        layer->weights = weights;
        layer->input.x = x;
        forward(layer->input, *weights, layer->attention); // the explorer's engine, as training
        x += layer->attention.output;                      // x + MHA(x)
        for (int b = 0; b < B; ++b) // padded rows stay 0, as in the explorer's x
            for (int t = int(out.sentences[std::size_t(b)].ids.size()); t < len; ++t)
                x.row(Eigen::Index(b) * len + t).setZero();
        out.layers.push_back(std::move(layer));
    }
    engineMultiply(x, model.unembed, out.logits); // (B*N) x V
    predict(out.logits, len, out.sentences);
    return out;
}

std::string defaultModelSentence(TaskKind task) {
    switch (task) {
    case TaskKind::Induction: // a random segment, then the same segment again
        return "t5 t17 t3 t41 t9 t5 t17 t3 t41 t9";
    case TaskKind::Agreement: // the verb agrees with "dog", not with the nearer "cats"
        return "the dog near the cats runs .";
    case TaskKind::PreviousToken:
    default:
        return "t12 t40 t7 t33 t21 t8 t50 t2 t19 t61";
    }
}

} // namespace core::train
