// Train mode's frame: the run's published results, playback, the Train keys, finished file
// jobs, then the panels: controls left, curves in the middle, maps right, timeline at the bottom.
#include "train_view/train_panels.h"

#include "io/figure_export.h"
#include "platform/file_offer.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>

namespace app {

namespace {

// The Train view's keys (session/shortcuts.h's table): `keys` are the frame's plain presses
// outside text fields, in order (the explorer's keys do nothing while Train is shown).
void trainKeys(TrainView& train, const std::string& exportDir, const std::vector<KeyPress>& keys) {
    for (const KeyPress& press : keys) {
        const ShortcutAction action = trainShortcutFor(press);
        if (action == ShortcutAction::TimelineBack || action == ShortcutAction::TimelineOn ||
            action == ShortcutAction::TimelineStart || action == ShortcutAction::TimelineLive)
            train.playing = false;
        switch (action) {
        case ShortcutAction::TrainStartPause:
            toggleRunning(train);
            break;
        case ShortcutAction::TrainStep:
            stepRun(train);
            break;
        case ShortcutAction::TrainReset:
            resetRun(train);
            break;
        case ShortcutAction::TrainUndo:
            undoReplacedRun(train);
            break;
        case ShortcutAction::TimelinePlay:
            toggleTimelinePlay(train);
            break;
        case ShortcutAction::TimelineBack:
        case ShortcutAction::TimelineOn:
            scrubBy(train, action == ShortcutAction::TimelineOn ? 1 : -1);
            break;
        case ShortcutAction::TimelineStart:
            scrubTo(train, 0);
            break;
        case ShortcutAction::TimelineLive:
            if (train.run) scrubTo(train, train.run->step());
            break;
        case ShortcutAction::TrainExportCurves:
            exportCurvesNow(train, exportDir);
            break;
        case ShortcutAction::TrainExportMaps:
            exportMapsNow(train, exportDir);
            break;
        default:
            break;
        }
    }
}

// A finished export or save: its notice; a saved run that was to open in the explorer does.
std::optional<OpenInExplorer> finishFileJob(TrainView& train, Notice& notice) {
    if (!train.files || !finished(train.files->result)) return std::nullopt;
    const std::unique_ptr<TrainFileJob> job = std::move(train.files);
    try {
        const std::string where = job->result.get();
        if (job->what != "run")
            offerFiles({where}); // a run stays (in the browser: kept)
        else
            keepFiles();
        notice.show(
            (job->what == "run" ? "Saved the run in " : "Wrote the " + job->what + " into ") +
                where,
            ImGui::GetTime());
        if (job->openAfter) return OpenInExplorer{where, job->openStep};
    } catch (const std::exception& e) {
        notice.show(job->what + " not written: " + e.what(), ImGui::GetTime(), 6.0);
    }
    return std::nullopt;
}

} // namespace

void loadRun(TrainView& train, Notice& notice, const std::string& folder) {
    try {
        adoptRun(train, TrainRun::fromFolder(folder));
        notice.show("Opened the run in " + folder, ImGui::GetTime());
    } catch (const std::exception& e) { // the run shown stays
        notice.show(std::string("Run not opened: ") + e.what(), ImGui::GetTime(), 6.0);
    }
}

std::optional<OpenInExplorer> openInExplorer(TrainView& train, const std::string& exportDir) {
    if (!train.run) return std::nullopt;
    const int step = shownStep(train);
    if (!train.run->folder().empty()) // a loaded run: its checkpoints are on disk
        return OpenInExplorer{train.run->folder(), step};
    saveRun(train, core::freeStem(exportDir, "train-run", {""}), true);
    return std::nullopt;
}

std::optional<OpenInExplorer> drawTrainView(TrainView& train, const TrainViewLook& look,
                                            Notice& notice, GlHeatmaps& gl,
                                            const std::vector<KeyPress>& keys) {
    if (train.run) train.run->frame();
    advancePlayback(train, ImGui::GetTime());
    trainKeys(train, look.exportDir, keys);
    std::optional<OpenInExplorer> open = finishFileJob(train, notice);

    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float left = std::clamp(display.x * 0.24f, 330.0f * look.scale, 430.0f * look.scale);
    const float timeline = ImGui::GetFrameHeight() * 2 + ImGui::GetStyle().ItemSpacing.y +
                           2 * ImGui::GetStyle().WindowPadding.y; // title bar and one row
    const float body = display.y - timeline;
    const float middle = (display.x - left) * 0.48f;
    if (auto asked =
            drawTrainControls({ImVec2(0, 0), ImVec2(left, display.y)}, train, look, notice))
        open = asked;
    drawTrainCharts({ImVec2(left, 0), ImVec2(middle, body)}, train, look.dark);
    drawTrainMaps({ImVec2(left + middle, 0), ImVec2(display.x - left - middle, body)}, train,
                  look.colormap, gl);
    drawTrainTimeline({ImVec2(left, body), ImVec2(display.x - left, timeline)}, train);
    return open;
}

} // namespace app
