// keepViewInRange: a new trace with fewer heads, sentences or tokens never leaves the view
// pointing outside it (every panel indexes with these).
#include "view_range.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

// A small trace: `heads` heads, a batch of `sentences`, `words` tokens each.
core::Trace traceOf(int heads, int sentences, int words) {
    core::Scene scene;
    scene.d_model = 16;
    scene.heads = heads;
    std::string text;
    for (int w = 0; w < words; ++w) text += w == 0 ? "cat" : " cat";
    scene.sentences.assign(std::size_t(sentences), text);
    return core::run(scene);
}

} // namespace

TEST(AppViewRange, FewerHeadsClampTheSelectedAndComparedHead) {
    const core::Trace trace = traceOf(2, 1, 4);
    app::ViewState view;
    view.selectedHead = 7;
    view.compareHead = 5;
    app::keepViewInRange(trace, view);
    EXPECT_EQ(view.selectedHead, 1);
    EXPECT_EQ(view.compareHead, 1);
}

TEST(AppViewRange, FewerSentencesClampTheShownSentence) {
    const core::Trace trace = traceOf(4, 2, 3);
    app::ViewState view;
    view.batchIndex = 5;
    app::keepViewInRange(trace, view);
    EXPECT_EQ(view.batchIndex, 1);
}

TEST(AppViewRange, PinnedRowPastTheLastTokenIsUnpinned) {
    const core::Trace trace = traceOf(4, 1, 3);
    ASSERT_EQ(trace.queryLen(), 3);
    app::ViewState view;
    view.pinnedQuery = 3;
    app::keepViewInRange(trace, view);
    EXPECT_EQ(view.pinnedQuery, -1); // unpinned, not moved to another token

    view.pinnedQuery = 2;
    app::keepViewInRange(trace, view);
    EXPECT_EQ(view.pinnedQuery, 2);
}

TEST(AppViewRange, ValuesInsideTheTraceStayAndNegativeHeadsGoToTheFirst) {
    const core::Trace trace = traceOf(4, 3, 5);
    app::ViewState view;
    view.selectedHead = 3, view.compareHead = 2, view.batchIndex = 2, view.pinnedQuery = 4;
    app::keepViewInRange(trace, view);
    EXPECT_EQ(view.selectedHead, 3);
    EXPECT_EQ(view.compareHead, 2);
    EXPECT_EQ(view.batchIndex, 2);
    EXPECT_EQ(view.pinnedQuery, 4);

    view.selectedHead = -2, view.compareHead = -1, view.batchIndex = -1;
    app::keepViewInRange(trace, view);
    EXPECT_EQ(view.selectedHead, 0);
    EXPECT_EQ(view.compareHead, 0);
    EXPECT_EQ(view.batchIndex, 0);
}

TEST(AppViewRange, AnEmptyTraceLeavesEverythingAtTheStart) {
    const core::Trace empty; // before the first run: no heads, no sentences
    app::ViewState view;
    view.selectedHead = 2, view.compareHead = 3, view.batchIndex = 1, view.pinnedQuery = 0;
    app::keepViewInRange(empty, view);
    EXPECT_EQ(view.selectedHead, 0);
    EXPECT_EQ(view.compareHead, 0);
    EXPECT_EQ(view.batchIndex, 0);
    EXPECT_EQ(view.pinnedQuery, -1);
}
