// What the window shows and how, apart from the Scene (which says what is computed).
#pragma once

#include "appearance.h"
#include "figures/attention_map.h"
#include "figures/colormap.h"
#include "export_job.h"
#include "figures/head_views.h"

#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

namespace app {

struct CellRef {
    int query = -1, key = -1; // -1 = none
};

struct ViewState {
    int selectedHead = 0; // shown large; 0-based (the UI says head 1..H)
    int batchIndex = 0;   // which sentence's maps are shown when B > 1
    int pinnedQuery = -1; // query row pinned by a click; Esc unpins
    CellRef hover;        // hovered in the previous frame: highlighted in every head now
    CellRef nextHover;    // collected while drawing this frame
    int hoverHead = -1;   // head under the mouse last frame (heatmap or pipeline slice)
    int nextHoverHead = -1;
    core::ColormapId colormap = core::ColormapId::Viridis;
    bool perHeadScale = false;  // colour 0..max of each head instead of 0..1 for all
    bool focusSentence = true;  // give the sentence field keyboard focus (on start)
    bool showKeys = false;      // F1: the key legend
    Appearance appearance;      // theme and zoom; applied between frames when it changes
    bool showScenes = false;    // Ctrl+O: the scene picker
    std::string scenePathInput; // the picker's path field

    bool computing = false;   // a large scene runs on a worker; the maps shown are the last ones
    double computingSince = 0; // ImGui::GetTime() when it started
    std::string sceneError; // why the last edit could not be run (previous maps stay)
    std::string sceneHint;  // friendly, not an error (e.g. empty sentence)
    std::string notice;     // short-lived message, e.g. where an export went
    double noticeUntil = 0; // ImGui::GetTime() when the notice disappears

    enum class Tab { Head, Mean, Difference, Lines, Statistics, Pipeline, Steps, Cost };
    Tab tab = Tab::Head;      // what the right-hand panel shows
    bool tabRequested = true; // select `tab` in the tab bar (set by --view and keys)

    int step = 0;              // step-through: which step is shown
    bool showAllSteps = false; // or all of them at once
    bool animateSplit = true;  // pipeline: slices regroup visibly when H changes
    int animFromHeads = 0;     // H before the last change, for the regroup animation
    double animStart = -1;     // glfwGetTime() of that change; < 0 = no animation
    int presetIndex = -1;      // cost panel: real model sizes drawn in the pipeline; -1 = live

    int compareHead = 1;        // the difference view's second head (the first is selectedHead)
    bool linesAllHeads = false; // line view: every head in its colour, not just the selected one

    ExportPanel exportPanel; // Ctrl+Shift+E

    std::vector<core::AttentionMap> maps; // per head, for the shown sentence
    core::AttentionMap meanMap, differenceMap; // the views beside the grid, same sentence
    core::AttentionMap entropyMap;             // heads x queries, bits
    std::vector<core::HeadStatistics> headStats; // per head
    int differenceOf[2] = {-1, -1};              // the heads differenceMap was made from
    bool derivedUploaded = false;                // meanMap, entropyMap, headStats are current
    double meanEntropy = 0;               // of the trace, computed once per recompute
    bool mapsUploaded = false;            // textures match `maps`
};

// Shows `text` at the bottom of the window for `seconds` (one clock: ImGui's).
inline void showNotice(ViewState& view, std::string text, double seconds = 4.0) {
    view.notice = std::move(text);
    view.noticeUntil = ImGui::GetTime() + seconds;
}

} // namespace app
