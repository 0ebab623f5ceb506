// app::layoutFor: the four panels tile the window, and the left column keeps its bounds.
#include "explorer/window_layout.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

struct WindowSize {
    float width, height, uiScale;
};

// Window sizes the app meets: laptops, HiDPI at 2x, a projector, a zoomed presenter.
constexpr WindowSize kSizes[] = {{1440, 900, 1},  {1280, 720, 1},  {1920, 1080, 1},
                                 {2880, 1800, 2}, {3840, 2160, 2}, {1920, 1080, 1.5f},
                                 {2560, 1440, 3}};

float right(const app::PanelRect& r) {
    return r.pos.x + r.size.x;
}
float bottom(const app::PanelRect& r) {
    return r.pos.y + r.size.y;
}

// Area the two rectangles share (0 when they only touch).
float overlap(const app::PanelRect& a, const app::PanelRect& b) {
    const float w = std::min(right(a), right(b)) - std::max(a.pos.x, b.pos.x);
    const float h = std::min(bottom(a), bottom(b)) - std::max(a.pos.y, b.pos.y);
    return std::max(w, 0.0f) * std::max(h, 0.0f);
}

std::string describe(const WindowSize& s) {
    return std::to_string(int(s.width)) + "x" + std::to_string(int(s.height)) + " at " +
           std::to_string(s.uiScale);
}

} // namespace

constexpr app::LayoutKind kKinds[] = {app::LayoutKind::Explorer, app::LayoutKind::RealModel,
                                      app::LayoutKind::ModelGrid};

TEST(AppLayout, PanelsTileTheWindowWithoutGapsOrOverlaps) {
    for (const WindowSize& s : kSizes)
        for (const app::LayoutKind kind : kKinds) {
            const app::WindowLayout l = app::layoutFor(s.width, s.height, s.uiScale, kind);
            const app::PanelRect panels[] = {l.sentences, l.controls, l.heads, l.head};
            float area = 0;
            for (const app::PanelRect& p : panels) {
                EXPECT_GE(p.pos.x, 0) << describe(s);
                EXPECT_GE(p.pos.y, 0) << describe(s);
                EXPECT_LE(right(p), s.width + 0.01f) << describe(s);
                EXPECT_LE(bottom(p), s.height + 0.01f) << describe(s);
                EXPECT_GT(p.size.x, 0) << describe(s);
                EXPECT_GT(p.size.y, 0) << describe(s);
                area += p.size.x * p.size.y;
            }
            for (int a = 0; a < 4; ++a)
                for (int b = a + 1; b < 4; ++b)
                    EXPECT_EQ(overlap(panels[a], panels[b]), 0) << describe(s) << " " << a << b;
            EXPECT_NEAR(area, s.width * s.height, 1e-4 * s.width * s.height) << describe(s);
        }
}

// The user's report: with a model open the sentences panel scrolled its error out of sight
// while the bottom of the window stayed empty, and the every-layer grid did not grow.
TEST(AppLayout, ARealModelGivesTheSentencesAndTheModelGridMoreRoom) {
    for (const WindowSize& s : kSizes) {
        const app::WindowLayout toy = app::layoutFor(s.width, s.height, s.uiScale);
        const app::WindowLayout model =
            app::layoutFor(s.width, s.height, s.uiScale, app::LayoutKind::RealModel);
        const app::WindowLayout grid =
            app::layoutFor(s.width, s.height, s.uiScale, app::LayoutKind::ModelGrid);
        EXPECT_GE(model.sentences.size.y, s.height * 0.4f) << describe(s);
        EXPECT_GT(model.sentences.size.y, toy.sentences.size.y) << describe(s);
        EXPECT_EQ(model.heads.size.x, toy.heads.size.x) << describe(s);
        EXPECT_GT(grid.heads.size.x, 1.25f * toy.heads.size.x) << describe(s);
        EXPECT_GE(grid.head.size.x, 0.3f * (s.width - grid.sentences.size.x)) << describe(s);
    }
}

TEST(AppLayout, PanelsShareTheirEdges) {
    for (const WindowSize& s : kSizes) {
        const app::WindowLayout l = app::layoutFor(s.width, s.height, s.uiScale);
        EXPECT_EQ(l.controls.pos.y, bottom(l.sentences)) << describe(s); // controls under sentences
        EXPECT_EQ(l.controls.size.x, l.sentences.size.x) << describe(s);
        EXPECT_FLOAT_EQ(bottom(l.controls), s.height) << describe(s);
        EXPECT_EQ(l.heads.pos.x, right(l.sentences)) << describe(s); // grid beside the left column
        EXPECT_EQ(l.head.pos.x, right(l.heads)) << describe(s);
        EXPECT_FLOAT_EQ(right(l.head), s.width) << describe(s);
        EXPECT_EQ(l.heads.size.y, s.height) << describe(s);
        EXPECT_EQ(l.head.size.y, s.height) << describe(s);
    }
}

TEST(AppLayout, LeftColumnKeepsItsMinimumAndMaximumAtEveryScale) {
    for (const float uiScale : {1.0f, 2.0f}) {
        for (const float width : {1000.0f, 1440.0f, 2000.0f, 4000.0f}) {
            const app::WindowLayout l = app::layoutFor(width * uiScale, 900 * uiScale, uiScale);
            EXPECT_GE(l.sentences.size.x, 330 * uiScale) << width << " at " << uiScale;
            EXPECT_LE(l.sentences.size.x, 470 * uiScale) << width << " at " << uiScale;
            EXPECT_GE(l.sentences.size.y, 200 * uiScale) << width << " at " << uiScale;
        }
        // A short window still gives the sentences their minimum height.
        const app::WindowLayout shortWindow =
            app::layoutFor(1440 * uiScale, 600 * uiScale, uiScale);
        EXPECT_EQ(shortWindow.sentences.size.y, 200 * uiScale);
    }
}

TEST(AppLayout, BetweenTheBoundsTheColumnsFollowTheWidth) {
    const app::WindowLayout l = app::layoutFor(1500, 1000, 1);
    EXPECT_FLOAT_EQ(l.sentences.size.x, 1500 * 0.27f); // 405: between 330 and 470
    EXPECT_FLOAT_EQ(l.sentences.size.y, 1000 * 0.27f);
    EXPECT_FLOAT_EQ(l.heads.size.x, (1500 - 405) * 0.45f); // the grid: 45% of the rest
}
