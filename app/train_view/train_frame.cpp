// Train mode's frame: the run's published results, playback, the Train keys, finished file
// jobs, then the panels: controls left, curves in the middle, maps right, timeline at the bottom.
#include "explorer/panels.h"

#include "io/figure_export.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>

namespace app {

namespace {

// Space start/pause, S one step, R reset, Left/Right a snapshot back/on (held: repeats), Home
// step 0, End live, P play, E export the curves, M the maps. `keys`: the frame's plain presses
// outside text fields, in order (the explorer's keys do nothing while Train is shown).
void trainKeys(TrainView& train, const std::string& exportDir, const std::vector<KeyPress>& keys) {
    for (const KeyPress& press : keys) {
        if (press.repeat && press.key != GLFW_KEY_LEFT && press.key != GLFW_KEY_RIGHT) continue;
        switch (press.key) {
        case GLFW_KEY_SPACE:
            toggleRunning(train);
            break;
        case GLFW_KEY_S:
            stepRun(train);
            break;
        case GLFW_KEY_R:
            resetRun(train);
            break;
        case GLFW_KEY_P:
            toggleTimelinePlay(train);
            break;
        case GLFW_KEY_LEFT:
            train.playing = false, scrubBy(train, -1);
            break;
        case GLFW_KEY_RIGHT:
            train.playing = false, scrubBy(train, 1);
            break;
        case GLFW_KEY_HOME:
            train.playing = false, scrubTo(train, 0);
            break;
        case GLFW_KEY_END:
            if (train.run) train.playing = false, scrubTo(train, train.run->step());
            break;
        case GLFW_KEY_E:
            exportCurvesNow(train, exportDir);
            break;
        case GLFW_KEY_M:
            exportMapsNow(train, exportDir);
            break;
        default:
            break;
        }
    }
}

// A finished export or save: its notice, and a saved run opens in the explorer when asked.
void finishFileJob(TrainView& train, ViewState& view) {
    if (!train.files || !finished(train.files->result)) return;
    const std::unique_ptr<TrainFileJob> job = std::move(train.files);
    try {
        const std::string where = job->result.get();
        showNotice(
            view,
            (job->what == "run" ? "Saved the run in " : "Wrote the " + job->what + " into ") +
                where,
            ImGui::GetTime());
        if (job->openAfter) train.openModelDir = where, train.openModelStep = job->openStep;
    } catch (const std::exception& e) {
        showNotice(view, job->what + " not written: " + e.what(), ImGui::GetTime(), 6.0);
    }
}

} // namespace

void sectionTitle(const char* text) {
    ImGui::Spacing();
    ImGui::TextUnformatted(text);
    ImGui::Separator();
}

void loadRun(TrainView& train, ViewState& view, const std::string& folder) {
    try {
        adoptRun(train, TrainRun::fromFolder(folder));
        showNotice(view, "Opened the run in " + folder, ImGui::GetTime());
    } catch (const std::exception& e) { // the run shown stays
        showNotice(view, std::string("Run not opened: ") + e.what(), ImGui::GetTime(), 6.0);
    }
}

void openInExplorer(TrainView& train, const std::string& exportDir) {
    if (!train.run) return;
    const int step = shownStep(train);
    if (!train.run->folder().empty()) { // a loaded run: its checkpoints are on disk
        train.openModelDir = train.run->folder(), train.openModelStep = step;
        return;
    }
    saveRun(train, core::freeStem(exportDir, "train-run", {""}), true);
}

void drawTrainView(TrainView& train, ViewState& view, GlHeatmaps& gl, const std::string& exportDir,
                   float uiScale, const std::vector<KeyPress>& keys) {
    if (train.autoStart && (train.run || resetRun(train))) {
        train.run->start();
        train.autoStart = false;
    }
    if (train.run) train.run->frame();
    advancePlayback(train, ImGui::GetTime());
    trainKeys(train, exportDir, keys);
    finishFileJob(train, view);

    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float scale = uiScale * view.ui.zoom;
    const float left = std::clamp(display.x * 0.24f, 330.0f * scale, 430.0f * scale);
    const float timeline = ImGui::GetFrameHeight() * 2 + ImGui::GetStyle().ItemSpacing.y +
                           2 * ImGui::GetStyle().WindowPadding.y; // title bar and one row
    const float body = display.y - timeline;
    const float middle = (display.x - left) * 0.48f;
    drawTrainControls({ImVec2(0, 0), ImVec2(left, display.y)}, train, view, exportDir);
    drawTrainCharts({ImVec2(left, 0), ImVec2(middle, body)}, train, view);
    drawTrainMaps({ImVec2(left + middle, 0), ImVec2(display.x - left - middle, body)}, train, view,
                  gl);
    drawTrainTimeline({ImVec2(left, body), ImVec2(display.x - left, timeline)}, train);
}

} // namespace app
