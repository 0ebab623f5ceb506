// The training tasks of "Watch heads learn" (docs/run-folder.md, "Tasks"): each gives a
// vocabulary and seeded batches whose loss mask selects exactly the predictions that need the
// head the task is about, plus a fixed held-out probe set to measure those heads on.
//
// Every random choice comes from core::SplitMix64, so a seed gives the same batches on every
// machine. The model's loss is next-token prediction (logits at t against tokens[t+1]); each
// task builds its sequences so that this loss measures its skill:
//  - previous-token (k = 1): random tokens; at some random positions t (mask true) the next
//    token is a copy of the token k back from t: tokens[t+1] = tokens[t-k]. Everywhere else the
//    next token is fresh, so the only way to lower the loss is to read position t-k from t,
//    which for k = 1 is a previous-token head. Loss positions are at least k+2 apart, so a
//    copied token is never the source of the next copy (no periodic runs another head could
//    exploit).
//  - induction: random tokens in which a segment of random length (2 .. n/2) appears twice at
//    random, non-overlapping positions; the mask is true on the second copy's positions whose
//    next token the first copy determines (its first L-1 positions). The offset between the
//    copies varies, so no positional head solves it (Olsson et al. 2022).
//  - agreement: sentences "the [adj]* noun [prep the [adj] noun] verb ." packed back to back
//    from position 0; what is left after the last whole sentence that fits is filled with ".".
//    The verb's number follows the subject, never the prepositional noun, whose number is drawn
//    independently (so it disagrees in about half the sentences with one). The mask is true at
//    the position before each verb.
#pragma once

#include "train/model.h"

#include "base/prng.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core::train {

enum class TaskKind { PreviousToken, Induction, Agreement };
inline constexpr EnumName<TaskKind> kTaskKindNames[] = {
    {TaskKind::PreviousToken, "previous-token", ""},
    {TaskKind::Induction, "induction", ""},
    {TaskKind::Agreement, "agreement", ""}};
constexpr std::span<const EnumName<TaskKind>> enumNames(TaskKind) {
    return kTaskKindNames;
}

// Random-token vocabulary size: "t0" .. "t63". 64 is small enough for the default D = 64 model
// to learn an embedding of each token in a few thousand steps, and large enough that a random
// token rarely repeats by chance in a 32-token sequence (so an induction copy is usually the
// only earlier occurrence, and chance guesses score ~1/64).
inline constexpr int kRandomVocab = 64;
inline constexpr int kPreviousTokenK = 1; // the contract's default k

// One verb of an agreement sequence: where it is, its subject, and its two number forms.
struct VerbSite {
    int batch = 0;      // b
    int verb = 0;       // the verb's position; the loss position is verb - 1
    int subject = 0;    // the subject noun's position
    int rightToken = 0; // the form agreeing with the subject
    int wrongToken = 0; // the same verb in the other number
};

// An induction repeat: tokens[second + i] = tokens[first + i] for i < length.
struct Repeat {
    int batch = 0, first = 0, second = 0, length = 0;
};

// A batch with the positions of interest its generator chose.
struct TaskSample {
    Batch batch;
    std::vector<VerbSite> verbs; // agreement only
    std::vector<Repeat> repeats; // induction only, one per sequence
};

class Task {
  public:
    explicit Task(TaskKind kind);

    TaskKind kind() const { return kind_; }
    // Token strings, id = index. Agreement: "." then the grammar's words (see tasks.cpp).
    const std::vector<std::string>& vocab() const { return vocab_; }
    int vocabSize() const { return int(vocab_.size()); }
    // The shortest sequence the task can fill (previous-token k+2, induction 4, agreement the
    // longest sentence); makeBatch throws std::invalid_argument below it or for batch < 1.
    int minSeq() const;

    // batch sequences of seq tokens each, every one with at least one loss position.
    Batch makeBatch(SplitMix64& rng, int batch, int seq) const {
        return sample(rng, batch, seq).batch;
    }
    TaskSample sample(SplitMix64& rng, int batch, int seq) const;

  private:
    TaskKind kind_;
    std::vector<std::string> vocab_;
};

// The held-out set the metrics are measured on, fixed by its own seed.
struct ProbeSet {
    TaskKind kind = TaskKind::PreviousToken;
    TaskSample task; // task sequences: held-out loss, accuracy, and (agreement) subject scores
    // Random tokens of the task's vocabulary, first half random and the second half equal to it
    // (length 2 * half): the previous-token and induction scores of every task are read here,
    // where both patterns have one unambiguous answer at every position.
    Batch repeated;
    int half = 0;
};

// The probe seed from the run's seed: its own stream, never the training batches'.
inline std::uint64_t probeSeed(std::uint64_t seed) {
    return seed ^ fnv1a64("probe");
}

// batch task sequences and batch repeated sequences of length seq (seq / 2 * 2 for the repeated
// ones), all from SplitMix64(seed). Throws std::invalid_argument as Task::sample does.
ProbeSet makeProbeSet(const Task& task, std::uint64_t seed, int batch, int seq);

} // namespace core::train
