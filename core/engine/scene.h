// Everything a user can set. The window edits a Scene, the CLI builds one from
// its flags; core::run turns it into a Trace.
#pragma once

#include "engine/attention.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

inline constexpr int kMaxSentences = 64;                 // B
inline constexpr long long kMaxAttentionCells = 1 << 26; // B*H*N*M, checked by core::run

inline constexpr const char* kDemoSentence = "The cat sat on the mat because it was tired.";

struct Scene {
    std::vector<std::string> sentences{kDemoSentence}; // B query sentences, padded to the longest
    std::vector<std::string> sources; // cross-attention: none, one shared, or one per sentence
    int d_model = 64;
    int heads = 8;
    MaskKind mask = MaskKind::None;
    ScaleKind scale = ScaleKind::SqrtDHead;
    std::uint64_t seed = 1;
    std::string weights = "random";       // "random", or "designed" (heads built to specialise)
    std::vector<std::string> headPresets; // designed mode: per head "random" or a preset id;
                                          // empty = the eight designs, then random
    bool positional = true;               // add the sinusoidal positional encoding
    // The classic pitfalls as switches (see AttentionInput).
    bool outProjection = true;     // --no-out-proj turns it off
    std::vector<int> ablatedHeads; // 0-based, sorted, unique; the CLI and UI number heads from 1
    bool reshapeBug = false;       // --reshape-bug

    bool isCross() const { return !sources.empty(); }
    int dHead() const { return heads > 0 ? d_model / heads : 0; }
    bool operator==(const Scene&) const = default;
};

// Changes H and keeps what depends on it valid: switched-off heads H no longer has are
// dropped; per-head presets are kept where the head still exists, defaults fill new ones.
// Every control that changes H (slider, d_model, keys) goes through here.
void setHeads(Scene& scene, int heads);

// True for text with nothing but ASCII whitespace: such a sentence is "empty".
bool isBlank(const std::string& text);

// Empty when the scene can run, else one line naming the bad value.
std::string validationError(const Scene& scene);

} // namespace core
