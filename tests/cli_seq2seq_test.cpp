// mha-viz --model on an encoder-decoder (tests/fixtures/seq2seq, made by
// make_seq2seq_fixtures.py): --sentence SOURCE --target TEXT --json writes the source's and the
// target's ids as the fixture's tokenizer gives them, every encoder, decoder self- and
// cross-attention map within 1e-4 of the PyTorch reference, the loss; --generate writes the
// reference's greedy tokens; without --json the lines say the same; --bench-forward prints both
// timings; bad input is one line and exit 2.
#include "build_facts.h"
#include "cli_fixtures.h"
#include "process_runner.h"
#include "seq2seq_reference.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::runMhaViz;
using testing_support::traceOf;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = testing_support::seq2seqFixtures();

const json& reference() {
    return testing_support::seq2seqReference();
}

// The largest |ours - reference| of [1][H][N][M] against [H][N][M].
double worst(const json& ours, const json& expected) {
    double w = 0;
    for (std::size_t h = 0; h < expected.size(); ++h)
        for (std::size_t i = 0; i < expected[h].size(); ++i)
            for (std::size_t j = 0; j < expected[h][i].size(); ++j)
                w = std::max(
                    w, std::abs(ours[0][h][i][j].get<double>() - expected[h][i][j].get<double>()));
    return w;
}

void expectMaps(const json& trace, const json& c, const std::string& what) {
    ASSERT_EQ(trace["encoder"].size(), c["encoder_attention"].size()) << what;
    for (std::size_t l = 0; l < trace["encoder"].size(); ++l)
        EXPECT_LT(worst(trace["encoder"][l]["attention"], c["encoder_attention"][l]), 1e-4)
            << what << " encoder layer " << l;
    ASSERT_EQ(trace["decoder"].size(), c["decoder_self_attention"].size()) << what;
    for (std::size_t l = 0; l < trace["decoder"].size(); ++l) {
        EXPECT_LT(worst(trace["decoder"][l]["self_attention"], c["decoder_self_attention"][l]),
                  1e-4)
            << what << " decoder layer " << l;
        EXPECT_LT(worst(trace["decoder"][l]["cross_attention"], c["cross_attention"][l]), 1e-4)
            << what << " cross layer " << l;
    }
}

TEST(CliSeq2Seq, TeacherForcedTraceIsTheReferences) {
    for (const char* name : {"bart", "t5_relu", "flan_t5_gated", "mt5", "marian"}) {
        const json& c = reference()["fixtures"][name]["cases"][0];
        const json trace = traceOf({"--model", (kDir / name).string(), "--sentence",
                                    c["source_text"], "--target", c["target_text"], "--json", "-"});
        EXPECT_EQ(trace["version"], 2);
        EXPECT_EQ(trace["model"]["family"], reference()["fixtures"][name]["model_type"]);
        const json& s = trace["sentences"][0];
        EXPECT_EQ(s["token_ids"], c["source_ids"]) << name;
        EXPECT_EQ(s["target"]["labels"], c["labels"]) << name;
        EXPECT_EQ(s["target"]["token_ids"], c["decoder_input_ids"]) << "the start token first";
        EXPECT_NEAR(s["target"]["loss"].get<double>(), c["loss"].get<double>(), 1e-4) << name;
        ASSERT_EQ(s["target"]["predictions"].size(), c["labels"].size());
        for (std::size_t i = 0; i < c["labels"].size(); ++i)
            EXPECT_EQ(s["target"]["predictions"][i]["id"], c["top5_ids"][i][0]) << name << " " << i;
        expectMaps(trace, c, name);
    }
}

TEST(CliSeq2Seq, GenerateWritesTheReferencesGreedyTokens) {
    const json& c = reference()["fixtures"]["bart"]["cases"][0];
    const json trace = traceOf({"--model", (kDir / "bart").string(), "--sentence", c["source_text"],
                                "--generate", "8", "--json", "-"});
    const json& target = trace["sentences"][0]["target"];
    EXPECT_TRUE(target["generated"].get<bool>());
    EXPECT_EQ(target["labels"], c["generation"]["ids"]) << "stops after </s>";
    const fs::path json = fs::temp_directory_path() / "mha-viz-cli-seq2seq-generate.json";
    const auto r = runMhaViz({"--model", (kDir / "bart").string(), "--sentence", c["source_text"],
                              "--json", json.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("generated: 3 tokens"), std::string::npos) << r.out;
    fs::remove(json);
}

TEST(CliSeq2Seq, BenchForwardTimesTeacherForcedAndExactlyNGreedySteps) {
    // bart's greedy stops after 3 tokens (</s>); the benchmark writes all 8, as its peer
    // (tests/bench_t5_torch.py) does, so both sides do the same work.
    const auto r = runMhaViz(
        {"--model", (kDir / "bart").string(), "--bench-forward", "20", "--generate", "8"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("load: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("20 source tokens, 8 target tokens teacher-forced"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("8 tokens greedy on the key/value cache"), std::string::npos) << r.out;
    const std::string bart = (kDir / "bart").string();
    expectBadInput({"--model", bart, "--bench-forward", "100"}, "the encoder reads 64 positions");
    expectBadInput({"--model", bart, "--bench-forward", "5", "--target", "a"}, "not --target");
}

TEST(CliSeq2Seq, ExportWritesTheAlignmentAndEveryKindsLayers) {
    const fs::path out = fs::temp_directory_path() / "mha-viz-cli-seq2seq-export";
    fs::remove_all(out);
    const auto r = runMhaViz({"--model", (kDir / "t5_relu").string(), "--sentence", "a dog",
                              "--generate", "4", "--export", out.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* stem : {"alignment", "alignment-L01", "alignment-L02", "encoder-L01",
                             "encoder-L02", "decoder-L01", "decoder-L02", "cross-L01", "cross-L02"})
        for (const char* ext : {".svg", ".png"})
            EXPECT_GT(fs::file_size(out / (std::string(stem) + ext)), 1000u) << stem << ext;
    EXPECT_NE(r.err.find("wrote 18 files"), std::string::npos) << r.err;
    fs::remove_all(out);
}

TEST(CliSeq2Seq, BadInputIsOneLineAndExit2) {
    const std::string bart = (kDir / "bart").string();
    const std::string gpt2 = (fs::path(build_facts::fixtureDir()) / "gpt2" / "f32").string();
    expectBadInput({"--model", gpt2, "--target", "hello"}, "--target is for encoder-decoders");
    expectBadInput({"--model", bart, "--target", "a", "--generate", "3"}, "one at a time");
    expectBadInput({"--model", bart, "--generate", "64"}, "the decoder reads 64 positions");
    expectBadInput({"--model", bart, "--target", std::string(400, 'x')}, "the decoder reads 64");
    expectBadInput({"--model", bart, "--pair", "b"}, "--pair does not apply to an encoder-decoder");
    expectBadInput({"--model", bart, "--sentence", "a", "--sentence", "b"}, "one --sentence");
    const fs::path other = testing_support::scratchCopy(kDir / "bart", "seq2seq-pegasus");
    {
        std::ifstream in(other / "config.json");
        json config = json::parse(in);
        config["model_type"] = "pegasus"; // an encoder-decoder this build does not open
        config["is_encoder_decoder"] = true;
        std::ofstream(other / "config.json") << config.dump();
    }
    expectBadInput({"--model", other.string()},
                   "\"pegasus\" is an encoder-decoder this build does not open; it opens t5, mt5, "
                   "bart, marian");
}

} // namespace
