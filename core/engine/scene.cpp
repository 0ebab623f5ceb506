#include "engine/scene.h"

#include "engine/designed_heads.h"
#include "engine/embedding.h"

#include <algorithm>

namespace core {

namespace {

std::string ordinal(std::size_t index) {
    return std::to_string(index + 1);
}

} // namespace

bool isBlank(const std::string& text) {
    return std::all_of(text.begin(), text.end(),
                       [](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

void setHeads(Scene& scene, int heads) {
    scene.heads = heads;
    std::erase_if(scene.ablatedHeads, [&](int h) { return h >= heads; });
    if (!scene.headPresets.empty()) {
        std::vector<std::string> presets = defaultHeadPresets(heads);
        for (int h = 0; h < heads && h < int(scene.headPresets.size()); ++h)
            presets[std::size_t(h)] = scene.headPresets[std::size_t(h)];
        scene.headPresets = presets;
    }
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
    if (s.weights != "random" && s.weights != "designed")
        return "weights '" + s.weights + "' is unknown (use random or designed)";
    if (!s.headPresets.empty() && int(s.headPresets.size()) != s.heads)
        return "got " + std::to_string(s.headPresets.size()) + " head presets for " +
               std::to_string(s.heads) + " heads";
    for (const std::string& preset : s.headPresets)
        if (preset != kRandomPreset && designedPresetIndex(preset) < 0)
            return "head preset '" + preset + "' is unknown";
    return {};
}

} // namespace core
