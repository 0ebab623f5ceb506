#include "train/tasks.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace core::train {

namespace {

// The agreement grammar's words, all in assets/lexicon.tsv (tests/train_tasks_test.cpp checks
// their parts of speech and numbers with core::lookupWord). "the" is the only determiner
// because it has no number: the subject noun must be the only clue to the verb's form. Nouns
// and verbs have regular -s forms, so singular and plural differ by one visible inflection.
constexpr std::array<const char*, 8> kNouns = {"cat",  "dog", "bird",    "horse",
                                               "girl", "boy", "teacher", "farmer"};
constexpr std::array<const char*, 6> kAdjectives = {"big", "small", "old", "young", "happy", "red"};
constexpr std::array<const char*, 4> kPrepositions = {"near", "behind", "beside", "with"};
constexpr std::array<const char*, 5> kVerbs = {"run", "sleep", "sing", "wait", "jump"};
// "the", 2 adjectives, noun, preposition, "the", adjective, noun, verb, "."
constexpr int kLongestSentence = 10;

// Token ids of the agreement vocabulary, in the order agreementVocab() lists them.
constexpr int kPeriod = 0, kThe = 1;
constexpr int nounId(int noun, bool plural) {
    return 2 + 2 * noun + int(plural);
}
constexpr int kAdjectiveBase = 2 + 2 * int(kNouns.size());
constexpr int kPrepositionBase = kAdjectiveBase + int(kAdjectives.size());
constexpr int kVerbBase = kPrepositionBase + int(kPrepositions.size());
// Singular is the 3sg form ("runs"), plural the base form ("run").
constexpr int verbId(int verb, bool plural) {
    return kVerbBase + 2 * verb + int(plural);
}

std::vector<std::string> agreementVocab() {
    std::vector<std::string> vocab = {".", "the"};
    for (const char* noun : kNouns) {
        vocab.push_back(std::string(noun));
        vocab.push_back(std::string(noun) + "s");
    }
    for (const char* adjective : kAdjectives) vocab.emplace_back(adjective);
    for (const char* preposition : kPrepositions) vocab.emplace_back(preposition);
    for (const char* verb : kVerbs) {
        vocab.push_back(std::string(verb) + "s");
        vocab.push_back(std::string(verb));
    }
    return vocab;
}

// Uniform in [0, n) by multiply-shift (Lemire): no division, and a bias of n / 2^32 at most.
int uniformInt(SplitMix64& rng, int n) {
    return int(((rng.next() >> 32) * std::uint64_t(n)) >> 32);
}
// Uniform in [lo, hi].
int uniformIn(SplitMix64& rng, int lo, int hi) {
    return lo + uniformInt(rng, hi - lo + 1);
}
bool coin(SplitMix64& rng) {
    return (rng.next() >> 63) != 0;
}

std::vector<int> randomTokens(SplitMix64& rng, int length, int vocab) {
    std::vector<int> tokens(length);
    for (int& token : tokens) token = uniformInt(rng, vocab);
    return tokens;
}

// Random tokens; each candidate loss position t (k <= t <= n-2) is taken with probability 1/2
// and then tokens[t+1] = tokens[t-k]; the next candidate is t+k+2, past the copy, so a copy is
// never copied again. The last candidate is forced if none was taken (every row must count).
void previousTokenRow(SplitMix64& rng, int seq, int vocab, std::vector<int>& tokens,
                      std::vector<bool>& mask) {
    const int k = kPreviousTokenK;
    tokens = randomTokens(rng, seq, vocab);
    mask.assign(seq, false);
    bool any = false;
    for (int t = k; t <= seq - 2;) {
        if (coin(rng) || (!any && t == seq - 2)) {
            tokens[t + 1] = tokens[t - k];
            mask[t] = any = true;
            t += k + 2;
        } else {
            ++t;
        }
    }
}

// A segment of length L in [2, n/2] at first in [0, n-2L] and again at second in [first+L,
// n-L]; the mask covers second .. second+L-2, whose next tokens the first copy determines.
Repeat inductionRow(SplitMix64& rng, int b, int seq, int vocab, std::vector<int>& tokens,
                    std::vector<bool>& mask) {
    tokens = randomTokens(rng, seq, vocab);
    mask.assign(seq, false);
    Repeat repeat;
    repeat.batch = b;
    repeat.length = uniformIn(rng, 2, seq / 2);
    repeat.first = uniformIn(rng, 0, seq - 2 * repeat.length);
    repeat.second = uniformIn(rng, repeat.first + repeat.length, seq - repeat.length);
    for (int i = 0; i < repeat.length; ++i) tokens[repeat.second + i] = tokens[repeat.first + i];
    for (int i = 0; i + 1 < repeat.length; ++i) mask[repeat.second + i] = true;
    return repeat;
}

// One sentence "the [adj]{0,2} noun [prep the [adj]{0,1} noun] verb ." appended at `tokens`'
// end; returns its verb site (position relative to the start of the row).
VerbSite appendSentence(SplitMix64& rng, std::vector<int>& tokens) {
    VerbSite site;
    const bool plural = coin(rng);
    tokens.push_back(kThe);
    for (int a = uniformInt(rng, 3); a > 0; --a)
        tokens.push_back(kAdjectiveBase + uniformInt(rng, int(kAdjectives.size())));
    site.subject = int(tokens.size());
    tokens.push_back(nounId(uniformInt(rng, int(kNouns.size())), plural));
    if (coin(rng)) {
        // The attractor noun's number is drawn on its own: it disagrees half the time.
        tokens.push_back(kPrepositionBase + uniformInt(rng, int(kPrepositions.size())));
        tokens.push_back(kThe);
        if (coin(rng)) tokens.push_back(kAdjectiveBase + uniformInt(rng, int(kAdjectives.size())));
        tokens.push_back(nounId(uniformInt(rng, int(kNouns.size())), coin(rng)));
    }
    const int verb = uniformInt(rng, int(kVerbs.size()));
    site.verb = int(tokens.size());
    site.rightToken = verbId(verb, plural);
    site.wrongToken = verbId(verb, !plural);
    tokens.push_back(site.rightToken);
    tokens.push_back(kPeriod);
    return site;
}

// Whole sentences from position 0 while they fit, then "." to the end. A sentence that does not
// fit is dropped (its draws are spent), so every row has the same length and only whole
// sentences are scored.
std::vector<VerbSite> agreementRow(SplitMix64& rng, int b, int seq, std::vector<int>& tokens,
                                   std::vector<bool>& mask) {
    tokens.clear();
    std::vector<VerbSite> sites;
    for (;;) {
        std::vector<int> sentence;
        VerbSite site = appendSentence(rng, sentence);
        if (int(tokens.size() + sentence.size()) > seq) break;
        site.batch = b;
        site.verb += int(tokens.size());
        site.subject += int(tokens.size());
        sites.push_back(site);
        tokens.insert(tokens.end(), sentence.begin(), sentence.end());
    }
    tokens.resize(seq, kPeriod);
    mask.assign(seq, false);
    for (const VerbSite& site : sites) mask[site.verb - 1] = true;
    return sites;
}

} // namespace

Task::Task(TaskKind kind) : kind_(kind) {
    if (kind == TaskKind::Agreement) {
        vocab_ = agreementVocab();
    } else {
        for (int i = 0; i < kRandomVocab; ++i) // append: GCC 12's -Wrestrict false positive
            vocab_.push_back(std::string("t").append(std::to_string(i)));
    }
}

int Task::minSeq() const {
    switch (kind_) {
    case TaskKind::PreviousToken:
        return kPreviousTokenK + 2;
    case TaskKind::Induction:
        return 4;
    case TaskKind::Agreement:
        return kLongestSentence;
    }
    return 2;
}

TaskSample Task::sample(SplitMix64& rng, int batch, int seq) const {
    if (batch < 1) throw std::invalid_argument("batch " + std::to_string(batch) + " is below 1");
    if (seq < minSeq())
        throw std::invalid_argument("seq " + std::to_string(seq) + " is below " +
                                    std::to_string(minSeq()) + " for task " +
                                    std::string(toString(kind_)));
    TaskSample out;
    out.batch.tokens.resize(batch);
    out.batch.lossMask.resize(batch);
    for (int b = 0; b < batch; ++b) {
        auto& tokens = out.batch.tokens[b];
        auto& mask = out.batch.lossMask[b];
        if (kind_ == TaskKind::PreviousToken) {
            previousTokenRow(rng, seq, vocabSize(), tokens, mask);
        } else if (kind_ == TaskKind::Induction) {
            out.repeats.push_back(inductionRow(rng, b, seq, vocabSize(), tokens, mask));
        } else {
            const auto sites = agreementRow(rng, b, seq, tokens, mask);
            out.verbs.insert(out.verbs.end(), sites.begin(), sites.end());
        }
    }
    return out;
}

ProbeSet makeProbeSet(const Task& task, std::uint64_t seed, int batch, int seq) {
    SplitMix64 rng(seed);
    ProbeSet probe;
    probe.kind = task.kind();
    probe.task = task.sample(rng, batch, seq);
    probe.half = seq / 2;
    for (int b = 0; b < batch; ++b) {
        std::vector<int> tokens = randomTokens(rng, probe.half, task.vocabSize());
        const std::vector<int> firstHalf = tokens;
        tokens.insert(tokens.end(), firstHalf.begin(), firstHalf.end());
        // Masked where the first half determines the next token, so the set is a valid Batch.
        std::vector<bool> mask(2 * probe.half, false);
        for (int t = probe.half; t + 1 < 2 * probe.half; ++t) mask[t] = true;
        probe.repeated.tokens.push_back(std::move(tokens));
        probe.repeated.lossMask.push_back(std::move(mask));
    }
    return probe;
}

} // namespace core::train
