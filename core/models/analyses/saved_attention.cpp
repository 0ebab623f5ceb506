// An attention file as the views read it (saved_attention.h).
#include "models/analyses/saved_attention.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace core::models {

// The tokens joined into the sentence the field shows (" cat", as a decoder's tokens are saved).
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

namespace {

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

// What every layer of one stack shares as a trace.
struct LayerShape {
    const Scene& scene;
    const Tokenized& queries;
    const Tokenized* keys; // cross-attention's source tokens, else null
    bool causal;
    std::string from; // "attention from FILE (saved elsewhere)"
};

// One layer of a stack as a trace of the weights alone (map: (H*N) x M), what the views and
// figures read: no x, no W_Q ..., no scores; masked where the maps are causal.
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

// Every layer of a stack as traces, its maps moved out of the file's (not copied).
std::vector<std::shared_ptr<const Trace>> savedLayers(const LayerShape& s, AttentionStack& stack) {
    std::vector<std::shared_ptr<const Trace>> layers;
    for (std::size_t l = 0; l < stack.layers.size(); ++l)
        layers.push_back(savedLayer(s, int(l), std::move(stack.layers[l]), stack.heads));
    stack.layers.clear();
    return layers;
}

} // namespace

void analyseSavedStack(SavedStackView& stack, const std::vector<int>& ids, bool self) {
    if (stack.empty()) return;
    const Attention& first = stack.layers.front()->attention;
    const int n = first.queryLen, H = stack.heads, L = stack.layerCount();
    stack.thumbnailStep = thumbnailStep(std::max(n, first.keyLen));
    if (self) stack.sinkShares = Mat::Zero(L, H); // L x H
    for (int l = 0; l < L; ++l) {
        const Attention& a = stack.layers[std::size_t(l)]->attention;
        Mat mean = Mat::Zero(n, a.keyLen); // N x M
        for (int h = 0; h < H; ++h) {
            const Mat map = a.attention.middleRows(a.headRow(0, h), n); // N x M
            mean += map;
            stack.thumbnails.push_back(poolMap(map, stack.thumbnailStep));
            if (self && n >= 2) stack.sinkShares(l, h) = Scalar(firstTokenScore(map));
        }
        if (self) stack.meanAttention.push_back(mean / Scalar(H));
    }
    if (!self) return;
    stack.rollout = attentionRollouts(stack.meanAttention);
    stack.detectors = detectSavedHeads(stack.layers, ids, stack.causal);
}

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

namespace {

// One stack of the file as traces of `queries` (and `keys` for cross-attention), its maps moved.
SavedStackView stackOf(AttentionStack& stack, Scene scene, const Tokenized& queries,
                       const Tokenized* keys, const std::string& from) {
    SavedStackView view;
    view.causal = lowerTriangular(stack);
    view.heads = stack.heads;
    scene.sentences = {queries.text};
    scene.heads = stack.heads;
    scene.mask = view.causal ? MaskKind::Causal : MaskKind::None;
    view.layers = savedLayers({scene, queries, keys, view.causal, from}, stack);
    return view;
}

} // namespace

std::shared_ptr<const SavedAttention> savedAttentionOf(AttentionFile file) {
    auto saved = std::make_shared<SavedAttention>();
    saved->path = file.path;
    saved->name = std::filesystem::path(file.path).filename().string();
    saved->dtype = file.dtype, saved->tokensFrom = file.tokensFrom;
    saved->warnings = std::move(file.warnings);
    saved->tokens = joinTokens(file.tokens);
    saved->ids = identityIds(file.tokens);
    saved->sourceTokens = joinTokens(file.sourceTokens);
    saved->sourceIds = identityIds(file.sourceTokens);
    const std::string from = savedAttentionTitle(*saved);
    const Scene scene = savedAttentionScene(*saved); // the sizes no file holds
    saved->self = stackOf(file.self, scene, saved->tokens, nullptr, from);
    saved->encoder = stackOf(file.encoder, scene, saved->sourceTokens, nullptr, from + ", encoder");
    saved->cross =
        stackOf(file.cross, scene, saved->tokens, &saved->sourceTokens, from + ", cross-attention");
    analyseSavedStack(saved->self, saved->ids, true);
    analyseSavedStack(saved->encoder, saved->sourceIds, true);
    analyseSavedStack(saved->cross, {}, false);
    return saved;
}

const SavedStackView& SavedAttention::stack(SavedStack which) const {
    return which == SavedStack::Encoder ? encoder : which == SavedStack::Cross ? cross : self;
}

const Tokenized& SavedAttention::queries(SavedStack which) const {
    return which == SavedStack::Encoder ? sourceTokens : tokens;
}

std::vector<SavedStack> SavedAttention::stacks() const {
    std::vector<SavedStack> out{SavedStack::Layers};
    if (!encoder.empty()) out.push_back(SavedStack::Encoder);
    if (!cross.empty()) out.push_back(SavedStack::Cross);
    return out;
}

std::string savedStackLabel(const SavedAttention& saved, SavedStack which) {
    if (which == SavedStack::Encoder) return "encoder";
    if (which == SavedStack::Cross) return "cross";
    return saved.stacks().size() > 1 ? "decoder" : "layers";
}

std::string savedStackLine(SavedStack which) {
    if (which == SavedStack::Encoder)
        return "encoder.<l>: the encoder's self-attention over the source tokens";
    if (which == SavedStack::Cross)
        return "cross.<l>: cross-attention, the tokens' queries on the source tokens";
    return {};
}

Scene savedAttentionScene(const SavedAttention& saved, SavedStack which) {
    const SavedStackView& stack = saved.stack(which);
    Scene scene;
    scene.sentences = {saved.queries(which).text};
    if (which == SavedStack::Cross) scene.sources = {saved.sourceTokens.text};
    scene.d_model = 0; // not in the file: no size is claimed
    scene.heads = stack.heads;
    scene.kvHeads = 0;
    scene.mask = stack.causal ? MaskKind::Causal : MaskKind::None;
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
                  saved.heads(), int(saved.tokens.tokens.size()), saved.dtype.c_str(),
                  saved.causal() ? "causal" : "bidirectional");
    return {"\"" + saved.tokens.text + "\"",
            savedAttentionTitle(saved) + ": the weights as saved, no model here", sizes};
}

} // namespace core::models
