// keepViewInRange: a new trace with fewer heads, sentences or tokens never leaves the view
// pointing outside it (every panel indexes with these).
#include "explorer/explorer_state.h"
#include "explorer/view_range.h"

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
    app::ExplorerState view;
    view.saved.selectedHead = 7;
    view.saved.compareHead = 5;
    app::keepViewInRange(trace, view.saved, view.selection);
    EXPECT_EQ(view.saved.selectedHead, 1);
    EXPECT_EQ(view.saved.compareHead, 1);
}

TEST(AppViewRange, FewerSentencesClampTheShownSentence) {
    const core::Trace trace = traceOf(4, 2, 3);
    app::ExplorerState view;
    view.selection.batchIndex = 5;
    app::keepViewInRange(trace, view.saved, view.selection);
    EXPECT_EQ(view.selection.batchIndex, 1);
}

TEST(AppViewRange, PinnedRowPastTheLastTokenIsUnpinned) {
    const core::Trace trace = traceOf(4, 1, 3);
    ASSERT_EQ(trace.queryLen(), 3);
    app::ExplorerState view;
    view.selection.pinnedQuery = 3;
    app::keepViewInRange(trace, view.saved, view.selection);
    EXPECT_EQ(view.selection.pinnedQuery, -1); // unpinned, not moved to another token

    view.selection.pinnedQuery = 2;
    app::keepViewInRange(trace, view.saved, view.selection);
    EXPECT_EQ(view.selection.pinnedQuery, 2);
}

TEST(AppViewRange, ValuesInsideTheTraceStayAndNegativeHeadsGoToTheFirst) {
    const core::Trace trace = traceOf(4, 3, 5);
    app::ExplorerState view;
    view.saved.selectedHead = 3, view.saved.compareHead = 2, view.selection.batchIndex = 2,
    view.selection.pinnedQuery = 4;
    app::keepViewInRange(trace, view.saved, view.selection);
    EXPECT_EQ(view.saved.selectedHead, 3);
    EXPECT_EQ(view.saved.compareHead, 2);
    EXPECT_EQ(view.selection.batchIndex, 2);
    EXPECT_EQ(view.selection.pinnedQuery, 4);

    view.saved.selectedHead = -2, view.saved.compareHead = -1, view.selection.batchIndex = -1;
    app::keepViewInRange(trace, view.saved, view.selection);
    EXPECT_EQ(view.saved.selectedHead, 0);
    EXPECT_EQ(view.saved.compareHead, 0);
    EXPECT_EQ(view.selection.batchIndex, 0);
}

TEST(AppViewRange, AnEmptyTraceLeavesEverythingAtTheStart) {
    const core::Trace empty; // before the first run: no heads, no sentences
    app::ExplorerState view;
    view.saved.selectedHead = 2, view.saved.compareHead = 3, view.selection.batchIndex = 1,
    view.selection.pinnedQuery = 0;
    app::keepViewInRange(empty, view.saved, view.selection);
    EXPECT_EQ(view.saved.selectedHead, 0);
    EXPECT_EQ(view.saved.compareHead, 0);
    EXPECT_EQ(view.selection.batchIndex, 0);
    EXPECT_EQ(view.selection.pinnedQuery, -1);
}
