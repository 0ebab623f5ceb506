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

} // namespace
