// What the window shows and how, apart from the Scene (which says what is computed), split by
// concern: what is saved with a scene (core::SceneView, embedded as is), what the user points
// at (Selection), transient UI flags (UiState) and the export panel. The runner's status lives
// in the runner (scene_runner.h); the maps drawn and their textures in widgets/gl_heatmaps.h.
#pragma once

#include "explorer/export_job.h"
#include "io/scene_json.h"
#include "platform/appearance.h"
#include "train/trainer.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace app {

struct CellRef {
    int query = -1, key = -1; // -1 = none
};

// What the user points at. Hover is double-buffered: a cell hovered in one heatmap lights up
// in every head on the next frame.
struct Selection {
    int batchIndex = 0;   // which sentence's maps are shown when B > 1
    int pinnedQuery = -1; // query row pinned by a click; Esc unpins
    CellRef hover;        // hovered in the previous frame: highlighted in every head now
    CellRef nextHover;    // collected while drawing this frame
    int hoverHead = -1;   // head under the mouse last frame (heatmap or pipeline slice)
    int nextHoverHead = -1;
};

// Transient: not saved, never changes a computation.
struct UiState {
    bool focusSentence = true;  // give the sentence field keyboard focus (on start)
    bool showKeys = false;      // F1: the key legend
    bool showScenes = false;    // Ctrl+O: the scene picker
    std::string scenePathInput; // the picker's path field
    bool tabRequested = true;   // select the saved tab in the tab bar (set by --view and keys)
    float zoom = 1.0f;          // Ctrl+plus / minus, on top of the monitor's content scale
    std::string notice;         // short-lived message, e.g. where an export went
    double noticeUntil = 0;     // when the notice disappears (ImGui's clock)
    int step = 0;               // step-through: which step is shown
    bool showAllSteps = false;  // or all of them at once
    bool animateSplit = true;   // pipeline: slices regroup visibly when H changes
    int animFromHeads = 0;      // H before the last change, for the regroup animation
    double animStart = -1;      // when that change happened; < 0 = no animation
    int presetIndex = -1;       // cost panel: real model sizes drawn in the pipeline; -1 = live
    bool linesAllHeads = false; // line view: every head in its colour, not just the selected one
    bool sceneOpened = false;   // a scene file or demo was opened (it closes a trained model)
    // A scene with a "train" object was opened: the Train view takes these settings and starts.
    std::optional<core::train::TrainSettings> pendingTrain;
    bool openTrain = false; // the controls' button: show the Train view
};

// A trained model in the explorer (--model, "Open in explorer"): what the panels show of it
// (filled by describeModel, model_explorer.h) and what they ask the session to do.
struct ModelView {
    bool open = false;
    std::string title;        // task, step and run folder
    std::string architecture; // layers, d_model, heads, seq, vocab
    std::string vocabulary;   // the words that may be typed (or a sample of them)
    std::vector<int> steps;   // the run's checkpoints
    int step = 0;
    int layer = 0, layers = 0; // the layer every view shows, from 0 (L / Shift+L)
    std::vector<std::vector<std::string>> unknownWords; // per sentence: not in the vocabulary
    std::vector<std::vector<std::string>> predictions;  // per sentence and token: "t17 (0.93)"
    int requestedStep = -1;                             // the controls ask for another checkpoint
    bool closeRequested = false;                        // "Close model"
};

struct ViewState {
    using Tab = core::ViewTab;
    core::SceneView saved; // tab, colours, theme, heads shown: what a scene file holds
    Selection selection;
    UiState ui;
    ExportPanel exportPanel; // Ctrl+Shift+E
    ModelView model;         // a trained model, when one is open
};

// The theme (saved) and the zoom (transient) the window should be drawn with.
inline Appearance appearanceOf(const ViewState& view) {
    return {view.saved.theme, view.ui.zoom};
}

// Shows `text` at the bottom of the window until `now + seconds` (ImGui's clock).
inline void showNotice(ViewState& view, std::string text, double now, double seconds = 4.0) {
    view.ui.notice = std::move(text);
    view.ui.noticeUntil = now + seconds;
}

} // namespace app
