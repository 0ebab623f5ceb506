// An attention file as the views read it (saved_attention.h).
#include "models/analyses/saved_attention.h"

#include <filesystem>
#include <map>

namespace core::models {
namespace {

// The tokens joined into the sentence the field shows: a space between two tokens unless the
// later one brings its own (" cat", as a decoder's tokens are saved), each token's bytes kept.
Tokenized joinTokens(const std::vector<std::string>& tokens) {
    Tokenized out;
    for (const std::string& token : tokens) {
        const bool spaced = !token.empty() && (token[0] == ' ' || token[0] == '\n');
        if (!out.text.empty() && !spaced) out.text += ' ';
        const std::size_t begin = out.text.size();
        out.text += token;
        out.tokens.push_back({token, begin, out.text.size()});
    }
    return out;
}

// Per token, the index of its first copy: the detectors' patterns compare tokens by it.
std::vector<int> identityIds(const std::vector<std::string>& tokens) {
    std::map<std::string, int> first;
    std::vector<int> ids;
    for (const std::string& token : tokens)
        ids.push_back(first.emplace(token, int(first.size())).first->second);
    return ids;
}

// Whether every head of every layer has nothing above its diagonal (a decoder's causal maps).
bool lowerTriangular(const AttentionStack& stack) {
    if (stack.queries != stack.keys) return false;
    for (const Mat& layer : stack.layers) // (H*N) x N
        for (Eigen::Index r = 0; r < layer.rows(); ++r) {
            const Eigen::Index i = r % stack.queries;
            if (i + 1 < layer.cols() &&
                (layer.row(r).tail(layer.cols() - i - 1).array() != 0).any())
                return false;
        }
    return true;
}

// One layer of a stack as a trace of the weights alone: what the views and figures read.
struct LayerShape {
    const Scene& scene;
    const Tokenized& queries;
    const Tokenized* keys; // cross-attention's source tokens, else null
    bool causal;
    std::string from; // "attention from FILE (saved elsewhere)"
};

std::shared_ptr<const Trace> savedLayer(const LayerShape& s, int l, Mat&& map, int heads) {
    auto t = std::make_shared<Trace>();
    t->scene = s.scene;
    if (s.keys) t->scene.sources = {s.keys->text};
    t->modelWeights = s.from + ", layer " + std::to_string(l + 1);
    for (int h = 0; h < heads; ++h) t->headNames.push_back("head " + std::to_string(h + 1));
    t->sentences = {s.queries};
    if (s.keys) t->sources = {*s.keys};
    t->layer = l;
    Attention& a = t->attention;
    a.batch = 1, a.heads = a.kvHeads = heads;
    a.queryLen = int(s.queries.tokens.size());
    a.keyLen = s.keys ? int(s.keys->tokens.size()) : a.queryLen;
    a.causal = s.causal, a.cross = s.keys != nullptr;
    a.intermediates = false; // no scores, no head outputs: the file holds the weights alone
    a.headAblated.assign(std::size_t(heads), false);
    a.attention = std::move(map); // (H*N) x M
    t->input.batch = 1, t->input.queryLen = a.queryLen, t->input.keyLen = a.keyLen;
    t->input.heads = heads, t->input.causal = s.causal;
    return t;
}

std::vector<std::shared_ptr<const Trace>> savedLayers(const LayerShape& s, AttentionStack& stack) {
    std::vector<std::shared_ptr<const Trace>> layers;
    for (std::size_t l = 0; l < stack.layers.size(); ++l)
        layers.push_back(savedLayer(s, int(l), std::move(stack.layers[l]), stack.heads));
    stack.layers.clear();
    return layers;
}

// The model view's and the rollout's maps, the sink shares and the detectors of layers.*.
void analyse(SavedAttention& saved) {
    const int n = int(saved.tokens.tokens.size()), H = saved.heads;
    saved.thumbnailStep = thumbnailStep(n);
    saved.sinkShares = Mat::Zero(saved.layerCount(), H); // L x H
    for (int l = 0; l < saved.layerCount(); ++l) {
        const Attention& a = saved.layers[std::size_t(l)]->attention;
        Mat mean = Mat::Zero(n, n); // N x N
        for (int h = 0; h < H; ++h) {
            const Mat map = headAttention(a, h); // N x N
            mean += map;
            saved.thumbnails.push_back(poolMap(map, saved.thumbnailStep));
            if (n >= 2) saved.sinkShares(l, h) = Scalar(firstTokenScore(map));
        }
        saved.meanAttention.push_back(mean / Scalar(H));
    }
    saved.rollout = attentionRollouts(saved.meanAttention);
    saved.detectors = detectSavedHeads(saved.layers, saved.ids, saved.causal);
}

} // namespace

namespace {

const char* const kSelfExplanation =
    "share of the head's attention from each token to itself (the diagonal; TransformerLens's "
    "mul score on the file's sentence)";
const char* const kNextExplanation =
    "share of the head's attention from each token to the token after it (a bidirectional "
    "head's next-token pattern; mul score on the file's sentence)";

// The diagonal (offset 0) or the token after (offset 1) as a detection pattern, N x N.
Mat offsetPattern(int n, int offset) {
    Mat p = Mat::Zero(n, n); // N x N
    for (int i = 0; i + offset < n; ++i) p(i, i + offset) = 1;
    return p;
}

} // namespace

std::vector<HeadDetectorScores>
detectSavedHeads(const std::vector<std::shared_ptr<const Trace>>& layers,
                 const std::vector<int>& ids, bool causal) {
    const int n = int(ids.size());
    if (n < 2 || layers.empty()) return {};
    // TransformerLens's three (and first_token, which the sink share says again: left out).
    std::vector<HeadDetectorScores> found = detectHeads(layers, ids);
    const bool repeats = duplicateTokenPattern(ids).sum() > 0;
    std::vector<HeadDetectorScores> out;
    for (HeadDetectorScores& d : found)
        if (d.name == "previous_token" ||
            (repeats && (d.name == "duplicate_token" || d.name == "induction")))
            out.push_back(std::move(d));
    const int L = int(layers.size()), H = layers[0]->attention.heads;
    std::vector<std::pair<HeadDetectorScores, Mat>> more;
    more.push_back({{"self", Mat(L, H), kSelfExplanation}, offsetPattern(n, 0)});
    if (!causal) more.push_back({{"next_token", Mat(L, H), kNextExplanation}, offsetPattern(n, 1)});
    for (auto& [scores, pattern] : more) {
        for (int l = 0; l < L; ++l)
            for (int h = 0; h < H; ++h)
                scores.scores(l, h) = Scalar(
                    detectionScore(headAttention(layers[std::size_t(l)]->attention, h), pattern));
        out.push_back(std::move(scores));
    }
    for (HeadDetectorScores& d : out) d.onSentence = true; // the file's own sentence
    return out;
}

std::shared_ptr<const SavedAttention> openSavedAttention(const std::string& path) {
    return savedAttentionOf(readAttentionFile(path));
}

std::shared_ptr<const SavedAttention> savedAttentionOf(AttentionFile file) {
    auto saved = std::make_shared<SavedAttention>();
    saved->path = file.path;
    saved->name = std::filesystem::path(file.path).filename().string();
    saved->dtype = file.dtype, saved->tokensFrom = file.tokensFrom;
    saved->warnings = std::move(file.warnings);
    saved->causal = lowerTriangular(file.self);
    saved->heads = file.self.heads;
    saved->tokens = joinTokens(file.tokens);
    saved->ids = identityIds(file.tokens);
    saved->sourceTokens = joinTokens(file.sourceTokens);
    const Scene scene = savedAttentionScene(*saved);
    const std::string from = savedAttentionTitle(*saved);
    saved->layers = savedLayers({scene, saved->tokens, nullptr, saved->causal, from}, file.self);
    Scene source = scene;
    source.sentences = {saved->sourceTokens.text};
    source.heads = file.encoder.heads;
    source.mask = lowerTriangular(file.encoder) ? MaskKind::Causal : MaskKind::None;
    saved->encoder = savedLayers(
        {source, saved->sourceTokens, nullptr, source.mask == MaskKind::Causal, from + ", encoder"},
        file.encoder);
    Scene cross = scene;
    cross.heads = file.cross.heads, cross.mask = MaskKind::None;
    saved->cross =
        savedLayers({cross, saved->tokens, &saved->sourceTokens, false, from + ", cross-attention"},
                    file.cross);
    analyse(*saved);
    return saved;
}

Scene savedAttentionScene(const SavedAttention& saved) {
    Scene scene;
    scene.sentences = {saved.tokens.text};
    scene.d_model = 0; // not in the file: no size is claimed
    scene.heads = saved.heads;
    scene.kvHeads = 0;
    scene.mask = saved.causal ? MaskKind::Causal : MaskKind::None;
    scene.scale = ScaleKind::None;
    scene.weights = WeightsKind::Random; // never drawn: the views read the trace's weights
    scene.positional = PositionalKind::None;
    return scene;
}

std::string savedAttentionTitle(const SavedAttention& saved) {
    return "attention from " + saved.name + " (saved elsewhere)";
}

std::vector<std::string> savedAttentionCaption(const SavedAttention& saved) {
    char sizes[200];
    std::snprintf(sizes, sizeof sizes, "%d layers, %d heads, %d tokens, %s, %s", saved.layerCount(),
                  saved.heads, int(saved.tokens.tokens.size()), saved.dtype.c_str(),
                  saved.causal ? "causal" : "bidirectional");
    return {"\"" + saved.tokens.text + "\"",
            savedAttentionTitle(saved) + ": the weights as saved, no model here", sizes};
}

} // namespace core::models
