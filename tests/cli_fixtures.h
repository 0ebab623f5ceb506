// What the command-line tests of the real models share: a run's trace parsed (its exit code
// checked), and a scratch copy of a fixture folder to break.
#pragma once

#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace testing_support {

// mha-viz's standard output as JSON; the run must exit 0.
inline nlohmann::json traceOf(const std::vector<std::string>& args) {
    const ProcessResult r = runMhaViz(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

// A fresh copy of `folder` in the temporary folder, named mha-viz-cli-`name`.
inline std::filesystem::path scratchCopy(const std::filesystem::path& folder,
                                         const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("mha-viz-cli-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::copy(folder, dir);
    return dir;
}

} // namespace testing_support
