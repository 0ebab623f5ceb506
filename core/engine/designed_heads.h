// Heads designed to specialise, built as ordinary W_Q / W_K matrices (no special case in
// the attention code), over the feature embedding below.
//
// Feature embedding (weights "designed", d_model >= 64), one row per token:
//   [0, 32)            features from the lexicon: 0 constant 1 (a bias the queries can use),
//                      1-10 part of speech, 11-12 number (sg, pl), 13-15 animacy (person,
//                      animate, inanimate), 16-29 semantic class, 30-31 unused
//   [32, d_model - 16) identity: a fixed random +-1 vector per word (same word, same vector)
//   [d_model - 16, d)  sinusoidal positions (Vaswani et al.), 8 sin/cos pairs,
//                      frequency 10000^(-k/8) for pair k; zero when positions are switched off
#pragma once

#include "engine/scalar.h"
#include "engine/weights.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core {

inline constexpr int kDesignedMinDModel = 64; // 32 features + 16 identity + 16 positions
inline constexpr int kDesignedMinDHead = 8;   // each design needs 8 query/key dimensions
inline constexpr int kFeatureDims = 32;
inline constexpr int kPositionDims = 16;
inline constexpr const char* kRandomPreset = "random";

struct DesignedPreset {
    const char* id;       // also the head's name in the trace
    const char* looksFor; // one sentence for the legend
    const char* how;      // how the matrices do it, honestly (UI tooltip)
};

inline constexpr DesignedPreset kDesignedPresets[] = {
    {"previous-token", "Each token looks at the token just before it (the first token at itself).",
     "W_Q rotates each sin/cos position pair by one step back, so q_i . k_j peaks at j = i - 1."},
    {"same-word", "A repeated word looks at its earlier occurrence.",
     "q and k carry the word's identity code; a sin(position difference) term tips ties toward "
     "earlier tokens. Repeats more than ~15 tokens apart, or two words whose 6-bit codes "
     "collide, can fail."},
    {"noun-adjective", "A noun looks at the adjective modifying it.",
     "Noun queries match adjective keys; a previous-token term prefers the adjective right "
     "before the noun (English order). Post-nominal adjectives are missed."},
    {"subject-verb", "A subject noun looks at its verb.",
     "Noun queries match verb keys; a next-token term prefers the nearest verb after the "
     "noun. No parser: any noun is treated as a subject."},
    {"pronoun-antecedent", "A pronoun looks back to the noun it refers to.",
     "Pronoun queries match noun keys that agree in number; 'it' prefers animals over objects "
     "and avoids people, he/she prefer people; a weak recency term prefers the nearest. Only "
     "word features are used: no syntax, no world knowledge."},
    {"semantic-class", "Words look at earlier words of the same semantic class.",
     "q and k carry a 6-bit code of the lexicon's class (animal, food, place, ...); a "
     "sin(position difference) term prefers earlier words over the token itself."},
    {"first-token", "Every token looks at the first token (the 'attention sink').",
     "A constant query meets keys made of the cosines of the position, largest at position 0."},
    {"self", "Every token looks at itself.",
     "q and k are the position pairs unrotated, so q_i . k_j peaks at j = i."},
};

inline constexpr int kDesignedPresetCount = int(std::size(kDesignedPresets));

// True when the designs fit: d_model >= 64 and d_head >= 8 per query head sharing a K/V head.
// With grouped-query attention (kvHeads < heads) the H / H_kv query heads of a group share one
// key slice, so each design gets its own 8 of its d_head columns: d_head >= 8 x H / H_kv.
// kvHeads 0 means H (every head its own keys).
bool designedHeadsFit(int d_model, int heads, int kvHeads = 0);
// Empty when they fit, else one line saying which size is too small and what it is:
// "designed heads need d_head >= 8 (here 64 / 16 = 4)", "designed heads with 4 query heads per
// K/V head need d_head >= 32 (here 64 / 8 = 8)".
std::string designedHeadsMisfit(int d_model, int heads, int kvHeads = 0);

// The presets the designed mode gives H heads by default: the eight designs, then random.
std::vector<std::string> defaultHeadPresets(int heads);

// Index into kDesignedPresets, or -1 for "random" / unknown.
int designedPresetIndex(std::string_view id);

// N x d_model feature embeddings of a sentence (layout above).
Mat featureEmbedTokens(const std::vector<std::string>& tokens, int d_model, bool positional);

// Seeded random weights (randomWeights, K and V H_kv heads wide), with W_Q / W_K of every
// designed head (presets[h] != "random") replaced by its design. Query head h of group g =
// h / (H / H_kv), r-th in it, writes its design into columns [r*8, r*8 + 8) of its q slice and
// of K/V head g's key slice, the rest of its q slice 0: so q_h . k_g sees only its own design
// although its group shares the keys. A key slice any design uses starts from 0. W_V and W_O
// stay random. Needs designedHeadsFit().
Weights designedWeights(std::uint64_t seed, int d_model, int heads,
                        const std::vector<std::string>& presets, int kvHeads = 0);

} // namespace core
