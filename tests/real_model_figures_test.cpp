// A real model's figures and export (models/analyses/real_model_figures.h, real_model_export.h) on
// the small random GPT-2 of tests/fixtures/gpt2/f32: shapes and labels, values that are the
// analyses' own numbers, masked cells where the model cannot look, captions that name the model,
// and an export that writes every file, never over an earlier one.
#include "models/analyses/real_model_export.h"
#include "models/analyses/real_model_export_estimate.h"
#include "models/analyses/real_model_figures.h"

#include "build_facts.h"
#include "figures/attention_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace {

using namespace core::models;
namespace fs = std::filesystem;

const std::string kFixture = (fs::path(build_facts::fixtureDir()) / "gpt2" / "f32").string();

const RealModel& fixtureModel() {
    static const std::unique_ptr<RealModel> model = openRealModel(kFixture);
    return *model;
}

const RealTrace& fixtureTrace() {
    static const RealTrace trace = traceRealModel(fixtureModel(), "The cat sat on the mat");
    return trace;
}

float cell(const core::HeatmapFigure& f, int i, int j) {
    return f.values[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
        return line.find(text) != std::string::npos;
    });
}

// Every cell: kMaskedCell above the diagonal (causal), else expected(i, j).
void expectCausalMap(const core::HeatmapFigure& f, const core::Mat& expected) {
    ASSERT_EQ(f.rows, expected.rows());
    ASSERT_EQ(f.cols, expected.cols());
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j) {
            if (j > i)
                EXPECT_EQ(cell(f, i, j), core::kMaskedCell) << i << "," << j;
            else
                EXPECT_FLOAT_EQ(cell(f, i, j), float(expected(i, j))) << i << "," << j;
        }
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(RealModelCaption, NamesTheTextTheModelItsSourceAndSizesNotASeed) {
    const std::vector<std::string> lines = realModelCaption(fixtureModel(), fixtureTrace());
    EXPECT_EQ(lines[0], "\"The cat sat on the mat\"");
    // By its name, never a local path (which a figure's width would cut).
    EXPECT_EQ(lines[1], "real model f32: its own weights");
    EXPECT_FALSE(mentions(lines, build_facts::fixtureDir()));
    EXPECT_TRUE(mentions(lines, "gpt2, 2 layers, 4 heads (d_head 8), d_model 32, F32")) << lines[2];
    EXPECT_FALSE(mentions(lines, "seed"));
    EXPECT_FALSE(mentions(lines, "random"));
    EXPECT_FALSE(mentions(lines, "switched off"));
}

TEST(RealModelCaption, SaysWhichHeadsTheTraceRanWithSwitchedOff) {
    RealTraceOptions options;
    options.ablated = {{1, 3}, {0}};
    const RealTrace ablated = traceRealModel(fixtureModel(), "The cat sat on the mat", options);
    const std::vector<std::string> lines = realModelCaption(fixtureModel(), ablated);
    EXPECT_TRUE(
        mentions(lines, "heads switched off (output zeroed before c_proj): L1H2, L1H4, L2H1"))
        << lines.back();
}

TEST(ModelGridFigure, HasEveryHeadOfEveryLayerTitledLHWithTheHeadsOwnMap) {
    const RealTrace& trace = fixtureTrace();
    const std::vector<std::string> caption = realModelCaption(fixtureModel(), trace);
    const core::GridFigure grid = modelGridFigure(trace, caption);
    ASSERT_EQ(grid.panels.size(), 8u); // 2 layers x 4 heads
    EXPECT_EQ(grid.columns, 4);        // a layer a row
    EXPECT_EQ(grid.captionLines, caption);
    EXPECT_EQ(grid.panels[0].title, "L1-H1");
    EXPECT_EQ(grid.panels[6].title, "L2-H3");
    const core::HeatmapFigure& l2h3 = grid.panels[6];
    EXPECT_EQ(l2h3.rowLabels, core::attentionMap(*trace.layers[1], 0, 2).queryLabels);
    expectCausalMap(l2h3, headAttention(trace.layers[1]->attention, 2));
}

TEST(ModelGridFigure, PutsAtMostTwelveHeadsInARow) {
    // GPT-2 medium's 16 heads: 8 a row, so each layer still starts one.
    RealTrace wide = fixtureTrace();
    auto layer = std::make_shared<core::Trace>(*wide.layers[0]);
    const core::Attention one = layer->attention;
    layer->attention.heads = 16;
    layer->attention.attention.resize(16 * one.queryLen, one.keyLen); // (16*N) x N
    for (int h = 0; h < 16; ++h)
        layer->attention.attention.middleRows(Eigen::Index(h) * one.queryLen, one.queryLen) =
            headAttention(one, h % 4);
    wide.layers = {layer};
    wide.residual.resize(2); // one layer: its stream before and after
    EXPECT_EQ(modelGridFigure(wide, {}).columns, 8);
}

const RealModel& llamaFixture(const std::string& variant) {
    static std::map<std::string, std::unique_ptr<RealModel>> opened;
    std::unique_ptr<RealModel>& model = opened[variant];
    if (!model)
        model = openRealModel((fs::path(build_facts::fixtureDir()) / "llama" / variant).string());
    return *model;
}

TEST(ModelGridFigure, FramesTheQueryHeadsThatShareAKvHead) {
    const RealTrace gqa = traceRealModel(llamaFixture("llama3_gqa_f32"), "When Mary and John went");
    for (const bool weighted : {false, true}) {
        const core::GridFigure grid = modelGridFigure(gqa, {}, core::ColormapId::Viridis, weighted);
        EXPECT_EQ(grid.panelGroups, (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1})); // 2 per K/V head
        EXPECT_EQ(grid.panels[2].title, "L1-H3 \xC2\xB7 kv 2");
        EXPECT_TRUE(mentions(grid.captionLines, "2 query heads per K/V head (GQA)"));
        // One frame per group and layer (a layer a row), every other one tinted.
        const std::string svg = core::gridSvg(grid);
        std::size_t frames = 0;
        for (std::size_t at = 0; (at = svg.find("stroke=\"#969eb6\"", at)) != std::string::npos;
             ++at)
            ++frames;
        EXPECT_EQ(frames, 4u);
        EXPECT_NE(svg.find("fill=\"#eef2fa\" stroke=\"#969eb6\""), std::string::npos);
    }
    const RealTrace mqa =
        traceRealModel(llamaFixture("mistral_mqa_f16"), "When Mary and John went");
    const core::GridFigure one = modelGridFigure(mqa, {});
    EXPECT_EQ(one.panelGroups, std::vector<int>(8, 0)); // every head in the one frame
    EXPECT_EQ(one.panels[2].title, "L1-H3") << "one K/V head: the frame says it";
    EXPECT_TRUE(mentions(one.captionLines, "all 4 query heads share one K/V head (MQA)"));
    const core::GridFigure mha = modelGridFigure(fixtureTrace(), {});
    EXPECT_TRUE(mha.panelGroups.empty()) << "GPT-2: every head its own keys and values";
    EXPECT_EQ(core::gridSvg(mha).find("#969eb6"), std::string::npos);
}

TEST(RealModelCaption, SaysAModernDecodersPositionsScaleAndWindows) {
    const RealModel& mistral = llamaFixture("mistral_mqa_f16");
    const std::vector<std::string> lines =
        realModelCaption(mistral, traceRealModel(mistral, "the cat"));
    EXPECT_TRUE(mentions(lines, "4 query heads, 1 K/V head (MQA), d_head 16")) << lines[2];
    EXPECT_TRUE(mentions(lines, "attention: RoPE theta 10000, RMSNorm, scale 1/sqrt(d_head) = "
                                "1/sqrt(16), window 4 on every layer"))
        << lines.back();
}

TEST(DetectorFigure, IsLayersByHeadsOfTheScoresOnAZeroToOneScale) {
    HeadDetectorScores scores{"induction", core::Mat(2, 3), "the token after an earlier copy"};
    scores.scores << 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.9f; // L x H
    const core::HeatmapFigure f = detectorFigure(scores);
    EXPECT_EQ(f.rows, 2);
    EXPECT_EQ(f.cols, 3);
    EXPECT_EQ(f.rowLabels, (std::vector<std::string>{"L1", "L2"}));
    EXPECT_EQ(f.colLabels, (std::vector<std::string>{"H1", "H2", "H3"}));
    EXPECT_EQ(f.rowAxis, "layer");
    EXPECT_EQ(f.colAxis, "head");
    EXPECT_NE(f.valueLabel.find("induction"), std::string::npos);
    EXPECT_EQ(f.valueMin, 0.0f);
    EXPECT_EQ(f.valueMax, 1.0f);
    EXPECT_FLOAT_EQ(cell(f, 1, 2), 0.9f);
    EXPECT_FLOAT_EQ(cell(f, 0, 1), 0.2f);
    EXPECT_TRUE(mentions(f.captionLines, "earlier copy"));
}

TEST(RolloutFigure, IsAttentionRolloutMaskedAboveTheDiagonal) {
    const RealTrace& trace = fixtureTrace();
    for (int upTo : {1, 2}) {
        const core::HeatmapFigure f = rolloutFigure(trace, upTo);
        EXPECT_EQ(f.title, "attention rollout after layer " + std::to_string(upTo));
        EXPECT_NE(f.valueLabel.find("Abnar & Zuidema 2020"), std::string::npos);
        EXPECT_EQ(f.colLabels, core::attentionMap(*trace.layers[0], 0, 0).keyLabels);
        expectCausalMap(f, attentionRollout(trace.meanAttention, upTo));
    }
    EXPECT_THROW(rolloutFigure(trace, 3), std::invalid_argument);
}

TEST(ValueWeightedFigure, IsTheNormalisedValueWeightedAttentionOfTheHead) {
    const RealTrace& trace = fixtureTrace();
    const core::HeatmapFigure f = valueWeightedFigure(trace, 1, 3);
    EXPECT_EQ(f.title, "L2-H4 value-weighted");
    EXPECT_EQ(f.valueLabel, "\xE2\x80\x96\xCE\xB1 f(x)\xE2\x80\x96, rows normalised");
    expectCausalMap(f, normalizedRows(valueWeightedAttention(*trace.layers[1], 3)));
    EXPECT_THROW(valueWeightedFigure(trace, 2, 0), std::invalid_argument);
    EXPECT_THROW(valueWeightedFigure(trace, 0, 4), std::invalid_argument);
}

TEST(LogitLensCsv, HasARowPerLayerAndRankWithTheLensTokens) {
    const RealTrace& trace = fixtureTrace();
    const int last = int(trace.ids.size()) - 1;
    const std::string csv = logitLensCsv(fixtureModel(), trace, last, 3);
    const auto lens = logitLens(fixtureModel(), trace, last, 3);
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "layer,rank,token,id,probability");
    int rows = 0;
    while (std::getline(in, line)) ++rows;
    EXPECT_EQ(rows, 2 * 3);
    const TokenChoice& top = lens[1][0]; // layer 2, rank 1: the model's own prediction
    EXPECT_EQ(top.id, trace.predictions[std::size_t(last)][0].id);
    EXPECT_NE(csv.find("\n2,1,"), std::string::npos);
    EXPECT_NE(csv.find("," + std::to_string(top.id) + ","), std::string::npos);
}

RealExportOptions exportOptions(ExportTraces traces, bool caption = true) {
    RealExportOptions o;
    o.traces = traces, o.caption = caption;
    return o;
}

std::uintmax_t totalBytes(const std::vector<std::string>& files) {
    std::uintmax_t bytes = 0;
    for (const std::string& f : files) bytes += fs::file_size(f);
    return bytes;
}

TEST(ExportRealModel, WritesEveryLayerAndTheModelsViewsAndNeverOverwrites) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-real-export-unit";
    fs::remove_all(dir);
    const RealModel& model = fixtureModel();
    const RealTrace& trace = fixtureTrace();
    const auto detectors = detectHeadsOnRepeatedTokens(model, 10, 1);
    const RealExportOptions full = exportOptions(ExportTraces::Full);
    int calls = 0, lastDone = 0, lastTotal = 0;
    const auto files =
        exportRealModel(model, trace, detectors, dir.string(), full,
                        [&](int done, int total) { ++calls, lastDone = done, lastTotal = total; });
    EXPECT_EQ(int(files.size()), realModelExportFileCount(trace, detectors, full));
    EXPECT_EQ(calls, int(files.size()));
    EXPECT_EQ(lastDone, lastTotal);
    for (const char* name :
         {"layer-01/mha-viz-f32-L1-H1.png", "layer-02/mha-viz-f32-L2-H4.csv",
          "layer-02/mha-viz-f32-L2-grid.svg", "layer-01/mha-viz-trace.json", "model-grid.png",
          "model-grid.svg", "model-grid-value-weighted.svg", "detectors-induction.png",
          "detectors.csv", "rollout.csv", "rollout.png", "logit-lens.csv", "model-trace.json"})
        EXPECT_TRUE(fs::exists(dir / name)) << name;
    for (const std::string& f : files) EXPECT_TRUE(fs::exists(f)) << f;
    // The layer's figures name the model, never the scene's seed and random weights; the title
    // says model, layer and head (with or without the caption).
    const std::string headSvg = readFile(dir / "layer-02" / "mha-viz-f32-L2-H3.svg");
    EXPECT_NE(headSvg.find("real model f32"), std::string::npos);
    EXPECT_NE(headSvg.find(">f32 \xC2\xB7 L2-H3<"), std::string::npos);
    EXPECT_EQ(headSvg.find("seed"), std::string::npos);
    EXPECT_EQ(readFile(dir / "detectors.csv"), headScoresCsv(detectors));

    const std::string before = readFile(dir / "rollout.csv");
    const auto again = exportRealModel(model, trace, detectors, dir.string(), full);
    EXPECT_EQ(again.size(), files.size());
    for (const std::string& f : again) EXPECT_EQ(std::count(files.begin(), files.end(), f), 0) << f;
    EXPECT_TRUE(fs::exists(dir / "layer-01-2" / "mha-viz-f32-L1-H1.png"));
    EXPECT_TRUE(fs::exists(dir / "rollout-2.csv"));
    EXPECT_EQ(readFile(dir / "rollout.csv"), before);
    fs::remove_all(dir);
}

// The sink on the sentence is of the text: its figure keeps the text's line, which the
// detectors run on their own random sequence leave out.
TEST(ExportRealModel, TheSinkOnTheSentenceIsCaptionedWithTheTextAndInTheCsv) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-real-export-sink";
    fs::remove_all(dir);
    const RealModel& model = llamaFixture("llama3_gqa_f32");
    const RealTrace trace = traceRealModel(model, "When Mary and John went to the store");
    const auto detectors = withSentenceSink(detectModelHeads(trace), trace);
    exportRealModel(model, trace, detectors, dir.string(), exportOptions(ExportTraces::None));
    const std::string sink = readFile(dir / "detectors-first_token_on_sentence.svg");
    EXPECT_NE(sink.find("When Mary and John went to the store"), std::string::npos);
    EXPECT_NE(sink.find(">attention sink (first token) on your sentence<"), std::string::npos);
    const std::string induction = readFile(dir / "detectors-induction.svg");
    EXPECT_EQ(induction.find("When Mary"), std::string::npos);
    EXPECT_NE(induction.find("not on a text"), std::string::npos);
    EXPECT_NE(readFile(dir / "detectors.csv").find(",first_token,first_token_on_sentence\n"),
              std::string::npos);
    EXPECT_NE(readFile(dir / "model-grid.svg").find("stroke=\"#969eb6\""), std::string::npos)
        << "the exported grid frames the groups too";
    fs::remove_all(dir);
}

TEST(ExportRealModel, FiguresOnlyWriteNoTraceAndAttentionOnlyNoWeights) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-real-export-traces";
    fs::remove_all(dir);
    const RealTrace& trace = fixtureTrace();
    const auto figures = exportRealModel(fixtureModel(), trace, {}, (dir / "none").string(),
                                         exportOptions(ExportTraces::None));
    for (const std::string& f : figures) EXPECT_FALSE(f.ends_with(".json")) << f;
    const auto attention = exportRealModel(fixtureModel(), trace, {}, (dir / "attention").string(),
                                           exportOptions(ExportTraces::Attention));
    EXPECT_EQ(attention.size(), figures.size() + 1);
    const std::string json = readFile(dir / "attention" / "model-trace.json");
    EXPECT_NE(json.find("\"attention_only\":true"), std::string::npos);
    EXPECT_NE(json.find("\"attention\":"), std::string::npos);
    EXPECT_EQ(json.find("\"w_q\""), std::string::npos);
    EXPECT_FALSE(fs::exists(dir / "attention" / "layer-01" / "mha-viz-trace.json"));
    fs::remove_all(dir);
}

TEST(ExportRealModel, EstimateCountsTheFilesAndIsCloseToTheirBytes) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-real-export-estimate";
    fs::remove_all(dir);
    const RealModel& model = fixtureModel();
    const RealTrace& trace = fixtureTrace();
    const auto detectors = detectHeadsOnRepeatedTokens(model, 10, 1);
    for (ExportTraces traces : {ExportTraces::None, ExportTraces::Attention, ExportTraces::Full}) {
        RealExportOptions o = exportOptions(traces);
        o.scale = 2;
        const ExportEstimate e = estimateRealModelExport(model, trace, detectors, o);
        const auto files =
            exportRealModel(model, trace, detectors, (dir / core::toString(traces)).string(), o);
        EXPECT_EQ(e.files, int(files.size())) << core::toString(traces);
        const double actual = double(totalBytes(files));
        EXPECT_NEAR(double(e.bytes) / actual, 1.0, 0.25)
            << core::toString(traces) << ": " << e.bytes << " estimated, " << actual << " written";
    }
    EXPECT_EQ(aboutBytes(699'000'000), "about 699 MB");
    EXPECT_EQ(aboutBytes(1'234'567), "about 1.23 MB");
    fs::remove_all(dir);
}

TEST(ExportRealModel, ABadScaleOrFolderIsAnExportError) {
    const auto detectors = std::vector<HeadDetectorScores>{};
    RealExportOptions badScale;
    badScale.scale = 5;
    EXPECT_THROW(exportRealModel(fixtureModel(), fixtureTrace(), detectors, "/tmp/x", badScale),
                 core::ExportError);
    EXPECT_THROW(exportRealModel(fixtureModel(), fixtureTrace(), detectors,
                                 "/proc/mha-viz-no-such-folder", RealExportOptions{}),
                 core::ExportError);
}
