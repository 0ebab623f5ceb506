// ExportJob: the window's export on a worker thread, whose files are written by several more.
// Its done / total counters, which the progress bar shows, only rise and end at the files
// written.
#include "explorer/export_job.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

TEST(ExportJob, ProgressRisesToTheFilesWritten) {
    namespace fs = std::filesystem;
    core::Scene scene;
    scene.heads = 8;
    auto trace = std::make_shared<const core::Trace>(core::run(scene));
    const fs::path dir =
        fs::temp_directory_path() / ("mha-export-job-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    core::ExportRequest request;
    request.what = core::ExportWhat::EachHead;
    request.scale = 2;
    request.dir = dir.string();
    request.workers = 2;
    app::ExportJob job(trace, request);
    const int total = job.total();
    EXPECT_EQ(total, core::exportFileCount(*trace, request));
    int last = 0;
    while (!job.finished()) { // what the panel reads, every frame
        const int done = job.done();
        EXPECT_GE(done, last);
        EXPECT_LE(done, total);
        EXPECT_EQ(job.total(), total);
        last = done;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(job.result().error, "");
    EXPECT_EQ(int(job.result().files.size()), total);
    EXPECT_EQ(job.done(), total);
    fs::remove_all(dir);
}

// The notice names the files, then their folder, on one line: names that do not fit give way
// to "and N more", never the folder.
TEST(SavedMessage, NamesTheFilesThenTheFolderInOneLineThatFits) {
    const std::vector<std::string> three = {"/tmp/out/head.png", "/tmp/out/head.svg",
                                            "/tmp/out/head.csv"};
    const auto anyLength = [](const std::string&) { return true; };
    EXPECT_EQ(app::savedMessage(three, anyLength),
              "Saved head.png, head.svg, head.csv in /tmp/out/");
    const auto upTo = [](std::size_t n) {
        return [n](const std::string& line) { return line.size() <= n; };
    };
    EXPECT_EQ(app::savedMessage(three, upTo(40)), "Saved head.png and 2 more in /tmp/out/");
    EXPECT_EQ(app::savedMessage(three, upTo(10)), "Saved 3 files in /tmp/out/");
    EXPECT_EQ(app::savedMessage({"/tmp/out/window.png"}, upTo(10)), "Saved 1 file in /tmp/out/");
    EXPECT_EQ(app::savedMessage({"window.png"}, anyLength), "Saved window.png in ./");
    std::vector<std::string> many;
    for (int h = 1; h <= 24; ++h)
        many.push_back("/tmp/out/mha-viz-head-" + std::to_string(h) + ".png");
    const std::string line = app::savedMessage(many, upTo(100));
    EXPECT_LE(line.size(), 100u);
    EXPECT_EQ(line.rfind("Saved mha-viz-head-1.png, mha-viz-head-2.png", 0), 0u) << line;
    EXPECT_TRUE(line.ends_with(" more in /tmp/out/")) << line;
}

} // namespace
