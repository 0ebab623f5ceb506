// app::parseTrainCli in-process: `mha-viz train` flags land in TrainSettings; bad values give
// exit 2 and one line naming the value; nothing is written before the settings are valid.
#include "cli/train_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace train = core::train;

struct Parsed {
    std::optional<app::TrainOptions> options;
    int exitCode = -1;
    std::string out, err;
};

// parseTrainCli on `mha-viz train ARGS`.
Parsed parse(std::vector<std::string> args) {
    args.insert(args.begin(), "train");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    Parsed parsed;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    parsed.options = app::parseTrainCli(int(argv.size()), argv.data(), parsed.exitCode);
    parsed.err = testing::internal::GetCapturedStderr();
    parsed.out = testing::internal::GetCapturedStdout();
    return parsed;
}

std::vector<std::string> withRequired(std::vector<std::string> args) {
    args.insert(args.begin(), {"--task", "induction", "--out", "run"});
    return args;
}

} // namespace

TEST(AppTrainCli, DefaultsAreTheContractsAndEveryFlagLands) {
    const Parsed defaults = parse(withRequired({}));
    ASSERT_TRUE(defaults.options) << defaults.err;
    const train::TrainSettings& d = defaults.options->settings;
    EXPECT_EQ(d.task, train::TaskKind::Induction);
    EXPECT_EQ(defaults.options->outDir, "run");
    EXPECT_EQ(std::vector<int>({d.model.layers, d.model.d_model, d.model.heads, d.model.seq,
                                d.batch, d.steps, d.evalEvery, d.checkpointEvery}),
              std::vector<int>({2, 64, 4, 32, 32, 3000, 100, 0}));
    EXPECT_EQ(d.learningRate, 1e-3);
    EXPECT_EQ(d.optimizer, train::OptimizerKind::Adam);
    EXPECT_EQ(d.seed, 1u);
    EXPECT_FALSE(d.recordBatches);
    EXPECT_FALSE(defaults.options->ablation);

    const Parsed all = parse({"--task",
                              "agreement",
                              "--out",
                              "x/y",
                              "--layers",
                              "1",
                              "--d-model",
                              "48",
                              "--heads",
                              "6",
                              "--seq",
                              "40",
                              "--batch",
                              "8",
                              "--steps",
                              "10",
                              "--lr",
                              "0.5",
                              "--optimizer",
                              "sgd",
                              "--seed",
                              "18446744073709551615",
                              "--eval-every",
                              "3",
                              "--checkpoint-every",
                              "4",
                              "--record-batches",
                              "--ablation"});
    ASSERT_TRUE(all.options) << all.err;
    const train::TrainSettings& s = all.options->settings;
    EXPECT_EQ(s.task, train::TaskKind::Agreement);
    EXPECT_EQ(std::vector<int>({s.model.layers, s.model.d_model, s.model.heads, s.model.seq,
                                s.batch, s.steps, s.evalEvery, s.checkpointEvery}),
              std::vector<int>({1, 48, 6, 40, 8, 10, 3, 4}));
    EXPECT_EQ(s.learningRate, 0.5);
    EXPECT_EQ(s.optimizer, train::OptimizerKind::Sgd);
    EXPECT_EQ(s.seed, 18446744073709551615u);
    EXPECT_TRUE(s.recordBatches);
    EXPECT_TRUE(all.options->ablation);
    EXPECT_EQ(all.err, "");
}

TEST(AppTrainCli, BadValuesExitTwoWithOneLineNamingThem) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--out", "run"}, "--task"},
        {{"--task", "induction"}, "--out"},
        {withRequired({"--task", "copy"}), "copy"},
        {withRequired({"--layers", "0"}), "--layers 0"},
        {withRequired({"--layers", "two"}), "two"},
        {withRequired({"--heads", "5"}), "--heads 5"},
        {withRequired({"--d-model", "0"}), "--d-model 0"},
        {withRequired({"--seq", "2"}), "--seq 2"},
        {withRequired({"--batch", "-4"}), "--batch -4"},
        {withRequired({"--steps", "1e3"}), "1e3"},
        {withRequired({"--lr", "nan"}), "--lr"},
        {withRequired({"--lr", "0"}), "--lr"},
        {withRequired({"--optimizer", "rmsprop"}), "rmsprop"},
        {withRequired({"--seed", "-1"}), "seed -1"},
        {withRequired({"--eval-every", "0"}), "--eval-every 0"},
        {withRequired({"--checkpoint-every", "-2"}), "--checkpoint-every -2"},
        {withRequired({"--sentence", "hello"}), "--sentence"},
    };
    for (const auto& [args, mention] : cases) {
        const Parsed p = parse(args);
        EXPECT_FALSE(p.options) << mention;
        EXPECT_EQ(p.exitCode, 2) << mention;
        EXPECT_NE(p.err.find(mention), std::string::npos) << p.err;
        EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << p.err;
        EXPECT_EQ(p.err.rfind("mha-viz train: error: ", 0), 0u) << p.err;
    }
}

TEST(AppTrainCli, HelpListsEveryFlagAndExitsZero) {
    const Parsed p = parse({"--help"});
    EXPECT_FALSE(p.options);
    EXPECT_EQ(p.exitCode, 0);
    for (const char* flag : {"--task", "--out", "--layers", "--d-model", "--heads", "--seq",
                             "--batch", "--steps", "--lr", "--optimizer", "--seed", "--eval-every",
                             "--checkpoint-every", "--record-batches", "--ablation"})
        EXPECT_NE(p.out.find(flag), std::string::npos) << flag;
}

TEST(AppTrainCli, AStopBeforeTheFirstUpdateLeavesACompleteStepZeroRun) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("mha-train-stop-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    Parsed p = parse({"--task", "previous-token", "--out", dir.string(), "--d-model", "8",
                      "--heads", "2", "--seq", "8", "--batch", "2", "--steps", "50"});
    ASSERT_TRUE(p.options) << p.err;
    const std::atomic<bool> stop{true}; // Ctrl+C already pressed
    std::ostringstream log;
    EXPECT_EQ(app::runTraining(*p.options, stop, log, false), 0);
    EXPECT_NE(log.str().find("stopped at step 0"), std::string::npos) << log.str();
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        files.push_back(entry.path().filename().string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"checkpoint-000000.safetensors", "metrics.csv",
                                               "model.json"}));
    std::ifstream metrics(dir / "metrics.csv");
    std::string header, row, none;
    std::getline(metrics, header);
    std::getline(metrics, row);
    EXPECT_EQ(row.rfind("0,", 0), 0u);
    EXPECT_FALSE(std::getline(metrics, none)); // one row: step 0
    std::filesystem::remove_all(dir);
}
