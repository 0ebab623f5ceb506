// Head N has one colour everywhere (figures/palette.h): the window's maps, frames and labels,
// the exported head, grid and line figures, the Train view's maps and its figure, and the
// curves of the head's scores. Checked on a trained model's layers, where a head's place in the
// model (layer * H + head) decides it, and on a scene of the explorer.
#include "engine/scene.h"
#include "figures/figure.h"
#include "figures/palette.h"
#include "io/metrics_figures.h"
#include "io/run_folder.h"
#include "io/trained_run.h"
#include "train/model_trace.h"
#include "widgets/heatmap_widget.h"

#include "tiny_run.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

namespace train = core::train;

ImU32 u32(core::Rgb c) {
    return IM_COL32(c.r, c.g, c.b, 255);
}

// Every colour a head gets from `trace` (the explorer's side) is `expected`.
void expectExplorerColours(const core::Trace& trace, int h, core::Rgb expected) {
    const std::string where = "layer " + std::to_string(trace.layer) + " head " + std::to_string(h);
    EXPECT_EQ(app::headColorU32(trace, h), u32(expected)) << where << ": window";
    EXPECT_EQ(u32(*core::headFigure(trace, 0, h).keyColor), u32(expected))
        << where << ": head figure";
    EXPECT_EQ(u32(*core::gridFigure(trace, 0).panels[std::size_t(h)].keyColor), u32(expected))
        << where << ": grid figure";
    EXPECT_EQ(u32(core::lineFigure(trace, 0, h).color), u32(expected)) << where << ": lines";
}

TEST(HeadColors, OneColourPerHeadInEveryViewFigureAndCurve) {
    const std::string dir = testing_support::freshRunDir("colours");
    const train::TrainSettings settings = testing_support::tinyRunSettings(); // 2 layers, 4 heads
    testing_support::writeTinyRun(dir, settings);
    const core::TrainedRun run = core::loadTrainedRun(dir);
    const core::ModelTrace trace = train::traceModel(run.model, {"t3 t9 t3 t9"});
    const core::CsvTable metrics = core::readMetrics(dir);
    const core::CurveFigure curves = core::headScoreCurves(metrics, "induction");
    const auto setup = train::makeRunSetup(settings);
    const train::TrainSnapshot snapshot =
        train::snapshotOf(run.step,
                          std::make_shared<const train::Params>(core::readCheckpoint(
                              dir + "/" + core::checkpointFileName(run.step), run.model.config)),
                          *setup);
    const core::GridFigure trainMaps = core::trainMapsFigure(snapshot.maps, {});
    const int H = settings.model.heads;
    for (int l = 0; l < settings.model.layers; ++l)
        for (int h = 0; h < H; ++h) {
            const core::Rgb expected = core::headColor(l, h, H);
            expectExplorerColours(*trace.layers[std::size_t(l)], h, expected);
            EXPECT_EQ(u32(*trainMaps.panels[std::size_t(l * H + h)].keyColor), u32(expected));
            EXPECT_EQ(app::paletteColor(core::modelHeadIndex(l, h, H)),
                      u32(expected)); // Train frames
            const std::string name =
                std::string("L")
                    .append(std::to_string(l + 1))
                    .append("H")
                    .append(std::to_string(h + 1)); // appended: GCC 12 warns on "L" + string
            const auto curve = std::find_if(curves.series.begin(), curves.series.end(),
                                            [&](const auto& s) { return s.name == name; });
            ASSERT_NE(curve, curves.series.end()) << name;
            EXPECT_EQ(u32(curve->color), u32(expected)) << name << ": its score curve";
        }
    std::filesystem::remove_all(dir);
}

TEST(HeadColors, AnExplorerScenesHeadsAreTheFirstColours) {
    core::Scene scene;
    scene.heads = 8;
    const core::Trace trace = core::run(scene);
    for (int h = 0; h < 8; ++h) expectExplorerColours(trace, h, core::seriesColor(h));
}

TEST(HeadColors, ReadOnWhitePaperAndOnTheDarkTheme) {
    for (const core::Rgb c : core::headPalette(64)) {
        const double luminance = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
        EXPECT_GE(luminance, 60);
        EXPECT_LT(luminance, 200);
    }
}

} // namespace
