// `mha-viz --model DIR|NAME` with a Hugging Face GPT-2 checkpoint, as users meet it: the v2
// trace (model, exact ids, predictions, every layer) matching PyTorch's numbers on the fixtures
// of make_gpt2_fixtures.py, the cache lookup by name, the benchmark, and one line with exit 2
// for every bad input.
#include "build_facts.h"
#include "cli_fixtures.h"
#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::ProcessResult;
using testing_support::runMhaViz;
using testing_support::traceOf;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(build_facts::fixtureDir()) / "gpt2";

// A scratch copy of a fixture folder, to break.
fs::path copyOf(const std::string& variant, const std::string& name) {
    return testing_support::scratchCopy(kFixtures / variant, "real-" + name);
}

} // namespace

TEST(CliRealModel, JsonIsAV2TraceOfTheModelWithItsIdsAndPredictions) {
    const json j = traceOf({"--model", (kFixtures / "f32").string(), "--sentence",
                            "The cat sat on the mat", "--top-k", "3", "--json", "-"});
    EXPECT_EQ(j["format"], "mha-trace");
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["model"]["family"], "gpt2");
    EXPECT_EQ(j["model"]["layers"], 2);
    EXPECT_EQ(j["model"]["heads"], 4);
    EXPECT_EQ(j["model"]["d_model"], 32);
    EXPECT_EQ(j["model"]["vocab_size"], 283);
    EXPECT_EQ(j["model"]["n_positions"], 64);
    EXPECT_EQ(j["model"]["dtype"], "F32");
    const json& s = j["sentences"][0];
    // The fixture's merges make "The" and " cat" whole tokens; " the" is a space then "the".
    EXPECT_EQ(s["token_ids"], json({279, 263, 266, 268, 32, 257, 271}));
    EXPECT_EQ(s["tokens"][1], "␣cat");
    ASSERT_EQ(s["predictions"].size(), 7u);
    for (const json& p : s["predictions"]) {
        ASSERT_EQ(p["top"].size(), 3u);
        EXPECT_EQ(p["id"], p["top"][0]["id"]);
        EXPECT_GE(p["top"][0]["probability"], p["top"][1]["probability"]);
    }
    EXPECT_FALSE(j.contains("logits"));
    ASSERT_EQ(j["layers"].size(), 2u);
    EXPECT_EQ(j["layers"][0]["config"]["mask"], "causal");
    EXPECT_EQ(j["layers"][1]["attention"][0].size(), 4u);
}

// The ids the fixture reference was computed on, as text: the first case is "The cat sat on"
// + " the mat" in whole-word tokens, which the tokenizer gives only for words it merged whole.
TEST(CliRealModel, AttentionAndLogitsMatchPyTorch) {
    std::ifstream in(kFixtures / "reference.json");
    const json reference = json::parse(in);
    for (const char* variant : {"f32", "f16", "bf16_shards", "untied"}) {
        const json j = traceOf({"--model", (kFixtures / variant).string(), "--sentence",
                                "The cat sat on", "--json-logits", "--json", "-"});
        const json& expected = reference["variants"][variant][0];
        ASSERT_EQ(j["sentences"][0]["token_ids"], json({279, 263, 266, 268}));
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h)
                for (int i = 0; i < 4; ++i)
                    for (int k = 0; k < 4; ++k)
                        EXPECT_NEAR(j["layers"][l]["attention"][0][h][i][k].get<double>(),
                                    expected["attention"][l][h][i][k].get<double>(), 1e-4);
        // The reference's first case is six tokens; a causal model's first four positions are
        // the same on the first four.
        for (int i = 0; i < 4; ++i)
            for (int v = 0; v < 283; v += 7)
                EXPECT_NEAR(j["logits"][0][i][v].get<double>(),
                            expected["logits"][i][v].get<double>(), 1e-4)
                    << variant;
    }
}

TEST(CliRealModel, ANameIsFoundInTheHuggingFaceCache) {
    const fs::path cache = fs::temp_directory_path() / "mha-viz-cli-real-cache";
    fs::remove_all(cache);
    const fs::path repo = cache / "models--openai-community--gpt2";
    fs::create_directories(repo / "refs");
    std::ofstream(repo / "refs" / "main") << "abc123\n";
    fs::create_directories(repo / "snapshots");
    fs::copy(kFixtures / "f32", repo / "snapshots" / "abc123");
    ::setenv("HF_HUB_CACHE", cache.c_str(), 1);
    const json j = traceOf({"--model", "gpt2", "--sentence", "The cat", "--json", "-"});
    ::unsetenv("HF_HUB_CACHE");
    EXPECT_EQ(j["model"]["source"], "gpt2");
    EXPECT_EQ(j["sentences"][0]["token_ids"], json({279, 263}));
    fs::remove_all(cache);
}

TEST(CliRealModel, BenchForwardPrintsLoadAndForwardTimes) {
    const ProcessResult r =
        runMhaViz({"--model", (kFixtures / "f16").string(), "--bench-forward", "40"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("load: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("forward: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("40 tokens"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
}

TEST(CliRealModel, TextLongerThanTheContextIsCutWithAWarning) {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "The cat ";
    const ProcessResult r =
        runMhaViz({"--model", (kFixtures / "f32").string(), "--sentence", text, "--json", "-"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("kept the first 64"), std::string::npos) << r.err;
    EXPECT_EQ(json::parse(r.out)["sentences"][0]["token_ids"].size(), 64u);
}

TEST(CliRealModel, BadInputIsOneLineAndExit2) {
    const std::string f32 = (kFixtures / "f32").string();
    expectBadInput({"--model", f32, "--sentence", "bad \xff byte", "--json", "-"},
                   "not valid UTF-8");
    expectBadInput({"--model", f32, "--heads", "2", "--json", "-"}, "--heads");
    expectBadInput({"--model", f32, "--step", "3", "--json", "-"}, "--step");
    expectBadInput({"--model", f32, "--layer", "3", "--json", "-"}, "the model has 2 layers");
    expectBadInput({"--top-k", "3", "--json", "-"}, "--top-k needs --model");
    expectBadInput({"--model", "no-such-model-anywhere", "--json", "-"}, "downloads nothing");

    const fs::path truncated = copyOf("f32", "truncated");
    fs::resize_file(truncated / "model.safetensors", 4000);
    expectBadInput({"--model", truncated.string(), "--json", "-"}, "model.safetensors");

    const fs::path wrongShape = copyOf("f32", "shape");
    std::ifstream configIn(wrongShape / "config.json");
    json config = json::parse(configIn);
    config["n_embd"] = 48;
    std::ofstream(wrongShape / "config.json") << config.dump();
    expectBadInput({"--model", wrongShape.string(), "--json", "-"}, "config.json implies");

    const fs::path binOnly = copyOf("f32", "bin");
    fs::rename(binOnly / "model.safetensors", binOnly / "pytorch_model.bin");
    expectBadInput({"--model", binOnly.string(), "--json", "-"}, "model.safetensors");

    const fs::path noMerges = copyOf("f32", "merges");
    std::ofstream(noMerges / "merges.txt") << "#version: 0.2\nnot-a-pair\n";
    expectBadInput({"--model", noMerges.string(), "--json", "-"}, "merges.txt");
    for (const fs::path& dir : {truncated, wrongShape, binOnly, noMerges}) fs::remove_all(dir);
}

TEST(CliRealModel, NonFiniteWeightsAreNamedWithTheirCount) {
    const fs::path dir = copyOf("f32", "nan");
    // Overwrite the first 3 floats of the last tensor's data with NaN (the data ends the file).
    const auto size = fs::file_size(dir / "model.safetensors");
    std::fstream f(dir / "model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(size - 12));
    const float nan = std::nanf("");
    for (int i = 0; i < 3; ++i) f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
    f.close();
    const ProcessResult r =
        runMhaViz({"--model", dir.string(), "--sentence", "The", "--json", "-"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("3 non-finite values"), std::string::npos) << r.err;
    EXPECT_NE(json::parse(r.out)["warnings"].dump().find("non-finite"), std::string::npos);
    fs::remove_all(dir);
}

namespace {

bool isPng(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    char header[8] = {};
    in.read(header, sizeof header);
    return in && std::string(header, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

std::string readText(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every file under `dir`, relative, sorted.
std::vector<std::string> filesUnder(const fs::path& dir) {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), dir).string());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

// 2 layers x (4 heads x 3 + grid 2 + mean 3 + statistics 3) + model grid 2 and value-weighted
// 2 + 5 detectors x 2 (the four and the sink on the sentence) + detectors.csv + rollout 3 +
// logit lens + the v2 trace = 60.
TEST(CliRealModel, ExportWritesEveryLayerAndTheModelsViewsWithTheJson) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-real-export";
    fs::remove_all(dir);
    const fs::path json = dir.string() + ".json";
    const ProcessResult r =
        runMhaViz({"--model", (kFixtures / "f32").string(), "--sentence", "The cat sat on the mat",
                   "--export", dir.string(), "--json", json.string(), "--colormap", "magma"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("exporting figures of"), std::string::npos) << r.err;
    // By default the traces are the attention alone: model-trace.json, no layer's v1 trace.
    EXPECT_NE(r.err.find("wrote 60 files to " + dir.string()), std::string::npos) << r.err;
    const std::vector<std::string> files = filesUnder(dir);
    EXPECT_EQ(files.size(), 60u);
    for (const char* name :
         {"layer-01/mha-viz-f32-L1-H1.png", "layer-01/mha-viz-f32-L1-H4.csv",
          "layer-02/mha-viz-f32-L2-grid.png", "layer-02/mha-viz-f32-L2-mean.svg",
          "layer-02/mha-viz-f32-L2-statistics.csv", "model-grid.png", "model-grid.svg",
          "model-grid-value-weighted.png", "model-grid-value-weighted.svg",
          "detectors-previous_token.png", "detectors-induction.svg",
          "detectors-first_token_on_sentence.png", "detectors.csv", "rollout.png", "rollout.svg",
          "rollout.csv", "logit-lens.csv", "model-trace.json"})
        EXPECT_TRUE(std::count(files.begin(), files.end(), name)) << name;
    for (const std::string& f : files)
        if (f.ends_with(".png")) {
            EXPECT_TRUE(isPng(dir / f)) << f;
        }
    EXPECT_EQ(readText(dir / "detectors.csv").rfind("layer,head,previous_token,", 0), 0u);
    EXPECT_EQ(readText(dir / "logit-lens.csv").rfind("layer,rank,token,id,probability\n", 0), 0u);
    EXPECT_FALSE(fs::exists(dir / "layer-01" / "mha-viz-trace.json"));
    const auto trace = nlohmann::json::parse(readText(dir / "model-trace.json"));
    EXPECT_EQ(trace["version"], 2);
    EXPECT_EQ(trace["attention_only"], true);
    EXPECT_EQ(json::parse(readText(json))["model"]["layers"], 2); // --json too
    // Named by its name, not a path; one colour bar for the grid of every head.
    const std::string grid = readText(dir / "model-grid.svg");
    EXPECT_NE(grid.find("real model f32: its own weights"), std::string::npos);
    EXPECT_EQ(grid.find("<linearGradient"), grid.rfind("<linearGradient"));
    fs::remove_all(dir);
    fs::remove(json);
}

TEST(CliRealModel, ASecondExportIntoTheSameFolderOverwritesNothing) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-real-export-twice";
    fs::remove_all(dir);
    const std::vector<std::string> args = {
        "--model", (kFixtures / "f32").string(), "--sentence", "The cat", "--export", dir.string()};
    ASSERT_EQ(runMhaViz(args).exitCode, 0);
    const std::vector<std::string> first = filesUnder(dir);
    const std::string rollout = readText(dir / "rollout.csv");
    const ProcessResult again =
        runMhaViz({"--model", (kFixtures / "f32").string(), "--sentence", "The cat sat on",
                   "--export", dir.string(), "--export-caption", "off", "--export-scale", "2"});
    ASSERT_EQ(again.exitCode, 0) << again.err;
    const std::vector<std::string> both = filesUnder(dir);
    EXPECT_EQ(both.size(), 2 * first.size());
    EXPECT_EQ(readText(dir / "rollout.csv"), rollout); // the first export's, untouched
    EXPECT_TRUE(fs::exists(dir / "rollout-2.csv"));
    EXPECT_TRUE(fs::exists(dir / "layer-01-2" / "mha-viz-f32-L1-H1.png"));
    EXPECT_TRUE(fs::exists(dir / "model-trace-2.json"));
    fs::remove_all(dir);
}

std::uintmax_t bytesUnder(const fs::path& dir) {
    std::uintmax_t bytes = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) bytes += entry.file_size();
    return bytes;
}

TEST(CliRealModel, ExportTracesChoosesFiguresOnlyAttentionOrFullTraces) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-real-export-traces";
    fs::remove_all(dir);
    std::map<std::string, std::uintmax_t> bytes;
    for (const char* traces : {"none", "attention", "full"}) {
        const ProcessResult r =
            runMhaViz({"--model", (kFixtures / "f32").string(), "--sentence", "The cat sat",
                       "--export", (dir / traces).string(), "--export-traces", traces});
        ASSERT_EQ(r.exitCode, 0) << r.err;
        bytes[traces] = bytesUnder(dir / traces);
    }
    EXPECT_FALSE(fs::exists(dir / "none" / "model-trace.json"));
    EXPECT_TRUE(fs::exists(dir / "attention" / "model-trace.json"));
    EXPECT_FALSE(fs::exists(dir / "attention" / "layer-02" / "mha-viz-trace.json"));
    EXPECT_TRUE(fs::exists(dir / "full" / "layer-02" / "mha-viz-trace.json"));
    EXPECT_TRUE(
        json::parse(readText(dir / "full" / "model-trace.json"))["layers"][0].contains("w_q"));
    EXPECT_LT(bytes["none"], bytes["attention"]);
    EXPECT_LT(bytes["attention"], bytes["full"]);
    expectBadInput({"--model", (kFixtures / "f32").string(), "--export", (dir / "x").string(),
                    "--export-traces", "weights"},
                   "--export-traces");
    fs::remove_all(dir);
}

TEST(CliRealModel, JsonAttentionOnlyKeepsTheAttentionAndLeavesOutTheWeights) {
    const std::string f32 = (kFixtures / "f32").string();
    const ProcessResult full =
        runMhaViz({"--model", f32, "--sentence", "The cat sat on the mat", "--json", "-"});
    const ProcessResult only = runMhaViz({"--model", f32, "--sentence", "The cat sat on the mat",
                                          "--json", "-", "--json-attention-only"});
    ASSERT_EQ(only.exitCode, 0) << only.err;
    const json a = json::parse(full.out), b = json::parse(only.out);
    EXPECT_EQ(b["attention_only"], true);
    EXPECT_EQ(b["sentences"], a["sentences"]); // tokens, ids, predictions
    ASSERT_EQ(b["layers"].size(), 2u);
    for (int l = 0; l < 2; ++l) {
        EXPECT_EQ(b["layers"][l]["layer"], l + 1);
        EXPECT_EQ(b["layers"][l]["attention"], a["layers"][l]["attention"]); // the same floats
        EXPECT_FALSE(b["layers"][l].contains("w_q"));
        EXPECT_FALSE(b["layers"][l].contains("x"));
    }
    EXPECT_LT(only.out.size() * 5, full.out.size());
}

TEST(CliRealModel, JsonPrecisionWritesThatManySignificantDigits) {
    const std::string f32 = (kFixtures / "f32").string();
    const ProcessResult exact = runMhaViz({"--model", f32, "--sentence", "The cat", "--json", "-"});
    const ProcessResult three = runMhaViz(
        {"--model", f32, "--sentence", "The cat", "--json", "-", "--json-precision", "3"});
    ASSERT_EQ(three.exitCode, 0) << three.err;
    const json a = json::parse(exact.out), b = json::parse(three.out);
    EXPECT_EQ(b["precision"], 3);
    const json& wq = b["layers"][0]["w_q"];
    for (std::size_t r = 0; r < wq.size(); ++r)
        for (std::size_t c = 0; c < wq[r].size(); ++c) {
            const double v = wq[r][c], reference = a["layers"][0]["w_q"][r][c];
            EXPECT_NEAR(v, reference, std::abs(reference) * 5e-3 + 1e-12) << r << "," << c;
        }
    EXPECT_LT(three.out.size() * 3, exact.out.size() * 2); // a third smaller at least
    expectBadInput({"--model", f32, "--json", "-", "--json-precision", "0"}, "--json-precision");
    expectBadInput({"--model", f32, "--json", "-", "--json-precision", "12"}, "--json-precision");
}

TEST(CliRealModel, ExportToABadFolderIsOneLineAndExit2) {
    const std::string f32 = (kFixtures / "f32").string();
    expectBadInput({"--model", f32, "--export", "/proc/mha-viz-no-such-folder"},
                   "/proc/mha-viz-no-such-folder");
    const fs::path file = fs::temp_directory_path() / "mha-viz-cli-real-export-file";
    std::ofstream(file) << "a file, not a folder\n";
    expectBadInput({"--model", f32, "--export", file.string()}, file.string());
    fs::remove(file);
    expectBadInput({"--model", f32, "--export", "/tmp/x", "--export-scale", "5"}, "5");
}
