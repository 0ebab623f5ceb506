// The Train view's panels and the actions its buttons and keys share. Each panel takes the
// view's state (TrainView), what it needs of the window's look, and a notice to report to;
// drawTrainView returns what it asks of the session.
#pragma once

#include "figures/colormap.h"
#include "session/shortcuts.h"
#include "train_view/train_view.h"
#include "widgets/gl_heatmaps.h"
#include "widgets/notice.h"
#include "widgets/panel_frame.h"

#include <string>
#include <vector>

namespace app {

// How the Train view is drawn, from the window's settings.
struct TrainViewLook {
    core::ColormapId colormap = core::ColormapId::Viridis; // the maps'
    bool dark = true;                                      // the curves' background
    float scale = 1;                                       // content scale x zoom
    std::string exportDir;                                 // where its files go
};

// A run folder and step to open in the explorer ("Open in explorer").
struct OpenInExplorer {
    std::string dir;
    int step = -1;
};

// Train mode (Ctrl+T): the whole window. Steps the run's frame, playback and the Train keys,
// then the four panels below. `gl` holds the Train maps' textures (not the explorer's); `keys`
// are the frame's plain key presses (ShortcutActions::plainKeys). Returns a model to open in the
// explorer when one was asked for (the button, or a saved run that opens when written).
std::optional<OpenInExplorer> drawTrainView(TrainView& train, const TrainViewLook& look,
                                            Notice& notice, GlHeatmaps& gl,
                                            const std::vector<KeyPress>& keys);
std::optional<OpenInExplorer> drawTrainControls(const PanelRect& rect, TrainView& train,
                                                const TrainViewLook& look, Notice& notice);
void drawTrainCharts(const PanelRect& rect, TrainView& train, bool dark);
void drawTrainMaps(const PanelRect& rect, TrainView& train, core::ColormapId colormap,
                   GlHeatmaps& gl);
void drawTrainTimeline(const PanelRect& rect, TrainView& train);
void drawTrainAblation(TrainView& train, bool dark);
std::optional<OpenInExplorer> drawTrainFiles(TrainView& train, Notice& notice,
                                             const std::string& exportDir);

// A note on what the Train view shows (trainNotes), wrapped at spaces only (ImGui's wrapping
// also breaks after a '.', cutting "0.52" in two), in a colour that reads on either theme.
void noteText(const std::string& note);
// Its height at `width`, to keep room for it.
float noteHeight(const std::string& note, float width);

// The Train view's actions, shared by buttons and keys.
void toggleRunning(TrainView& train);
void stepRun(TrainView& train);
void toggleTimelinePlay(TrainView& train);
void saveRun(TrainView& train, const std::string& folder, bool openAfter);
void exportCurvesNow(TrainView& train, const std::string& dir); // into a new folder in dir
void exportMapsNow(TrainView& train, const std::string& dir);
void loadRun(TrainView& train, Notice& notice, const std::string& folder);
// The run at the step shown: its folder when it was loaded, else saved first (then the saved
// folder opens once written, through the file job).
std::optional<OpenInExplorer> openInExplorer(TrainView& train, const std::string& exportDir);

} // namespace app
