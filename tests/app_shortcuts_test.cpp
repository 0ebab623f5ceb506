// Key presses -> actions (shortcutFor) and what each action does to the scene and the view
// (applyShortcut), without a window: GLFW's key codes are only numbers here.
#include "platform/appearance.h"
#include "session/shortcuts.h"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui.h>

#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace {

using app::KeyPress;
using app::ShortcutAction;
using Action = app::ShortcutAction;

constexpr int kCtrl = GLFW_MOD_CONTROL, kShift = GLFW_MOD_SHIFT;

// Outside a text field, with heads on screen.
ShortcutAction plain(int key, int mods = 0) {
    return app::shortcutFor({key, mods}, false, true);
}

// `heads` maps of `rows` query rows on screen, as after an upload.
app::HeadMaps mapsOf(int heads, int rows) {
    app::HeadMaps maps;
    maps.heads.resize(std::size_t(heads));
    for (core::AttentionMap& map : maps.heads) map.rows = map.cols = rows;
    return maps;
}

// The window's state the keys act on: the explorer's (`view`) and the window's own.
struct View : app::ExplorerState {
    app::WindowState window;
};

// Applies the action of each press, as handleShortcuts does for one frame.
app::ShortcutActions press(std::initializer_list<KeyPress> presses, core::Scene& scene, View& view,
                           const app::HeadMaps& maps = {}, bool typing = false) {
    app::ShortcutActions actions;
    for (const KeyPress& p : presses)
        app::applyShortcut(app::shortcutFor(p, typing, !maps.heads.empty()),
                           {scene, view, view.window}, maps, actions);
    return actions;
}

} // namespace

TEST(AppShortcuts, ControlKeysWorkEvenWhileTyping) {
    const std::pair<KeyPress, ShortcutAction> cases[] = {
        {{GLFW_KEY_E, kCtrl}, Action::ExportWindow},
        {{GLFW_KEY_E, kCtrl | kShift}, Action::ToggleExportPanel},
        {{GLFW_KEY_S, kCtrl}, Action::SaveScene},
        {{GLFW_KEY_S, kCtrl | kShift}, Action::SaveScene},
        {{GLFW_KEY_O, kCtrl}, Action::OpenScenes},
        {{GLFW_KEY_O, kCtrl | kShift}, Action::OpenModel},
        {{GLFW_KEY_T, kCtrl}, Action::ToggleTrain},
        {{GLFW_KEY_EQUAL, kCtrl}, Action::ZoomIn},
        {{GLFW_KEY_KP_ADD, kCtrl}, Action::ZoomIn},
        {{GLFW_KEY_MINUS, kCtrl}, Action::ZoomOut},
        {{GLFW_KEY_KP_SUBTRACT, kCtrl}, Action::ZoomOut},
        {{GLFW_KEY_0, kCtrl}, Action::ZoomReset},
    };
    for (const auto& [key, action] : cases)
        for (const bool typing : {false, true})
            for (const bool mapsShown : {false, true})
                EXPECT_EQ(app::shortcutFor(key, typing, mapsShown), action)
                    << key.key << " " << key.mods << " typing " << typing;
}

TEST(AppShortcuts, EscapeF1AndF11WorkEverywhere) {
    for (const int mods : {0, kCtrl, kShift})
        for (const bool typing : {false, true}) {
            EXPECT_EQ(app::shortcutFor({GLFW_KEY_ESCAPE, mods}, typing, false),
                      Action::CloseOrUnpin);
            EXPECT_EQ(app::shortcutFor({GLFW_KEY_F1, mods}, typing, true), Action::ToggleKeys);
            EXPECT_EQ(app::shortcutFor({GLFW_KEY_F11, mods}, typing, true),
                      Action::ToggleFullscreen);
        }
}

TEST(AppShortcuts, PlainKeysOutsideTextFields) {
    const std::pair<int, ShortcutAction> cases[] = {
        {GLFW_KEY_RIGHT, Action::NextHead},
        {GLFW_KEY_LEFT, Action::PreviousHead},
        {GLFW_KEY_DOWN, Action::PinnedRowDown},
        {GLFW_KEY_UP, Action::PinnedRowUp},
        {GLFW_KEY_N, Action::NextStep},
        {GLFW_KEY_P, Action::PreviousStep},
        {GLFW_KEY_SPACE, Action::TogglePin},
        {GLFW_KEY_V, Action::NextTab},
        {GLFW_KEY_T, Action::NextTheme},
        {GLFW_KEY_M, Action::ToggleMask},
        {GLFW_KEY_LEFT_BRACKET, Action::FewerHeads},
        {GLFW_KEY_RIGHT_BRACKET, Action::MoreHeads},
    };
    for (const auto& [key, action] : cases) EXPECT_EQ(plain(key), action) << key;
    EXPECT_EQ(plain(GLFW_KEY_V, kShift), Action::PreviousTab);
    EXPECT_EQ(plain(GLFW_KEY_RIGHT, kShift), Action::NextHead); // Shift changes only V, [ and ]
    EXPECT_EQ(plain(GLFW_KEY_LEFT_BRACKET, kShift), Action::FewerKvHeads);
    EXPECT_EQ(plain(GLFW_KEY_RIGHT_BRACKET, kShift), Action::MoreKvHeads);
}

TEST(AppShortcuts, PlainKeysDoNothingWhileTypingWithoutMapsOrWithControl) {
    for (const int key : {GLFW_KEY_RIGHT, GLFW_KEY_LEFT, GLFW_KEY_UP, GLFW_KEY_DOWN, GLFW_KEY_N,
                          GLFW_KEY_P, GLFW_KEY_SPACE, GLFW_KEY_V, GLFW_KEY_T, GLFW_KEY_M,
                          GLFW_KEY_LEFT_BRACKET, GLFW_KEY_RIGHT_BRACKET}) {
        EXPECT_EQ(app::shortcutFor({key, 0}, true, true), Action::None) << key; // the caret moves
        EXPECT_EQ(app::shortcutFor({key, 0}, false, false), Action::None) << key;
        if (key != GLFW_KEY_T) { // Ctrl+T is the Train view's
            EXPECT_EQ(app::shortcutFor({key, kCtrl}, false, true), Action::None) << key;
        }
    }
    EXPECT_EQ(app::shortcutFor({GLFW_KEY_T, kCtrl}, true, true), Action::ToggleTrain); // typing too
}

TEST(AppShortcuts, KeysWithoutAShortcutDoNothing) {
    for (const int key : {GLFW_KEY_A, GLFW_KEY_E, GLFW_KEY_S, GLFW_KEY_O, GLFW_KEY_0, GLFW_KEY_1,
                          GLFW_KEY_5, GLFW_KEY_ENTER, GLFW_KEY_F2})
        EXPECT_EQ(plain(key), Action::None) << key; // Ctrl-less E, S, O, 0: letters to type
    EXPECT_EQ(plain(GLFW_KEY_A, kCtrl), Action::None);
    EXPECT_EQ(plain(GLFW_KEY_1, kCtrl), Action::None);
}

TEST(AppShortcuts, WindowActionsAreLeftToTheFrameLoop) {
    core::Scene scene;
    View view; // no maps: these work without heads on screen
    const app::ShortcutActions actions =
        press({{GLFW_KEY_E, kCtrl}, {GLFW_KEY_S, kCtrl}, {GLFW_KEY_F11, 0}}, scene, view, {}, true);
    EXPECT_TRUE(actions.exportWindow);
    EXPECT_TRUE(actions.saveScene);
    EXPECT_TRUE(actions.toggleFullscreen);
    EXPECT_EQ(press({{GLFW_KEY_E, kCtrl | kShift}}, scene, view).exportWindow, false);
    EXPECT_TRUE(view.exportPanel.open); // Ctrl+Shift+E toggles the panel
    press({{GLFW_KEY_E, kCtrl | kShift}, {GLFW_KEY_O, kCtrl}, {GLFW_KEY_F1, 0}}, scene, view);
    EXPECT_FALSE(view.exportPanel.open);
    EXPECT_TRUE(view.scenes.open);
    EXPECT_TRUE(view.window.showKeys);
}

TEST(AppShortcuts, ZoomStaysBetweenOneAndThree) {
    core::Scene scene;
    View view;
    for (int i = 0; i < 12; ++i) press({{GLFW_KEY_EQUAL, kCtrl}}, scene, view);
    EXPECT_EQ(view.window.zoom, app::kMaxZoom);
    press({{GLFW_KEY_MINUS, kCtrl}}, scene, view);
    EXPECT_EQ(view.window.zoom, app::kMaxZoom - 0.25f);
    press({{GLFW_KEY_0, kCtrl}}, scene, view);
    EXPECT_EQ(view.window.zoom, app::kMinZoom);
    press({{GLFW_KEY_KP_SUBTRACT, kCtrl}}, scene, view);
    EXPECT_EQ(view.window.zoom, app::kMinZoom);
}

TEST(AppShortcuts, ArrowsWalkTheHeadsAndWrapAround) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(4, 6);
    press({{GLFW_KEY_LEFT, 0}}, scene, view, maps);
    EXPECT_EQ(view.saved.selectedHead, 3);
    press({{GLFW_KEY_RIGHT, 0}, {GLFW_KEY_RIGHT, 0}}, scene, view, maps);
    EXPECT_EQ(view.saved.selectedHead, 1);
}

TEST(AppShortcuts, PinnedRowMovesWithinTheSentenceAndEscapeUnpins) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(2, 3);
    view.selection.hover.query = 2;
    press({{GLFW_KEY_SPACE, 0}}, scene, view, maps);
    EXPECT_EQ(view.selection.pinnedQuery, 2); // the hovered row
    press({{GLFW_KEY_DOWN, 0}}, scene, view, maps);
    EXPECT_EQ(view.selection.pinnedQuery, 2); // the last row stays the last
    press({{GLFW_KEY_UP, 0}, {GLFW_KEY_UP, 0}, {GLFW_KEY_UP, 0}}, scene, view, maps);
    EXPECT_EQ(view.selection.pinnedQuery, 0);
    press({{GLFW_KEY_SPACE, 0}}, scene, view, maps);
    EXPECT_EQ(view.selection.pinnedQuery, -1); // Space again unpins
    view.selection.hover.query = -1;
    press({{GLFW_KEY_SPACE, 0}}, scene, view, maps);
    EXPECT_EQ(view.selection.pinnedQuery, 0); // nothing hovered: the first row
    press({{GLFW_KEY_ESCAPE, 0}}, scene, view, maps, true);
    EXPECT_EQ(view.selection.pinnedQuery, -1); // Esc unpins even while typing
}

TEST(AppShortcuts, StepKeysWalkTheStepThroughFromZero) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(2, 3);
    press({{GLFW_KEY_N, 0}, {GLFW_KEY_N, 0}, {GLFW_KEY_N, 0}}, scene, view, maps);
    EXPECT_EQ(view.steps.step, 3);
    press({{GLFW_KEY_P, 0}, {GLFW_KEY_P, 0}, {GLFW_KEY_P, 0}, {GLFW_KEY_P, 0}}, scene, view, maps);
    EXPECT_EQ(view.steps.step, 0);
}

TEST(AppShortcuts, VCyclesEveryTabBothWays) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(2, 3);
    press({{GLFW_KEY_V, 0}}, scene, view, maps);
    EXPECT_EQ(view.saved.tab, core::ViewTab::Mean);
    press({{GLFW_KEY_V, kShift}, {GLFW_KEY_V, kShift}}, scene, view, maps);
    EXPECT_EQ(view.saved.tab, core::ViewTab::Cost); // from the first back to the last
    for (int i = 0; i < 8; ++i) press({{GLFW_KEY_V, 0}}, scene, view, maps);
    EXPECT_EQ(view.saved.tab, core::ViewTab::Cost); // eight tabs, round once
}

TEST(AppShortcuts, TCyclesTheThemesAndMTogglesTheMask) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(2, 3);
    press({{GLFW_KEY_T, 0}}, scene, view, maps);
    EXPECT_EQ(view.saved.theme, core::Theme::Light);
    press({{GLFW_KEY_T, 0}, {GLFW_KEY_T, 0}}, scene, view, maps);
    EXPECT_EQ(view.saved.theme, core::Theme::Dark);
    press({{GLFW_KEY_M, 0}}, scene, view, maps);
    EXPECT_EQ(scene.mask, core::MaskKind::Causal);
    press({{GLFW_KEY_M, 0}}, scene, view, maps);
    EXPECT_EQ(scene.mask, core::MaskKind::None);
}

TEST(AppShortcuts, BracketsStepThroughTheHeadCountsThatDivideDModel) {
    core::Scene scene; // d_model 64, 8 heads
    scene.ablatedHeads = {6};
    View view;
    const app::HeadMaps maps = mapsOf(8, 3);
    press({{GLFW_KEY_LEFT_BRACKET, 0}}, scene, view, maps);
    EXPECT_EQ(scene.heads, 4);
    EXPECT_TRUE(scene.ablatedHeads.empty()); // head 7 is gone (setHeads)
    press({{GLFW_KEY_RIGHT_BRACKET, 0}, {GLFW_KEY_RIGHT_BRACKET, 0}}, scene, view, maps);
    EXPECT_EQ(scene.heads, 16);
    scene.d_model = 12, scene.heads = 4;
    press({{GLFW_KEY_RIGHT_BRACKET, 0}}, scene, view, maps);
    EXPECT_EQ(scene.heads, 6);
    for (int i = 0; i < 5; ++i) press({{GLFW_KEY_LEFT_BRACKET, 0}}, scene, view, maps);
    EXPECT_EQ(scene.heads, 1); // stays at 1
}

// Shift+[ and Shift+] step H_kv through the divisors of H: MHA -> GQA -> MQA and back.
TEST(AppShortcuts, ShiftBracketsStepThroughTheKvHeadCountsThatDivideH) {
    core::Scene scene; // 8 heads, H_kv = 8
    View view;
    const app::HeadMaps maps = mapsOf(8, 3);
    press({{GLFW_KEY_LEFT_BRACKET, kShift}}, scene, view, maps);
    EXPECT_EQ(scene.kvHeadCount(), 4);
    EXPECT_EQ(scene.heads, 8); // H stays
    press({{GLFW_KEY_LEFT_BRACKET, kShift},
           {GLFW_KEY_LEFT_BRACKET, kShift},
           {GLFW_KEY_LEFT_BRACKET, kShift}},
          scene, view, maps);
    EXPECT_EQ(scene.kvHeadCount(), 1); // MQA, and no further
    press({{GLFW_KEY_RIGHT_BRACKET, kShift}}, scene, view, maps);
    EXPECT_EQ(scene.kvHeadCount(), 2);
    press({{GLFW_KEY_LEFT_BRACKET, 0}}, scene, view, maps); // H 8 -> 4 keeps H_kv 2
    EXPECT_EQ(scene.heads, 4);
    EXPECT_EQ(scene.kvHeadCount(), 2);
    press({{GLFW_KEY_RIGHT_BRACKET, kShift}, {GLFW_KEY_RIGHT_BRACKET, kShift}}, scene, view, maps);
    EXPECT_EQ(scene.kvHeads, 0); // back to MHA: kept as 0, the scene's "H_kv = H"
    EXPECT_EQ(core::validationError(scene), "");
}

TEST(AppShortcuts, APressSetsNothingElse) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(4, 5);
    const core::Scene sceneBefore = scene;
    press({{GLFW_KEY_RIGHT, 0}}, scene, view, maps);
    EXPECT_EQ(scene, sceneBefore);
    EXPECT_EQ(view.selection.pinnedQuery, -1);
    EXPECT_EQ(view.steps.step, 0);
    EXPECT_EQ(view.saved.tab, core::ViewTab::Head);
    EXPECT_FALSE(view.window.showKeys);
    EXPECT_EQ(view.saved.theme, core::Theme::Dark);
    EXPECT_EQ(view.window.zoom, 1.0f);
}

// The Train view's keys come from the same queue: every press of the frame outside text fields,
// in order, repeats marked; and nothing while a text field has the keyboard.
TEST(AppShortcuts, TheFramesPlainPressesReachTheTrainViewInOrder) {
    ImGuiContext* context = ImGui::CreateContext();
    core::Scene scene;
    View view;
    app::addShortcutPress(GLFW_KEY_S, 0, false);
    app::addShortcutPress(GLFW_KEY_S, kCtrl, false); // Ctrl+S saves; it steps nothing
    app::addShortcutPress(GLFW_KEY_RIGHT, 0, true);
    app::addShortcutPress(GLFW_KEY_S, kShift, false);
    const app::ShortcutActions actions = app::handleShortcuts({scene, view, view.window}, {});
    EXPECT_TRUE(actions.saveScene);
    ASSERT_EQ(actions.plainKeys.size(), 4u);
    EXPECT_EQ(actions.plainKeys[0].key, GLFW_KEY_S);
    EXPECT_FALSE(actions.plainKeys[0].repeat);
    EXPECT_EQ(app::trainShortcutFor(actions.plainKeys[1]), Action::None); // Ctrl+S: no step
    EXPECT_EQ(actions.plainKeys[2].key, GLFW_KEY_RIGHT);
    EXPECT_TRUE(actions.plainKeys[2].repeat);
    EXPECT_EQ(actions.plainKeys[3].mods, kShift);
    EXPECT_TRUE(
        app::handleShortcuts({scene, view, view.window}, {}).plainKeys.empty()); // taken once

    ImGui::GetIO().WantTextInput = true; // a text field has the keyboard: S types an "s"
    app::addShortcutPress(GLFW_KEY_S, 0, false);
    EXPECT_TRUE(app::handleShortcuts({scene, view, view.window}, {}).plainKeys.empty());
    ImGui::DestroyContext(context);
}

// The legend is drawn from the same table the keys are looked up in: each binding it lists does
// what its row says, in its scope, and no two rows of a scope bind the same press.
TEST(AppShortcuts, TheLegendsKeysDoWhatItSays) {
    std::set<std::tuple<int, int, int>> seen; // scope, key, mods
    for (const app::KeyRow& row : app::keyTable()) {
        ASSERT_FALSE(row.keys.empty()) << row.does;
        for (const app::KeyBinding& b : row.keys) {
            const int mods = b.mods == app::kAnyMods ? 0 : b.mods;
            EXPECT_TRUE(seen.insert({int(row.scope), b.key, mods}).second) << app::keyLabel(b);
            const KeyPress press{b.key, mods};
            const ShortcutAction action = row.scope == app::KeyScope::TrainView
                                              ? app::trainShortcutFor(press)
                                              : app::shortcutFor(press, false, true);
            EXPECT_EQ(action, b.action) << app::keyLabel(b) << ": " << row.does;
            if (row.scope == app::KeyScope::Anywhere) { // also while typing
                EXPECT_EQ(app::shortcutFor(press, true, false), b.action) << app::keyLabel(b);
            }
        }
    }
    const auto rowOf = [](ShortcutAction action) -> const app::KeyRow& {
        for (const app::KeyRow& row : app::keyTable())
            for (const app::KeyBinding& b : row.keys)
                if (b.action == action) return row;
        throw std::logic_error("no row");
    };
    EXPECT_EQ(app::keysText(rowOf(Action::ToggleExportPanel)), "Ctrl+Shift+E");
    EXPECT_EQ(app::keysText(rowOf(Action::NextTab)), "V / Shift+V");
    EXPECT_EQ(app::keysText(rowOf(Action::ZoomIn)), "Ctrl+plus / Ctrl+minus / Ctrl+0"); // no keypad
    EXPECT_EQ(app::keysText(rowOf(Action::CloseOrUnpin)), "Esc");
    EXPECT_EQ(app::keysText(rowOf(Action::UndoScene)), "Ctrl+Z");
}

TEST(AppShortcuts, TheTrainViewsKeys) {
    const std::pair<KeyPress, ShortcutAction> cases[] = {
        {{GLFW_KEY_SPACE, 0}, Action::TrainStartPause},
        {{GLFW_KEY_S, 0}, Action::TrainStep},
        {{GLFW_KEY_S, kShift}, Action::TrainStep}, // Shift changes nothing here
        {{GLFW_KEY_R, 0}, Action::TrainReset},
        {{GLFW_KEY_LEFT, 0, true}, Action::TimelineBack}, // held: it repeats
        {{GLFW_KEY_RIGHT, 0}, Action::TimelineOn},
        {{GLFW_KEY_HOME, 0}, Action::TimelineStart},
        {{GLFW_KEY_END, 0}, Action::TimelineLive},
        {{GLFW_KEY_P, 0}, Action::TimelinePlay},
        {{GLFW_KEY_E, 0}, Action::TrainExportCurves},
        {{GLFW_KEY_M, 0}, Action::TrainExportMaps},
        {{GLFW_KEY_SPACE, 0, true}, Action::None}, // a held Space does not start and stop again
        {{GLFW_KEY_S, kCtrl}, Action::None},       // Ctrl+S saves the scene
        {{GLFW_KEY_Z, kCtrl}, Action::TrainUndo},
        {{GLFW_KEY_Z, 0}, Action::None},
        {{GLFW_KEY_R, kCtrl}, Action::None},
        {{GLFW_KEY_V, 0}, Action::None},
    };
    for (const auto& [press, action] : cases)
        EXPECT_EQ(app::trainShortcutFor(press), action) << press.key << " " << press.mods;
}

// Esc closes one thing at a time, the top-most first, and unpins only when nothing is open.
TEST(AppShortcuts, EscapeClosesTheTopMostWindowThenUnpins) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(2, 3);
    view.scenes.open = view.openModel.open = view.exportPanel.open = view.window.showKeys = true;
    view.selection.pinnedQuery = 1;
    press({{GLFW_KEY_ESCAPE, 0}}, scene, view, maps, true);
    EXPECT_FALSE(view.scenes.open); // Ctrl+O's picker first
    EXPECT_TRUE(view.openModel.open);
    press({{GLFW_KEY_ESCAPE, 0}}, scene, view, maps, true);
    EXPECT_FALSE(view.openModel.open); // then Ctrl+Shift+O's dialog
    EXPECT_TRUE(view.exportPanel.open);
    press({{GLFW_KEY_ESCAPE, 0}}, scene, view, maps);
    EXPECT_FALSE(view.exportPanel.open);
    EXPECT_TRUE(view.window.showKeys);
    press({{GLFW_KEY_ESCAPE, 0}}, scene, view, maps);
    EXPECT_FALSE(view.window.showKeys);
    EXPECT_EQ(view.selection.pinnedQuery, 1); // still pinned: each press closed a window
    press({{GLFW_KEY_ESCAPE, 0}}, scene, view, maps);
    EXPECT_EQ(view.selection.pinnedQuery, -1);
}

// Ctrl+Z outside a text field asks the frame loop for the replaced scene; in a field it is the
// field's own undo of typing.
TEST(AppShortcuts, ControlZUndoesTheSceneOutsideTextFields) {
    core::Scene scene;
    View view;
    const app::HeadMaps maps = mapsOf(2, 3);
    EXPECT_TRUE(press({{GLFW_KEY_Z, kCtrl}}, scene, view, maps).undoScene);
    EXPECT_FALSE(press({{GLFW_KEY_Z, kCtrl}}, scene, view, maps, true).undoScene);
    EXPECT_FALSE(press({{GLFW_KEY_Z, 0}}, scene, view, maps).undoScene);
    EXPECT_EQ(app::shortcutFor({GLFW_KEY_RIGHT, kCtrl}, false, true), Action::None);
}
