// The encoder-decoders against PyTorch (tests/fixtures/seq2seq, make_seq2seq_fixtures.py): on
// every SIMD path, each fixture's encoder, decoder self- and cross-attention maps and its logits
// within 1e-4 of the reference, the teacher-forced loss, and greedy decoding on the key/value
// cache giving the reference's tokens (up to the first step whose top-2 margin is too thin to
// call) with each step's cross-attention row.
#include "models/families/bart_model.h"
#include "models/families/t5_model.h"

#include "build_facts.h"
#include "figures/attention_map.h"
#include "io/json_fields.h"
#include "models/analyses/seq2seq_figures.h"
#include "models/architectures.h"
#include "models/formats/tensor_binding.h"
#include "models/seq2seq_forward.h"
#include "models/tensor_ops.h"
#include "seq2seq_reference.h"
#include "simd_paths.h"
#include "thrown_message.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

using namespace core::models;
using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kDir = testing_support::seq2seqFixtures();

const json& reference() {
    return testing_support::seq2seqReference();
}

std::unique_ptr<Seq2SeqModel> openFixture(const std::string& name) {
    HfFiles files;
    files.config = (kDir / name / "config.json").string();
    files.weights = {(kDir / name / "model.safetensors").string()};
    std::ifstream in(files.config);
    const json config = json::parse(in);
    const core::JsonFields fields(config, "config.json");
    const std::string family = reference()["fixtures"][name]["family"];
    if (family == "t5") return std::make_unique<T5Model>(readT5Config(fields), files);
    return std::make_unique<BartModel>(readBartConfig(fields, family == "marian"), files);
}

// The largest |ours - reference| over [L][H][rows][cols] maps, ours (H*rows) x cols per layer.
double worstMaps(const std::vector<core::Attention>& ours, const json& expected) {
    double worst = 0;
    for (std::size_t l = 0; l < ours.size(); ++l) {
        const core::Attention& a = ours[l];
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i)
                for (int j = 0; j < a.keyLen; ++j)
                    worst = std::max(worst, std::abs(double(a.attention(a.headRow(0, h, i), j)) -
                                                     expected[l][h][i][j].get<double>()));
    }
    return worst;
}

double meanLoss(const core::Mat& logits, const std::vector<int>& labels) {
    double sum = 0;
    for (int i = 0; i < int(labels.size()); ++i)
        sum -= logSoftmax(logits.row(i))(labels[std::size_t(i)]);
    return sum / double(labels.size());
}

class Seq2SeqReference : public testing_support::OnEveryPathNamed {};

TEST_P(Seq2SeqReference, EveryMapTheLogitsAndTheLossMatchPyTorch) {
    const std::string name = std::get<0>(GetParam());
    const auto model = openFixture(name);
    EXPECT_TRUE(model->warnings().empty());
    for (const json& c : reference()["fixtures"][name]["cases"]) {
        const std::string what = name + ", " + c["name"].get<std::string>();
        const Seq2SeqRun run = runSeq2Seq(*model, c["source_ids"], c["decoder_input_ids"]);
        EXPECT_LT(worstMaps(run.encoder, c["encoder_attention"]), 1e-4) << what;
        EXPECT_LT(worstMaps(run.decoderSelf, c["decoder_self_attention"]), 1e-4) << what;
        EXPECT_LT(worstMaps(run.cross, c["cross_attention"]), 1e-4) << what;
        for (const auto* kind : {&run.encoder, &run.decoderSelf, &run.cross})
            for (const core::Attention& a : *kind) // the engine's exact promises, this path too
                for (Eigen::Index r = 0; r < a.attention.rows(); ++r) {
                    EXPECT_NEAR(a.attention.row(r).sum(), 1.0f, 1e-5f) << what;
                    const int i = int(r % a.queryLen);
                    for (int j = i + 1; a.causal && j < a.keyLen; ++j)
                        EXPECT_EQ(a.attention(r, j), 0.0f) << what << ": masked, exactly 0";
                }
        for (std::size_t i = 0; i < c["top5_ids"].size(); ++i)
            for (int k = 0; k < 5; ++k) {
                const int id = c["top5_ids"][i][k];
                EXPECT_NEAR(run.logits(Eigen::Index(i), id), c["top5_logits"][i][k].get<double>(),
                            1e-4)
                    << what << ", position " << i;
            }
        EXPECT_NEAR(meanLoss(run.logits, c["labels"]), c["loss"].get<double>(), 1e-4) << what;
    }
}

TEST_P(Seq2SeqReference, GreedyDecodingOnTheCacheGivesTheReferencesTokens) {
    const std::string name = std::get<0>(GetParam());
    const auto model = openFixture(name);
    const int maxTokens = reference()["max_new_tokens"];
    for (const json& c : reference()["fixtures"][name]["cases"]) {
        const std::string what = name + ", " + c["name"].get<std::string>();
        const json& g = c["generation"];
        const Seq2SeqRun encoded = encodeSource(*model, c["source_ids"]);
        const GreedyOutput out = generateGreedy(*model, encoded, maxTokens, g["suppressed_ids"]);
        const std::vector<int> expected = g["ids"];
        std::size_t clear = 0; // the steps whose choice is clear (a margin well above 1e-4)
        while (clear < expected.size() && g["margins"][clear].get<double>() > 1e-3) ++clear;
        ASSERT_GE(out.ids.size(), clear) << what;
        for (std::size_t s = 0; s < clear; ++s) {
            EXPECT_EQ(out.ids[s], expected[s]) << what << ", step " << s;
            for (std::size_t l = 0; l < out.cross.size(); ++l)
                for (int h = 0; h < model->config().base.heads; ++h)
                    for (int j = 0; j < out.cross[l].cols(); ++j)
                        EXPECT_NEAR(out.cross[l](Eigen::Index(h) * Eigen::Index(out.ids.size()) +
                                                     Eigen::Index(s),
                                                 j),
                                    g["cross_attention"][l][h][s][j].get<double>(), 1e-4)
                            << what << ", step " << s << ", layer " << l << ", head " << h;
        }
    }
}

std::vector<std::string> fixtureNames() {
    std::vector<std::string> names;
    for (const auto& [name, f] : reference()["fixtures"].items()) {
        (void)f;
        names.push_back(name);
    }
    return names;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Seq2SeqReference,
                         ::testing::Combine(::testing::ValuesIn(fixtureNames()),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         testing_support::namedPathName);

// Each fixture's tokenizers (the registry's: T5's spiece.model, BART's byte-level BPE, Marian's
// two SentencePiece models through vocab.json) give the ids Hugging Face's tokenizer gives, on
// its chosen texts: an unknown character, runs of spaces, ß and Ä, each side's own.
TEST(Seq2SeqTokenizers, GiveTheReferencesIdsOnEachSide) {
    for (const auto& [name, f] : reference()["fixtures"].items()) {
        const Seq2SeqArchitecture* a = findSeq2SeqArchitecture(f["model_type"].get<std::string>());
        ASSERT_NE(a, nullptr) << name;
        const auto model = openFixture(name);
        const ModelLocation where{ModelFolderKind::HuggingFace, (kDir / name).string(),
                                  (kDir / name).string(), "", ""};
        const HfFiles files = hfFiles(where);
        const auto source = a->sourceTokenizer(files, model->config());
        const auto target = a->targetTokenizer(files, model->config());
        for (const json& t : f["tokenizer"]["texts"]) {
            const auto& tokenizer = t["side"] == "source" ? source : target;
            EXPECT_EQ(tokenizer->encode(t["text"].get<std::string>(), nullptr, 512).ids,
                      t["ids"].get<std::vector<int>>())
                << name << ": " << t["text"] << " (" << t["side"] << ")";
        }
    }
}

// T5's sentinels typed in a source (span corruption, how T5 was trained) are one token each, on
// both of the registry's paths: t5_relu's tokenizer.json (T5TokenizerFast) and flan_t5_gated's
// spiece.model alone (T5Tokenizer, its extra ids counted down from the last id); each shows as
// typed, covers its own bytes of the text, is marked special; every id a decoder can write
// (the sentinels included) has a readable token, so generated sentinels read back.
TEST(Seq2SeqTokenizers, T5SentinelsAreOneTokenEachOnBothPaths) {
    const std::string text = "The <extra_id_0> walks in <extra_id_1> park.";
    for (const std::string name : {"t5_relu", "flan_t5_gated"}) {
        const auto model = openFixture(name);
        const ModelLocation where{ModelFolderKind::HuggingFace, (kDir / name).string(),
                                  (kDir / name).string(), "", ""};
        const HfFiles files = hfFiles(where);
        EXPECT_EQ(files.tokenizerJson.empty(), name == "flan_t5_gated") << name;
        const auto tokenizer =
            findSeq2SeqArchitecture("t5")->sourceTokenizer(files, model->config());
        ASSERT_EQ(tokenizer->vocabSize(), 400) << name; // 300 pieces and 100 extra ids
        EXPECT_EQ(tokenizer->readable(399), "<extra_id_0>") << name;
        EXPECT_EQ(tokenizer->readable(300), "<extra_id_99>") << name;
        for (int id = 0; id < tokenizer->vocabSize(); ++id)
            EXPECT_FALSE(tokenizer->readable(id).empty()) << name << ": " << id;
        const Encoding e = tokenizer->encode(text, nullptr, 512);
        int sentinels = 0;
        for (std::size_t i = 0; i < e.ids.size(); ++i) {
            if (e.ids[i] != 399 && e.ids[i] != 398) continue;
            const std::string typed = e.ids[i] == 399 ? "<extra_id_0>" : "<extra_id_1>";
            const core::Token& token = e.tokens.tokens[i];
            EXPECT_EQ(token.text, typed) << name;
            EXPECT_EQ(text.substr(token.begin, token.end - token.begin), typed) << name;
            EXPECT_EQ(e.special[i], 1) << name;
            ++sentinels;
        }
        EXPECT_EQ(sentinels, 2) << name;
    }
}

// tokenizer_config.json's extra_ids says how many sentinels T5Tokenizer adds: a value that is
// no count is refused in one line naming the file; without the file an mT5 folder (no room in
// vocab_size for T5Tokenizer's default 100) still opens, with the sentinels that fit.
TEST(Seq2SeqTokenizers, T5ExtraIdsComeFromTheConfig) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-seq2seq-extra-ids";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* file : {"config.json", "model.safetensors", "spiece.model"})
        fs::copy_file(kDir / "mt5" / file, dir / file);
    const ModelLocation where{ModelFolderKind::HuggingFace, dir.string(), dir.string(), "", ""};
    const auto model = openSeq2SeqModel(where);
    EXPECT_EQ(model->source->vocabSize(), 304);
    EXPECT_EQ(model->source->readable(303), "<extra_id_0>");
    std::ofstream(dir / "tokenizer_config.json") << R"({"extra_ids": "many"})";
    const std::string message = testing_support::thrownMessage([&] { openSeq2SeqModel(where); });
    EXPECT_NE(message.find("tokenizer_config.json: \"extra_ids\" is not a count"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
    fs::remove_all(dir);
}

// The alignment figure is the cross-attention averaged over a layer's heads (or every layer's),
// target rows by source columns; a decoder grid hatches the cells its causal mask hides.
TEST(Seq2SeqFigures, AlignmentIsTheHeadsMeanAndTheDecoderIsCausal) {
    const ModelLocation where{ModelFolderKind::HuggingFace, (kDir / "bart").string(),
                              (kDir / "bart").string(), "", ""};
    const auto model = openSeq2SeqModel(where);
    const json& c = reference()["fixtures"]["bart"]["cases"][0];
    const Seq2SeqTrace t = traceSeq2Seq(*model, c["source_text"], c["target_text"]);
    const int L = int(t.run.cross.size()), H = t.run.cross[0].heads;
    const int Nt = t.run.cross[0].queryLen, Ns = t.run.cross[0].keyLen;
    for (int layer = -1; layer < L; ++layer) {
        const core::HeatmapFigure f = alignmentFigure(*model, t, layer);
        ASSERT_EQ(f.rows, Nt);
        ASSERT_EQ(f.cols, Ns);
        ASSERT_EQ(f.rowLabels.size(), t.labels.size()); // row i: the token written there
        for (int i = 0; i < Nt; ++i)
            EXPECT_EQ(f.rowLabels[std::size_t(i)],
                      model->target->readable(t.labels[std::size_t(i)]));
        for (int i = 0; i < Nt; ++i)
            for (int j = 0; j < Ns; ++j) {
                double sum = 0;
                int maps = 0;
                for (int l = 0; l < L; ++l)
                    for (int h = 0; h < H && (layer < 0 || l == layer); ++h, ++maps)
                        sum += c["cross_attention"][l][h][i][j].get<double>();
                EXPECT_NEAR(f.values[std::size_t(i * Ns + j)], sum / maps, 1e-4);
            }
    }
    for (int layer = 0; layer < L; ++layer) // one head: that head's map alone
        for (int h = 0; h < H; ++h) {
            const core::HeatmapFigure f =
                alignmentFigure(*model, t, layer, core::ColormapId::Viridis, h);
            for (int i = 0; i < Nt; ++i)
                for (int j = 0; j < Ns; ++j)
                    EXPECT_NEAR(f.values[std::size_t(i * Ns + j)],
                                c["cross_attention"][layer][h][i][j].get<double>(), 1e-4);
        }
    const core::GridFigure g = seq2seqLayerFigure(*model, t, Seq2SeqKind::DecoderSelf, 1);
    ASSERT_EQ(int(g.panels.size()), H);
    EXPECT_EQ(g.panels[0].values[1], core::kMaskedCell) << "query 0 never sees key 1";
    EXPECT_NE(g.panels[0].values[std::size_t(Nt)], core::kMaskedCell) << "query 1 sees key 0";
}

TEST(T5Buckets, AreModelingT5sRelativePositionBuckets) {
    // Bidirectional, 32 buckets over 128: keys before the query in 0..15, after in 16..31;
    // distances below 8 exact, then logarithmic.
    EXPECT_EQ(t5Bucket(0, true, 32, 128), 0);
    EXPECT_EQ(t5Bucket(-3, true, 32, 128), 3);
    EXPECT_EQ(t5Bucket(3, true, 32, 128), 19);
    EXPECT_EQ(t5Bucket(-8, true, 32, 128), 8);
    EXPECT_EQ(t5Bucket(-1000, true, 32, 128), 15);
    EXPECT_EQ(t5Bucket(1000, true, 32, 128), 31);
    // Causal: keys after the query share bucket 0; before, 32 buckets, 16 exact.
    EXPECT_EQ(t5Bucket(5, false, 32, 128), 0);
    EXPECT_EQ(t5Bucket(-5, false, 32, 128), 5);
    EXPECT_EQ(t5Bucket(-1000, false, 32, 128), 31);
}

TEST(BartConfig, MarianNeverGeneratesItsPadAndComputesItsSinusoids) {
    std::ifstream in(kDir / "marian" / "config.json");
    const json config = json::parse(in);
    const BartConfig c = readBartConfig(core::JsonFields(config, "config.json"), true);
    EXPECT_EQ(c.seq.neverGenerated, (std::vector<int>{243}));
    EXPECT_EQ(c.seq.neverGenerated,
              reference()["fixtures"]["marian"]["cases"][0]["generation"]["suppressed_ids"]
                  .get<std::vector<int>>());
    // Where a file holds no table, the computed one is the one converted opus-mt files hold.
    HfFiles files;
    files.weights = {(kDir / "marian" / "model.safetensors").string()};
    TensorStore store;
    mapWeights(files, store);
    const TensorView* table = store.find("model.encoder.embed_positions.weight");
    ASSERT_NE(table, nullptr);
    core::Mat scratch;
    const auto stored = tensorAsFloat(*table, scratch); // 64 x 32
    const core::Mat computed = marianSinusoids(int(stored.rows()), int(stored.cols()));
    EXPECT_LT((computed - stored).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Seq2SeqForward, BadInputIsRefusedInOneLine) {
    const auto model = openFixture("t5_relu");
    EXPECT_NE(testing_support::thrownMessage([&] {
                  runSeq2Seq(*model, {}, {0});
              }).find("the source has no tokens"),
              std::string::npos);
    EXPECT_NE(testing_support::thrownMessage([&] {
                  runSeq2Seq(*model, {5, 400}, {0});
              }).find("token id 400 is outside the vocabulary of 400"),
              std::string::npos);
    Seq2SeqAblation ablated;
    ablated.decoder = {{{}, {4}}};
    EXPECT_NE(testing_support::thrownMessage([&] {
                  runSeq2Seq(*model, {5}, {0}, ablated);
              }).find("head 5 does not exist"),
              std::string::npos);
}

} // namespace
