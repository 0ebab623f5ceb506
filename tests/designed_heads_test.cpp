// Designed heads: ordinary W_Q / W_K matrices over the feature embedding that make each
// head look where its name says, checked by the argmax of real attention rows.
#include "engine/designed_heads.h"
#include "engine/trace.h"

#include "reference_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace {

core::Trace designed(const std::string& sentence, int d_model = 64, int heads = 8) {
    core::Scene s;
    s.sentences = {sentence};
    s.weights = core::WeightsKind::Designed;
    s.d_model = d_model;
    s.heads = heads;
    return core::run(s);
}

// Where query `i` of the head named `preset` puts most of its weight.
int argmaxKey(const core::Trace& t, const std::string& preset, int i) {
    const auto name = std::find(t.headNames.begin(), t.headNames.end(), preset);
    if (name == t.headNames.end()) throw std::logic_error("no head " + preset);
    const int h = int(name - t.headNames.begin());
    const auto row = t.attention.attention.row(t.attention.headRow(0, h, i)); // 1 x M
    Eigen::Index best = 0;
    row.maxCoeff(&best);
    return int(best);
}

const char* const kDemo = "The black cat sat on the mat because it was tired.";
//                          0   1     2   3   4  5   6   7       8  9   10   11

} // namespace

TEST(DesignedHeads, EightPresetsNameTheHeads) {
    const core::Trace t = designed(kDemo);
    ASSERT_EQ(t.headNames.size(), 8u);
    for (int p = 0; p < core::kDesignedPresetCount; ++p)
        EXPECT_EQ(t.headNames[std::size_t(p)], core::kDesignedPresets[p].id);
    EXPECT_TRUE(t.warnings.empty());
}

TEST(DesignedHeads, DemoItFindsCatNotTheNearerMat) {
    EXPECT_EQ(argmaxKey(designed(kDemo), "pronoun-antecedent", 8), 2);
}
TEST(DesignedHeads, DemoCatFindsItsAdjectiveBlack) {
    EXPECT_EQ(argmaxKey(designed(kDemo), "noun-adjective", 2), 1);
}
TEST(DesignedHeads, DemoCatFindsItsVerbSat) {
    EXPECT_EQ(argmaxKey(designed(kDemo), "subject-verb", 2), 3);
}

TEST(DesignedHeads, EveryTokenFindsItsLeftNeighbour) {
    const core::Trace t = designed(kDemo);
    EXPECT_EQ(argmaxKey(t, "previous-token", 0), 0); // the first token looks at itself
    for (int i = 1; i < t.queryLen(); ++i) EXPECT_EQ(argmaxKey(t, "previous-token", i), i - 1) << i;
}

TEST(DesignedHeads, FirstTokenAndSelf) {
    const core::Trace t = designed(kDemo);
    for (int i = 0; i < t.queryLen(); ++i) {
        EXPECT_EQ(argmaxKey(t, "first-token", i), 0) << i;
        EXPECT_EQ(argmaxKey(t, "self", i), i) << i;
    }
}

TEST(DesignedHeads, RepeatedWordFindsItsEarlierOccurrence) {
    const core::Trace t = designed("The dog saw the cat near the dog.");
    //                              0   1   2   3   4   5    6   7
    EXPECT_EQ(argmaxKey(t, "same-word", 3), 0); // "the" -> "The" (case-folded)
    EXPECT_EQ(argmaxKey(t, "same-word", 7), 1); // "dog" -> the first "dog"
    EXPECT_EQ(argmaxKey(t, "same-word", 2), 2); // a word seen once stays on itself
}

TEST(DesignedHeads, PronounsAgreeInNumberAndPerson) {
    EXPECT_EQ(
        argmaxKey(designed("The dogs barked because they were hungry."), "pronoun-antecedent", 4),
        1);
    EXPECT_EQ(argmaxKey(designed("The woman saw the cat and she smiled."), "pronoun-antecedent", 6),
              1);
    EXPECT_EQ(argmaxKey(designed("The man saw the dog and he ran."), "pronoun-antecedent", 6), 1);
    EXPECT_EQ(argmaxKey(designed("The girl lost the books because they were heavy."),
                        "pronoun-antecedent", 6),
              4);
}

TEST(DesignedHeads, NounFindsTheAdjectiveRightBeforeIt) {
    EXPECT_EQ(argmaxKey(designed("A big red ball rolled."), "noun-adjective", 3), 2);
    EXPECT_EQ(argmaxKey(designed("The old man slept."), "noun-adjective", 2), 1);
}

TEST(DesignedHeads, SubjectFindsItsVerb) {
    EXPECT_EQ(argmaxKey(designed("The dog barked."), "subject-verb", 1), 2);
    EXPECT_EQ(argmaxKey(designed("The mouse ate cheese."), "subject-verb", 1), 2);
}

TEST(DesignedHeads, WordsFindEarlierWordsOfTheirClass) {
    const core::Trace t = designed("The dog chased the cat and the mouse ate cheese.");
    //                              0   1   2      3   4   5   6   7     8   9
    EXPECT_EQ(argmaxKey(t, "semantic-class", 4), 1); // cat -> dog (animals)
    EXPECT_EQ(argmaxKey(t, "semantic-class", 7), 1); // mouse -> dog
}

// Known failures, kept as tests so a change of behaviour is noticed: the heuristics use word
// features and positions only, not meaning or syntax.
TEST(DesignedHeadsKnownFailures, ItPrefersAnAnimalEvenWhenTheObjectIsMeant) {
    // "it was flat" means the mat; the head still prefers the animal.
    EXPECT_EQ(
        argmaxKey(designed("The cat sat on the mat because it was flat."), "pronoun-antecedent", 7),
        1);
}

TEST(DesignedHeadsKnownFailures, AdjectiveAfterTheNounIsMissed) {
    // "the mat was red": the noun looks before itself, not at the predicate adjective.
    EXPECT_NE(argmaxKey(designed("The mat was red."), "noun-adjective", 1), 3);
}

TEST(DesignedHeads, FewerHeadsGetTheFirstPresetsMoreGetRandom) {
    const core::Trace four = designed(kDemo, 64, 4); // d_head 16
    EXPECT_EQ(four.headNames, (std::vector<std::string>{"previous-token", "same-word",
                                                        "noun-adjective", "subject-verb"}));
    EXPECT_EQ(argmaxKey(four, "previous-token", 5), 4);
    const core::Trace sixteen = designed(kDemo, 128, 16); // d_head 8
    EXPECT_EQ(sixteen.headNames[7], "self");
    EXPECT_EQ(sixteen.headNames[8], "head 9");
    EXPECT_EQ(argmaxKey(sixteen, "pronoun-antecedent", 8), 2); // the designs scale with d_model
}

TEST(DesignedHeads, TooSmallFallsBackToRandomAndSaysSo) {
    const core::Trace small = designed(kDemo, 32, 4);
    EXPECT_EQ(small.headNames[0], "head 1");
    ASSERT_EQ(small.warnings.size(), 1u);
    EXPECT_NE(small.warnings[0].find("d_model >= 64"), std::string::npos);
    EXPECT_FALSE(core::designedHeadsFit(64, 16)); // d_head 4
    EXPECT_TRUE(core::designedHeadsFit(64, 8));
}

// Grouped-query attention: the query heads of a group share one key slice, each design in its
// own 8 columns of it, so each still finds what it looks for; where d_head cannot hold a lane
// per query head, random weights and the reason.
TEST(DesignedHeads, GroupedHeadsShareKeysEachDesignInItsOwnLane) {
    EXPECT_TRUE(core::designedHeadsFit(128, 8, 4));  // d_head 16: two lanes of 8
    EXPECT_FALSE(core::designedHeadsFit(64, 8, 4));  // d_head 8: one lane for two heads
    EXPECT_TRUE(core::designedHeadsFit(64, 8, 8));   // MHA
    EXPECT_TRUE(core::designedHeadsFit(512, 8, 1));  // MQA: 8 lanes of 8 in d_head 64
    EXPECT_FALSE(core::designedHeadsFit(256, 8, 1)); // d_head 32: 4 lanes for 8 heads
    EXPECT_EQ(core::designedHeadsMisfit(64, 8, 2),
              "designed heads with 4 query heads per K/V head need d_head >= 32 (here 64 / 8 = 8)");
    core::Scene s;
    s.sentences = {kDemo};
    s.weights = core::WeightsKind::Designed;
    s.d_model = 128;
    core::setKvHeads(s, 4); // heads 2k and 2k+1 share K/V head k
    const core::Trace t = core::run(s);
    EXPECT_TRUE(t.warnings.empty());
    EXPECT_EQ(t.weights->wK.cols(), 4 * 16);
    EXPECT_EQ(argmaxKey(t, "previous-token", 5), 4);
    EXPECT_EQ(argmaxKey(t, "same-word", 5), 0); // "the" finds "The"
    EXPECT_EQ(argmaxKey(t, "noun-adjective", 2), 1);
    EXPECT_EQ(argmaxKey(t, "subject-verb", 2), 3);
    EXPECT_EQ(argmaxKey(t, "pronoun-antecedent", 8), 2);
    EXPECT_EQ(argmaxKey(t, "first-token", 9), 0);
    EXPECT_EQ(argmaxKey(t, "self", 7), 7);
    core::setKvHeads(s, 2); // four heads per K/V head: d_head 16 holds two lanes
    const core::Trace misfit = core::run(s);
    EXPECT_EQ(misfit.headNames[0], "head 1");
    ASSERT_EQ(misfit.warnings.size(), 1u);
    EXPECT_NE(misfit.warnings[0].find("4 query heads per K/V head need d_head >= 32"),
              std::string::npos);
}

TEST(DesignedHeads, PerHeadPresetsChooseTheDesigns) {
    core::Scene s;
    s.weights = core::WeightsKind::Designed;
    s.d_model = 64;
    s.heads = 2;
    s.headPresets = {"random", "self"};
    const core::Trace t = core::run(s);
    EXPECT_EQ(t.headNames, (std::vector<std::string>{"head 1", "self"}));
    EXPECT_EQ(argmaxKey(t, "self", 4), 4);
    s.headPresets = {"self"};
    EXPECT_NE(core::validationError(s).find("1 head presets for 2 heads"), std::string::npos);
    s.headPresets = {"self", "gossip"};
    EXPECT_NE(core::validationError(s).find("'gossip'"), std::string::npos);
}

TEST(DesignedHeads, DesignedWeightsAreOrdinaryWeights) {
    // Same engine, same reference: designed matrices get no special case anywhere.
    const core::Trace t = designed(kDemo);
    core::AttentionInput in = t.input;
    testing_support::expectWeightsAndOutputMatch(testing_support::runForward(in, *t.weights),
                                                 core::reference::forward(in, *t.weights));
}

TEST(DesignedHeads, FeatureEmbeddingLayout) {
    const core::Mat x = core::featureEmbedTokens({"cats", "sat"}, 64, true); // 2 x 64
    EXPECT_EQ(x(0, 0), 1.0f);                                                // the constant
    EXPECT_EQ(x(0, 2), 1.0f);  // noun (Determiner = 1, Noun = 2)
    EXPECT_EQ(x(0, 12), 1.0f); // plural
    EXPECT_EQ(x(1, 4), 1.0f);  // verb
    for (int c = 32; c < 48; ++c) EXPECT_EQ(std::abs(x(0, c)), 1.0f) << c; // identity code
    EXPECT_FLOAT_EQ(x(1, 48), std::sin(1.0f)); // position 1, pair 0 (frequency 1)
    EXPECT_EQ(core::featureEmbedTokens({"cat"}, 64, true).row(0).segment(32, 16),
              core::featureEmbedTokens({"a", "Cat"}, 64, true).row(1).segment(32, 16)); // same word
}
