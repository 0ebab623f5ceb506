#include "io/train_exports.h"

#include "figures/figure.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "io/metrics_figures.h"

#include <cstdio>

namespace core {

namespace {

std::string newFolder(const std::string& dir, const std::string& stem) {
    prepareExportFolder(dir);
    const std::string folder = freeStem(dir, stem, {""});
    prepareExportFolder(folder);
    return folder;
}

// The run's one-line description, then what this figure shows of it.
std::vector<std::string> caption(const train::TrainSettings& settings, int step = -1) {
    std::vector<std::string> lines = {train::describeSettings(settings)};
    if (step >= 0) lines.push_back("step " + std::to_string(step));
    return lines;
}

} // namespace

int curveFileCount(const train::TrainSettings& s) {
    return 5 + 2 * int(train::headScoreNames(s.task).size()); // csv, loss and accuracy, scores
}

std::string exportCurves(const CsvTable& metrics, const train::TrainSettings& settings,
                         const std::string& dir, int scale, std::atomic<int>& done) {
    const std::string folder = newFolder(dir, "train-curves");
    writeFileAtomically(folder + "/metrics.csv", csvText(metrics));
    ++done;
    CurveFigure loss = lossCurves(metrics, train::Task(settings.task).vocabSize());
    loss.captionLines = caption(settings);
    writeCurveFigure(loss, folder + "/loss", scale, &done);
    CurveFigure accuracy = accuracyCurve(metrics, train::accuracyColumn(settings.task));
    accuracy.captionLines = caption(settings);
    writeCurveFigure(accuracy, folder + "/accuracy", scale, &done);
    for (const std::string& score : train::headScoreNames(settings.task)) {
        CurveFigure scores = headScoreCurves(metrics, score);
        scores.captionLines = caption(settings);
        writeCurveFigure(scores, folder + "/" + score, scale, &done);
    }
    return folder;
}

std::string exportMaps(const train::ProbeMaps& maps, int step, const train::TrainSettings& settings,
                       const std::string& dir, int scale, std::atomic<int>& done,
                       ColormapId colormap) {
    const std::string folder = newFolder(dir, "train-maps-step-" + std::to_string(step));
    const GridFigure grid = trainMapsFigure(maps, caption(settings, step), colormap);
    writeFileAtomically(folder + "/maps.svg", gridSvg(grid));
    ++done;
    writeGridPng(folder + "/maps.png", grid, scale);
    ++done;
    return folder;
}

std::string exportTimeline(const std::vector<train::TrainSnapshot>& snapshots,
                           const train::TrainSettings& settings, const std::string& dir, int scale,
                           std::atomic<int>& done, ColormapId colormap) {
    const std::string folder = newFolder(dir, "train-timeline");
    int frame = 0;
    for (const train::TrainSnapshot& s : snapshots) {
        char name[32];
        std::snprintf(name, sizeof name, "/frame-%04d.png", ++frame); // slides sort by name
        writeGridPng(folder + name, trainMapsFigure(s.maps, caption(settings, s.step), colormap),
                     scale);
        ++done;
    }
    return folder;
}

} // namespace core
