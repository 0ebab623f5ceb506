// core::run: Scene -> tokens -> embeddings -> forward -> Trace.
#include "engine/trace.h"

#include "engine/designed_heads.h"
#include "engine/embedding.h"
#include "engine/rotary_positions.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace core {

namespace {

std::string ordinal(std::size_t index) {
    return std::to_string(index + 1);
}

std::vector<Tokenized> tokenizeAll(const std::vector<std::string>& texts, const char* what,
                                   std::vector<std::string>& warnings) {
    std::vector<Tokenized> out;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        out.push_back(tokenize(texts[i]));
        const Tokenized& t = out.back();
        if (t.tokens.empty())
            throw std::invalid_argument(std::string(what) + " " + ordinal(i) + " has no tokens");
        if (std::string warning = tokenCapWarning(what, i, t); !warning.empty())
            warnings.push_back(std::move(warning));
    }
    return out;
}

int longest(const std::vector<Tokenized>& sentences) {
    std::size_t n = 0;
    for (const Tokenized& t : sentences) n = std::max(n, t.tokens.size());
    return int(n);
}

// W_K's and W_V's columns, H_kv*d_head (d_model for MHA).
int kvColumns(const Scene& s) {
    return s.kvHeadCount() * s.dHead();
}

// Stacks the sentences' embeddings, each padded with zero rows to `len`.
Mat stackPadded(const std::vector<Tokenized>& sentences, int len, const Scene& s, bool features) {
    Mat x = Mat::Zero(Eigen::Index(sentences.size()) * len, s.d_model); // (B*len) x d_model
    for (std::size_t b = 0; b < sentences.size(); ++b) {
        std::vector<std::string> tokens;
        for (const Token& t : sentences[b].tokens) tokens.push_back(t.text);
        const bool added = positionalInUse(s) == PositionalKind::Sinusoidal; // else none in x
        x.middleRows(Eigen::Index(b) * len, Eigen::Index(tokens.size())) =
            features ? featureEmbedTokens(tokens, s.d_model, added)
                     : embedTokens(tokens, s.d_model, added);
    }
    return x;
}

// The scene's weights: the previous trace's when nothing they depend on changed (the window
// recomputes on every keystroke), else seeded random or designed, K and V H_kv heads wide.
std::shared_ptr<const Weights>
sceneWeights(const Scene& scene, const std::vector<std::string>& presets, const Trace* previous) {
    const bool designed = weightsInUse(scene) == WeightsKind::Designed;
    const Scene* before = previous ? &previous->scene : nullptr;
    const bool sameWeights = previous && previous->weights && before->seed == scene.seed &&
                             before->d_model == scene.d_model &&
                             weightsInUse(*before) == weightsInUse(scene) &&
                             kvColumns(*before) == kvColumns(scene) &&
                             (!designed || (before->heads == scene.heads &&
                                            before->kvHeadCount() == scene.kvHeadCount() &&
                                            before->headPresets == scene.headPresets));
    if (sameWeights) return previous->weights;
    if (designed)
        return std::make_shared<const Weights>(
            designedWeights(scene.seed, scene.d_model, scene.heads, presets, scene.kvHeadCount()));
    return std::make_shared<const Weights>(
        randomWeights(scene.seed, scene.d_model, kvColumns(scene)));
}

} // namespace

std::string tokenCapWarning(const char* what, std::size_t index, const Tokenized& t) {
    if (t.droppedTokens == 0) return {};
    return std::string(what) + " " + ordinal(index) + " has " +
           std::to_string(t.tokens.size() + t.droppedTokens) + " tokens; kept the first " +
           std::to_string(t.tokens.size()) + " (cap " + std::to_string(kMaxTokens) + ")";
}

Trace run(const Scene& scene, const Trace* previous) {
    if (std::string error = validationError(scene); !error.empty())
        throw std::invalid_argument(error);
    Trace trace;
    trace.scene = scene;
    trace.sentences = tokenizeAll(scene.sentences, "sentence", trace.warnings);
    if (scene.isCross()) {
        std::vector<std::string> sources = scene.sources;
        sources.resize(scene.sentences.size(), scene.sources.front()); // one source serves all
        trace.sources = tokenizeAll(sources, "source sentence", trace.warnings);
    }
    // Designed heads need room (d_model >= 64, d_head >= 8); else random, and say so. Rotary
    // positions need self-attention; else none, and say so.
    const bool designed = weightsInUse(scene) == WeightsKind::Designed;
    for (std::string warning : {designedFallbackWarning(scene), positionalFallbackWarning(scene)})
        if (!warning.empty()) trace.warnings.push_back(std::move(warning));
    const std::vector<std::string> presets = !designed ? std::vector<std::string>{}
                                             : scene.headPresets.empty()
                                                 ? defaultHeadPresets(scene.heads)
                                                 : scene.headPresets;
    for (int h = 0; h < scene.heads; ++h) {
        const bool named = h < int(presets.size()) && presets[std::size_t(h)] != kRandomPreset;
        trace.headNames.push_back(named ? presets[std::size_t(h)]
                                        : "head " + std::to_string(h + 1));
    }

    trace.weights = sceneWeights(scene, presets, previous);

    const auto& keySentences = scene.isCross() ? trace.sources : trace.sentences;
    AttentionInput& in = trace.input;
    in.batch = int(scene.sentences.size());
    in.queryLen = longest(trace.sentences);
    in.keyLen = longest(keySentences);
    // scores and attention each hold B*H*N*M floats: refuse what would not fit in memory
    // rather than die half-way (2^26 floats = 256 MB per tensor).
    const double cells = double(in.batch) * scene.heads * in.queryLen * in.keyLen;
    if (cells > double(kMaxAttentionCells))
        throw std::invalid_argument(
            "scene too large: B*H*N*M = " + std::to_string(static_cast<long long>(cells)) +
            " attention weights (at most " + std::to_string(kMaxAttentionCells) +
            "); use fewer sentences, tokens or heads");
    in.heads = scene.heads;
    in.causal = scene.mask == MaskKind::Causal;
    in.scale = scene.scale;
    in.outProjection = scene.outProjection;
    in.ablatedHeads = scene.ablatedHeads;
    in.reshapeBug = scene.reshapeBug;
    // Token i of every sentence turns by row i. Twice the rows the sentence needs: the Steps
    // tab moves a (query, key) pair forward along them to show that only i - j matters.
    if (positionalInUse(scene) == PositionalKind::Rotary)
        in.rotation = rotaryTables(2 * in.queryLen, rotaryDims(scene.dHead()), scene.ropeTheta);
    in.x = stackPadded(trace.sentences, in.queryLen, scene, designed);
    if (scene.isCross()) in.xSource = stackPadded(trace.sources, in.keyLen, scene, designed);
    in.keyPadding.setConstant(in.batch, in.keyLen, false); // B x M
    for (int b = 0; b < in.batch; ++b)
        for (int j = int(keySentences[b].tokens.size()); j < in.keyLen; ++j)
            in.keyPadding(b, j) = true;

    forward(in, *trace.weights, trace.attention);
    return trace;
}

} // namespace core
