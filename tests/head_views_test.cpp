// The views beside the grid (core/figures/head_views.h) and their figures and exports: the mean
// over heads, the difference of two heads, per-row statistics and the line view, checked against
// the trace's own weights with tolerances, plus what a reader of the files relies on.
#include "engine/attention_stats.h"
#include "engine/scene.h"
#include "engine/trace.h"
#include "figures/attention_map.h"
#include "figures/figure.h"
#include "figures/head_views.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

using testing_support::thrownMessage;

namespace {

core::Trace demoTrace(core::MaskKind mask = core::MaskKind::None, int heads = 4) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat because it was tired ."};
    scene.heads = heads;
    scene.mask = mask;
    return core::run(scene);
}

float weight(const core::Trace& t, int b, int h, int i, int j) {
    return t.attention.attention(t.attention.headRow(b, h, i), j);
}

TEST(MeanAttentionMap, IsTheAverageOfTheHeadsAndKeepsTheMask) {
    const core::Trace t = demoTrace(core::MaskKind::Causal);
    const core::AttentionMap mean = core::meanAttentionMap(t, 0);
    ASSERT_EQ(mean.rows, t.queryLen());
    for (int i = 0; i < mean.rows; ++i) {
        double rowSum = 0;
        for (int j = 0; j < mean.cols; ++j) {
            const float v = mean.values[std::size_t(i) * mean.cols + j];
            if (j > i) {
                EXPECT_EQ(v, core::kMaskedCell) << i << "," << j;
                continue;
            }
            double expected = 0;
            for (int h = 0; h < t.attention.heads; ++h) expected += weight(t, 0, h, i, j);
            EXPECT_NEAR(v, expected / t.attention.heads, 1e-6);
            rowSum += v;
        }
        EXPECT_NEAR(rowSum, 1.0, 1e-5) << "row " << i;
    }
}

TEST(HeadDifferenceMap, IsCellByCellAndAntisymmetric) {
    const core::Trace t = demoTrace();
    const core::AttentionMap ab = core::headDifferenceMap(t, 0, 1, 3);
    const core::AttentionMap ba = core::headDifferenceMap(t, 0, 3, 1);
    float largest = 0;
    for (int i = 0; i < ab.rows; ++i)
        for (int j = 0; j < ab.cols; ++j) {
            const std::size_t c = std::size_t(i) * ab.cols + j;
            EXPECT_NEAR(ab.values[c], weight(t, 0, 1, i, j) - weight(t, 0, 3, i, j), 1e-7);
            EXPECT_FLOAT_EQ(ab.values[c], -ba.values[c]);
            largest = std::max(largest, std::abs(ab.values[c]));
        }
    EXPECT_FLOAT_EQ(ab.maxWeight, largest);
    const core::AttentionMap self = core::headDifferenceMap(t, 0, 2, 2);
    for (float v : self.values) EXPECT_EQ(v, 0.0f);
}

TEST(HeadDifferenceMap, AcrossTwoTracesIsAMinusBOfTheSameCells) {
    core::Scene scene; // the same text, other weights: another model's layer
    scene.sentences = {"The cat sat on the mat because it was tired ."};
    scene.mask = core::MaskKind::Causal;
    const core::Trace a = core::run(scene);
    scene.seed += 1;
    const core::Trace b = core::run(scene);
    const core::AttentionMap d = core::headDifferenceMap(a, 2, b, 2, 0);
    float largest = 0;
    for (int i = 0; i < d.rows; ++i)
        for (int j = 0; j < d.cols; ++j) {
            const float v = d.values[std::size_t(i) * d.cols + j];
            if (j > i) {
                EXPECT_EQ(v, core::kMaskedCell) << "the causal mask stays";
                continue;
            }
            EXPECT_NEAR(v, weight(a, 0, 2, i, j) - weight(b, 0, 2, i, j), 1e-7);
            largest = std::max(largest, std::abs(v));
        }
    EXPECT_GT(largest, 0.0f) << "other weights attend elsewhere";
    EXPECT_FLOAT_EQ(d.maxWeight, largest);
    for (float v : core::headDifferenceMap(a, 1, a, 1, 0).values)
        EXPECT_TRUE(v == 0.0f || v == core::kMaskedCell) << "a trace against itself moves nothing";
    scene.sentences = {"A shorter text ."};
    const core::Trace shorter = core::run(scene);
    EXPECT_NE(thrownMessage([&] {
                  core::headDifferenceMap(a, 0, shorter, 0, 0);
              }).find("the two maps differ in shape"),
              std::string::npos);
    const core::HeatmapFigure f = core::modelDifferenceFigure(a, b, 0, 2, "tiny-f32", "tiny-q8");
    EXPECT_EQ(f.values, d.values);
    EXPECT_EQ(f.valueMax, core::differenceExtent(d.maxWeight));
    EXPECT_EQ(f.valueMin, -f.valueMax) << "white is no difference";
    EXPECT_NE(f.title.find("tiny-f32 \xE2\x88\x92 tiny-q8"), std::string::npos) << f.title;
}

TEST(HeadStatistics, EntropyAndArgmaxMatchTheWeights) {
    const core::Trace t = demoTrace(core::MaskKind::Causal);
    for (int h = 0; h < t.attention.heads; ++h) {
        const core::HeadStatistics stats = core::headStatistics(t, 0, h);
        ASSERT_EQ(int(stats.rows.size()), t.queryLen());
        double sum = 0;
        for (int i = 0; i < t.queryLen(); ++i) {
            double entropy = 0;
            int argmax = 0;
            for (int j = 0; j <= i; ++j) {
                const double p = weight(t, 0, h, i, j);
                entropy -= p > 0 ? p * std::log2(p) : 0;
                if (weight(t, 0, h, i, j) > weight(t, 0, h, i, argmax)) argmax = j;
            }
            EXPECT_NEAR(stats.rows[std::size_t(i)].entropyBits, entropy, 1e-5);
            EXPECT_EQ(stats.rows[std::size_t(i)].argmaxKey, argmax);
            EXPECT_FLOAT_EQ(stats.rows[std::size_t(i)].maxWeight, weight(t, 0, h, i, argmax));
            sum += entropy;
        }
        EXPECT_NEAR(stats.meanEntropyBits, sum / t.queryLen(), 1e-5);
        EXPECT_NEAR(stats.maxEntropyBits, std::log2(double(t.queryLen())), 1e-9);
        // The first query sees one key: entropy 0 and its maximum on itself.
        EXPECT_NEAR(stats.rows[0].entropyBits, 0.0, 1e-9);
        EXPECT_EQ(stats.rows[0].argmaxKey, 0);
    }
}

TEST(HeadStatistics, DesignedHeadsFindTheirOffsets) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat because it was tired ."};
    scene.weights = core::WeightsKind::Designed;
    const core::Trace t = core::run(scene);
    for (int h = 0; h < t.attention.heads; ++h) {
        const core::HeadStatistics stats = core::headStatistics(t, 0, h);
        if (t.headNames[std::size_t(h)] == "previous-token") {
            EXPECT_EQ(stats.typicalOffset, -1);
            EXPECT_GE(stats.typicalShare, 0.8);
        }
        if (t.headNames[std::size_t(h)] == "self") {
            EXPECT_EQ(stats.typicalOffset, 0);
            EXPECT_GE(stats.typicalShare, 0.9);
        }
        if (t.headNames[std::size_t(h)] == "first-token") { // a fixed key, not an offset
            EXPECT_EQ(stats.typicalKey, 0);
            EXPECT_EQ(core::describeMaximum(stats, core::attentionMap(t, 0, h).keyLabels),
                      "key 1 'The' (100% of rows)");
        }
    }
    EXPECT_EQ(core::describeOffset(-1), "previous token");
    EXPECT_EQ(core::describeOffset(0), "self");
    EXPECT_EQ(core::describeOffset(-3), "3 back");
    EXPECT_EQ(core::describeOffset(2), "2 ahead");
}

TEST(HeadStatistics, AllMaskedRowsHaveNoArgmax) {
    core::Scene scene;
    scene.sentences = {"one two three four", "one"}; // the second is padded
    scene.heads = 2;
    const core::Trace t = core::run(scene);
    const core::HeadStatistics stats = core::headStatistics(t, 1, 0);
    EXPECT_EQ(stats.rows[0].argmaxKey, 0); // "one" sees itself only
    EXPECT_NEAR(stats.meanEntropyBits, 0.0, 1e-9);
    for (const auto& row : stats.rows) EXPECT_FALSE(std::isnan(row.entropyBits));
}

TEST(EntropyMap, OneRowPerHeadFromItsStatistics) {
    const core::Trace t = demoTrace(core::MaskKind::Causal, 4);
    const core::EntropyMap e = core::entropyMap(t, 0);
    ASSERT_EQ(e.map.rows, 4);
    ASSERT_EQ(e.map.cols, t.queryLen());
    ASSERT_EQ(e.heads.size(), 4u);
    ASSERT_EQ(e.map.values.size(), std::size_t(4 * t.queryLen()));
    EXPECT_EQ(e.map.queryLabels, t.headNames);
    EXPECT_EQ(e.map.keyLabels, core::attentionMap(t, 0, 0).queryLabels);
    float largest = 0;
    for (int h = 0; h < 4; ++h) {
        const core::HeadStatistics stats = core::headStatistics(t, 0, h);
        ASSERT_EQ(e.heads[std::size_t(h)].rows.size(), stats.rows.size());
        for (int i = 0; i < e.map.cols; ++i) {
            EXPECT_EQ(e.heads[std::size_t(h)].rows[std::size_t(i)].argmaxKey,
                      stats.rows[std::size_t(i)].argmaxKey);
            EXPECT_NEAR(e.map.values[std::size_t(h) * e.map.cols + i],
                        stats.rows[std::size_t(i)].entropyBits, 1e-6);
        }
        largest = std::max(largest, float(stats.maxEntropyBits));
    }
    // Causal: the last query sees every key, the first one key (0 bits).
    EXPECT_NEAR(e.map.maxWeight, std::log2(double(t.keyLen())), 1e-6);
    EXPECT_EQ(e.map.maxWeight, largest);
    EXPECT_NEAR(e.map.values[0], 0.0f, 1e-6);
}

TEST(EntropyMap, IsWhatTheEntropyFigureExports) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat .", "A dog ."};
    scene.sources = {"Le chat .", "Un chien a aboye ."};
    scene.heads = 2;
    const core::Trace t = core::run(scene);
    const core::EntropyMap e = core::entropyMap(t, 1);
    EXPECT_EQ(e.map.cols, t.queryLen());
    // The window draws the map, the exporter writes the figure: the same numbers.
    const core::HeatmapFigure f = core::entropyFigure(t, 1);
    EXPECT_EQ(f.values, e.map.values);
    EXPECT_EQ(f.colLabels, e.map.keyLabels);
    EXPECT_EQ(f.valueMax, e.map.maxWeight);
}

TEST(EntropyMap, OneKeyEachIsZeroBitsAndTheFigureKeepsAScale) {
    core::Scene scene;
    scene.sentences = {"Hi"};
    scene.heads = 2;
    const core::Trace t = core::run(scene);
    const core::EntropyMap e = core::entropyMap(t, 0);
    EXPECT_EQ(e.map.maxWeight, 0.0f);
    for (float v : e.map.values) EXPECT_NEAR(v, 0.0f, 1e-9);
    EXPECT_EQ(core::entropyFigure(t, 0).valueMax, 1.0f); // not a 0-wide colour scale
}

TEST(DifferenceFigure, IsSignedAndSymmetricOnADivergingMap) {
    const core::Trace t = demoTrace();
    const core::HeatmapFigure f = core::differenceFigure(t, 0, 0, 1);
    EXPECT_EQ(f.colormap, core::ColormapId::RdBu);
    EXPECT_FLOAT_EQ(f.valueMin, -f.valueMax);
    EXPECT_GE(f.valueMax, core::headDifferenceMap(t, 0, 0, 1).maxWeight);
    EXPECT_FLOAT_EQ(core::colorPosition(f, 0.0f), 0.5f); // white is "no difference"
    EXPECT_FLOAT_EQ(core::tickValue(f, 0), f.valueMin);
    EXPECT_FLOAT_EQ(core::tickValue(f, 2), 0.0f);
    const std::string svg = core::heatmapSvg(f);
    EXPECT_NE(svg.find("red: head 1 attends more"), std::string::npos);
    EXPECT_NE(svg.find(">-"), std::string::npos) << "a negative tick label";
}

TEST(EntropyFigure, OneRowPerHeadOneColumnPerQuery) {
    const core::Trace t = demoTrace(core::MaskKind::None, 8);
    const core::HeatmapFigure f = core::entropyFigure(t, 0);
    EXPECT_EQ(f.rows, 8);
    EXPECT_EQ(f.cols, t.queryLen());
    EXPECT_NEAR(f.valueMax, std::log2(double(t.keyLen())), 1e-6);
    const core::HeadStatistics h3 = core::headStatistics(t, 0, 2);
    for (int i = 0; i < f.cols; ++i)
        EXPECT_NEAR(f.values[std::size_t(2) * f.cols + i], h3.rows[std::size_t(i)].entropyBits,
                    1e-6);
}

TEST(StatisticsCsv, HasAHeaderAndOneLinePerHeadAndQuery) {
    const core::Trace t = demoTrace();
    std::istringstream csv(core::statisticsCsv(t, 0));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "head,head_name,query_index,query,entropy_bits,argmax_key_index,argmax_key,"
                    "max_weight");
    int lines = 0;
    while (std::getline(csv, line)) ++lines;
    EXPECT_EQ(lines, t.attention.heads * t.queryLen());
}

TEST(LineFigure, SvgHasOneLinePerVisibleWeightAndBothColumns) {
    const core::Trace t = demoTrace(core::MaskKind::Causal);
    const core::LineFigure f = core::lineFigure(t, 0, 1);
    int expected = 0;
    for (float w : f.weights) expected += w >= f.minWeight;
    const std::string svg = core::lineSvg(f);
    int lines = 0;
    for (std::size_t at = 0; (at = svg.find("<line ", at)) != std::string::npos; ++at) ++lines;
    EXPECT_EQ(lines, expected);
    EXPECT_NE(svg.find(">tired</text>"), std::string::npos);
    EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST(LineFigure, PngIsDrawnAndScales) {
    const core::Trace t = demoTrace();
    const core::LineFigure f = core::lineFigure(t, 0, 0);
    core::Image one;
    const std::string error = thrownMessage([&] { one = core::linePng(f, 1); });
    ASSERT_TRUE(error.empty()) << error;
    const core::Image two = core::linePng(f, 2);
    EXPECT_EQ(two.width, 2 * one.width);
    EXPECT_EQ(two.height, 2 * one.height);
    // The lines are the figure's colour, blended: some pixels are bluish, not grey.
    int tinted = 0;
    for (std::size_t p = 0; p + 3 < one.rgba.size(); p += 4)
        tinted += one.rgba[p + 2] > one.rgba[p] + 40;
    EXPECT_GT(tinted, 200);
    if (const char* dir = std::getenv("MHA_VIZ_FIGURE_DUMP")) { // to look at them by hand
        core::writePng(std::string(dir) + "/lines.png", one);
        core::writePng(std::string(dir) + "/difference.png",
                       core::heatmapPng(core::differenceFigure(t, 0, 0, 1), 1));
        core::writePng(std::string(dir) + "/mean.png", core::heatmapPng(core::meanFigure(t, 0), 1));
    }
}

TEST(ExportView, WritesOnlyTheChosenViewAndFormats) {
    const core::Trace t = demoTrace();
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("mha-views-" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir);
    core::ExportRequest request;
    request.dir = dir;
    request.what = core::ExportWhat::Difference;
    request.head = 0, request.headB = 2;
    request.formats = {true, false, true, false}; // PNG and CSV
    int calls = 0, lastTotal = 0;
    std::vector<std::string> files;
    const std::string error = thrownMessage([&] {
        files = core::exportView(t, request, [&](int done, int total) {
            EXPECT_EQ(done, ++calls);
            lastTotal = total;
        });
    });
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(lastTotal, core::exportFileCount(t, request));
    EXPECT_NE(files[0].find("mha-viz-difference-head-01-head-03.png"), std::string::npos);
    EXPECT_NE(files[1].find(".csv"), std::string::npos);

    request.what = core::ExportWhat::EachHead;
    request.formats = {false, true, false, true}; // SVG and the trace JSON
    std::vector<std::string> each;
    const std::string eachError = thrownMessage([&] { each = core::exportView(t, request); });
    ASSERT_TRUE(eachError.empty()) << eachError;
    EXPECT_EQ(int(each.size()), t.attention.heads + 1);

    request.formats = {false, false, false, false};
    EXPECT_EQ(thrownMessage([&] { core::exportView(t, request); }),
              "choose at least one format to export");
    std::filesystem::remove_all(dir);
}

} // namespace

// ---- the window's cell colours ----

// The window paints a map's cells with colorCells: the colours must be the figure's, cell for
// cell (sampleColormap at colorPosition), with masked cells transparent for the hatching.
TEST(ColorCells, AreTheFiguresColoursAndMaskedCellsAreTransparent) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> values = {
        0.0f,          1.0f, 0.5f, 0.25f,    -0.3f,    1.7f,    0.123f, 0.999f, core::kMaskedCell,
        std::nanf(""), inf,  -inf, 0.00196f, 0.00197f, 0.5019f, 0.502f};
    for (core::ColormapId id : {core::ColormapId::Viridis, core::ColormapId::RdBu})
        for (const auto& [lo, hi] :
             {std::pair{0.0f, 1.0f}, std::pair{-1.0f, 1.0f}, std::pair{0.0f, 0.37f},
              std::pair{0.5f, 0.5f}, std::pair{0.0f, inf}}) {
            core::HeatmapFigure f;
            f.colormap = id, f.valueMin = lo, f.valueMax = hi;
            std::vector<std::uint8_t> rgba(values.size() * 4);
            core::colorCells(values.data(), values.size(), id, lo, hi, rgba.data());
            for (std::size_t k = 0; k < values.size(); ++k) {
                const std::uint8_t* px = &rgba[k * 4];
                if (values[k] == core::kMaskedCell) { // transparent black
                    EXPECT_EQ(px[0] | px[1] | px[2] | px[3], 0) << "masked cell " << k;
                    continue;
                }
                const core::Rgb want = core::sampleColormap(id, core::colorPosition(f, values[k]));
                EXPECT_EQ(px[0], want.r) << "cell " << k << " in [" << lo << ", " << hi << "]";
                EXPECT_EQ(px[1], want.g) << "cell " << k;
                EXPECT_EQ(px[2], want.b) << "cell " << k;
                EXPECT_EQ(px[3], 255) << "cell " << k;
            }
        }
}

// A head's whole map, longer than one block of the colouring loop, with a causal mask.
TEST(ColorCells, ColourAWholeCausalMapLikeItsFigure) {
    core::Scene scene;
    std::string sentence; // 300 tokens: 90,000 cells, many of the colouring's 256-cell blocks
    for (int i = 0; i < 300; ++i) // appended piece by piece: GCC 12 warns on "w" + string
        sentence.append("w").append(std::to_string(i % 37)).append(" ");
    scene.sentences = {sentence};
    scene.mask = core::MaskKind::Causal;
    const core::Trace t = core::run(scene);
    const core::AttentionMap map = core::attentionMap(t, 0, 1);
    std::vector<std::uint8_t> rgba(map.values.size() * 4);
    core::colorCells(map.values.data(), map.values.size(), core::ColormapId::Magma, 0.0f,
                     map.maxWeight, rgba.data());
    core::HeatmapFigure f;
    f.colormap = core::ColormapId::Magma, f.valueMin = 0.0f, f.valueMax = map.maxWeight;
    int masked = 0, mismatched = 0;
    for (std::size_t k = 0; k < map.values.size(); ++k) {
        if (map.values[k] == core::kMaskedCell) {
            masked += rgba[k * 4 + 3] == 0;
            continue;
        }
        const core::Rgb want =
            core::sampleColormap(f.colormap, core::colorPosition(f, map.values[k]));
        mismatched += rgba[k * 4] != want.r || rgba[k * 4 + 1] != want.g ||
                      rgba[k * 4 + 2] != want.b || rgba[k * 4 + 3] != 255;
    }
    EXPECT_EQ(mismatched, 0);
    EXPECT_EQ(masked, map.rows * (map.rows - 1) / 2); // the causal upper triangle
}

namespace {

// One entropy for the whole app: the Stats tab's bits are the engine's nats (the pitfalls'
// mean row entropy) converted, and its ceiling the uniform row's.
TEST(HeadStatistics, EntropyIsTheEnginesInBits) {
    const core::Trace t = demoTrace(core::MaskKind::Causal);
    const core::HeadStatistics stats = core::headStatistics(t, 0, 2);
    for (int i = 0; i < t.queryLen(); ++i)
        EXPECT_EQ(stats.rows[std::size_t(i)].entropyBits,
                  core::natsToBits(core::rowEntropy(t.attention, 0, 2, i)));
    EXPECT_DOUBLE_EQ(stats.maxEntropyBits, core::natsToBits(core::uniformEntropy(t.queryLen())));
    EXPECT_DOUBLE_EQ(core::natsToBits(core::uniformEntropy(8)), 3.0);
    EXPECT_EQ(core::uniformEntropy(0), 0.0);
}

} // namespace
