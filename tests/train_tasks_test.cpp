// The training tasks (core/train/tasks.h) against the Training contract: seeded and
// deterministic, shapes and masks where the contract puts them, induction repeats at varying
// offsets, agreement verbs that follow the subject and not the nearer noun, real words.
#include "train/tasks.h"

#include "text/lexicon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace {

using core::SplitMix64;
using core::train::Task;
using core::train::TaskKind;

constexpr TaskKind kAll[] = {TaskKind::PreviousToken, TaskKind::Induction, TaskKind::Agreement};

TEST(TrainTasks, NamesRoundTrip) {
    for (TaskKind kind : kAll)
        EXPECT_EQ(core::parseEnum<core::train::TaskKind>(core::toString(kind)), kind);
    EXPECT_EQ(core::toString(TaskKind::PreviousToken), "previous-token");
    EXPECT_FALSE(core::parseEnum<core::train::TaskKind>("Induction").has_value());
}

TEST(TrainTasks, SameSeedSameBatchesAndValidShapes) {
    for (TaskKind kind : kAll) {
        const Task task(kind);
        SplitMix64 a(7), b(7), c(8);
        const auto first = task.makeBatch(a, 16, 32);
        EXPECT_EQ(first.tokens, task.makeBatch(b, 16, 32).tokens);
        SplitMix64 again(7);
        EXPECT_EQ(first.lossMask, task.makeBatch(again, 16, 32).lossMask);
        EXPECT_NE(first.tokens, task.makeBatch(c, 16, 32).tokens);
        ASSERT_EQ(first.size(), 16);
        ASSERT_EQ(first.length(), 32);
        core::train::ModelConfig config;
        config.vocab = task.vocabSize();
        EXPECT_NO_THROW(core::train::validate(first, config));
        for (const auto& mask : first.lossMask) {
            EXPECT_FALSE(mask.back());
            EXPECT_NE(std::count(mask.begin(), mask.end(), true), 0) << core::toString(kind);
        }
    }
}

TEST(TrainTasks, BadSizesThrow) {
    SplitMix64 rng(1);
    EXPECT_THROW(Task(TaskKind::Induction).makeBatch(rng, 0, 32), std::invalid_argument);
    EXPECT_THROW(Task(TaskKind::Induction).makeBatch(rng, 4, 3), std::invalid_argument);
    EXPECT_THROW(Task(TaskKind::Agreement).makeBatch(rng, 4, 9), std::invalid_argument);
    EXPECT_NO_THROW(Task(TaskKind::PreviousToken).makeBatch(rng, 4, 3));
}

TEST(TrainTasks, PreviousTokenMaskedNextTokenIsTheOneBack) {
    const Task task(TaskKind::PreviousToken);
    EXPECT_EQ(task.vocabSize(), core::train::kRandomVocab);
    EXPECT_EQ(task.vocab().front(), "t0");
    SplitMix64 rng(3);
    const auto batch = task.makeBatch(rng, 64, 32);
    int masked = 0, copiesOutsideMask = 0;
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 1; t + 1 < batch.length(); ++t) {
            if (batch.lossMask[b][t]) {
                ++masked;
                EXPECT_EQ(batch.tokens[b][t + 1], batch.tokens[b][t - 1]);
            } else {
                copiesOutsideMask += batch.tokens[b][t + 1] == batch.tokens[b][t - 1];
            }
        }
    EXPECT_FALSE(batch.lossMask[0][0]);
    EXPECT_GT(masked, 64 * 5);                  // about a third of the positions
    EXPECT_LT(copiesOutsideMask, 64 * 30 / 16); // chance repeats only (1/64)
}

TEST(TrainTasks, InductionRepeatsAtVaryingOffsetsAndLengths) {
    const Task task(TaskKind::Induction);
    SplitMix64 rng(5);
    const auto sample = task.sample(rng, 64, 32);
    ASSERT_EQ(sample.repeats.size(), 64u);
    std::set<int> lengths, gaps, seconds;
    for (const auto& r : sample.repeats) {
        const auto& tokens = sample.batch.tokens[r.batch];
        const auto& mask = sample.batch.lossMask[r.batch];
        ASSERT_GE(r.length, 2);
        ASSERT_LE(r.second + r.length, 32);
        ASSERT_LE(r.first + r.length, r.second);
        for (int i = 0; i < r.length; ++i) EXPECT_EQ(tokens[r.second + i], tokens[r.first + i]);
        for (int t = 0; t < 32; ++t)
            EXPECT_EQ(mask[t], t >= r.second && t < r.second + r.length - 1) << t;
        lengths.insert(r.length);
        gaps.insert(r.second - r.first);
        seconds.insert(r.second);
    }
    EXPECT_GT(lengths.size(), 5u);
    EXPECT_GT(gaps.size(), 10u);
    EXPECT_GT(seconds.size(), 10u);
}

TEST(TrainTasks, AgreementVerbFollowsTheSubjectNotTheNearerNoun) {
    const Task task(TaskKind::Agreement);
    SplitMix64 rng(9);
    const auto sample = task.sample(rng, 32, 32);
    int withAttractor = 0, disagreeing = 0;
    const auto number = [&](int token) { return core::lookupWord(task.vocab()[token]).number; };
    for (const auto& site : sample.verbs) {
        const auto& tokens = sample.batch.tokens[site.batch];
        EXPECT_EQ(tokens[site.verb], site.rightToken);
        EXPECT_TRUE(sample.batch.lossMask[site.batch][site.verb - 1]);
        EXPECT_EQ(task.vocab()[tokens[site.verb + 1]], ".");
        const auto subject = number(tokens[site.subject]);
        // "runs" is 3sg (singular subject), "run" the plural form.
        const bool verbSingular =
            core::lookupWord(task.vocab()[site.rightToken]).derivation == "3sg";
        EXPECT_EQ(verbSingular, subject == core::GrammaticalNumber::Singular);
        EXPECT_EQ(core::lookupWord(task.vocab()[site.wrongToken]).lemma,
                  core::lookupWord(task.vocab()[site.rightToken]).lemma);
        EXPECT_NE(site.wrongToken, site.rightToken);
        if (site.verb - 1 != site.subject) {
            const int nearer = site.verb - 1; // the prepositional phrase's noun
            ASSERT_EQ(core::lookupWord(task.vocab()[tokens[nearer]]).pos, core::PartOfSpeech::Noun);
            ++withAttractor;
            disagreeing += number(tokens[nearer]) != subject;
        }
    }
    // Every masked position is the one before a verb.
    int masked = 0;
    for (const auto& mask : sample.batch.lossMask)
        masked += int(std::count(mask.begin(), mask.end(), true));
    EXPECT_EQ(masked, int(sample.verbs.size()));
    EXPECT_GT(withAttractor, 10);
    EXPECT_GT(disagreeing, 5);
    EXPECT_LT(disagreeing, withAttractor);
}

TEST(TrainTasks, AgreementWordsHaveTheirPartsOfSpeech) {
    const Task task(TaskKind::Agreement);
    std::set<std::string> unique(task.vocab().begin(), task.vocab().end());
    EXPECT_EQ(unique.size(), task.vocab().size());
    int nouns = 0, verbs = 0;
    for (const std::string& word : task.vocab()) {
        const auto features = core::lookupWord(word);
        EXPECT_TRUE(features.known) << word;
        if (features.pos == core::PartOfSpeech::Noun) {
            ++nouns;
            EXPECT_NE(features.number, core::GrammaticalNumber::None) << word;
        }
        verbs += features.pos == core::PartOfSpeech::Verb;
        EXPECT_TRUE(features.pos != core::PartOfSpeech::Unknown &&
                    features.pos != core::PartOfSpeech::Pronoun)
            << word;
    }
    EXPECT_EQ(core::lookupWord("the").pos, core::PartOfSpeech::Determiner);
    EXPECT_EQ(core::lookupWord(task.vocab().front()).pos, core::PartOfSpeech::Punctuation);
    EXPECT_EQ(nouns, 16);
    EXPECT_EQ(verbs, 10);
    // Every subject noun of a sample is a noun, its position before the verb.
    SplitMix64 rng(2);
    const auto sample = task.sample(rng, 8, 32);
    for (const auto& site : sample.verbs)
        EXPECT_EQ(core::lookupWord(task.vocab()[sample.batch.tokens[site.batch][site.subject]]).pos,
                  core::PartOfSpeech::Noun);
}

TEST(TrainTasks, ProbeSetIsFixedByItsSeedAndRepeatsAHalf) {
    const Task task(TaskKind::Induction);
    const auto probe = core::train::makeProbeSet(task, core::train::probeSeed(1), 8, 33);
    const auto again = core::train::makeProbeSet(task, core::train::probeSeed(1), 8, 33);
    EXPECT_EQ(probe.task.batch.tokens, again.task.batch.tokens);
    EXPECT_EQ(probe.repeated.tokens, again.repeated.tokens);
    EXPECT_NE(core::train::probeSeed(1), 1u);
    ASSERT_EQ(probe.half, 16);
    ASSERT_EQ(probe.repeated.length(), 32);
    for (int b = 0; b < 8; ++b)
        for (int t = 0; t < 16; ++t)
            EXPECT_EQ(probe.repeated.tokens[b][t + 16], probe.repeated.tokens[b][t]);
    core::train::ModelConfig config;
    config.vocab = task.vocabSize();
    EXPECT_NO_THROW(core::train::validate(probe.repeated, config));
    const auto agreement = core::train::makeProbeSet(Task(TaskKind::Agreement), 4, 8, 32);
    EXPECT_FALSE(agreement.task.verbs.empty());
}

} // namespace
