// A decoder's trace that resumes after the tokens its text shares with an earlier trace's
// (RealTraceOptions::resume, real_trace_resume.cpp: a KV cache) equals a whole forward of the
// new text: ids, predictions, loss, thumbnails, layer means, streams, keys and values, every
// layer's trace. Text appended, the last word changed, text deleted, a head switched off, one
// character typed at a time; and the cases that run the whole forward instead. On the GPT-2
// fixture, on every SIMD path.
#include "build_facts.h"
#include "models/real_model.h"
#include "simd_paths.h"

#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>

namespace {

using namespace core::models;

const RealModel& model(const char* path = "gpt2/f32") {
    static std::map<std::string, std::unique_ptr<RealModel>> opened;
    auto& m = opened[path];
    if (!m) m = openRealModel((std::filesystem::path(build_facts::fixtureDir()) / path).string());
    return *m;
}

// Float rounding: the new rows' products are cut into other blocks than the whole forward's.
constexpr double kTolerance = 1e-5;

double worst(const core::Mat& a, const core::Mat& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return 1e30;
    return a.size() == 0 ? 0.0 : double((a - b).cwiseAbs().maxCoeff());
}

void expectClose(const std::vector<core::Mat>& a, const std::vector<core::Mat>& b,
                 const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_LE(worst(a[i], b[i]), kTolerance) << what << i;
}

void expectSameLayer(const core::Trace& a, const core::Trace& b) {
    const core::Attention &x = a.attention, &y = b.attention;
    EXPECT_EQ(x.queryLen, y.queryLen);
    EXPECT_EQ(x.queryOffset, 0);
    EXPECT_EQ(x.keyPadding, y.keyPadding);
    EXPECT_EQ(x.headAblated, y.headAblated);
    for (const auto& [m, n] : {std::pair{&x.q, &y.q},
                               {&x.k, &y.k},
                               {&x.v, &y.v},
                               {&x.scores, &y.scores},
                               {&x.attention, &y.attention},
                               {&x.headOutputs, &y.headOutputs},
                               {&x.concat, &y.concat},
                               {&x.output, &y.output},
                               {&a.input.x, &b.input.x}})
        EXPECT_LE(worst(*m, *n), kTolerance);
    EXPECT_LE(worst(x.outputShift, y.outputShift), kTolerance);
    EXPECT_EQ(a.sentences.at(0).text, b.sentences.at(0).text);
    EXPECT_EQ(a.input.queryLen, b.input.queryLen);
}

void expectSameTrace(const RealTrace& fast, const RealTrace& full) {
    EXPECT_EQ(fast.ids, full.ids);
    EXPECT_EQ(fast.tokens.text, full.tokens.text);
    EXPECT_NEAR(fast.loss, full.loss, kTolerance);
    EXPECT_EQ(fast.thumbnailStep, full.thumbnailStep);
    ASSERT_EQ(fast.predictions.size(), full.predictions.size());
    for (std::size_t i = 0; i < full.predictions.size(); ++i)
        for (std::size_t k = 0; k < full.predictions[i].size(); ++k) {
            EXPECT_EQ(fast.predictions[i][k].id, full.predictions[i][k].id) << i;
            EXPECT_NEAR(fast.predictions[i][k].probability, full.predictions[i][k].probability,
                        kTolerance);
        }
    expectClose(fast.thumbnails, full.thumbnails, "thumbnail ");
    expectClose(fast.meanAttention, full.meanAttention, "mean attention ");
    expectClose(fast.residual, full.residual, "stream ");
    expectClose(fast.keys, full.keys, "keys ");
    expectClose(fast.values, full.values, "values ");
    ASSERT_NE(fast.layers.at(0), nullptr) << "layer 1 is always there";
    for (int l = 0; l < full.layerCount(); ++l) expectSameLayer(*fast.layer(l), *full.layer(l));
}

// `after` traced from `before`'s trace, and from its embedding; the rows it reused.
int expectResumedEqualsWhole(const std::string& before, const std::string& after,
                             RealTraceOptions options = {}) {
    options.topK = 3;
    const auto old = std::make_shared<const RealTrace>(traceRealModel(model(), before, options));
    const RealTrace full = traceRealModel(model(), after, options);
    options.resume = old;
    const RealTrace fast = traceRealModel(model(), after, options);
    expectSameTrace(fast, full);
    return fast.reusedRows;
}

const std::string kText = "The cat sat on the mat because it was tired and then it slept";

class ResumedTrace : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(ResumedTrace);

} // namespace

TEST_P(ResumedTrace, TextAppendedRunsOnlyTheNewTokens) {
    const int shared = int(traceRealModel(model(), kText).ids.size());
    EXPECT_EQ(expectResumedEqualsWhole(kText, kText + " well."), shared);
}

TEST_P(ResumedTrace, TheLastWordChanged) {
    const std::string start = "The cat sat on the mat because it was tired and then it ";
    const int shared = int(traceRealModel(model(), start).ids.size());
    EXPECT_GE(expectResumedEqualsWhole(start + "slept", start + "ran"), shared - 1);
}

TEST_P(ResumedTrace, TextDeletedAtTheEnd) {
    const int n = int(traceRealModel(model(), "The cat sat on the mat").ids.size());
    EXPECT_EQ(expectResumedEqualsWhole(kText, "The cat sat on the mat"), n - 1)
        << "one token at least runs: its rows are made again";
}

TEST_P(ResumedTrace, AHeadSwitchedOffInBothTraces) {
    RealTraceOptions off;
    off.ablated = {{2}, {0, 3}};
    EXPECT_GT(expectResumedEqualsWhole(kText, kText + " again", off), 0);
}

// Small thumbnails pool several tokens a cell: the rows reused are whole cells, and each
// character typed resumes from the trace of the one before, as the window does.
TEST_P(ResumedTrace, TypingOneCharacterAtATimeKeepsWholeThumbnailCells) {
    RealTraceOptions options;
    options.topK = 2;
    options.thumbnailSide = 8;
    std::string text = kText;
    auto shown = std::make_shared<const RealTrace>(traceRealModel(model(), text, options));
    int resumed = 0;
    for (const char c : std::string(" and woke up")) {
        text += c;
        RealTraceOptions next = options;
        next.resume = shown;
        auto fast = std::make_shared<const RealTrace>(traceRealModel(model(), text, next));
        const RealTrace full = traceRealModel(model(), text, options);
        expectSameTrace(*fast, full);
        EXPECT_EQ(fast->reusedRows % fast->thumbnailStep, 0);
        resumed += fast->reusedRows > 0;
        shown = fast;
    }
    EXPECT_GT(resumed, 6) << "most characters reuse the prefix";
}

TEST_P(ResumedTrace, WhatCannotBeReusedRunsTheWholeForward) {
    const auto old = std::make_shared<const RealTrace>(traceRealModel(model(), kText));
    const auto reused = [&](const std::string& text, RealTraceOptions options) {
        options.resume = old;
        return traceRealModel(model(), text, options).reusedRows;
    };
    EXPECT_GT(reused(kText + ".", {}), 0);
    RealTraceOptions other;
    other.ablated = {{1}};
    EXPECT_EQ(reused(kText + ".", other), 0) << "other heads switched off";
    RealTraceOptions logits;
    logits.keepLogits = true;
    EXPECT_EQ(reused(kText + ".", logits), 0) << "every row's logits asked for";
    RealTraceOptions cells;
    cells.thumbnailSide = 8;
    EXPECT_EQ(reused(kText + ".", cells), 0) << "other thumbnail cells";
    EXPECT_EQ(reused("A dog" + kText, {}), 0) << "nothing shared at the start";
    RealTraceOptions fewer;
    fewer.topK = 5;
    EXPECT_EQ(reused(kText + ".", fewer), 0) << "other predictions kept";
    const auto bert =
        std::make_shared<const RealTrace>(traceRealModel(model("bert/bert_f32"), "the cat"));
    RealTraceOptions encoder;
    encoder.resume = bert;
    EXPECT_EQ(traceRealModel(model("bert/bert_f32"), "the cat sat", encoder).reusedRows, 0)
        << "an encoder's earlier rows see the later tokens";
    EXPECT_TRUE(bert->keys.empty());
}

TEST(ResumedTraceCancel, ACancelledTraceStopsWithTraceCancelled) {
    RealTraceOptions options;
    auto cancel = std::make_shared<std::atomic<bool>>(true);
    options.cancel = cancel;
    EXPECT_THROW(traceRealModel(model(), kText, options), TraceCancelled);
    options.resume = std::make_shared<const RealTrace>(traceRealModel(model(), kText));
    EXPECT_THROW(traceRealModel(model(), kText + " more", options), TraceCancelled);
    cancel->store(false);
    EXPECT_GT(traceRealModel(model(), kText + " more", options).reusedRows, 0);
}

// The window's maps first: a whole forward leaves its head to withPredictions, and a trace
// resumed after such a trace leaves its own too; made, both equal the whole forward's.
TEST_P(ResumedTrace, DeferredPredictionsAreTheWholeForwardsOnceMade) {
    RealTraceOptions options;
    options.topK = 3;
    options.deferPredictions = true;
    const auto pasted = std::make_shared<const RealTrace>(traceRealModel(model(), kText, options));
    EXPECT_TRUE(pasted->predictionsPending);
    EXPECT_TRUE(pasted->predictions.empty());
    EXPECT_TRUE(std::isnan(pasted->loss)) << "no loss shown before it is made";
    RealTraceOptions whole;
    whole.topK = 3;
    expectSameTrace(*withPredictions(pasted), traceRealModel(model(), kText, whole));

    options.resume = pasted; // a key typed before the guesses were made
    const auto typed =
        std::make_shared<const RealTrace>(traceRealModel(model(), kText + " well", options));
    EXPECT_GT(typed->reusedRows, 0) << "the maps still resume after the shared tokens";
    EXPECT_TRUE(typed->predictionsPending);
    expectSameTrace(*withPredictions(typed), traceRealModel(model(), kText + " well", whole));

    options.resume = withPredictions(typed); // after a complete one: the new rows' at once
    const RealTrace next = traceRealModel(model(), kText + " well.", options);
    EXPECT_FALSE(next.predictionsPending);
    expectSameTrace(next, traceRealModel(model(), kText + " well.", whole));

    RealTraceOptions stop;
    stop.cancel = std::make_shared<std::atomic<bool>>(true);
    EXPECT_THROW(withPredictions(pasted, stop), TraceCancelled) << "typing stops them";
    EXPECT_EQ(withPredictions(options.resume), options.resume) << "nothing pending: itself";
}
