// Scene validation and core::run: tokens -> padded batch -> trace.
#include "engine/designed_heads.h"
#include "engine/reference.h"
#include "engine/trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using core::Scene;

namespace {

Scene sceneWith(std::vector<std::string> sentences) {
    Scene s;
    s.sentences = std::move(sentences);
    return s;
}

} // namespace

TEST(Scene, DefaultsAreTheDemo) {
    const Scene s;
    EXPECT_EQ(s.sentences,
              std::vector<std::string>{"The cat sat on the mat because it was tired."});
    EXPECT_EQ(s.d_model, 64);
    EXPECT_EQ(s.heads, 8);
    EXPECT_EQ(s.dHead(), 8);
    EXPECT_EQ(core::validationError(s), "");
}

TEST(Scene, HeadsMustDivideDModel) {
    Scene s;
    s.heads = 3;
    EXPECT_EQ(core::validationError(s),
              "heads 3 does not divide d_model 64 (d_head = d_model / heads must be whole)");
}

TEST(Scene, BadSizesAreNamed) {
    for (int d : {0, -8, 7, 1026, 1 << 30}) {
        Scene s;
        s.d_model = d;
        EXPECT_NE(core::validationError(s).find("d_model " + std::to_string(d)), std::string::npos);
    }
    Scene s;
    s.heads = 0;
    EXPECT_NE(core::validationError(s).find("heads 0"), std::string::npos);
    s.heads = 128; // more heads than dimensions
    EXPECT_NE(core::validationError(s).find("heads 128"), std::string::npos);
}

TEST(Scene, BlankSentencesAreRejected) {
    EXPECT_EQ(core::validationError(sceneWith({""})), "sentence 1 is empty");
    EXPECT_EQ(core::validationError(sceneWith({"ok", " \t\n"})), "sentence 2 is empty");
    EXPECT_THROW(core::run(sceneWith({"   "})), std::invalid_argument);
}

TEST(Scene, SourcesAreOneOrOnePerSentence) {
    Scene s = sceneWith({"a b", "c d", "e"});
    s.sources = {"x", "y"};
    EXPECT_NE(core::validationError(s).find("2 source sentences for 3"), std::string::npos);
    s.sources = {"x"};
    EXPECT_EQ(core::validationError(s), "");
}

TEST(HeadCounts, AreTheDivisorsOfDModel) {
    EXPECT_EQ(core::validHeadCounts(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
    EXPECT_EQ(core::validHeadCounts(2), (std::vector<int>{1, 2}));
    for (int h : core::validHeadCounts(64)) {
        Scene s;
        s.heads = h;
        EXPECT_EQ(core::validationError(s), "") << h;
    }
}

TEST(HeadCounts, NearestKeepsHValidWhenDModelMoves) {
    EXPECT_EQ(core::nearestHeadCount(64, 8), 8);
    EXPECT_EQ(core::nearestHeadCount(60, 8), 6); // 6 and 10 are 2 away: the smaller
    EXPECT_EQ(core::nearestHeadCount(62, 8), 2);
    EXPECT_EQ(core::nearestHeadCount(8, 100), 8);
}

TEST(HeadCounts, ForAChosenCountTheChosenOneWhereItDividesElseTheNearest) {
    EXPECT_EQ(core::headsFor(64, 16), 16);
    EXPECT_EQ(core::headsFor(108, 16), 18); // 12 and 18 divide 108: 18 is nearer
    EXPECT_EQ(core::headsFor(66, 16), 11);  // 11 is 5 away, 22 is 6
    EXPECT_EQ(core::headsFor(74, 16), 2);   // 74 = 2 x 37: only 1, 2, 37, 74
    EXPECT_EQ(core::headsFor(60, 8), 6);    // a tie takes the smaller, as nearestHeadCount
    EXPECT_EQ(core::headsFor(8, 100), 8);
}

// The case: 16 heads, d_model dragged 64 -> 108 -> 64 in the slider's steps of 2.
// Stepping through 74 = 2 x 37 used to leave 2 heads, which every even d_model keeps.
TEST(HeadCounts, DraggingDModelAwayAndBackReturnsToTheChosenCount) {
    Scene s;
    core::setHeads(s, 16);
    for (int d = 66; d <= 108; d += 2) {
        core::setDModel(s, d);
        EXPECT_EQ(s.heads, core::headsFor(d, 16)) << d;
        EXPECT_EQ(core::chosenHeadCount(s), 16) << d;
        EXPECT_EQ(core::validationError(s), "") << d;
    }
    EXPECT_EQ(s.heads, 18);
    EXPECT_EQ(core::headCountNote(s), "16 heads do not divide 108: using 18");
    for (int d = 106; d >= 64; d -= 2) core::setDModel(s, d);
    EXPECT_EQ(s.heads, 16);
    EXPECT_EQ(s.chosenHeads, 0); // H is the chosen count again: nothing to remember
    EXPECT_EQ(core::headCountNote(s), "");
}

TEST(HeadCounts, ChoosingHForgetsTheEarlierChoice) {
    Scene s;
    core::setHeads(s, 16);
    core::setDModel(s, 108); // 18 heads, 16 remembered
    core::setHeads(s, 12);   // the user picks 12 at d_model 108
    EXPECT_EQ(core::chosenHeadCount(s), 12);
    core::setDModel(s, 64);
    EXPECT_EQ(s.heads, 8); // nearest to 12 (8 and 16 tie: the smaller), not 16
    EXPECT_EQ(core::chosenHeadCount(s), 12);
    core::setDModel(s, 96);
    EXPECT_EQ(s.heads, 12);
    EXPECT_EQ(s.chosenHeads, 0);
}

TEST(HeadCounts, AChosenCountOutOfRangeIsNamed) {
    Scene s;
    s.chosenHeads = -1;
    EXPECT_NE(core::validationError(s).find("chosen heads -1"), std::string::npos);
    s.chosenHeads = 5000;
    EXPECT_NE(core::validationError(s).find("chosen heads 5000"), std::string::npos);
    s.chosenHeads = 16; // need not divide d_model: that is why it is remembered
    s.d_model = 108, s.heads = 18;
    EXPECT_EQ(core::validationError(s), "");
}

// scene.weights is the user's choice; the engine uses designed weights only where they fit.
TEST(Weights, InUseAreDesignedOnlyWhereTheyFitAndTheChoiceComesBack) {
    Scene s;
    s.weights = core::WeightsKind::Designed;
    EXPECT_EQ(core::weightsInUse(s), core::WeightsKind::Designed);
    core::setHeads(s, 16); // d_head 4
    EXPECT_EQ(core::weightsInUse(s), core::WeightsKind::Random);
    EXPECT_EQ(s.weights, core::WeightsKind::Designed);
    EXPECT_EQ(core::designedHeadsMisfit(64, 16),
              "designed heads need d_head >= 8 (here 64 / 16 = 4)");
    EXPECT_EQ(core::designedHeadsMisfit(48, 2), "designed heads need d_model >= 64 (here 48)");
    EXPECT_EQ(core::designedHeadsMisfit(64, 8), "");
    EXPECT_EQ(core::designedFallbackWarning(s),
              "designed heads need d_head >= 8 (here 64 / 16 = 4); using random weights");
    EXPECT_EQ(core::run(s).warnings, std::vector<std::string>{core::designedFallbackWarning(s)});
    core::setHeads(s, 8);
    EXPECT_EQ(core::weightsInUse(s), core::WeightsKind::Designed);
    EXPECT_EQ(core::designedFallbackWarning(s), "");
    s.weights = core::WeightsKind::Random;
    EXPECT_EQ(core::weightsInUse(s), core::WeightsKind::Random);
}

TEST(HeadCounts, NextAndPreviousStepOverNonDivisors) {
    EXPECT_EQ(core::nextHeadCount(64, 8, +1), 16);
    EXPECT_EQ(core::nextHeadCount(64, 8, -1), 4);
    EXPECT_EQ(core::nextHeadCount(12, 4, +1), 6);
    EXPECT_EQ(core::nextHeadCount(12, 4, +2), 12);
    EXPECT_EQ(core::nextHeadCount(12, 4, -3), 1);   // stops at the first
    EXPECT_EQ(core::nextHeadCount(64, 64, +1), 64); // none further: H stays
    EXPECT_EQ(core::nextHeadCount(64, 1, -1), 1);
    EXPECT_EQ(core::nextHeadCount(64, 8, 0), 8);
}

// [SECTION] K/V heads (grouped-query attention)

TEST(KvHeads, AreTheDivisorsOfHStoredAsZeroForH) {
    EXPECT_EQ(core::validKvHeadCounts(8), (std::vector<int>{1, 2, 4, 8}));
    EXPECT_EQ(core::validKvHeadCounts(6), (std::vector<int>{1, 2, 3, 6}));
    Scene s; // H = 8
    EXPECT_EQ(s.kvHeadCount(), 8);
    core::setKvHeads(s, 2);
    EXPECT_EQ(s.kvHeads, 2);
    EXPECT_EQ(s.kvHeadCount(), 2);
    core::setKvHeads(s, 8);
    EXPECT_EQ(s.kvHeads, 0); // H_kv = H: plain MHA, equal to a scene that never set it
    EXPECT_EQ(s, Scene{});
}

TEST(KvHeads, NextAndPreviousStopAtOneAndH) {
    EXPECT_EQ(core::nextKvHeadCount(8, 8, -1), 4);
    EXPECT_EQ(core::nextKvHeadCount(8, 2, -1), 1);
    EXPECT_EQ(core::nextKvHeadCount(8, 1, -1), 1);
    EXPECT_EQ(core::nextKvHeadCount(12, 4, +1), 6);
    EXPECT_EQ(core::nextKvHeadCount(8, 8, +1), 8);
}

TEST(KvHeads, FollowHTheLargestDivisorNotAboveTheChoice) {
    Scene s;
    core::setKvHeads(s, 2);
    s.d_model = 48;
    core::setHeads(s, 6);
    EXPECT_EQ(s.kvHeads, 2); // 2 of 8 stays 2 of 6
    core::setHeads(s, 3);
    EXPECT_EQ(s.kvHeads, 1); // 2 does not divide 3
    core::setHeads(s, 1);
    EXPECT_EQ(s.kvHeads, 0); // 1 of 1 is MHA
    core::setHeads(s, 8);
    EXPECT_EQ(s.kvHeads, 0); // MHA stays MHA
    EXPECT_EQ(core::kvHeadsAfterHeadChange(16, 4), 4);
    EXPECT_EQ(core::kvHeadsAfterHeadChange(2, 4), 0);
    EXPECT_EQ(core::kvHeadsAfterHeadChange(12, 8), 6);
}

TEST(KvHeads, NamesAndBadCountsAreSaid) {
    EXPECT_STREQ(core::attentionKindName(8, 8), "MHA");
    EXPECT_STREQ(core::attentionKindName(8, 0), "MHA");
    EXPECT_STREQ(core::attentionKindName(8, 2), "GQA");
    EXPECT_STREQ(core::attentionKindName(8, 1), "MQA");
    EXPECT_STREQ(core::attentionKindName(1, 1), "MHA");
    EXPECT_EQ(core::kvHeadNote(8, 2, 5), "K/V head 2 of 2, GQA");
    EXPECT_EQ(core::kvHeadNote(8, 8, 5), "");
    Scene s;
    s.kvHeads = 3;
    EXPECT_EQ(core::validationError(s),
              "kv heads 3 must divide heads 8 (1 = multi-query, 8 = every head its own K and V)");
    s.kvHeads = 16;
    EXPECT_NE(core::validationError(s).find("kv heads 16"), std::string::npos);
    s.kvHeads = -1;
    EXPECT_NE(core::validationError(s).find("kv heads -1"), std::string::npos);
    EXPECT_THROW(core::run(s), std::invalid_argument);
    EXPECT_NE(core::kvHeadsError(8, 0), ""); // the CLI's --kv-heads 0
    EXPECT_EQ(core::kvHeadsError(8, 4), "");
}

// W_K and W_V are H_kv*d_head wide: MHA's first H_kv heads from the same seed, so the query
// side and the remaining K/V heads keep their numbers when H_kv changes.
TEST(KvHeads, RunNarrowsKAndVToTheFirstKvHeadsOfMha) {
    Scene s;
    const core::Trace mha = core::run(s);
    core::setKvHeads(s, 2);
    const core::Trace gqa = core::run(s, &mha);
    EXPECT_NE(gqa.weights.get(), mha.weights.get()); // not reused: W_K changed shape
    EXPECT_EQ(gqa.weights->wK.cols(), 16);
    EXPECT_EQ(gqa.weights->wV.cols(), 16);
    EXPECT_EQ(gqa.weights->wK, mha.weights->wK.leftCols(16));
    EXPECT_EQ(gqa.weights->wQ, mha.weights->wQ);
    EXPECT_EQ(gqa.attention.kvHeads, 2);
    EXPECT_EQ(gqa.attention.k.cols(), 16);
    EXPECT_EQ(gqa.attention.attention.rows(), mha.attention.attention.rows()); // H maps
    EXPECT_EQ(gqa.weights->parameterCount(), 2 * 64 * 8 * (8 + 2));
    // Heads 1 to 4 read K/V head 1, which is MHA's head 1: head 1's map is MHA's head 1's (to
    // float rounding: K's product is another width, summed in another order); head 2's is not.
    const auto rows = [](const core::Trace& t, int h) { // 11 x 11: head h's map
        return t.attention.attention.middleRows(11 * h, 11);
    };
    EXPECT_LT((rows(gqa, 0) - rows(mha, 0)).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_GT((rows(gqa, 1) - rows(mha, 1)).cwiseAbs().maxCoeff(), 1e-2f);
}

// Each pitfall still changes the real computation with grouped K/V heads, as the reference
// (engine/reference.h, which splits K and V into H_kv heads) computes it.
TEST(KvHeads, PitfallsStillApplyAsTheReferenceComputesThem) {
    Scene s;
    s.sentences = {"The cat sat on the mat .", "A dog barked ."};
    s.mask = core::MaskKind::Causal;
    core::setKvHeads(s, 2);
    for (int pitfall = 0; pitfall < 4; ++pitfall) {
        Scene p = s;
        p.outProjection = pitfall != 1;
        if (pitfall == 2) p.ablatedHeads = {1, 6};
        p.reshapeBug = pitfall == 3;
        const core::Trace t = core::run(p);
        const core::reference::Forward ref = core::reference::forward(t.input, *t.weights);
        EXPECT_LT((t.attention.attention.cast<double>() - ref.attention).cwiseAbs().maxCoeff(),
                  1e-5)
            << "pitfall " << pitfall;
        EXPECT_LT((t.attention.output.cast<double>() - ref.output).cwiseAbs().maxCoeff(), 1e-4)
            << "pitfall " << pitfall;
    }
}

// [SECTION] Positions

TEST(Positions, RotaryTurnsQAndKAndAddsNothingToX) {
    Scene s = sceneWith({"the cat the cat"});
    s.positional = core::PositionalKind::None;
    const core::Trace none = core::run(s);
    s.positional = core::PositionalKind::Rotary;
    const core::Trace rotary = core::run(s);
    EXPECT_EQ(rotary.input.x, none.input.x);
    EXPECT_TRUE(rotary.attention.rotated);
    EXPECT_EQ(rotary.input.rotation.dims(), 8);      // all of d_head
    EXPECT_EQ(rotary.input.rotation.cos.rows(), 8);  // twice N: room to move a pair along
    EXPECT_FALSE(rotary.input.rotation.interleaved); // rotate_half, as Llama
    EXPECT_EQ(rotary.attention.q.row(0), none.attention.q.row(0)); // position 0: angle 0
    EXPECT_NE(rotary.attention.q.row(2), none.attention.q.row(2));
    EXPECT_EQ(none.attention.q.row(0), none.attention.q.row(2)); // same word, same q
    EXPECT_EQ(rotary.attention.v, none.attention.v);
    EXPECT_TRUE(rotary.warnings.empty());
}

TEST(Positions, RotaryFallsBackToNoneWhereItCannotApplyAndSaysWhy) {
    Scene s = sceneWith({"le chat"});
    s.sources = {"the cat"};
    s.positional = core::PositionalKind::Rotary;
    EXPECT_EQ(core::positionalInUse(s), core::PositionalKind::None);
    const core::Trace cross = core::run(s);
    EXPECT_FALSE(cross.attention.rotated);
    ASSERT_EQ(cross.warnings.size(), 1u);
    EXPECT_NE(cross.warnings[0].find("for self-attention"), std::string::npos);
    s.sources.clear();
    s.d_model = 8, s.heads = 8; // d_head 1: no pair to turn
    EXPECT_EQ(core::positionalFallbackWarning(s),
              "rotary positions turn pairs of dimensions, so they need d_head >= 2 (here 1); "
              "running without positions");
    EXPECT_FALSE(core::run(s).attention.rotated);
    s.heads = 4; // fits again: the choice comes back
    EXPECT_EQ(core::positionalInUse(s), core::PositionalKind::Rotary);
}

TEST(Positions, RopeThetaOutOfRangeIsNamed) {
    Scene s;
    s.ropeTheta = 0.5;
    EXPECT_EQ(core::validationError(s), "rope theta 0.5 must be from 1 to 1e9");
    s.ropeTheta = std::nan("");
    EXPECT_EQ(core::validationError(s), "rope theta nan must be from 1 to 1e9");
    s.ropeTheta = 500000;
    EXPECT_EQ(core::validationError(s), "");
}

TEST(Sentences, AddStopsAtTheWindowsCap) {
    Scene s;
    while (core::addSentence(s)) EXPECT_EQ(s.sentences.back(), core::kAddedSentence);
    EXPECT_EQ(int(s.sentences.size()), core::kMaxAddedSentences);
    EXPECT_FALSE(core::canAddSentence(s));
    EXPECT_EQ(core::validationError(s), ""); // within what a scene may hold
}

TEST(Sentences, PerSentenceSourcesStayPaired) {
    Scene s = sceneWith({"a b", "c d"});
    s.sources = {"one", "two"};
    ASSERT_TRUE(core::addSentence(s));
    EXPECT_EQ(s.sources, (std::vector<std::string>{"one", "two", "two"}));
    ASSERT_TRUE(core::removeSentence(s, 0));
    EXPECT_EQ(s.sentences, (std::vector<std::string>{"c d", core::kAddedSentence}));
    EXPECT_EQ(s.sources, (std::vector<std::string>{"two", "two"}));
    EXPECT_EQ(core::validationError(s), "");

    s.sources = {"shared"}; // one source for every sentence: untouched
    ASSERT_TRUE(core::addSentence(s));
    ASSERT_TRUE(core::removeSentence(s, 2));
    EXPECT_EQ(s.sources, (std::vector<std::string>{"shared"}));
}

TEST(Sentences, TheLastSentenceStays) {
    Scene s = sceneWith({"a", "b"});
    EXPECT_FALSE(core::removeSentence(s, 2));
    EXPECT_FALSE(core::removeSentence(s, -1));
    EXPECT_TRUE(core::removeSentence(s, 1));
    EXPECT_FALSE(core::canRemoveSentence(s));
    EXPECT_FALSE(core::removeSentence(s, 0));
    EXPECT_EQ(s.sentences, (std::vector<std::string>{"a"}));
}

TEST(Run, DemoSentenceGivesElevenTokensAndEightHeads) {
    const core::Trace t = core::run(Scene{});
    ASSERT_EQ(t.sentences.size(), 1u);
    EXPECT_EQ(t.sentences[0].tokens.size(), 11u);
    EXPECT_EQ(t.headNames.size(), 8u);
    EXPECT_EQ(t.headNames[0], "head 1");
    EXPECT_EQ(t.attention.attention.rows(), 8 * 11);
    EXPECT_TRUE(t.warnings.empty());
}

TEST(Run, BatchIsPaddedToTheLongestWithKeyPadding) {
    const core::Trace t = core::run(sceneWith({"one two three four", "five six"}));
    EXPECT_EQ(t.queryLen(), 4);
    EXPECT_EQ(t.keyLen(), 4);
    EXPECT_FALSE(t.attention.keyPadding(0, 3));
    EXPECT_FALSE(t.attention.keyPadding(1, 1));
    EXPECT_TRUE(t.attention.keyPadding(1, 2));
    EXPECT_TRUE(t.attention.keyPadding(1, 3));
    EXPECT_EQ(t.input.x.middleRows(6, 2).cwiseAbs().maxCoeff(), 0.0f); // padded rows are 0
    EXPECT_GT(t.input.x.row(5).cwiseAbs().maxCoeff(), 0.0f);
}

TEST(Run, SameTokensSameRowsAcrossBatchWithoutPositions) {
    Scene s = sceneWith({"the cat sat", "the cat"});
    s.positional = core::PositionalKind::None;
    const core::Trace t = core::run(s);
    EXPECT_EQ(t.input.x.row(1), t.input.x.row(3 + 1));
}

TEST(Run, CrossAttentionTakesKeysFromTheSource) {
    Scene s = sceneWith({"le chat", "un chien noir"});
    s.sources = {"the black cat sat down"};
    const core::Trace t = core::run(s);
    EXPECT_EQ(t.queryLen(), 3);
    EXPECT_EQ(t.keyLen(), 5);
    ASSERT_EQ(t.sources.size(), 2u); // one source shared by both sentences
    EXPECT_EQ(t.sources[1].tokens[2].text, "cat");
    EXPECT_EQ(t.input.xSource.rows(), 2 * 5);
    EXPECT_EQ(t.attention.attention.cols(), 5);
    EXPECT_FALSE(t.attention.keyPadding.any());
}

TEST(Run, TokenCapCutsAndWarns) {
    std::string text;
    for (int i = 0; i < 600; ++i) text.append("w").append(std::to_string(i)).append(" ");
    const core::Trace t = core::run(sceneWith({text}));
    EXPECT_EQ(t.queryLen(), 512);
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_EQ(t.warnings[0], "sentence 1 has 600 tokens; kept the first 512 (cap 512)");
    // The window shows it under the sentence's field: the same words, from the tokens.
    EXPECT_EQ(core::tokenCapWarning("sentence", 0, t.sentences[0]), t.warnings[0]);
    EXPECT_EQ(core::tokenCapWarning("sentence", 0, core::run(Scene{}).sentences[0]), "");
}

TEST(Run, WeightsAreReusedOnlyWhenTheyCannotHaveChanged) {
    const core::Trace first = core::run(Scene{});
    Scene edited;
    edited.sentences = {"a new sentence"};
    const core::Trace second = core::run(edited, &first);
    EXPECT_EQ(second.weights.get(), first.weights.get());
    edited.seed = 99;
    const core::Trace third = core::run(edited, &second);
    EXPECT_NE(third.weights.get(), first.weights.get());
    EXPECT_NE(third.weights->wQ, first.weights->wQ);
}

// Designed weights at 8 heads must not be kept for 16, where the designs do not fit and the
// engine uses random ones (scene.weights still says designed: the user's choice).
TEST(Run, DesignedWeightsAreNotReusedWhereRandomOnesAreInUse) {
    Scene s;
    s.weights = core::WeightsKind::Designed;
    const core::Trace designed = core::run(s);
    core::setHeads(s, 16);
    const core::Trace after = core::run(s, &designed);
    EXPECT_EQ(after.weights->wQ, core::run(s).weights->wQ);
    EXPECT_NE(after.weights->wQ, designed.weights->wQ);
    core::setHeads(s, 8); // and back: the designs again
    EXPECT_EQ(core::run(s, &after).weights->wQ, designed.weights->wQ);
}

TEST(Run, ParameterCountOfTheSceneIsFourDModelSquared) {
    Scene s;
    s.d_model = 96;
    s.heads = 12;
    EXPECT_EQ(core::run(s).weights->parameterCount(), 4 * 96 * 96);
}

namespace {

// The one rule for switched-off heads (engine/scene.h): a sorted set, whoever builds it.
TEST(HeadSet, SortedEachHeadOnceWhateverTheOrder) {
    EXPECT_EQ(core::headSet({4, 1, 4, 0}), (std::vector<int>{0, 1, 4}));
    std::vector<int> set;
    core::switchHead(set, 3, true);
    core::switchHead(set, 1, true);
    core::switchHead(set, 3, true); // already in: still once
    EXPECT_EQ(set, (std::vector<int>{1, 3}));
    EXPECT_TRUE(core::containsHead(set, 1));
    EXPECT_FALSE(core::containsHead(set, 2));
    core::switchHead(set, 1, false);
    core::switchHead(set, 7, false); // not in: nothing changes
    EXPECT_EQ(set, (std::vector<int>{3}));
}

} // namespace
