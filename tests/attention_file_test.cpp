// Attention files (docs/attention-files.md): the files PyTorch wrote (tests/fixtures/attention,
// made by tests/make_attention_fixtures.py) read back exactly, what the views are made of (the
// traces, the rollout, the sink shares, the detectors), the export and the JSON; and every bad
// file refused in one line naming the file and the problem.
#include "attention_file_writer.h"
#include "build_facts.h"
#include "thrown_message.h"

#include "figures/figure.h"
#include "io/text_file.h"
#include "io/trace_json.h"
#include "models/analyses/real_model_figures.h"
#include "models/analyses/saved_attention_export.h"
#include "models/formats/attention_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <sstream>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;
using testing_support::SavedTensor;

std::string fixture(const std::string& name) {
    return std::string(build_facts::fixtureDir()) + "/attention/" + name;
}

const nlohmann::json& reference() {
    static const nlohmann::json r = nlohmann::json::parse(
        core::readTextFile(fixture("reference.json"), core::kRunFileCap).text);
    return r;
}

// Every value of every tensor of a stack equal to PyTorch's float32 (the 16-bit ones widened).
void expectExactly(const models::AttentionStack& stack, const std::string& prefix,
                   const nlohmann::json& tensors) {
    for (std::size_t l = 0; l < stack.layers.size(); ++l) {
        const std::vector<double> values = tensors.at(prefix + "." + std::to_string(l));
        const core::Mat& map = stack.layers[l]; // (H*Nq) x Nk
        ASSERT_EQ(std::size_t(map.size()), values.size()) << prefix << l;
        for (Eigen::Index i = 0; i < map.size(); ++i)
            ASSERT_EQ(map.data()[i], float(values[std::size_t(i)])) << prefix << l << " at " << i;
    }
}

const std::vector<std::string> kTokens = {"The",  " cat", " sat",     " on",
                                          " the", " mat", " because", " it"};

TEST(AttentionFile, F32WithTokensInTheMetadataReadsExactly) {
    const models::AttentionFile f = models::readAttentionFile(fixture("f32.safetensors"));
    EXPECT_EQ(f.tokens, kTokens);
    EXPECT_EQ(f.tokensFrom, "the file's metadata");
    EXPECT_EQ(f.dtype, "F32");
    EXPECT_EQ(f.self.layers.size(), 3u);
    EXPECT_EQ(f.self.heads, 4);
    EXPECT_EQ(f.self.queries, 8);
    EXPECT_TRUE(f.encoder.empty() && f.cross.empty());
    EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
    expectExactly(f.self, "layers", reference().at("f32.safetensors"));
}

TEST(AttentionFile, Bf16BatchOfOneWithTokensJsonBesideReadsExactly) {
    const models::AttentionFile f =
        models::readAttentionFile(fixture("bf16_batch/attention.safetensors"));
    EXPECT_EQ(f.tokens, kTokens);
    EXPECT_EQ(f.tokensFrom, fixture("bf16_batch/tokens.json"));
    EXPECT_EQ(f.dtype, "BF16");
    EXPECT_EQ(f.self.heads, 3);
    EXPECT_TRUE(f.warnings.empty()) << f.warnings.front(); // BF16 rows still sum to 1 closely
    expectExactly(f.self, "layers", reference().at("bf16_batch/attention.safetensors"));
}

TEST(AttentionFile, EncoderDecoderStacksAndSourceTokens) {
    const models::AttentionFile f =
        models::readAttentionFile(fixture("encoder_decoder.safetensors"));
    EXPECT_EQ(f.sourceTokens, (std::vector<std::string>{"Le", " chat", " dort", "</s>"}));
    EXPECT_EQ(f.encoder.layers.size(), 2u);
    EXPECT_EQ(f.encoder.queries, 4);
    EXPECT_EQ(f.cross.queries, 5);
    EXPECT_EQ(f.cross.keys, 4);
    const nlohmann::json& r = reference().at("encoder_decoder.safetensors");
    expectExactly(f.self, "layers", r);
    expectExactly(f.encoder, "encoder", r);
    expectExactly(f.cross, "cross", r);
    EXPECT_EQ(f.cross.head(1, 1), f.cross.layers[1].bottomRows(5)); // head h: rows [h*Nq, ...)
}

TEST(SavedAttention, TheViewsAreMadeOfTheFilesMaps) {
    const auto s = models::openSavedAttention(fixture("f32.safetensors"));
    EXPECT_TRUE(s->causal());
    EXPECT_EQ(s->name, "f32.safetensors");
    EXPECT_EQ(s->tokens.text, "The cat sat on the mat because it");
    ASSERT_EQ(s->layerCount(), 3);
    const models::AttentionFile f = models::readAttentionFile(fixture("f32.safetensors"));
    for (int l = 0; l < 3; ++l) {
        const core::Trace& t = *s->layers()[std::size_t(l)];
        EXPECT_EQ(t.attention.attention, f.self.layers[std::size_t(l)]);
        EXPECT_FALSE(t.weights); // nothing claims the weights that made the maps
        EXPECT_NE(t.modelWeights.find("saved elsewhere"), std::string::npos);
        EXPECT_TRUE(t.attention.masked(0, 2, 5)); // above the diagonal: drawn as masked
    }
    EXPECT_EQ(s->self.meanAttention, models::layerMeans(s->layers()));
    const std::vector<core::Mat> rollout =
        models::attentionRollouts(models::layerMeans(s->layers()));
    EXPECT_EQ(s->self.rollout, rollout);
    EXPECT_EQ(s->self.sinkShares, models::attentionSinkShares(s->layers()));
    EXPECT_EQ(s->self.thumbnails.size(), 12u);
    std::vector<std::string> names;
    for (const auto& d : s->self.detectors) names.push_back(d.name);
    // "The" and " the" are two tokens: nothing repeats, so no duplicate or induction score.
    EXPECT_EQ(names, (std::vector<std::string>{"previous_token", "self"}));
}

TEST(SavedAttention, BidirectionalFileScoresTheNextTokenToo) {
    const auto s = models::openSavedAttention(fixture("f16_bidirectional.safetensors"));
    EXPECT_FALSE(s->causal());
    EXPECT_EQ(s->dtype, "F16");
    std::vector<std::string> names;
    for (const auto& d : s->self.detectors) {
        names.push_back(d.name);
        EXPECT_TRUE(d.onSentence);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"previous_token", "duplicate_token", "induction",
                                               "self", "next_token"}));
    const core::Mat head = models::headAttention(s->layers()[0]->attention, 1); // N x N
    double diagonal = 0;
    for (int i = 0; i < 7; ++i) diagonal += head(i, i);
    EXPECT_NEAR(s->self.detectors[3].scores(0, 1), diagonal / head.sum(), 1e-6);
    EXPECT_EQ(s->ids, (std::vector<int>{0, 1, 2, 3, 1, 2, 4})); // equal tokens, equal ids
}

TEST(SavedAttention, ExportWritesEveryViewNamedForTheFile) {
    const auto s = models::openSavedAttention(fixture("encoder_decoder.safetensors"));
    const fs::path dir =
        fs::temp_directory_path() / ("mha-attention-export-" + std::to_string(getpid()));
    fs::remove_all(dir);
    models::RealExportOptions options;
    options.traces = models::ExportTraces::Attention;
    const std::vector<std::string> files = models::exportSavedAttention(*s, dir.string(), options);
    EXPECT_EQ(int(files.size()), models::savedAttentionExportFileCount(*s, options));
    for (const char* name :
         {"layer-01/mha-viz-encoder-decoder-L1-H1.png",
          "cross-layer-02/mha-viz-encoder-decoder-cross-L2-H2.csv",
          "encoder-layer-01/mha-viz-encoder-decoder-encoder-L1-mean.svg", "model-grid.png",
          "model-grid-cross.svg", "model-grid-encoder.png", "detectors.csv",
          "detectors-first_token_on_sentence.svg", "rollout.csv", "model-trace.json"})
        EXPECT_TRUE(fs::exists(dir / name)) << name;
    const std::string svg =
        core::readTextFile(
            (dir / "cross-layer-01/mha-viz-encoder-decoder-cross-L1-H1.svg").string(),
            core::kRunFileCap)
            .text;
    EXPECT_NE(svg.find("saved elsewhere"), std::string::npos);
    EXPECT_NE(svg.find("cross-attention"), std::string::npos);
    EXPECT_EQ(svg.find("seed"), std::string::npos); // no scene's seed, no model's checkpoint
    EXPECT_EQ(svg.find("checkpoint"), std::string::npos);
    fs::remove_all(dir);
}

TEST(SavedAttention, JsonHoldsTheFilesValuesExactly) {
    const auto s = models::openSavedAttention(fixture("bf16_batch/attention.safetensors"));
    std::ostringstream out;
    models::writeSavedAttentionJson(*s, 0, out);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    EXPECT_EQ(j["format"], "mha-trace");
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["attention_only"], true);
    EXPECT_FALSE(j.contains("model")); // the file is not a model
    EXPECT_EQ(j["attention_file"]["dtype"], "BF16");
    EXPECT_EQ(j["sentences"][0]["tokens"], kTokens);
    const std::vector<double> values =
        reference().at("bf16_batch/attention.safetensors").at("layers.1");
    const nlohmann::json& a = j["layers"][1]["attention"]; // [1][H][N][N]
    std::size_t k = 0;
    for (const auto& head : a[0])
        for (const auto& row : head)
            for (const auto& v : row) EXPECT_EQ(float(v.get<double>()), float(values[k++]));
    EXPECT_EQ(k, values.size());
}

TEST(SavedAttention, ALayersOwnTraceClaimsNoWeights) {
    const auto s = models::openSavedAttention(fixture("f32.safetensors"));
    const nlohmann::json j = nlohmann::json::parse(core::traceJson(*s->layers()[1]));
    EXPECT_EQ(j["config"]["weights"], "none");
    EXPECT_EQ(j["config"]["weights_from"],
              "attention from f32.safetensors (saved elsewhere), layer 2");
    EXPECT_FALSE(j["config"].contains("d_model")); // no size the file does not hold
    EXPECT_TRUE(j.contains("attention"));
    for (const char* key : {"x", "w_q", "q", "scores", "output"})
        EXPECT_FALSE(j.contains(key)) << key;
    const core::HeatmapFigure figure = core::headFigure(*s->layers()[1], 0, 2); // its caption
    EXPECT_EQ(figure.captionLines.at(1),
              "H 4, mask causal, attention from f32.safetensors (saved elsewhere), layer 2");
}

// ---- bad files ------------------------------------------------------------------------------

class BadAttentionFile : public ::testing::Test {
  protected:
    fs::path dir = fs::temp_directory_path() / ("mha-bad-attention-" + std::to_string(getpid()));
    void SetUp() override {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    // The file written (named `name`), read; what it throws ("" when it reads).
    std::string refusal(const std::vector<SavedTensor>& tensors, const nlohmann::json& metadata,
                        const std::string& name = "a.safetensors") {
        testing_support::writeBytes(dir / name,
                                    testing_support::safetensorsBytes(tensors, metadata));
        return testing_support::thrownMessage(
            [&] { models::readAttentionFile((dir / name).string()); });
    }
    std::string path(const std::string& name = "a.safetensors") { return (dir / name).string(); }
};

const nlohmann::json kThree = testing_support::tokensMetadata({"a", "b", "c"});

SavedTensor causal(const std::string& name, int heads = 2, int n = 3) {
    return {name, {heads, n, n}, testing_support::causalUniform(heads, n)};
}

TEST_F(BadAttentionFile, NotSafetensors) {
    testing_support::writeBytes(dir / "a.safetensors", "not a safetensors file at all");
    const std::string m =
        testing_support::thrownMessage([&] { models::readAttentionFile(path()); });
    EXPECT_EQ(m.rfind(path() + ": ", 0), 0u) << m;
    const std::string good = testing_support::safetensorsBytes({causal("layers.0")}, kThree);
    testing_support::writeBytes(dir / "a.safetensors", good.substr(0, good.size() - 5));
    EXPECT_NE(testing_support::thrownMessage([&] {
                  models::readAttentionFile(path());
              }).find("truncated"),
              std::string::npos);
}

TEST_F(BadAttentionFile, EachProblemIsOneLineNamingTheFile) {
    const auto bad = [](const std::string& tensor, std::vector<std::int64_t> shape) {
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        return SavedTensor{tensor, shape, std::vector<float>(std::size_t(n), 0.25f)};
    };
    const std::pair<std::vector<SavedTensor>, std::string> cases[] = {
        {{bad("h.0.attn.bias", {1, 3, 3})}, "no tensor layers.0"},
        {{causal("layers.0"), causal("layers.2")}, "layers.1 is missing"},
        {{causal("layers.01")}, "leading zeros"},
        {{bad("layers.0", {3, 3})}, "is not [H][N][N] or [1][H][N][N]"},
        {{bad("layers.0", {2, 2, 3, 3})}, "holds a batch of 2 sentences"},
        {{causal("layers.0", 2, 4)}, "is not [2][3][3] for the 3 tokens"},
        {{causal("layers.0", 2), causal("layers.1", 3)}, "layers.1 has 3 heads, layers.0 2"},
        {{SavedTensor{"layers.0", {2, 3, 3}, std::vector<float>(18, 0), "I32"}},
         "dtype I32, not F32, F16 or BF16"},
    };
    for (const auto& [tensors, expected] : cases) {
        const std::string m = refusal(tensors, kThree);
        EXPECT_EQ(m.rfind(path() + ": ", 0), 0u) << m;
        EXPECT_NE(m.find(expected), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

TEST_F(BadAttentionFile, WeightsMustBeFiniteAndInZeroToOne) {
    for (const float value : {std::nanf(""), 1.5f, -0.25f, INFINITY}) {
        SavedTensor t = causal("layers.0");
        t.values[7] = value; // head 1, row 3, column 2
        const std::string m = refusal({t}, kThree);
        EXPECT_NE(m.find("tensor layers.0, head 1, row 3, column 2 holds"), std::string::npos) << m;
    }
}

TEST_F(BadAttentionFile, TokensMissingOrMalformed) {
    EXPECT_NE(refusal({causal("layers.0")}, {}).find("no tokens"), std::string::npos);
    EXPECT_NE(refusal({causal("layers.0")}, {{"tokens", "a b c"}}).find("is not JSON"),
              std::string::npos);
    EXPECT_NE(refusal({causal("layers.0")}, {{"tokens", "[1, 2, 3]"}}).find("not only strings"),
              std::string::npos);
    EXPECT_NE(refusal({causal("layers.0")}, {{"tokens", "[]"}}).find("is empty"),
              std::string::npos);
    testing_support::writeBytes(dir / "tokens.json", "{\"words\": []}");
    EXPECT_NE(refusal({causal("layers.0")}, {}).find("has no \"tokens\" list"), std::string::npos);
    testing_support::writeBytes(dir / "tokens.json", "{\"tokens\": [\"a\", \"b\", \"c\"]}");
    EXPECT_EQ(refusal({causal("layers.0")}, {}), ""); // the object form reads
}

TEST_F(BadAttentionFile, CrossMustFitTheSourceTokens) {
    nlohmann::json meta = kThree;
    meta["source_tokens"] = nlohmann::json({"x", "y"}).dump();
    SavedTensor cross{"cross.0", {2, 3, 4}, std::vector<float>(24, 0.25f)};
    EXPECT_NE(refusal({causal("layers.0"), cross}, meta).find("is not [2][3][2]"),
              std::string::npos);
}

TEST_F(BadAttentionFile, AnEncoderWithoutSourceTokensMustStillBeSquare) {
    SavedTensor encoder{"encoder.0", {2, 4, 5}, std::vector<float>(40, 0.2f)};
    EXPECT_NE(refusal({causal("layers.0"), encoder}, kThree).find("is not [H][N_s][N_s]"),
              std::string::npos);
}

TEST_F(BadAttentionFile, RowsOffOneAndOtherTensorsAreKeptWithOneWarning) {
    SavedTensor t = causal("layers.0");
    t.values[4] = 0.0f; // head 1, row 2 was [0.5 0.5 0]: now sums to 0.5
    testing_support::writeBytes(
        dir / "a.safetensors",
        testing_support::safetensorsBytes({t, causal("layers.1"), causal("extra")}, kThree));
    const models::AttentionFile f = models::readAttentionFile(path());
    ASSERT_EQ(f.warnings.size(), 2u);
    EXPECT_NE(f.warnings[0].find("layers.0, head 1, row 2 sums to 0.5, not 1"), std::string::npos)
        << f.warnings[0];
    EXPECT_NE(f.warnings[1].find("left out 1 tensor"), std::string::npos) << f.warnings[1];
    EXPECT_EQ(f.self.layers[0](1, 0), 0.5f); // kept as saved
}

TEST_F(BadAttentionFile, CrossWithoutSourceTokensNamesThemByNumber) {
    SavedTensor cross{"cross.0", {2, 3, 4}, std::vector<float>(24, 0.25f)};
    testing_support::writeBytes(dir / "a.safetensors", testing_support::safetensorsBytes(
                                                           {causal("layers.0"), cross}, kThree));
    const models::AttentionFile f = models::readAttentionFile(path());
    EXPECT_EQ(f.sourceTokens, (std::vector<std::string>{"src 1", "src 2", "src 3", "src 4"}));
    ASSERT_EQ(f.warnings.size(), 1u);
    EXPECT_NE(f.warnings[0].find("no source_tokens"), std::string::npos);
}

TEST(AttentionFile, LooksLikeAttentionFileOnlyForSafetensorsFiles) {
    EXPECT_TRUE(models::looksLikeAttentionFile(fixture("f32.safetensors")));
    EXPECT_FALSE(models::looksLikeAttentionFile(fixture("bf16_batch")));
    EXPECT_FALSE(models::looksLikeAttentionFile(fixture("reference.json")));
    EXPECT_FALSE(models::looksLikeAttentionFile(fixture("missing.safetensors")));
}

} // namespace
