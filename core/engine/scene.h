// Everything a user can set. The window edits a Scene, the CLI builds one from
// its flags; core::run turns it into a Trace.
#pragma once

#include "engine/attention.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

inline constexpr int kMaxSentences = 64; // B, in a scene file or on the command line
inline constexpr long long kMaxAttentionCells = 1 << 26; // B*H*N*M, checked by core::run
// The window's "+ Add sentence" stops here: each sentence takes a text field and its token
// chips in the Sentences panel (a quarter of the window high, scrolling), and all of them are
// recomputed on every keystroke. Larger batches come from scene files and the CLI.
inline constexpr int kMaxAddedSentences = 8;
static_assert(kMaxAddedSentences <= kMaxSentences);
inline constexpr const char* kAddedSentence = "A dog barked."; // what "+ Add sentence" adds

inline constexpr const char* kDemoSentence = "The cat sat on the mat because it was tired.";

// Where the weights come from: seeded random, or heads designed to specialise.
enum class WeightsKind { Random, Designed };
inline constexpr EnumName<WeightsKind> kWeightsKindNames[] = {
    {WeightsKind::Random, "random", ""}, {WeightsKind::Designed, "designed", ""}};
constexpr std::span<const EnumName<WeightsKind>> enumNames(WeightsKind) {
    return kWeightsKindNames;
}

// Where the tokens' positions come from: sinusoids added to x (Vaswani et al.), none, or q and
// k turned by a rotation per position (RoFormer's RoPE, rotate_half layout, as Llama).
enum class PositionalKind { Sinusoidal, None, Rotary };
inline constexpr EnumName<PositionalKind> kPositionalKindNames[] = {
    {PositionalKind::Sinusoidal, "sinusoidal", "sinusoidal, added to x"},
    {PositionalKind::None, "none", "none"},
    {PositionalKind::Rotary, "rotary", "rotary (RoPE) on q and k"}};
constexpr std::span<const EnumName<PositionalKind>> enumNames(PositionalKind) {
    return kPositionalKindNames;
}

inline constexpr double kDefaultRopeTheta = 10000; // RoFormer's and Llama 2's base
inline constexpr double kMinRopeTheta = 1.0;       // theta^(-2j/d_head) <= 1: at most a radian
inline constexpr double kMaxRopeTheta = 1e9;       // a step per position (Llama 3 uses 5e5)

struct Scene {
    std::vector<std::string> sentences{kDemoSentence}; // B query sentences, padded to the longest
    std::vector<std::string> sources; // cross-attention: none, one shared, or one per sentence
    int d_model = 64;
    int heads = 8;
    // K/V heads H_kv (grouped-query attention): a divisor of H smaller than H, query head h
    // reading K/V head h / (H / H_kv); 1 is multi-query attention. 0: H_kv = H, plain MHA (kept
    // so, not as H, so a scene that sets only H stays MHA). Set it through setKvHeads.
    int kvHeads = 0;
    // The head count the user chose when it does not divide d_model (heads is then the valid
    // count nearest to it); 0 while heads is the chosen count. setDModel keeps it, so dragging
    // d_model away and back returns to the user's H.
    int chosenHeads = 0;
    MaskKind mask = MaskKind::None;
    ScaleKind scale = ScaleKind::SqrtDHead;
    std::uint64_t seed = 1;
    WeightsKind weights = WeightsKind::Random;
    std::vector<std::string> headPresets; // designed mode: per head "random" or a preset id;
                                          // empty = the eight designs, then random
    PositionalKind positional = PositionalKind::Sinusoidal;
    double ropeTheta = kDefaultRopeTheta; // rotary: pair j turns by position x theta^(-2j/d_head)
    // The classic pitfalls as switches (see AttentionInput).
    bool outProjection = true;     // --no-out-proj turns it off
    std::vector<int> ablatedHeads; // 0-based, sorted, unique (headSet); numbered from 1 when shown
    bool reshapeBug = false;       // --reshape-bug

    bool isCross() const { return !sources.empty(); }
    int dHead() const { return heads > 0 ? d_model / heads : 0; }
    int kvHeadCount() const { return kvHeads > 0 ? kvHeads : heads; } // H_kv
    bool operator==(const Scene&) const = default;
};

// The user chooses H (slider, keys): sets it, forgets an earlier choice (chosenHeads), and keeps
// what depends on H valid: switched-off heads H no longer has are dropped; per-head presets are
// kept where the head still exists, defaults fill new ones; H_kv follows kvHeadsAfterHeadChange.
// Every control that changes H goes through here or setDModel.
void setHeads(Scene& scene, int heads);

// What H and H_kv make: "MHA" (H_kv = H, or 0), "MQA" (H_kv = 1 < H), else "GQA".
const char* attentionKindName(int heads, int kvHeads);
// "K/V head 2 of 4, GQA" for query head h (from 0) of a grouped scene or layer, "" for MHA.
std::string kvHeadNote(int heads, int kvHeads, int h);

// The user chooses H_kv (slider, Shift+[ / Shift+]): a divisor of H, stored as 0 when it is H.
void setKvHeads(Scene& scene, int kvHeads);
// "" when H_kv = kvHeads can go with H heads, else the line saying why not: "kv heads 3 must
// divide heads 8 (1 = multi-query, 8 = every head its own K and V)". 0 is refused here (a
// Scene keeps 0 for "H", which validationError accepts).
std::string kvHeadsError(int heads, int kvHeads);
// The K/V head counts H allows, ascending: its divisors (1 = MQA ... H = MHA).
std::vector<int> validKvHeadCounts(int heads);
// The valid H_kv `step` places after kvHeads (step > 0) or before it, stopping at 1 and H.
int nextKvHeadCount(int heads, int kvHeads, int step);
// What H_kv becomes when H changes: MHA stays MHA; else the largest divisor of the new H not
// above the old H_kv (2 of 8 stays 2 of 4 or 6, becomes 1 of 3), MHA when that is H itself.
int kvHeadsAfterHeadChange(int newHeads, int kvHeads);

// The head count to use at d_model for the count the user chose: the chosen one when it divides
// d_model, else the valid count nearest to it (nearestHeadCount). A pure function of the two, so
// no path of d_model values drifts away from the choice.
int headsFor(int d_model, int chosen);
// The count the user chose: chosenHeads, or heads when H is the chosen one.
int chosenHeadCount(const Scene& scene);
// The user moves d_model: H becomes headsFor(d_model, the chosen count), which is remembered
// while it does not divide d_model.
void setDModel(Scene& scene, int d_model);
// Empty when H is the chosen count, else one line for beside the heads slider:
// "16 heads do not divide 108: using 18".
std::string headCountNote(const Scene& scene);

// The weights the engine uses: designed only where the designs fit (designedHeadsFit), else
// random. scene.weights keeps what the user chose, so sizes that fit again bring it back.
WeightsKind weightsInUse(const Scene& scene);
// The warning run() adds when designed weights are chosen but do not fit, else empty:
// "designed heads need d_head >= 8 (here 64 / 16 = 4); using random weights". The window shows
// it beside the weights buttons.
std::string designedFallbackWarning(const Scene& scene);

// The positional kind the engine uses: rotary turns q and k by the tokens' own positions, so
// it is for self-attention, and turns pairs of dimensions, so it needs d_head >= 2; else the
// scene runs without positions (and positionalFallbackWarning says why in one line).
// scene.positional keeps the user's choice, which comes back when it fits again.
PositionalKind positionalInUse(const Scene& scene);
std::string positionalFallbackWarning(const Scene& scene);

// Heads switched off, as Scene and the Train view keep them: a set, sorted, each head once.
// The CLI, scene files and both windows go through these, so a list given twice or out of
// order is the same set.
std::vector<int> headSet(std::vector<int> heads);
bool containsHead(const std::vector<int>& set, int head);
void switchHead(std::vector<int>& set, int head, bool in); // adds or removes it

// The head counts d_model allows, ascending: those that divide it (d_head must be whole).
std::vector<int> validHeadCounts(int d_model);
// The valid head count nearest to `wanted`, the smaller on a tie (keeps H valid when d_model
// moves).
int nearestHeadCount(int d_model, int wanted);
// The valid head count `step` places after H (step > 0) or before it (step < 0), stopping at
// the first and last; H itself when there is none that way ([ and ] in the window).
int nextHeadCount(int d_model, int heads, int step);

// "+ Add sentence": appends kAddedSentence, and with one source per sentence a copy of the
// last source, so they stay paired. False (and nothing changes) at kMaxAddedSentences.
bool canAddSentence(const Scene& scene);
bool addSentence(Scene& scene);
// Removes sentence `index` and, with one source per sentence, its source. The last sentence
// stays (a scene has one at least): false, and nothing changes.
bool canRemoveSentence(const Scene& scene);
bool removeSentence(Scene& scene, int index);

// True for text with nothing but ASCII whitespace: such a sentence is "empty".
bool isBlank(const std::string& text);

// Empty when the scene can run, else one line naming the bad value.
std::string validationError(const Scene& scene);

} // namespace core
