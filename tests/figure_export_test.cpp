// core::offeredFormats: which formats each view can be written as, the one rule the export
// panel offers and exportView follows. The files written in parallel: the same names, order
// and bytes as one worker writes, progress counted in order, a failure half-way reported; the
// caption left out on request. The Train view's curve export (io/train_exports.h): loss with
// chance line, accuracy, scores.
#include "io/figure_export.h"
#include "io/train_exports.h"

#include "engine/trace.h"
#include "process_runner.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>  // renameat2 (glibc, with _GNU_SOURCE as g++ and clang++ define it)
#include <fcntl.h> // AT_FDCWD
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using core::ExportWhat;

constexpr ExportWhat kEveryView[] = {
    ExportWhat::Head,       ExportWhat::Grid,  ExportWhat::EachHead,  ExportWhat::Mean,
    ExportWhat::Difference, ExportWhat::Lines, ExportWhat::Statistics};

TEST(OfferedFormats, EveryViewAsPngSvgAndJsonCsvButTheGrid) {
    for (ExportWhat what : kEveryView) {
        const core::ExportFormats f = core::offeredFormats(what);
        EXPECT_TRUE(f.png) << int(what);
        EXPECT_TRUE(f.svg) << int(what);
        EXPECT_TRUE(f.json) << int(what);
        EXPECT_EQ(f.csv, what != ExportWhat::Grid) << int(what);
    }
}

// Every view of `t` exported into a folder of its own under a fresh `name` folder, as PNG,
// SVG, CSV and (json) the trace: the files written, view by view, each also counted ahead by
// exportFileCount and none empty.
std::vector<std::vector<std::string>> exportEveryView(const core::Trace& t, const std::string& name,
                                                      bool json) {
    const std::string dir =
        (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir);
    std::vector<std::vector<std::string>> written;
    for (ExportWhat what : kEveryView) {
        core::ExportRequest request;
        request.dir = dir + "/" + std::to_string(int(what));
        request.what = what;
        request.formats = {true, true, true, json};
        std::vector<std::string> files;
        EXPECT_NO_THROW(files = core::exportView(t, request)) << int(what);
        EXPECT_EQ(int(files.size()), core::exportFileCount(t, request)) << int(what);
        for (const std::string& file : files) EXPECT_GT(std::filesystem::file_size(file), 0u);
        written.push_back(files);
    }
    std::filesystem::remove_all(dir);
    return written;
}

// exportView writes what was asked of what is offered, and says so in its count.
TEST(OfferedFormats, ExportViewWritesNothingElse) {
    core::Scene scene;
    scene.heads = 2;
    const auto written = exportEveryView(core::run(scene), "mha-offered", false);
    for (std::size_t k = 0; k < std::size(kEveryView); ++k) {
        int csv = 0;
        for (const std::string& file : written[k])
            csv += std::filesystem::path(file).extension() == ".csv";
        EXPECT_EQ(csv > 0, core::offeredFormats(kEveryView[k]).csv) << k;
    }
}

// Grouped K/V heads and rotary positions change no view's files: each still writes what it
// offers (K and V are narrower; the maps are one per query head as ever).
TEST(OfferedFormats, GroupedAndRotaryScenesExportEveryView) {
    core::Scene scene;
    core::setKvHeads(scene, 2);
    scene.positional = core::PositionalKind::Rotary;
    for (const auto& files : exportEveryView(core::run(scene), "mha-gqa-export", true))
        EXPECT_FALSE(files.empty());
}

// With the caption off every view's figures keep their title and lose the caption (the
// sentence, the settings); the PNGs get shorter, the CSVs stay the same.
TEST(ExportCaption, OffLeavesEveryFigureItsTitleAlone) {
    core::Scene scene;
    scene.heads = 2;
    const core::Trace t = core::run(scene);
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("mha-caption-" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir);
    for (ExportWhat what : kEveryView) {
        std::vector<std::string> on, off;
        core::ExportRequest request;
        request.what = what;
        request.dir = dir + "/on-" + std::to_string(int(what));
        ASSERT_NO_THROW(on = core::exportView(t, request));
        request.caption = false;
        request.dir = dir + "/off-" + std::to_string(int(what));
        ASSERT_NO_THROW(off = core::exportView(t, request));
        ASSERT_EQ(on.size(), off.size());
        for (std::size_t i = 0; i < on.size(); ++i) {
            const std::string with = testing_support::readFile(on[i]);
            const std::string without = testing_support::readFile(off[i]);
            if (on[i].ends_with(".svg")) {
                EXPECT_NE(with.find("d_model 64, H 2"), std::string::npos) << on[i];
                EXPECT_EQ(without.find("d_model 64, H 2"), std::string::npos) << off[i];
                EXPECT_NE(without.find("</text>"), std::string::npos) << "the title stays";
            } else if (on[i].ends_with(".png")) {
                const auto height = [](const std::string& png) { // IHDR, big-endian
                    return (std::uint8_t(png[20]) << 24) | (std::uint8_t(png[21]) << 16) |
                           (std::uint8_t(png[22]) << 8) | std::uint8_t(png[23]);
                };
                EXPECT_LT(height(without), height(with)) << off[i];
            } else {
                EXPECT_EQ(with, without) << off[i]; // numbers, no caption in them
            }
        }
    }
    std::filesystem::remove_all(dir);
}

// Issue 36: a head exported from a model said "head 11" and was mha-viz-head-11.png, whatever
// its layer and model (a second layer's became -2). A model's layer names both.
TEST(ExportNames, AModelsHeadsNameTheModelLayerAndHead) {
    core::Scene scene;
    scene.heads = 4;
    core::Trace t = core::run(scene);
    t.layer = 9; // layer 10, as the window counts
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("mha-names-" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir);
    core::ExportRequest request;
    request.dir = dir, request.head = 2, request.modelName = "openai-community/gpt2";
    const std::vector<std::string> head = core::exportView(t, request);
    ASSERT_EQ(head.size(), 3u);
    EXPECT_EQ(std::filesystem::path(head[1]).filename(), "mha-viz-gpt2-L10-H3.png");
    EXPECT_NE(testing_support::readFile(head[0]).find(">gpt2 \xC2\xB7 L10-H3</text>"),
              std::string::npos);
    request.caption = false; // the title alone still says it
    EXPECT_NE(testing_support::readFile(core::exportView(t, request)[0])
                  .find(">gpt2 \xC2\xB7 L10-H3</text>"),
              std::string::npos);
    t.layer = 10; // another layer's head 3 into the same folder: its own name, no -2
    EXPECT_EQ(std::filesystem::path(core::exportView(t, request)[1]).filename(),
              "mha-viz-gpt2-L11-H3.png");
    request.what = ExportWhat::Grid;
    EXPECT_EQ(std::filesystem::path(core::exportView(t, request)[0]).filename(),
              "mha-viz-gpt2-L11-grid.svg");
    request.what = ExportWhat::Head, request.modelName.clear(); // a scene keeps its names
    EXPECT_EQ(std::filesystem::path(core::exportView(t, request)[1]).filename(),
              "mha-viz-head-03.png");
    std::filesystem::remove_all(dir);
}

namespace fs = std::filesystem;

fs::path tempFolder(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    return dir;
}

// Two sentences (a padded batch), four heads: every kind of file, with per-sentence names.
core::Trace batchTrace() {
    core::Scene scene;
    scene.sentences = {"the cat sat on the mat", "a dog ran"};
    scene.heads = 4;
    return core::run(scene);
}

std::vector<std::string> names(const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    for (const std::string& path : paths) out.push_back(fs::path(path).filename().string());
    return out;
}

TEST(ParallelExport, SameFilesInTheSameOrderAsOneWorker) {
    const core::Trace t = batchTrace();
    const fs::path serial = tempFolder("mha-export-serial");
    std::vector<std::string> serialNames[2]; // per round
    for (int workers : {1, 2, 3}) {
        const fs::path dir = workers == 1 ? serial : tempFolder("mha-export-parallel");
        for (int round = 0; round < 2; ++round) { // the second round's names end in "-2"
            const std::vector<std::string> files =
                core::exportFigures(t, dir.string(), 2, core::ColormapId::Viridis, workers);
            ASSERT_EQ(files.size(), 2 * (4 * 3 + 2 + 3 + 3) + 1u);
            if (workers == 1) serialNames[round] = names(files);
            EXPECT_EQ(names(files), serialNames[round]) << workers << " workers, round " << round;
        }
        EXPECT_EQ(serialNames[1].back(), "mha-viz-trace-2.json");
        if (workers == 1) continue;
        for (const auto& entry : fs::directory_iterator(dir)) // every file byte for byte
            EXPECT_EQ(testing_support::readFile(entry.path()),
                      testing_support::readFile(serial / entry.path().filename()))
                << entry.path().filename() << ", " << workers << " workers";
        EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}),
                  std::distance(fs::directory_iterator(serial), {}));
        fs::remove_all(dir);
    }
    fs::remove_all(serial);
}

TEST(ParallelExport, ProgressCountsOneFileAtATimeInOrder) {
    const core::Trace t = batchTrace();
    const fs::path dir = tempFolder("mha-export-progress");
    core::ExportRequest request;
    request.what = core::ExportWhat::EachHead;
    request.batchIndex = -1;
    request.dir = dir.string();
    request.workers = 4;
    std::vector<int> done;
    int total = 0;
    const std::vector<std::string> files = core::exportView(t, request, [&](int d, int n) {
        done.push_back(d); // unsynchronised on purpose: the calls must not overlap
        total = n;
    });
    ASSERT_EQ(int(files.size()), core::exportFileCount(t, request));
    EXPECT_EQ(total, int(files.size()));
    ASSERT_EQ(done.size(), files.size());
    for (std::size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i], int(i) + 1);
    fs::remove_all(dir);
}

// The folder disappears after the third file (moved away, a file in its place): the export
// stops with one line naming the file it could not write, and the files written stay.
TEST(ParallelExport, ErrorHalfWayKeepsTheFilesWritten) {
    const core::Trace t = batchTrace();
    for (int workers : {1, 2}) {
        const fs::path dir = tempFolder("mha-export-fail"), moved = dir.string() + "-moved";
        fs::remove_all(moved);
        core::ExportRequest request;
        request.what = core::ExportWhat::EachHead;
        request.formats.json = true;
        request.dir = dir.string();
        request.workers = workers;
        std::vector<std::string> written;
        std::string message;
        try {
            core::exportView(t, request, [&](int done, int) {
                if (done != 3) return;
                // The folder and a plain file change places at once (RENAME_EXCHANGE): a second
                // worker writing meanwhile finds the file, never no folder at all.
                std::ofstream(moved) << "not a folder";
                if (renameat2(AT_FDCWD, dir.c_str(), AT_FDCWD, moved.c_str(), RENAME_EXCHANGE) !=
                    0) {
                    fs::remove(moved); // a file system without the exchange: one step after another
                    fs::rename(dir, moved);
                    std::ofstream(dir) << "not a folder";
                }
            });
        } catch (const core::ExportError& e) {
            message = e.what();
            written = e.written;
        }
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        EXPECT_EQ(message.rfind("cannot write '" + dir.string() + "/mha-viz-", 0), 0u) << message;
        EXPECT_NE(message.find("Not a directory"), std::string::npos) << message;
        EXPECT_GE(written.size(), 3u);
        if (workers == 1) {
            EXPECT_EQ(written.size(), 3u);
        }
        EXPECT_LT(written.size(), std::size_t(core::exportFileCount(t, request)));
        for (const std::string& path : written)
            EXPECT_TRUE(fs::is_regular_file(moved / fs::path(path).filename())) << path;
        fs::remove_all(dir);
        fs::remove_all(moved);
    }
}

// The Train view's curve export: the loss with its chance line, the accuracy figure beside it,
// one figure per score, and the CSV; as many files as its progress bar counts.
TEST(TrainExports, CurvesWithAccuracyAndChance) {
    core::train::TrainSettings settings; // induction
    const core::CsvTable metrics = core::parseCsv(
        "step,train_loss,heldout_loss,accuracy,L1H1.previous_token,L1H1.induction\n"
        "0,4.3,4.2,0.02,0.1,0.1\n100,3.2,3.1,0.1,0.3,0.2\n200,1.2,1.1,0.7,0.6,0.7\n");
    const fs::path dir = tempFolder("mha-train-curves");
    std::atomic<int> done = 0;
    const fs::path folder = core::exportCurves(metrics, settings, dir.string(), 1, done);
    EXPECT_EQ(done.load(), core::curveFileCount(settings));
    for (const char* name : {"metrics.csv", "loss.svg", "loss.png", "accuracy.svg", "accuracy.png",
                             "induction.svg", "previous_token.png"})
        EXPECT_TRUE(fs::exists(folder / name)) << name;
    std::ifstream loss(folder / "loss.svg"), accuracy(folder / "accuracy.svg");
    const std::string lossSvg{std::istreambuf_iterator<char>(loss), {}};
    const std::string accuracySvg{std::istreambuf_iterator<char>(accuracy), {}};
    EXPECT_NE(lossSvg.find("chance ln V = 4.16"), std::string::npos); // 64 tokens
    EXPECT_NE(accuracySvg.find(">accuracy</text>"), std::string::npos);
    EXPECT_NE(accuracySvg.find("<polyline"), std::string::npos);
    fs::remove_all(dir);
}

} // namespace
