// The explorer's state beside the Scene (which says what is computed): what a scene file saves
// (core::SceneView, kept as is), what the user points at (Selection), each tab's own settings,
// the scene picker, the export panel and the trained model on screen. The session owns one;
// each panel is handed the parts it reads and returns what it asks for (ExplorerRequest).
#pragma once

#include "engine/step_detail.h"
#include "explorer/comparison_runner.h"
#include "explorer/export_job.h"
#include "explorer/model_runner.h"
#include "io/scene_json.h"
#include "models/formats/model_folder.h"
#include "models/formats/model_stores.h"
#include "widgets/selection.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace app {

// The tab bar shows saved.tab: a key, a scene or another tab changes saved.tab and the bar
// follows on the next frame (ImGui selects a tab as the bar is drawn). `shown` is the tab
// ImGui shows now; while it differs from saved.tab the bar asks for saved.tab.
struct TabBarState {
    std::optional<core::ViewTab> shown;
};

// Step through: which step, or all of them; the numbers of the one followed, kept while the
// maps, head and token stay (stepDetail copies W_O: not once per frame).
struct StepsTabState {
    int step = 0;
    bool showAll = false;
    int rotaryKey = -1; // the key the rotary step follows; -1: the one the query weighs most
    struct Key {
        std::uint64_t maps = 0;
        int batch = -1, head = -1, query = -1, key = -1;
        bool operator==(const Key&) const = default;
    } detailKey;
    core::StepDetail detail;
};

// Pipeline: the regroup animation when H changes, and a real model's shapes (from Cost).
struct PipelineTabState {
    bool animateSplit = true; // slices regroup visibly when H changes
    int animFromHeads = 0;    // H before the last change
    double animStart = -1;    // when that change happened (ImGui's clock); < 0: none
    int presetIndex = -1; // a model of core::kModelConfigs drawn (shape only); -1: the live scene

    bool animating(double now) const { return animStart >= 0 && now - animStart < 0.7; }
};

struct LinesTabState {
    bool allHeads = false; // every head in its colour, not just the selected one
};

// Ctrl+O: the demo scenes, a path field and the scenes Ctrl+S saved (listed on opening).
struct ScenePickerState {
    bool open = false;
    std::string pathInput;
    std::string savedFolder;        // where Ctrl+S saves (the export folder)
    std::vector<std::string> saved; // its mha-viz-scene*.json, newest first
};

// Ctrl+Shift+O: a path field, the recent models, the models in the Hugging Face cache. The
// session fills `loading` and `recent`; the dialog lists the cache when it opens.
struct OpenModelState {
    bool open = false;
    bool listed = false; // the cache was read since the dialog opened
    std::string pathInput;
    std::string cacheDir;                          // where the cache was searched
    std::vector<core::models::CachedModel> cached; // as listed on opening
    std::vector<std::array<float, 4>> cachedAt;    // each entry's row on screen: x0 y0 x1 y1
    std::string ollamaDir;                         // Ollama's store ("" when none)
    std::vector<std::string> lmStudioDirs;         // LM Studio's folders that exist
    std::vector<core::models::StoredModel> stored; // both stores' GGUFs, as listed on opening
    std::vector<std::array<float, 4>> storedAt;    // each one's row on screen
    std::vector<std::string> recent;               // newest first
    std::string loading;    // the model being opened off the frame thread ("" when none)
    std::string choosingB;  // the A-B tab asked for model B to compare with this model ("": none)
    bool focusPath = false; // the path field takes the keyboard next frame (asked again, or
                            // after a path that could not be opened)
};

// The A-B tab across two models: its choice, and what the session shows of model B each frame
// (ComparisonRunner), and where its buttons and rows are (the state file's, for tests).
struct ComparisonTabState {
    bool acrossModels = false; // B is this head in model B, not another head of this layer
    bool available = false;    // a real model is open: it is model A
    std::string nameA, nameB;  // display names; nameB "" with no model B
    std::string summaryB;      // B's family, shape and weights (modelSummary)
    std::string loading;       // model B being opened, "" when none
    std::string error;         // why the last comparison or B's layer could not be made
    bool computing = false;    // a comparison under way
    std::shared_ptr<const ModelComparison> result; // of the trace shown, else null
    std::shared_ptr<const core::Trace> layerB;     // B's layer shown; null while it is made
    float shownMaxAbs = -1;                      // the drawn map's largest |A - B| (-1: none drawn)
    std::array<float, 4> chooseAt{}, exportAt{}; // "Choose model B...", "Export comparison"
    std::vector<std::array<float, 4>> rankedAt;  // the most-moved list's rows
};

struct ExplorerState {
    core::SceneView saved; // tab, colours, theme, heads shown: what a scene file holds
    Selection selection;
    TabBarState tabBar;
    StepsTabState steps;
    PipelineTabState pipeline;
    LinesTabState lines;
    ScenePickerState scenes;
    OpenModelState openModel;      // Ctrl+Shift+O
    ExportPanel exportPanel;       // Ctrl+Shift+E
    ComparisonTabState comparison; // A-B across two models
    ModelView model;               // what the panels show of a trained model, when one is open
};

// What a panel asks of the session, which applies it in the same frame, right after the panel:
// things only the session can do (open a scene, switch modes, load another checkpoint).
struct ExplorerRequest {
    std::string openDemo;                   // a demo scene (core::kDemoScenes)
    std::string openFile;                   // a scene file
    bool openScenePicker = false;           // Ctrl+O's window
    bool openTrain = false;                 // the Train view
    int modelStep = -1;                     // another checkpoint of the open model
    bool closeModel = false;                // back to the explorer's own scene
    std::optional<ExportChoice> openExport; // the export panel, on this choice
    bool exportDetectors = false;           // a real model's head detector scores, as CSV
    bool exportModel = false;               // every view of a real model, into a new folder
    std::string openModel;                  // a model folder or cache name, opened off-frame
    bool openModelDialog = false;           // Ctrl+Shift+O's window
    // A real model's head (layer, head from 0) switched off, or on again (a right-click).
    std::optional<std::pair<int, int>> switchModelHead;
    bool allModelHeadsOn = false;  // every switched-off head on again
    bool chooseModelB = false;     // the Open-model dialog picks model B (the A-B tab)
    std::string compareWith;       // model B, opened off-frame and compared with the open one
    bool stopComparing = false;    // model B closed
    bool exportComparison = false; // the comparison's CSV and figures, into the export folder
    // An encoder-decoder: the decoder writes again (Generate), the scrubber's step (tokens of
    // the target shown, -1: none asked), the alignment figure shown as SVG and PNG.
    bool generate = false;
    int showWritten = -1;
    bool exportAlignment = false;

    ExplorerRequest& operator|=(const ExplorerRequest& other);
};

} // namespace app
