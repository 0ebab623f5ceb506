#include "engine/scene.h"

#include "engine/designed_heads.h"
#include "engine/embedding.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace core {

namespace {

std::string ordinal(std::size_t index) {
    return std::to_string(index + 1);
}

std::string formatTheta(double theta) {
    std::ostringstream text;
    text << theta; // 10000, 500000, 1e+09, nan
    return text.str();
}

} // namespace

bool isBlank(const std::string& text) {
    return std::all_of(text.begin(), text.end(),
                       [](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

void setHeads(Scene& scene, int heads) {
    scene.kvHeads = kvHeadsAfterHeadChange(heads, scene.kvHeads);
    scene.heads = heads;
    scene.chosenHeads = 0;
    std::erase_if(scene.ablatedHeads, [&](int h) { return h >= heads; });
    if (!scene.headPresets.empty()) {
        std::vector<std::string> presets = defaultHeadPresets(heads);
        for (int h = 0; h < heads && h < int(scene.headPresets.size()); ++h)
            presets[std::size_t(h)] = scene.headPresets[std::size_t(h)];
        scene.headPresets = presets;
    }
}

const char* attentionKindName(int heads, int kvHeads) {
    if (kvHeads <= 0 || kvHeads >= heads) return "MHA";
    return kvHeads == 1 ? "MQA" : "GQA";
}

std::string kvHeadNote(int heads, int kvHeads, int h) {
    if (kvHeads <= 0 || kvHeads >= heads || heads % kvHeads != 0) return {};
    return "K/V head " + std::to_string(h / (heads / kvHeads) + 1) + " of " +
           std::to_string(kvHeads) + ", " + attentionKindName(heads, kvHeads);
}

void setKvHeads(Scene& scene, int kvHeads) {
    scene.kvHeads = kvHeads == scene.heads ? 0 : kvHeads;
}

std::string kvHeadsError(int heads, int kvHeads) {
    if (kvHeads >= 1 && kvHeads <= heads && heads % kvHeads == 0) return {};
    return "kv heads " + std::to_string(kvHeads) + " must divide heads " + std::to_string(heads) +
           " (1 = multi-query, " + std::to_string(heads) + " = every head its own K and V)";
}

std::vector<int> validKvHeadCounts(int heads) {
    return validHeadCounts(heads); // the divisors, as H's of d_model
}

int nextKvHeadCount(int heads, int kvHeads, int step) {
    return nextHeadCount(heads, kvHeads, step);
}

int kvHeadsAfterHeadChange(int newHeads, int kvHeads) {
    if (kvHeads <= 0 || newHeads < 1) return 0;
    int kept = std::min(kvHeads, newHeads);
    while (newHeads % kept != 0) --kept; // stops at 1 at the latest
    return kept == newHeads ? 0 : kept;
}

PositionalKind positionalInUse(const Scene& scene) {
    const bool rotaryFits = !scene.isCross() && scene.dHead() >= 2;
    return scene.positional == PositionalKind::Rotary && !rotaryFits ? PositionalKind::None
                                                                     : scene.positional;
}

std::string positionalFallbackWarning(const Scene& scene) {
    if (positionalInUse(scene) == scene.positional) return {};
    if (scene.isCross())
        return "rotary positions turn q and k by their own tokens' positions, so they are for "
               "self-attention; this cross-attention runs without positions";
    return "rotary positions turn pairs of dimensions, so they need d_head >= 2 (here " +
           std::to_string(scene.dHead()) + "); running without positions";
}

std::vector<int> headSet(std::vector<int> heads) {
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    return heads;
}

bool containsHead(const std::vector<int>& set, int head) {
    return std::binary_search(set.begin(), set.end(), head);
}

void switchHead(std::vector<int>& set, int head, bool in) {
    std::erase(set, head);
    if (in) set.insert(std::upper_bound(set.begin(), set.end(), head), head);
}

std::vector<int> validHeadCounts(int d_model) {
    std::vector<int> counts;
    for (int h = 1; h <= d_model; ++h)
        if (d_model % h == 0) counts.push_back(h);
    return counts;
}

int nearestHeadCount(int d_model, int wanted) {
    int best = 1;
    for (int h : validHeadCounts(d_model))
        if (std::abs(h - wanted) < std::abs(best - wanted)) best = h;
    return best;
}

int headsFor(int d_model, int chosen) {
    return chosen >= 1 && d_model % chosen == 0 ? chosen : nearestHeadCount(d_model, chosen);
}

int chosenHeadCount(const Scene& scene) {
    return scene.chosenHeads > 0 ? scene.chosenHeads : scene.heads;
}

void setDModel(Scene& scene, int d_model) {
    const int chosen = chosenHeadCount(scene);
    scene.d_model = d_model;
    setHeads(scene, headsFor(d_model, chosen));
    if (scene.heads != chosen) scene.chosenHeads = chosen;
}

std::string headCountNote(const Scene& scene) {
    const int chosen = chosenHeadCount(scene);
    if (chosen == scene.heads) return {};
    return std::to_string(chosen) + " heads do not divide " + std::to_string(scene.d_model) +
           ": using " + std::to_string(scene.heads);
}

WeightsKind weightsInUse(const Scene& scene) {
    return scene.weights == WeightsKind::Designed &&
                   designedHeadsFit(scene.d_model, scene.heads, scene.kvHeadCount())
               ? WeightsKind::Designed
               : WeightsKind::Random;
}

std::string designedFallbackWarning(const Scene& scene) {
    if (scene.weights != WeightsKind::Designed || weightsInUse(scene) == WeightsKind::Designed)
        return {};
    return designedHeadsMisfit(scene.d_model, scene.heads, scene.kvHeadCount()) +
           "; using random weights";
}

int nextHeadCount(int d_model, int heads, int step) {
    const int direction = step < 0 ? -1 : 1;
    for (int moves = std::abs(step); moves > 0; --moves) {
        int h = heads + direction;
        while (h >= 1 && h <= d_model && d_model % h != 0) h += direction;
        if (h < 1 || h > d_model) break; // none further that way
        heads = h;
    }
    return heads;
}

bool canAddSentence(const Scene& scene) {
    return scene.sentences.size() < std::size_t(kMaxAddedSentences);
}

bool addSentence(Scene& scene) {
    if (!canAddSentence(scene)) return false;
    scene.sentences.push_back(kAddedSentence);
    if (scene.sources.size() > 1) scene.sources.push_back(scene.sources.back());
    return true;
}

bool canRemoveSentence(const Scene& scene) {
    return scene.sentences.size() > 1;
}

bool removeSentence(Scene& scene, int index) {
    if (!canRemoveSentence(scene) || index < 0 || index >= int(scene.sentences.size()))
        return false;
    scene.sentences.erase(scene.sentences.begin() + index);
    if (scene.sources.size() > 1) // one source per sentence: keep them paired
        scene.sources.erase(
            scene.sources.begin() +
            std::min<std::ptrdiff_t>(index, std::ptrdiff_t(scene.sources.size()) - 1));
    return true;
}

std::string validationError(const Scene& s) {
    if (s.d_model < kMinDModel || s.d_model > kMaxDModel || s.d_model % 2 != 0)
        return "d_model " + std::to_string(s.d_model) + " must be an even number from " +
               std::to_string(kMinDModel) + " to " + std::to_string(kMaxDModel);
    if (s.heads < 1 || s.heads > s.d_model)
        return "heads " + std::to_string(s.heads) + " must be from 1 to d_model (" +
               std::to_string(s.d_model) + ")";
    if (s.d_model % s.heads != 0)
        return "heads " + std::to_string(s.heads) + " does not divide d_model " +
               std::to_string(s.d_model) + " (d_head = d_model / heads must be whole)";
    if (s.chosenHeads < 0 || s.chosenHeads > kMaxDModel)
        return "chosen heads " + std::to_string(s.chosenHeads) + " must be from 1 to " +
               std::to_string(kMaxDModel);
    if (s.kvHeads != 0)
        if (std::string error = kvHeadsError(s.heads, s.kvHeads); !error.empty()) return error;
    if (!(s.ropeTheta >= kMinRopeTheta && s.ropeTheta <= kMaxRopeTheta)) // NaN too
        return "rope theta " + formatTheta(s.ropeTheta) + " must be from 1 to 1e9";
    for (int h : s.ablatedHeads) // numbered from 1 in the message, as the CLI and UI show them
        if (h < 0 || h >= s.heads)
            return "ablated head " + std::to_string(h + 1) +
                   " does not exist (heads = " + std::to_string(s.heads) + ")";
    if (s.sentences.empty()) return "no sentence given";
    if (s.sentences.size() > std::size_t(kMaxSentences))
        return "got " + std::to_string(s.sentences.size()) + " sentences (at most " +
               std::to_string(kMaxSentences) + ")";
    for (std::size_t i = 0; i < s.sentences.size(); ++i)
        if (isBlank(s.sentences[i])) return "sentence " + ordinal(i) + " is empty";
    if (s.sources.size() > 1 && s.sources.size() != s.sentences.size())
        return "got " + std::to_string(s.sources.size()) + " source sentences for " +
               std::to_string(s.sentences.size()) + " sentences (give one, or one per sentence)";
    for (std::size_t i = 0; i < s.sources.size(); ++i)
        if (isBlank(s.sources[i])) return "source sentence " + ordinal(i) + " is empty";
    if (!s.headPresets.empty() && int(s.headPresets.size()) != s.heads)
        return "got " + std::to_string(s.headPresets.size()) + " head presets for " +
               std::to_string(s.heads) + " heads";
    for (const std::string& preset : s.headPresets)
        if (preset != kRandomPreset && designedPresetIndex(preset) < 0)
            return "head preset '" + preset + "' is unknown";
    return {};
}

} // namespace core
