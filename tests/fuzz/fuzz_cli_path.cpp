// The whole path of `mha-viz --scene FILE --json - --export DIR`: bytes -> scene JSON ->
// core::run -> every writer (trace JSON, SVG, CSV, PNG, the export folder). Scenes too big
// to run in a few milliseconds are skipped, so the fuzzer explores inputs, not GEMMs.
#include "fuzz_check.h"
#include "fuzz_csv.h"

#include "figures/figure.h"
#include "io/figure_export.h"
#include "io/scene_json.h"
#include "io/trace_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace {

constexpr int kMaxFuzzDModel = 256;
constexpr std::size_t kMaxFuzzTokens = 64; // over all sentences and sources
constexpr double kMaxFuzzCells = 1 << 16;  // B*H*N*M
constexpr int kMaxRasterHeads = 16;        // grid PNG only up to this H
constexpr int kExportEvery = 64;           // exportFigures touches disk: every Nth run
constexpr float kRowSumTolerance = 1e-4f;

std::size_t tokenCount(const std::string& text) {
    const core::Tokenized t = core::tokenize(text);
    return t.tokens.size() + t.droppedTokens;
}

bool smallEnough(const core::Scene& s) {
    if (s.d_model > kMaxFuzzDModel) return false;
    std::size_t total = 0, queryLen = 0, keyLen = 0;
    for (const std::string& text : s.sentences) {
        const std::size_t n = tokenCount(text);
        total += n, queryLen = std::max(queryLen, n);
    }
    for (const std::string& text : s.sources) {
        const std::size_t n = tokenCount(text);
        total += n, keyLen = std::max(keyLen, n);
    }
    if (s.sources.empty()) keyLen = queryLen;
    return total <= kMaxFuzzTokens &&
           double(s.sentences.size()) * s.heads * double(queryLen) * double(keyLen) <=
               kMaxFuzzCells;
}

// Softmax rows: weights in [0, 1], masked keys exactly 0, the row sums to 1, or is all 0
// when every key is masked.
void checkAttention(const core::Trace& t) {
    const core::Attention& a = t.attention;
    const core::Scene& s = t.scene;
    FUZZ_CHECK(a.batch == int(s.sentences.size()) && a.heads == s.heads && a.d_model == s.d_model &&
               a.d_head * a.heads == a.d_model);
    FUZZ_CHECK(a.attention.rows() == Eigen::Index(a.batch) * a.heads * a.queryLen &&
               a.attention.cols() == a.keyLen);
    for (int b = 0; b < a.batch; ++b)
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i) {
                const auto row = a.attention.row(a.headRow(b, h, i)); // 1 x M
                bool allMasked = true;
                float sum = 0;
                for (int j = 0; j < a.keyLen; ++j) {
                    FUZZ_CHECK(std::isfinite(row[j]) && row[j] >= 0 && row[j] <= 1);
                    if (a.masked(b, i, j)) FUZZ_CHECK(row[j] == 0);
                    allMasked = allMasked && a.masked(b, i, j);
                    sum += row[j];
                }
                FUZZ_CHECK(allMasked ? sum == 0 : std::abs(sum - 1) <= kRowSumTolerance);
            }
    FUZZ_CHECK(a.scores.allFinite() && a.headOutputs.allFinite() && a.output.allFinite());
}

void checkTraceJson(const core::Trace& t) {
    const std::string text = core::traceJson(t);
    FUZZ_CHECK(!text.empty());
    std::ostringstream stream;
    core::writeTraceJson(t, stream);
    FUZZ_CHECK(stream.str() == text);
    FUZZ_CHECK(nlohmann::json::accept(text));
    const nlohmann::json j = nlohmann::json::parse(text);
    FUZZ_CHECK(j.at("format") == "mha-trace" && j.at("version") == core::kTraceJsonVersion);
    FUZZ_CHECK(j.at("config").at("d_model") == t.scene.d_model &&
               j.at("config").at("heads") == t.scene.heads);
    const core::Attention& a = t.attention;
    FUZZ_CHECK(j.at("sentences").size() == std::size_t(a.batch));
    for (int b = 0; b < a.batch; ++b) {
        const auto& tokens = j.at("sentences")[std::size_t(b)].at("tokens");
        const auto& expected = t.sentences[std::size_t(b)].tokens;
        FUZZ_CHECK(tokens.size() == expected.size());
        for (std::size_t k = 0; k < expected.size(); ++k)
            FUZZ_CHECK(tokens[k] == expected[k].text); // escaping reads back
    }
    const auto& attention = j.at("attention"); // [B][H][N][M]
    FUZZ_CHECK(attention.size() == std::size_t(a.batch));
    for (const auto& perHead : attention) {
        FUZZ_CHECK(perHead.size() == std::size_t(a.heads));
        for (const auto& matrix : perHead) {
            FUZZ_CHECK(matrix.size() == std::size_t(a.queryLen));
            for (const auto& row : matrix) {
                FUZZ_CHECK(row.size() == std::size_t(a.keyLen));
                double sum = 0;
                for (const auto& v : row) {
                    FUZZ_CHECK(v.is_number()); // NaN would have been written as null
                    sum += v.get<double>();
                }
                FUZZ_CHECK(sum == 0 || std::abs(sum - 1) <= kRowSumTolerance);
            }
        }
    }
}

void checkCsv(const core::HeatmapFigure& f) {
    std::vector<fuzz::CsvRecord> records;
    FUZZ_CHECK(fuzz::readCsv(core::heatmapCsv(f), records));
    FUZZ_CHECK(records.size() == std::size_t(f.rows) + 1);
    FUZZ_CHECK(records[0].size() == std::size_t(f.cols) + 1 && records[0][0] == "query");
    for (int j = 0; j < f.cols; ++j)
        FUZZ_CHECK(records[0][std::size_t(j) + 1] == f.colLabels[std::size_t(j)]);
    for (int i = 0; i < f.rows; ++i) {
        const fuzz::CsvRecord& r = records[std::size_t(i) + 1];
        FUZZ_CHECK(r.size() == std::size_t(f.cols) + 1 && r[0] == f.rowLabels[std::size_t(i)]);
        double sum = 0;
        for (int j = 0; j < f.cols; ++j) {
            const std::string& cell = r[std::size_t(j) + 1];
            char* end = nullptr;
            const double v = std::strtod(cell.c_str(), &end);
            FUZZ_CHECK(!cell.empty() && end == cell.c_str() + cell.size() && std::isfinite(v));
            sum += v;
        }
        FUZZ_CHECK(sum == 0 || std::abs(sum - 1) <= kRowSumTolerance);
    }
}

void checkImage(const core::Image& image) {
    FUZZ_CHECK(image.width > 0 && image.height > 0 &&
               image.rgba.size() == std::size_t(image.width) * std::size_t(image.height) * 4);
    FUZZ_CHECK(!core::encodePng(image).empty());
}

bool isSvg(const std::string& svg) {
    return svg.find("<svg") != std::string::npos && svg.find("</svg>") != std::string::npos;
}

void checkFigures(const core::Trace& t, bool haveFont) {
    const core::Attention& a = t.attention;
    for (int b = 0; b < a.batch; ++b) {
        for (int h = 0; h < a.heads; ++h) {
            const core::HeatmapFigure f = core::headFigure(t, b, h);
            FUZZ_CHECK(f.rows == a.queryLen && f.cols == a.keyLen &&
                       f.values.size() == std::size_t(f.rows) * std::size_t(f.cols) &&
                       f.rowLabels.size() == std::size_t(f.rows) &&
                       f.colLabels.size() == std::size_t(f.cols));
            FUZZ_CHECK(isSvg(core::heatmapSvg(f)));
            checkCsv(f);
        }
        const core::GridFigure grid = core::gridFigure(t, b);
        FUZZ_CHECK(grid.panels.size() == std::size_t(a.heads));
        FUZZ_CHECK(isSvg(core::gridSvg(grid)));
        if (b > 0 || !haveFont) continue; // rasterising is the slow part: first sentence only
        try {
            checkImage(core::heatmapPng(core::headFigure(t, 0, a.heads - 1), 1));
            if (a.heads <= kMaxRasterHeads) checkImage(core::gridPng(grid, 1));
        } catch (const std::runtime_error&) { // the font vanished: nothing to check
        }
    }
}

// One folder for the whole run, emptied after every export and removed at exit. The name is
// never destroyed: the atexit handler, registered first, runs after static destructors.
const std::string& exportDir() {
    static const std::string& dir = *[] {
        auto* pattern =
            new std::string((std::filesystem::temp_directory_path() / "mha-fuzz-XXXXXX").string());
        FUZZ_CHECK(mkdtemp(pattern->data()) != nullptr);
        std::atexit([] { std::filesystem::remove_all(exportDir()); });
        return pattern;
    }();
    return dir;
}

void checkExport(const core::Trace& t) {
    std::vector<std::string> files;
    try {
        files = core::exportFigures(t, exportDir(), 1);
    } catch (const core::ExportError&) {
        FUZZ_CHECK(false);
    }
    FUZZ_CHECK(!files.empty());
    for (const std::string& path : files) FUZZ_CHECK(std::filesystem::file_size(path) > 0);
    for (const auto& entry : std::filesystem::directory_iterator(exportDir()))
        std::filesystem::remove_all(entry.path());
}

// run(changed, &previous) may reuse the previous weights: it must give what a fresh run gives.
void checkRecompute(const core::Trace& previous) {
    core::Scene changed = previous.scene;
    changed.mask =
        changed.mask == core::MaskKind::None ? core::MaskKind::Causal : core::MaskKind::None;
    const core::Trace reused = core::run(changed, &previous);
    const core::Trace fresh = core::run(changed);
    FUZZ_CHECK(reused.attention.attention == fresh.attention.attention);
    FUZZ_CHECK(reused.attention.output == fresh.attention.output);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    core::Scene scene;
    try {
        scene = core::sceneFromJson(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const std::invalid_argument&) {
        return 0; // fuzz_scene_json covers rejected scenes
    }
    if (!smallEnough(scene)) return -1; // keep it out of the corpus
    core::Trace trace;
    try {
        trace = core::run(scene);
    } catch (const std::invalid_argument&) {
        return 0; // documented: e.g. a sentence of nothing but zero-width characters
    }
    checkAttention(trace);
    checkTraceJson(trace);
    static const bool haveFont = !core::findFigureFont().empty();
    checkFigures(trace, haveFont);
    static int runs = 0;
    if (haveFont && ++runs % kExportEvery == 0) checkExport(trace);
    checkRecompute(trace);
    return 0;
}
