// [SECTION] The key table
// [SECTION] Lookup: a press -> an action
// [SECTION] The queue, dropped files, Escape
// [SECTION] What each action does
// [SECTION] The F1 legend
#include "session/shortcuts.h"

#include "platform/appearance.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h> // ClosePopupToLevel: Esc closes the top-most popup

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace app {

namespace {

using A = ShortcutAction;
constexpr int kCtrl = GLFW_MOD_CONTROL, kShift = GLFW_MOD_SHIFT;

// [SECTION] The key table

// The explorer's keys and those that open things, in the legend's order.
std::vector<KeyRow> explorerKeyRows() {
    using S = KeyScope;
    return {
        {S::Anywhere,
         "save a PNG of the window and the trace (works while typing)",
         {{GLFW_KEY_E, kCtrl, A::ExportWindow}}},
        {S::Anywhere,
         "export panel: a head, the grid, a view or the window as PNG/SVG/CSV",
         {{GLFW_KEY_E, kCtrl | kShift, A::ToggleExportPanel}}},
        {S::Explorer,
         "next / previous view (Head, Mean, A-B, Lines, Stats, ...)",
         {{GLFW_KEY_V, 0, A::NextTab}, {GLFW_KEY_V, kShift, A::PreviousTab}}},
        {S::Explorer,
         "previous / next head",
         {{GLFW_KEY_LEFT, 0, A::PreviousHead}, {GLFW_KEY_RIGHT, 0, A::NextHead}}},
        {S::Explorer,
         "move the pinned query row",
         {{GLFW_KEY_UP, 0, A::PinnedRowUp}, {GLFW_KEY_DOWN, 0, A::PinnedRowDown}}},
        {S::Explorer, "pin the hovered row, or unpin", {{GLFW_KEY_SPACE, 0, A::TogglePin}}},
        {S::Anywhere,
         "close the open menu or window; else unpin (never throws away what you typed)",
         {{GLFW_KEY_ESCAPE, kAnyMods, A::CloseOrUnpin}}},
        {S::Explorer,
         "undo: back to the scene a demo or a file replaced (again: redo)",
         {{GLFW_KEY_Z, kCtrl, A::UndoScene, false}}},
        {S::Explorer, "mask: none <-> causal", {{GLFW_KEY_M, 0, A::ToggleMask}}},
        {S::Explorer,
         "fewer / more heads (divisors of d_model)",
         {{GLFW_KEY_LEFT_BRACKET, 0, A::FewerHeads}, {GLFW_KEY_RIGHT_BRACKET, 0, A::MoreHeads}}},
        {S::Explorer,
         "fewer / more K/V heads (divisors of H: MQA ... GQA ... MHA)",
         {{GLFW_KEY_LEFT_BRACKET, kShift, A::FewerKvHeads},
          {GLFW_KEY_RIGHT_BRACKET, kShift, A::MoreKvHeads}}},
        {S::Explorer,
         "next / previous layer of a trained model (--model)",
         {{GLFW_KEY_L, 0, A::NextLayer}, {GLFW_KEY_L, kShift, A::PreviousLayer}}},
        {S::Explorer,
         "a real model: next / previous view (layer, every layer, detectors, rollout, logit "
         "lens); weights <-> value-weighted",
         {{GLFW_KEY_G, 0, A::NextModelView},
          {GLFW_KEY_G, kShift, A::PreviousModelView},
          {GLFW_KEY_W, 0, A::ToggleValueWeighted}}},
        {S::Explorer,
         "an encoder-decoder: the decoder writes again (Generate); next attention (cross, "
         "decoder, encoder)",
         {{GLFW_KEY_G, kCtrl, A::Generate}, {GLFW_KEY_K, 0, A::NextAttentionKind}}},
        {S::Explorer,
         "an encoder's sentence pair: every cell, A -> B, B -> A",
         {{GLFW_KEY_B, 0, A::NextPairView}}},
        {S::Explorer,
         "next / previous step in the step-through",
         {{GLFW_KEY_N, 0, A::NextStep}, {GLFW_KEY_P, 0, A::PreviousStep}}},
        {S::Anywhere,
         "save the scene / open one (demo scenes, a path; or drop a file)",
         {{GLFW_KEY_S, kCtrl, A::SaveScene}, {GLFW_KEY_O, kCtrl, A::OpenScenes}}},
        {S::Anywhere,
         "open a model: a folder or name, a recent one, one in the Hugging Face cache",
         {{GLFW_KEY_O, kCtrl | kShift, A::OpenModel}}},
        {S::Anywhere,
         "a real model: compare it with another version of it (model B: a quantized GGUF, "
         "another dtype, a fine-tune) in the A-B tab",
         {{GLFW_KEY_B, kCtrl | kShift, A::CompareModel}}},
        {S::Anywhere,
         "Train view: train a tiny transformer and watch its heads learn (F9 too: a browser "
         "keeps Ctrl+T for a new tab)",
         {{GLFW_KEY_T, kCtrl, A::ToggleTrain}, {GLFW_KEY_F9, kAnyMods, A::ToggleTrain}}},
    };
}

// The Train view's keys, then the window's.
std::vector<KeyRow> trainAndWindowKeyRows() {
    using S = KeyScope;
    return {
        {S::TrainView,
         "Train view: start or pause / one step / reset",
         {{GLFW_KEY_SPACE, 0, A::TrainStartPause, false},
          {GLFW_KEY_S, 0, A::TrainStep, false},
          {GLFW_KEY_R, 0, A::TrainReset, false}}},
        {S::TrainView,
         "Train view: undo, back to the run a reset, a demo or a load replaced",
         {{GLFW_KEY_Z, kCtrl, A::TrainUndo, false}}},
        {S::TrainView,
         "Train view: timeline back, on, step 0, live, play",
         {{GLFW_KEY_LEFT, 0, A::TimelineBack},
          {GLFW_KEY_RIGHT, 0, A::TimelineOn},
          {GLFW_KEY_HOME, 0, A::TimelineStart, false},
          {GLFW_KEY_END, 0, A::TimelineLive, false},
          {GLFW_KEY_P, 0, A::TimelinePlay, false}}},
        {S::TrainView,
         "Train view: export the curves (SVG, PNG, CSV) / the maps (SVG, PNG)",
         {{GLFW_KEY_E, 0, A::TrainExportCurves, false},
          {GLFW_KEY_M, 0, A::TrainExportMaps, false}}},
        {S::Anywhere,
         "zoom all type and maps (1x to 3x) / reset",
         {{GLFW_KEY_EQUAL, kCtrl, A::ZoomIn},
          {GLFW_KEY_KP_ADD, kCtrl, A::ZoomIn, true, false},
          {GLFW_KEY_MINUS, kCtrl, A::ZoomOut},
          {GLFW_KEY_KP_SUBTRACT, kCtrl, A::ZoomOut, true, false},
          {GLFW_KEY_0, kCtrl, A::ZoomReset}}},
        {S::Explorer,
         "theme: dark, light (projectors), high contrast",
         {{GLFW_KEY_T, 0, A::NextTheme}}},
        {S::Anywhere, "fullscreen", {{GLFW_KEY_F11, kAnyMods, A::ToggleFullscreen}}},
        {S::Anywhere, "this list", {{GLFW_KEY_F1, kAnyMods, A::ToggleKeys}}},
    };
}

std::vector<KeyRow> makeKeyTable() {
    std::vector<KeyRow> rows = explorerKeyRows();
    for (KeyRow& row : trainAndWindowKeyRows()) rows.push_back(std::move(row));
    return rows;
}

std::string keyName(int key) {
    if (key >= GLFW_KEY_A && key <= GLFW_KEY_Z) return std::string(1, char('A' + key - GLFW_KEY_A));
    if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) return std::string(1, char('0' + key - GLFW_KEY_0));
    if (key >= GLFW_KEY_F1 && key <= GLFW_KEY_F12) // appended: GCC 12 warns on "F" + string
        return std::string("F").append(std::to_string(key - GLFW_KEY_F1 + 1));
    switch (key) {
    case GLFW_KEY_LEFT:
        return "Left";
    case GLFW_KEY_RIGHT:
        return "Right";
    case GLFW_KEY_UP:
        return "Up";
    case GLFW_KEY_DOWN:
        return "Down";
    case GLFW_KEY_HOME:
        return "Home";
    case GLFW_KEY_END:
        return "End";
    case GLFW_KEY_SPACE:
        return "Space";
    case GLFW_KEY_ESCAPE:
        return "Esc";
    case GLFW_KEY_LEFT_BRACKET:
        return "[";
    case GLFW_KEY_RIGHT_BRACKET:
        return "]";
    case GLFW_KEY_EQUAL:
        return "plus";
    case GLFW_KEY_MINUS:
        return "minus";
    case GLFW_KEY_KP_ADD:
        return "keypad plus";
    case GLFW_KEY_KP_SUBTRACT:
        return "keypad minus";
    default:
        return "key " + std::to_string(key);
    }
}

// [SECTION] Lookup: a press -> an action

bool sameMods(int wanted, int mods, bool ignoreShift) {
    if (wanted == kAnyMods) return true;
    const int mask = ignoreShift ? kCtrl : kCtrl | kShift;
    return (wanted & mask) == (mods & mask);
}

// The binding of `scope` for this press: with exactly its Ctrl and Shift first, then ignoring
// Shift (Shift+Right is Right, Ctrl+Shift+S is Ctrl+S), so only a binding that names Shift
// (Shift+V, Ctrl+Shift+E) tells them apart.
ShortcutAction lookUp(KeyScope scope, const KeyPress& press) {
    for (const bool ignoreShift : {false, true})
        for (const KeyRow& row : keyTable())
            if (row.scope == scope)
                for (const KeyBinding& b : row.keys)
                    if (b.key == press.key && sameMods(b.mods, press.mods, ignoreShift) &&
                        (b.repeats || !press.repeat))
                        return b.action;
    return A::None;
}

} // namespace

std::span<const KeyRow> keyTable() {
    static const std::vector<KeyRow> table = makeKeyTable();
    return table;
}

std::string keyLabel(const KeyBinding& b) {
    std::string label;
    if (b.mods != kAnyMods && (b.mods & kCtrl)) label += "Ctrl+";
    if (b.mods != kAnyMods && (b.mods & kShift)) label += "Shift+";
    return label + keyName(b.key);
}

std::string keysText(const KeyRow& row) {
    std::string text;
    for (const KeyBinding& b : row.keys)
        if (b.inLegend) text += (text.empty() ? "" : " / ") + keyLabel(b);
    return text;
}

ShortcutAction shortcutFor(const KeyPress& press, bool typing, bool mapsShown) {
    if (const ShortcutAction action = lookUp(KeyScope::Anywhere, press); action != A::None)
        return action;
    if (typing || !mapsShown) return A::None; // arrows move the caret; Ctrl+Z undoes typing
    return lookUp(KeyScope::Explorer, press); // Ctrl+Right is not Right: sameMods
}

ShortcutAction trainShortcutFor(const KeyPress& press) {
    return lookUp(KeyScope::TrainView, press); // Ctrl+S is not S: sameMods
}

// [SECTION] The queue, dropped files, Escape

namespace {

std::vector<KeyPress>& pendingPresses() {
    static std::vector<KeyPress> presses;
    return presses;
}

std::string& droppedPath() {
    static std::string path;
    return path;
}

void onDrop(GLFWwindow*, int count, const char** paths) {
    if (count > 0) droppedPath() = paths[0]; // one scene at a time: the first file
}

} // namespace

void addShortcutPress(int key, int mods, bool repeat) {
    pendingPresses().push_back({key, mods, repeat});
}

void installFileDrop(GLFWwindow* window) {
    glfwSetDropCallback(window, onDrop);
}

void dropPath(std::string path) {
    droppedPath() = std::move(path);
}

std::string takeDroppedPath() {
    return std::exchange(droppedPath(), std::string());
}

void interceptEscape() {
    ImGui::GetIO().KeysDown[GLFW_KEY_ESCAPE] = false; // InputText would revert
}

// [SECTION] What each action does

namespace {

// Esc closes one thing, the top-most: a dropdown or menu, the scene picker, the model dialog,
// the export panel, the key legend; with none open it unpins the row. A text field being typed
// in is left too, keeping its text (see interceptEscape), so the single keys act again.
void closeOrUnpin(const KeyTargets& t) {
    const ImGuiContext* g = ImGui::GetCurrentContext(); // none in the unit tests
    if (g && ImGui::GetIO().WantTextInput) ImGui::ClearActiveID();
    if (g && g->OpenPopupStack.Size > 0)
        ImGui::ClosePopupToLevel(g->OpenPopupStack.Size - 1, true);
    else if (t.explorer.scenes.open)
        t.explorer.scenes.open = false;
    else if (t.explorer.openModel.open)
        t.explorer.openModel.open = false;
    else if (t.explorer.exportPanel.open)
        t.explorer.exportPanel.open = false;
    else if (t.window.showKeys)
        t.window.showKeys = false;
    else
        t.explorer.selection.pinnedQuery = -1;
}

// The Anywhere keys: what works while typing, and the Explorer keys that need `actions`.
// Other actions are left alone.
void applyWindowShortcut(ShortcutAction action, const KeyTargets& t, ShortcutActions& actions) {
    float& zoom = t.window.zoom;
    switch (action) {
    case A::ExportWindow:
        actions.exportWindow = true;
        break;
    case A::ToggleExportPanel:
        t.explorer.exportPanel.open = !t.explorer.exportPanel.open;
        break;
    case A::SaveScene:
        actions.saveScene = true;
        break;
    case A::ToggleTrain:
        actions.toggleTrain = true;
        break;
    case A::ZoomIn:
        zoom = std::min(zoom + 0.25f, kMaxZoom);
        break;
    case A::ZoomOut:
        zoom = std::max(zoom - 0.25f, kMinZoom);
        break;
    case A::ZoomReset:
        zoom = kMinZoom;
        break;
    case A::OpenScenes:
        t.explorer.scenes.open = true;
        break;
    case A::OpenModel:
        t.explorer.openModel.open = true;
        t.explorer.openModel.focusPath = true;
        break;
    case A::CompareModel: // with a real model open: it is model A
        if (!t.explorer.comparison.available) break;
        t.explorer.comparison.acrossModels = true;
        t.explorer.saved.tab = core::ViewTab::Difference;
        t.explorer.openModel.open = true;
        t.explorer.openModel.choosingB = t.explorer.comparison.nameA;
        t.explorer.openModel.focusPath = true;
        break;
    case A::CloseOrUnpin:
        closeOrUnpin(t);
        break;
    case A::UndoScene:
        actions.undoScene = true;
        break;
    case A::ToggleFullscreen:
        actions.toggleFullscreen = true;
        break;
    case A::ToggleKeys:
        t.window.showKeys = !t.window.showKeys;
        break;
    default:
        break;
    }
}

// One step through a cycle of `count`, forward or back, wrapping around.
int cycle(int value, int count, bool forward) {
    return count > 0 ? (value + (forward ? 1 : count - 1)) % count : value;
}

// The open model's keys: its layer, its view, its switches and an encoder-decoder's keys.
void applyModelShortcut(ShortcutAction action, ModelView& model) {
    switch (action) {
    case A::NextLayer: // only a trained model has layers; wraps around like V
    case A::PreviousLayer:
        model.layer = cycle(model.layer, model.layers, action == A::NextLayer);
        break;
    case A::NextModelView: // only a real model has them
    case A::PreviousModelView:
        if (model.real) // an attention file has no logit lens, the last view
            model.grid = ModelGridMode(
                cycle(int(model.grid), model.attentionOnly ? kModelGridModes - 1 : kModelGridModes,
                      action == A::NextModelView));
        break;
    case A::Generate: // an encoder-decoder: its target emptied, the decoder writes
        if (!model.seq2seq) break;
        model.targetText.clear();
        model.generateNow = true;
        break;
    case A::NextAttentionKind: // encoder.*, decoder, cross of an encoder-decoder or a file
        if (model.savedStacks.size() == 3)
            for (int k = 1; k <= 3; ++k)
                if (const int next = (model.savedStack + k) % 3;
                    !model.savedStacks[std::size_t(next)].empty()) {
                    model.savedStack = next;
                    break;
                }
        break;
    case A::ToggleValueWeighted: // needs the model's values and W_O
        if (model.real && !model.attentionOnly) model.valueWeighted = !model.valueWeighted;
        break;
    case A::NextPairView:
        if (model.pairStart > 0) model.pairView = core::PairView((int(model.pairView) + 1) % 3);
        break;
    default:
        break;
    }
}

// The explorer's plain keys, outside text fields and only with heads on screen (`shown`).
void applyPlainShortcut(ShortcutAction action, const KeyTargets& t, const HeadMaps& shown) {
    core::SceneView& saved = t.explorer.saved;
    Selection& selection = t.explorer.selection;
    const int heads = int(shown.heads.size());
    const int rows = shown.heads.empty() ? 0 : shown.heads.front().rows;
    switch (action) {
    case A::NextHead:
    case A::PreviousHead:
        saved.selectedHead = cycle(saved.selectedHead, heads, action == A::NextHead);
        break;
    // Up/Down walk the pinned query row through the sentence.
    case A::PinnedRowDown:
        selection.pinnedQuery = std::min(selection.pinnedQuery + 1, rows - 1);
        break;
    case A::PinnedRowUp:
        selection.pinnedQuery = std::max(selection.pinnedQuery - 1, 0);
        break;
    // N / P walk the step-through (the tab clamps the step).
    case A::NextStep:
        t.explorer.steps.step += 1;
        break;
    case A::PreviousStep:
        t.explorer.steps.step = std::max(t.explorer.steps.step - 1, 0);
        break;
    // Presenter keys: pin the hovered (or first) row, toggle the mask, change H.
    case A::TogglePin:
        selection.pinnedQuery =
            selection.pinnedQuery >= 0 ? -1 : std::max(selection.hover.query, 0);
        break;
    case A::NextTab: // the tab bar follows saved.tab
    case A::PreviousTab:
        saved.tab = core::cycleEnum(saved.tab, action == A::NextTab ? 1 : -1);
        break;
    case A::NextTheme: // dark -> light -> high contrast
        saved.theme = core::cycleEnum(saved.theme, 1);
        break;
    case A::ToggleMask:
        t.scene.mask =
            t.scene.mask == core::MaskKind::Causal ? core::MaskKind::None : core::MaskKind::Causal;
        break;
    case A::FewerHeads:
    case A::MoreHeads:
        core::setHeads(t.scene, core::nextHeadCount(t.scene.d_model, t.scene.heads,
                                                    action == A::MoreHeads ? +1 : -1));
        break;
    case A::FewerKvHeads:
    case A::MoreKvHeads:
        core::setKvHeads(t.scene, core::nextKvHeadCount(t.scene.heads, t.scene.kvHeadCount(),
                                                        action == A::MoreKvHeads ? +1 : -1));
        break;
    default:
        applyModelShortcut(action, t.explorer.model);
        break;
    }
}

} // namespace

void applyShortcut(ShortcutAction action, const KeyTargets& targets, const HeadMaps& shown,
                   ShortcutActions& actions) {
    applyWindowShortcut(action, targets, actions); // each action is one of the two kinds
    applyPlainShortcut(action, targets, shown);
}

ShortcutActions handleShortcuts(const KeyTargets& targets, const HeadMaps& shown) {
    ShortcutActions actions;
    const bool typing = ImGui::GetIO().WantTextInput;
    constexpr int kCommandMods = GLFW_MOD_ALT | GLFW_MOD_SUPER;
    for (const KeyPress& press : pendingPresses()) { // with the heads on screen, as applied
        applyShortcut(shortcutFor(press, typing, !shown.heads.empty()), targets, shown, actions);
        if (!typing && (press.mods & kCommandMods) == 0) actions.plainKeys.push_back(press);
    }
    pendingPresses().clear();
    return actions;
}

// [SECTION] The F1 legend

void drawKeyLegend(bool& open) {
    if (!open) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(1.0f); // opaque: on a light projector theme the maps showed through
    ImGui::Begin("Keys (F1 closes)", &open,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    if (ImGui::BeginTable("keys", 2)) {
        for (const KeyRow& row : keyTable()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(keysText(row).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.does);
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("The Ctrl keys, Esc, F1, F9 and F11 work while typing. The single keys act "
                        "when no text field has the cursor;\nin a field they type. Esc leaves "
                        "the field and keeps its text.");
    ImGui::End();
}

} // namespace app
