// Runs the real mha-viz binary the way a user's shell would and captures what it says.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "build_facts.h"

namespace testing_support {

struct ProcessResult {
    int exitCode = -1;
    std::string out, err;
};

inline std::string shellQuote(const std::string& arg) {
    std::string quoted = "'";
    for (char c : arg) {
        if (c == '\'')
            quoted.append("'\\''");
        else
            quoted.push_back(c);
    }
    quoted.push_back('\'');
    return quoted;
}

inline std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// DISPLAY is cleared: headless modes must not need one.
inline ProcessResult runMhaViz(const std::vector<std::string>& args) {
    static int counter = 0;
    const auto dir = std::filesystem::temp_directory_path();
    const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const auto outPath = dir / ("mha-cli-out-" + tag), errPath = dir / ("mha-cli-err-" + tag);
    std::string cmd = "env -u DISPLAY -u WAYLAND_DISPLAY " + shellQuote(build_facts::vizExe());
    for (const auto& a : args) {
        cmd.push_back(' ');
        cmd.append(shellQuote(a));
    }
    cmd += " </dev/null >" + shellQuote(outPath) + " 2>" + shellQuote(errPath);
    const int status = std::system(cmd.c_str());
    ProcessResult r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = readFile(outPath);
    r.err = readFile(errPath);
    std::filesystem::remove(outPath);
    std::filesystem::remove(errPath);
    return r;
}

// The binary followed by raw shell text (for redirections such as "> /dev/full").
inline ProcessResult runMhaVizShell(const std::string& shellArgs) {
    const auto errPath = std::filesystem::temp_directory_path() /
                         ("mha-cli-shell-err-" + std::to_string(::getpid()));
    const std::string cmd = "env -u DISPLAY -u WAYLAND_DISPLAY " +
                            shellQuote(build_facts::vizExe()) + " " + shellArgs + " 2>" +
                            shellQuote(errPath) + " </dev/null";
    const int status = std::system(cmd.c_str());
    ProcessResult r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = readFile(errPath);
    std::filesystem::remove(errPath);
    return r;
}

// Bad input as the CLI contract says: exit 2, exactly one line on stderr that starts with
// "mha-viz: error: " and names the bad value, nothing on stdout.
inline void expectBadInput(const std::vector<std::string>& args, const std::string& mustMention) {
    const ProcessResult r = runMhaViz(args);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(mustMention), std::string::npos) << r.err;
    EXPECT_EQ(r.err.rfind("mha-viz: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
}

} // namespace testing_support
