// `mha-viz --model DIR` with a BERT, DistilBERT or RoBERTa checkpoint, as users meet it: the v2
// trace with token types, the pair and its start, the [MASK]s and the MLM head's guesses;
// PyTorch's numbers on the fixtures of make_bert_fixtures.py through the CLI; a streamed --json
// file; --export; one line with exit 2 for every bad input.
#include "build_facts.h"
#include "cli_fixtures.h"
#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::ProcessResult;
using testing_support::runMhaViz;
using testing_support::traceOf;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(build_facts::fixtureDir()) / "bert";

const json& reference() {
    static const json r = [] {
        std::ifstream in(kFixtures / "reference.json");
        return json::parse(in);
    }();
    return r;
}

// A scratch copy of a fixture folder, to break.
fs::path copyOf(const std::string& variant, const std::string& name) {
    return testing_support::scratchCopy(kFixtures / variant, "encoder-" + name);
}

} // namespace

TEST(CliEncoder, APairIsReadWithItsTokenTypesAndTheMaskIsFilled) {
    const json j = traceOf({"--model", (kFixtures / "bert_f32").string(), "--sentence",
                            "The cat sat on the [MASK].", "--pair", "It was tired!", "--top-k", "5",
                            "--json", "-"});
    EXPECT_EQ(j["model"]["family"], "bert");
    EXPECT_EQ(j["model"]["mlm_head"], true);
    const json& s = j["sentences"][0];
    EXPECT_EQ(s["tokens"], json({"[CLS]", "the", "cat", "sat", "on", "the", "[MASK]", ".", "[SEP]",
                                 "it", "was", "tired", "!", "[SEP]"}));
    EXPECT_EQ(s["pair"], "It was tired!");
    EXPECT_EQ(s["pair_start"], 9);
    EXPECT_EQ(s["token_types"], json({0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
    EXPECT_EQ(s["mask_positions"], json({6}));
    ASSERT_EQ(s["predictions"].size(), 14u);
    EXPECT_EQ(s["predictions"][6]["top"].size(), 5u);
    EXPECT_FALSE(s.contains("loss")) << "an encoder has no next-token loss";
    EXPECT_EQ(j["layers"][0]["config"]["mask"], "none");
}

TEST(CliEncoder, AttentionAndLogitsMatchPyTorchForEveryFamily) {
    for (const char* variant : {"bert_f16_gamma_shards", "distilbert_f32", "roberta_bf16_shards"}) {
        const json& c = reference()["variants"][variant][0];
        std::vector<std::string> args = {"--model",
                                         (kFixtures / variant).string(),
                                         "--sentence",
                                         c["text"],
                                         "--json-logits",
                                         "--json",
                                         "-"};
        const json j = traceOf(args);
        ASSERT_EQ(j["sentences"][0]["token_ids"], c["ids"]) << variant;
        const std::size_t n = c["ids"].size();
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h)
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t k = 0; k < n; ++k)
                        EXPECT_NEAR(j["layers"][l]["attention"][0][h][i][k].get<double>(),
                                    c["attention"][l][h][i][k].get<double>(), 1e-4)
                            << variant;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t v = 0; v < c["logits"][i].size(); v += 3)
                EXPECT_NEAR(j["logits"][0][i][v].get<double>(), c["logits"][i][v].get<double>(),
                            1e-4)
                    << variant;
    }
}

TEST(CliEncoder, JsonIntoAFileIsTheSameTraceAsOnStdout) {
    const fs::path file = fs::temp_directory_path() / "mha-viz-cli-encoder-trace.json";
    fs::remove(file);
    const std::string roberta = (kFixtures / "roberta_f32").string();
    const ProcessResult r = runMhaViz(
        {"--model", roberta, "--sentence", "The cat sat on the <mask>.", "--json", file.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::ifstream in(file);
    const json written = json::parse(in);
    EXPECT_EQ(written, traceOf({"--model", roberta, "--sentence", "The cat sat on the <mask>.",
                                "--json", "-"}));
    EXPECT_EQ(written["sentences"][0]["tokens"].front(), "<s>");
    for (const json& type : written["sentences"][0]["token_types"])
        EXPECT_EQ(type, 0) << "RoBERTa has one token type";
    EXPECT_EQ(written["sentences"][0]["mask_positions"].size(), 1u);
    fs::remove(file);
}

TEST(CliEncoder, ABareEncoderHasNoPredictionsAndExportsWithoutTheLens) {
    const json j = traceOf({"--model", (kFixtures / "distilbert_bare_f16").string(), "--sentence",
                            "the cat sat", "--json", "-"});
    EXPECT_EQ(j["model"]["mlm_head"], false);
    EXPECT_TRUE(j["sentences"][0]["predictions"].empty());
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-encoder-export";
    fs::remove_all(dir);
    const ProcessResult r = runMhaViz({"--model", (kFixtures / "distilbert_bare_f16").string(),
                                       "--sentence", "the cat sat", "--export", dir.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "model-grid.png"));
    EXPECT_TRUE(fs::exists(dir / "detectors.csv"));
    EXPECT_FALSE(fs::exists(dir / "logit-lens.csv")) << "no head to read the stream through";
    std::ifstream csv(dir / "detectors.csv");
    std::string header;
    std::getline(csv, header);
    EXPECT_EQ(header, "layer,head,previous_token,next_token,self,cls,sep,first_token_on_sentence");
    fs::remove_all(dir);
}

TEST(CliEncoder, BadInputIsOneLineAndExit2) {
    const std::string bert = (kFixtures / "bert_f32").string();
    expectBadInput({"--model", (fs::path(build_facts::fixtureDir()) / "gpt2" / "f32").string(),
                    "--pair", "B", "--json", "-"},
                   "--pair is for encoders");
    expectBadInput({"--pair", "B", "--json", "-"}, "--pair needs --model");
    expectBadInput({"--model", bert, "--pair", "", "--json", "-"}, "--pair needs a sentence B");
    std::string words;
    for (int i = 0; i < 40; ++i) words += "the cat ";
    expectBadInput({"--model", bert, "--sentence", words, "--pair", words, "--json", "-"},
                   "more than the model's 64 positions");
    const fs::path noCls = copyOf("bert_f32", "no-cls");
    std::ofstream(noCls / "vocab.txt") << "[PAD]\n[UNK]\n[SEP]\n[MASK]\nthe\n";
    expectBadInput({"--model", noCls.string(), "--json", "-"}, "no [CLS]");
    const fs::path noVocab = copyOf("bert_f32", "no-vocab");
    fs::remove(noVocab / "vocab.txt");
    expectBadInput({"--model", noVocab.string(), "--json", "-"}, "vocab.txt");
    const fs::path noMask = copyOf("roberta_f32", "no-mask");
    std::ifstream vocabIn(noMask / "vocab.json");
    json vocab = json::parse(vocabIn);
    vocab.erase("<mask>");
    std::ofstream(noMask / "vocab.json") << vocab.dump();
    expectBadInput({"--model", noMask.string(), "--json", "-"}, "<mask>");
    const fs::path relative = copyOf("bert_f32", "relative");
    std::ifstream configIn(relative / "config.json");
    json config = json::parse(configIn);
    config["position_embedding_type"] = "relative_key";
    std::ofstream(relative / "config.json") << config.dump();
    expectBadInput({"--model", relative.string(), "--json", "-"}, "relative_key");
    for (const fs::path& dir : {noCls, noVocab, noMask, relative}) fs::remove_all(dir);
}
