// Train mode, left column below the run: heads switched off on the shown model (its held-out
// loss at once, and the pruning curve), and files: exports, save / load a run, the explorer.
#include "train_view/train_panels.h"

#include "io/figure_export.h"
#include "io/run_folder.h"
#include "io/train_exports.h"
#include "widgets/curve_plot.h"
#include "widgets/text_field.h"

#include <algorithm>
#include <cstdio>

namespace app {

namespace train = core::train;

namespace {

void headToggles(TrainView& train) {
    const train::ModelConfig& config = train.run->settings().model;
    for (int l = 0; l < config.layers; ++l) {
        ImGui::AlignTextToFramePadding();
        ImGui::Text("L%d", l + 1);
        for (int h = 0; h < config.heads; ++h) {
            ImGui::SameLine();
            const bool off = isAblated(train, l, h);
            ImGui::PushID(l * config.heads + h);
            if (off) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.7f, 0.2f, 0.18f, 1));
            char label[16];
            std::snprintf(label, sizeof label, "H%d", h + 1);
            if (ImGui::Button(label)) toggleAblated(train, l, h);
            if (off) ImGui::PopStyleColor();
            ImGui::PopID();
        }
    }
}

void ablationNumbers(const TrainView& train) {
    if (!anyAblated(train.ablated)) {
        ImGui::TextDisabled("Click a head to switch it off.");
        return;
    }
    const AblationResult& r = train.ablationShown;
    const bool current = r.ablated == train.ablated && r.step == shownStep(train);
    if (r.step < 0 || r.ablated.empty()) {
        ImGui::TextDisabled("measuring ...");
        return;
    }
    const char* accuracy = train::accuracyColumn(train.run->settings().task);
    // The metrics row's number where the step has one (the run panel shows the same).
    const double without = heldoutAt(train, r.step, r.without.heldoutLoss);
    ImGui::Text("held-out at step %d: %.3f -> %.3f (%+.3f)", r.step, without, r.with.heldoutLoss,
                r.with.heldoutLoss - without);
    ImGui::Text("%s %.2f -> %.2f%s", accuracy, r.without.accuracy, r.with.accuracy,
                current ? "" : "   (measuring ...)");
}

void pruningSection(TrainView& train, bool dark) {
    if (train.pruning) {
        const float total = float(std::max(train.pruning->total, 1));
        ImGui::ProgressBar(float(*train.pruning->done) / total, ImVec2(-1, 0), "pruning ...");
        return;
    }
    if (ImGui::Button("Pruning curve")) startPruning(train);
    itemTooltip("Remove heads one by one, each time the one whose loss costs least, and draw "
                "the held-out loss against the heads removed.");
    const train::AblationReport& report = train.pruningShown;
    if (report.pruning.empty()) return;
    ImGui::SameLine();
    ImGui::TextDisabled("of step %d", train.pruningStep);
    core::CurveFigure f;
    f.xLabel = "heads removed";
    core::CurveSeries s{"held-out loss", core::seriesColor(0), {{0, report.baseline.heldoutLoss}}};
    for (std::size_t i = 0; i < report.pruning.size(); ++i)
        s.points.push_back({double(i + 1), report.pruning[i].heldoutLoss});
    f.series.push_back(std::move(s));
    CurvePlotStyle style;
    style.dark = dark;
    style.legend = false;
    drawCurvePlot("##pruning", f,
                  ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 8), style);
}

// Starts a file job unless one runs; `write` gets the job's counter.
template <class Write>
void startFileJob(TrainView& train, const char* what, int total, Write write) {
    if (train.files) return;
    auto job = std::make_unique<TrainFileJob>();
    job->what = what;
    job->total = total;
    job->result = startTask([write, done = job->done] { return write(*done); });
    train.files = std::move(job);
}

void exportButtons(TrainView& train, const std::string& dir) {
    if (ImGui::Button("Curves (E)")) exportCurvesNow(train, dir);
    itemTooltip("The loss, accuracy and score curves up to the step shown: SVG, PNG and CSV.");
    ImGui::SameLine();
    if (ImGui::Button("Maps (M)")) exportMapsNow(train, dir);
    itemTooltip("Every head's map at the step shown, as one figure: SVG and PNG.");
    ImGui::SameLine();
    if (ImGui::Button("Timeline") && train.run) {
        const std::vector<core::train::TrainSnapshot> all = train.run->history().all();
        startFileJob(train, "timeline", int(all.size()),
                     [all, s = train.run->settings(), dir](std::atomic<int>& done) {
                         return core::exportTimeline(all, s, dir, 1, done);
                     });
    }
    itemTooltip("Every snapshot's maps as frame-0001.png, frame-0002.png, ... for slides.");
}

} // namespace

void drawTrainAblation(TrainView& train, bool dark) {
    if (!train.run) return;
    sectionTitle("Switch heads off");
    headToggles(train);
    updateAblation(train);
    updatePruning(train);
    ablationNumbers(train);
    pruningSection(train, dark);
}

void exportCurvesNow(TrainView& train, const std::string& dir) {
    if (!train.run) return;
    core::CsvTable rows = rowsUpTo(train.run->metrics(), shownStep(train));
    startFileJob(train, "curves", core::curveFileCount(train.run->settings()),
                 [rows, s = train.run->settings(), dir](std::atomic<int>& done) {
                     return core::exportCurves(rows, s, dir, 2, done);
                 });
}

void exportMapsNow(TrainView& train, const std::string& dir) {
    if (!train.run) return;
    startFileJob(
        train, "maps", 2,
        [maps = shownMaps(train), step = shownStep(train), s = train.run->settings(),
         dir](std::atomic<int>& done) { return core::exportMaps(maps, step, s, dir, 2, done); });
}

void saveRun(TrainView& train, const std::string& folder, bool openAfter) {
    if (!train.run || train.files) return;
    const TrainRun& run = *train.run;
    std::vector<core::train::TrainSnapshot> all = run.history().all();
    if (all.empty() || all.back().step != run.step()) all.push_back(run.latest());
    const int step = shownStep(train);
    startFileJob(
        train, "run", int(all.size()) + 1,
        [all, metrics = run.metrics(), setup = run.setupShared(), folder](std::atomic<int>& done) {
            core::writeRunFolder(folder, *setup, metrics, all, done);
            return folder;
        });
    train.files->openAfter = openAfter;
    train.files->openStep = step;
}

std::optional<OpenInExplorer> drawTrainFiles(TrainView& train, Notice& notice,
                                             const std::string& exportDir) {
    if (!train.run) return std::nullopt;
    sectionTitle("Files");
    exportButtons(train, exportDir);
    ImGui::SetNextItemWidth(-1);
    textField("##runfolder", "run folder", train.folderInput);
    if (ImGui::Button("Save run") && !train.folderInput.empty())
        saveRun(train, train.folderInput, false);
    itemTooltip("Writes the folder `mha-viz train` writes: model.json, metrics.csv, checkpoints.");
    ImGui::SameLine();
    if (ImGui::Button("Load run") && !train.folderInput.empty())
        loadRun(train, notice, train.folderInput);
    itemTooltip("Opens a run folder (mha-viz train's or a saved one) to scrub and prune.");
    ImGui::SameLine();
    std::optional<OpenInExplorer> open;
    if (ImGui::Button("Open in explorer")) open = openInExplorer(train, exportDir);
    itemTooltip("The model at the step shown, in the explorer: type a sentence in its vocabulary.");
    if (train.files) {
        const float total = float(std::max(train.files->total, 1));
        ImGui::ProgressBar(float(*train.files->done) / total, ImVec2(-1, 0),
                           ("writing " + train.files->what + " ...").c_str());
    }
    return open;
}

} // namespace app
