// `mha-viz --model DIR [--step S] [--sentence TEXT]... --json FILE|-` as users meet it: the v2
// trace of every layer, and one line with exit 2 for every bad input.
#include "process_runner.h"
#include "tiny_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::ProcessResult;
using testing_support::runMhaViz;

namespace {

class CliModel : public testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = testing_support::freshRunDir("cli");
        testing_support::writeTinyRun(dir_, testing_support::tinyRunSettings());
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
    static std::string dir_;
};
std::string CliModel::dir_;

} // namespace

TEST_F(CliModel, JsonIsAV2TraceWithEveryLayer) {
    const ProcessResult r = runMhaViz({"--model", dir_, "--json", "-"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["format"], "mha-trace");
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["model"]["step"], 6); // the last checkpoint
    EXPECT_EQ(j["model"]["d_model"], 16);
    ASSERT_EQ(j["layers"].size(), 2u);
    // The task's default sentence: a random segment, repeated.
    EXPECT_EQ(j["sentences"][0]["tokens"].size(), 10u);
    for (const json& layer : j["layers"]) {
        EXPECT_EQ(layer["version"], 1);
        EXPECT_EQ(layer["config"]["mask"], "causal");
        EXPECT_EQ(layer["attention"][0].size(), 4u);     // H
        EXPECT_EQ(layer["attention"][0][0].size(), 10u); // N
        EXPECT_EQ(layer["scores"][0][3][9].size(), 10u);
        EXPECT_EQ(layer["attention"][0][0][0][1], 0.0); // causal: exactly 0
    }
}

TEST_F(CliModel, StepSentencesAndUnknownWordsReachTheTrace) {
    const std::string file = dir_ + "-trace.json";
    const ProcessResult r = runMhaViz({"--model", dir_, "--step", "0", "--sentence", "t1 t2 dog t1",
                                       "--sentence", "t4", "--json", file});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const json j = json::parse(testing_support::readFile(file));
    EXPECT_EQ(j["model"]["step"], 0);
    EXPECT_EQ(j["sentences"][0]["unknown"], json({"dog"}));
    EXPECT_EQ(j["sentences"][1]["tokens"], json({"t4"}));
    EXPECT_EQ(j["layers"][1]["key_padding"][1], json({false, true, true}));
    std::filesystem::remove(file);
}

TEST_F(CliModel, LongSentencesAreCutAtTheModelsSeqWithAWarning) {
    std::string text;
    for (int i = 0; i < 20; ++i) text.append("t").append(std::to_string(i)).append(" ");
    const ProcessResult r = runMhaViz({"--model", dir_, "--sentence", text, "--json", "-"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("kept the first 16 (the model's seq)"), std::string::npos) << r.err;
    EXPECT_EQ(json::parse(r.out)["sentences"][0]["tokens"].size(), 16u);
}

TEST_F(CliModel, BadInputIsOneLineAndExitTwo) {
    expectBadInput({"--model", dir_ + "-none", "--json", "-"}, "no such folder");
    expectBadInput({"--model", "/", "--json", "-"},
                   "not a model folder (no config.json, model.json or .gguf file)");
    expectBadInput({"--model", dir_, "--step", "5", "--json", "-"},
                   "no checkpoint at step 5; it has steps 0, 6");
    expectBadInput({"--model", dir_, "--sentence", "the cat", "--json", "-"},
                   "sentence 1 has no word in the model's vocabulary");
    expectBadInput({"--model", dir_, "--sentence", " ", "--json", "-"}, "sentence 1 is empty");
    expectBadInput({"--step", "3", "--json", "-"}, "--step needs --model");
    expectBadInput({"--layer", "2", "--json", "-"}, "--layer needs --model");
    expectBadInput({"--model", dir_, "--layer", "3", "--json", "-"},
                   "--layer 3: the model has 2 layers");
    expectBadInput({"--model", dir_, "--step", "-1", "--json", "-"}, "--step");
    expectBadInput({"--model", "", "--json", "-"}, "--model needs a model folder");
    for (const char* flag : {"--d-model", "--heads", "--seed"})
        expectBadInput({"--model", dir_, flag, "8", "--json", "-"},
                       std::string(flag) + " does not apply to a model");
    expectBadInput({"--model", dir_, "--weights", "designed", "--json", "-"}, "--weights");
    expectBadInput({"--model", dir_, "--source", "x", "--json", "-"}, "--source");
    expectBadInput({"--model", dir_, "--reshape-bug", "--json", "-"}, "--reshape-bug");
    expectBadInput({"--model", dir_, "--export", "/tmp/x"}, "--export");
}

TEST_F(CliModel, ACorruptCheckpointIsNamed) {
    const std::string copy = dir_ + "-corrupt";
    std::filesystem::copy(dir_, copy);
    std::filesystem::resize_file(copy + "/checkpoint-000006.safetensors", 40);
    expectBadInput({"--model", copy, "--json", "-"}, "checkpoint-000006.safetensors");
    std::filesystem::remove_all(copy);
}

// A diverged run still opens (it is worth seeing), but says which tensor holds what.
TEST_F(CliModel, NaNWeightsInTheCheckpointAreNamedWithTheirCount) {
    const std::string copy = dir_ + "-nan";
    std::filesystem::copy(dir_, copy);
    const std::string file = copy + "/checkpoint-000006.safetensors";
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    unsigned char size[8] = {};
    f.read(reinterpret_cast<char*>(size), 8);
    std::uint64_t header = 0;
    for (int i = 7; i >= 0; --i) header = (header << 8) | size[i];
    f.seekp(std::streamoff(8 + header)); // the data begins with "embed"
    const float nan = std::nanf("");
    for (int i = 0; i < 100; ++i) f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
    f.close();
    const ProcessResult r = runMhaViz({"--model", copy, "--json", "-"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("warning: tensor embed holds 100 non-finite values"), std::string::npos)
        << r.err;
    EXPECT_NE(json::parse(r.out)["warnings"].dump().find("embed holds 100"), std::string::npos);
    std::filesystem::remove_all(copy);
}
