#include "train_view/train_files.h"

#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "io/metrics_figures.h"
#include "io/run_folder.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace app {

namespace train = core::train;

namespace {

std::string newFolder(const std::string& dir, const std::string& stem) {
    core::prepareExportFolder(dir);
    const std::string folder = core::freeStem(dir, stem, {""});
    core::prepareExportFolder(folder);
    return folder;
}

void writeFigure(const core::CurveFigure& figure, const std::string& stem, int scale,
                 std::atomic<int>& done) {
    core::writeFileAtomically(stem + ".svg", core::curveSvg(figure));
    ++done;
    core::writePng(stem + ".png", core::curvePng(figure, scale));
    ++done;
}

std::string csvText(const core::CsvTable& table) {
    std::ostringstream out;
    for (std::size_t c = 0; c < table.names.size(); ++c)
        out << (c ? "," : "") << core::csvField(table.names[c]);
    out << '\n';
    for (std::size_t r = 0; r < table.rows(); ++r) {
        for (std::size_t c = 0; c < table.columns.size(); ++c)
            out << (c ? "," : "") << core::formatNumber(table.columns[c][r]);
        out << '\n';
    }
    return out.str();
}

core::HeatmapFigure headMapFigure(const ProbeMaps& maps, int layer, int head,
                                  core::ColormapId colormap) {
    const core::AttentionMap map = attentionMapOf(maps, layer, head);
    core::HeatmapFigure f;
    f.title = "L" + std::to_string(layer + 1) + "H" + std::to_string(head + 1);
    f.rowLabels = map.queryLabels;
    f.colLabels = map.keyLabels;
    f.rows = map.rows;
    f.cols = map.cols;
    f.values = map.values;
    f.colormap = colormap;
    f.keyColor = core::headColor(layer, head, maps.heads); // as its curve and its map's frame
    return f;
}

// A layer's heads per row: all of them up to 8; beyond, the largest divisor of H up to 8, so
// each layer still starts a row. One row of 16 heads at seq 64 made a PNG 20704 px wide, more
// than ImageMagick (16384) and many viewers open.
int mapColumns(int heads) {
    if (heads <= 8) return heads;
    for (int c = 8; c >= 4; --c)
        if (heads % c == 0) return c;
    return heads; // no divisor from 4 to 8 (9, 11, 13, 22, ...): one row per layer, as before
}

// Drawn and encoded a band at a time (memory stays bounded whatever H), at the largest scale
// up to `scale` that keeps the PNG openable (core::kMaxPngSide).
void writeGridPng(const std::string& path, const core::GridFigure& grid, int scale) {
    core::writeFileAtomically(path, core::encodeGridPng(grid, core::fittingGridScale(grid, scale)));
}

} // namespace

std::vector<std::string> runCaption(const train::TrainSettings& s) {
    std::ostringstream line;
    line << core::toString(s.task) << ", " << s.model.layers << " layer"
         << (s.model.layers == 1 ? "" : "s") << ", d_model " << s.model.d_model << ", "
         << s.model.heads << " heads, seq " << s.model.seq << ", batch " << s.batch << ", "
         << core::toString(s.optimizer) << " lr " << s.learningRate << ", seed " << s.seed;
    return {line.str()};
}

core::GridFigure trainMapsFigure(const ProbeMaps& maps, const std::vector<std::string>& caption,
                                 core::ColormapId colormap) {
    core::GridFigure grid;
    for (int l = 0; l < maps.layers; ++l)
        for (int h = 0; h < maps.heads; ++h)
            grid.panels.push_back(headMapFigure(maps, l, h, colormap));
    grid.columns = mapColumns(maps.heads);
    grid.captionLines = caption;
    return grid;
}

std::string exportCurves(const core::CsvTable& metrics, const train::TrainSettings& settings,
                         const std::string& dir, int scale, std::atomic<int>& done) {
    const std::string folder = newFolder(dir, "train-curves");
    core::writeFileAtomically(folder + "/metrics.csv", csvText(metrics));
    ++done;
    core::CurveFigure loss = core::lossCurves(metrics);
    loss.captionLines = runCaption(settings);
    writeFigure(loss, folder + "/loss", scale, done);
    for (const std::string& score : train::headScoreNames(settings.task)) {
        core::CurveFigure scores = core::headScoreCurves(metrics, score);
        scores.captionLines = runCaption(settings);
        writeFigure(scores, folder + "/" + score, scale, done);
    }
    return folder;
}

std::string exportMaps(const ProbeMaps& maps, int step, const train::TrainSettings& settings,
                       const std::string& dir, int scale, std::atomic<int>& done) {
    const std::string folder = newFolder(dir, "train-maps-step-" + std::to_string(step));
    std::vector<std::string> caption = runCaption(settings);
    caption.push_back("step " + std::to_string(step));
    const core::GridFigure grid = trainMapsFigure(maps, caption);
    core::writeFileAtomically(folder + "/maps.svg", core::gridSvg(grid));
    ++done;
    writeGridPng(folder + "/maps.png", grid, scale);
    ++done;
    return folder;
}

std::string exportTimeline(const std::vector<TrainSnapshot>& snapshots,
                           const train::TrainSettings& settings, const std::string& dir, int scale,
                           std::atomic<int>& done) {
    const std::string folder = newFolder(dir, "train-timeline");
    int frame = 0;
    for (const TrainSnapshot& s : snapshots) {
        std::vector<std::string> caption = runCaption(settings);
        caption.push_back("step " + std::to_string(s.step));
        char name[32];
        std::snprintf(name, sizeof name, "/frame-%04d.png", ++frame); // slides sort by name
        writeGridPng(folder + name, trainMapsFigure(s.maps, caption), scale);
        ++done;
    }
    return folder;
}

void saveRunFolder(const core::CsvTable& metrics, const std::vector<TrainSnapshot>& snapshots,
                   const RunSetup& setup, const std::string& dir, std::atomic<int>& done) {
    core::prepareRunFolder(dir);
    core::writeFileAtomically(dir + "/model.json",
                              core::modelJson(setup.settings, setup.task.vocab()));
    core::writeFileAtomically(dir + "/metrics.csv", csvText(metrics));
    ++done;
    for (const TrainSnapshot& s : snapshots) {
        core::writeCheckpoint(dir + "/" + core::checkpointFileName(s.step), *s.params, s.step);
        ++done;
    }
}

} // namespace app
