// core::offeredFormats: which formats each view can be written as, the one rule the export
// panel offers and exportView follows.
#include "io/figure_export.h"

#include "engine/trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

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

// exportView writes what was asked of what is offered, and says so in its count.
TEST(OfferedFormats, ExportViewWritesNothingElse) {
    core::Scene scene;
    scene.heads = 2;
    const core::Trace t = core::run(scene);
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("mha-offered-" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir);
    for (ExportWhat what : kEveryView) {
        core::ExportRequest request;
        request.dir = dir + "/" + std::to_string(int(what));
        request.what = what;
        request.formats = {true, true, true, false};
        const core::ExportFormats offered = core::offeredFormats(what);
        std::vector<std::string> files;
        ASSERT_NO_THROW(files = core::exportView(t, request));
        EXPECT_EQ(int(files.size()), core::exportFileCount(t, request));
        int csv = 0;
        for (const std::string& file : files)
            csv += std::filesystem::path(file).extension() == ".csv";
        EXPECT_EQ(csv > 0, offered.csv) << int(what);
    }
    std::filesystem::remove_all(dir);
}

} // namespace
