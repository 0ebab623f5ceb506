// `mha-viz --attention FILE` as users meet it (docs/attention-files.md): the real binary on the
// files PyTorch wrote (tests/make_attention_fixtures.py): --export writes every figure named
// for the file and captioned as saved elsewhere, --json its trace with the file's values, and a
// bad file is one line naming it, exit 2, nothing written.
#include "attention_file_writer.h"
#include "build_facts.h"
#include "cli_fixtures.h"
#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::runMhaViz;
using testing_support::traceOf;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(build_facts::fixtureDir()) / "attention";

} // namespace

TEST(CliAttention, ExportWritesTheFilesFigures) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-attention-export";
    fs::remove_all(dir);
    const auto r = runMhaViz({"--attention", (kFixtures / "f32.safetensors").string(), "--export",
                              dir.string(), "--export-scale", "1"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("wrote "), std::string::npos) << r.err;
    for (const char* name : {"layer-01/mha-viz-f32-L1-H1.png", "layer-03/mha-viz-f32-L3-H4.svg",
                             "layer-02/mha-viz-f32-L2-mean.csv", "model-grid.png", "rollout.png",
                             "detectors.csv", "model-trace.json"})
        EXPECT_TRUE(fs::exists(dir / name)) << name;
    EXPECT_FALSE(fs::exists(dir / "logit-lens.csv")); // needs the model
    EXPECT_FALSE(fs::exists(dir / "model-grid-value-weighted.png"));
    const std::string svg = testing_support::readFile(dir / "model-grid.svg");
    EXPECT_NE(svg.find("attention from f32.safetensors (saved elsewhere)"), std::string::npos);
    const std::string csv = testing_support::readFile(dir / "detectors.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "layer,head,previous_token,self,first_token_on_sentence");
    fs::remove_all(dir);
}

TEST(CliAttention, JsonHoldsTheTokensAndTheMaps) {
    const json j =
        traceOf({"--attention", (kFixtures / "bf16_batch" / "attention.safetensors").string(),
                 "--json", "-"});
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["attention_only"], true);
    EXPECT_EQ(j["attention_file"]["dtype"], "BF16");
    EXPECT_EQ(j["attention_file"]["causal"], true);
    EXPECT_EQ(j["sentences"][0]["tokens"].size(), 8u);
    ASSERT_EQ(j["layers"].size(), 2u);
    EXPECT_EQ(j["layers"][0]["attention"][0].size(), 3u);    // [1][H][N][N]
    EXPECT_EQ(j["layers"][0]["attention"][0][0][0][0], 1.0); // a causal row 0
}

TEST(CliAttention, ABadFileIsOneLineAndExitTwo) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-attention-bad";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = dir / "scores.safetensors";
    testing_support::SavedTensor scores{"layers.0", {1, 2, 2}, {2.5f, -1.0f, 0.3f, 4.0f}};
    testing_support::writeBytes(file, testing_support::safetensorsBytes(
                                          {scores}, testing_support::tokensMetadata({"a", "b"})));
    expectBadInput({"--attention", file.string(), "--export", (dir / "out").string()},
                   file.string() + ": tensor layers.0, head 1, row 1, column 1 holds 2.5");
    EXPECT_FALSE(fs::exists(dir / "out")); // refused before anything is written
    expectBadInput({"--attention", (dir / "none.safetensors").string(), "--json", "-"},
                   "none.safetensors");
    fs::remove_all(dir);
}
