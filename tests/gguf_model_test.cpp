// The Llama family from GGUF files against PyTorch: the files make_gguf_fixtures.py converts
// from fixtures/llama as llama.cpp's converter would (llama's q/k rows permuted, Gemma's norms
// stored as 1 + w, rope_freqs, Phi-3's LongRoPE tensors; F32, F16, BF16, a split model, a v2
// file; quantized files when ggml_quants.py beside the script made them), and the reference
// forward on what each file holds (fixtures/gguf/reference.json, or the folder's own where the
// file says all config.json said): every layer's attention and the logits within 1e-4 on every
// SIMD path.
// Then what opening a GGUF means around it: its config against the folder's, the views' weights
// in Hugging Face's order, the types named, the bad files refused in one line.
#include "models/families/llama_model.h"

#include "build_facts.h"
#include "engine/simd.h"
#include "gguf_bytes.h"
#include "model_reference.h"
#include "models/formats/gguf_file.h"
#include "models/gguf_model.h"
#include "simd_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace core::models;
using testing_support::worstAttention;
using testing_support::worstLogit;

const fs::path kDir = fs::path(build_facts::fixtureDir()) / "gguf";
const fs::path kFolders = fs::path(build_facts::fixtureDir()) / "llama";

const json& reference() {
    static const json r = json::parse(std::ifstream(kDir / "reference.json"));
    return r;
}

const json& folderReference() {
    static const json r = json::parse(std::ifstream(kFolders / "reference.json"));
    return r;
}

// The cases a file's numbers are checked against: its own, or its source folder's.
const json& casesOf(const std::string& variant) {
    const json& v = reference()["variants"][variant];
    if (v["cases"].is_array()) return v["cases"];
    return folderReference()["variants"][v["source"].get<std::string>()]["cases"];
}

struct Opened {
    GgufModel file;
    ModelConfig config;
    std::unique_ptr<LlamaModel> model;
};

Opened openVariant(const std::string& variant) {
    Opened o;
    o.file =
        openGguf((kDir / reference()["variants"][variant]["files"][0].get<std::string>()).string());
    o.config = readGgufConfig(o.file);
    const std::string arch = *o.file.first().string("general.architecture");
    o.model = std::make_unique<LlamaModel>(loadLlamaGguf(o.config, o.file, arch));
    return o;
}

std::unique_ptr<LlamaModel> openFolder(const std::string& variant) {
    const HfFiles files = hfFiles(locateModel((kFolders / variant).string()));
    return std::make_unique<LlamaModel>(loadLlamaWeights(readModelConfig(files.config), files));
}

const std::vector<std::string>& variantNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& [name, value] : reference()["variants"].items()) out.push_back(name);
        return out;
    }();
    return names;
}

class GgufReference : public testing_support::OnEveryPathNamed {};

TEST_P(GgufReference, EveryLayersAttentionAndTheLogitsMatchPyTorchTo1e4) {
    const std::string variant = std::get<0>(GetParam());
    const Opened o = openVariant(variant);
    EXPECT_TRUE(o.model->warnings().empty());
    for (const json& c : casesOf(variant)) {
        const std::vector<int> ids = c["ids"];
        const CollectedForward out = collectForward(*o.model, ids);
        ASSERT_EQ(out.layers.size(), 2u);
        EXPECT_LT(worstAttention(out, c["attention"]), 1e-4) << variant << ", " << ids.size();
        EXPECT_LT(worstLogit(out.result.logits, c["logits"]), 1e-4)
            << variant << ", " << ids.size();
    }
}

INSTANTIATE_TEST_SUITE_P(Files, GgufReference,
                         ::testing::Combine(::testing::ValuesIn(variantNames()),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         testing_support::namedPathName);

// What the metadata says is what config.json said, family by family.
TEST(GgufConfig, TheMetadataReadsAsTheFoldersConfig) {
    for (const auto& [variant, source] :
         std::vector<std::pair<std::string, std::string>>{{"llama3_gqa_f32", "llama3_gqa_f32"},
                                                          {"qwen3_bf16", "qwen3_bf16"},
                                                          {"phi3_longrope", "phi3_longrope"},
                                                          {"olmo2", "olmo2"},
                                                          {"gemma2_bf16", "gemma2_bf16"}}) {
        const ModelConfig g = openVariant(variant).config;
        const ModelConfig h = readModelConfig((kFolders / source / "config.json").string());
        EXPECT_EQ(g.family, h.family) << variant;
        EXPECT_EQ(g.modelType, h.modelType) << variant;
        EXPECT_EQ(g.layers, h.layers) << variant;
        EXPECT_EQ(g.heads, h.heads) << variant;
        EXPECT_EQ(g.kvHeadCount(), h.kvHeadCount()) << variant;
        EXPECT_EQ(g.headSize(), h.headSize()) << variant;
        EXPECT_EQ(g.dInner, h.dInner) << variant;
        EXPECT_EQ(g.nPositions, h.nPositions) << variant;
        EXPECT_EQ(g.vocabSize, h.vocabSize) << variant;
        EXPECT_EQ(g.decoder.tied, h.decoder.tied) << variant;
        EXPECT_EQ(g.decoder.rope.dims, h.decoder.rope.dims) << variant;
        EXPECT_EQ(g.decoder.rope.theta, h.decoder.rope.theta) << variant;
        EXPECT_EQ(g.decoder.window, h.decoder.window) << variant;
        EXPECT_EQ(g.decoder.qkNorm, h.decoder.qkNorm) << variant;
        EXPECT_EQ(g.activation, h.activation) << variant;
        EXPECT_NEAR(g.layerNormEpsilon, h.layerNormEpsilon, 1e-12) << variant;
    }
    const ModelConfig phi3 = openVariant("phi3_longrope").config;
    EXPECT_EQ(phi3.decoder.rope.type, "longrope");
    EXPECT_EQ(phi3.decoder.rope.longFactor, (std::vector<double>{2.0, 3.5}));
    EXPECT_EQ(phi3.decoder.rope.originalMax, 8);
    EXPECT_EQ(openVariant("llama3_gqa_f32").config.decoder.rope.type, "llama3");
    EXPECT_EQ(openVariant("qwen2_yarn_v2").config.decoder.rope.type, "yarn");
    // Gemma 3: llama.cpp's window on five layers of six (the converter does not write the
    // config's pattern), the windowed layers turned by the local base.
    const ModelConfig gemma3 = openVariant("gemma3_text").config;
    EXPECT_EQ(gemma3.decoder.window, (std::vector<int>{3, 3}));
    EXPECT_EQ(gemma3.decoder.localRope.theta, 10000);
    EXPECT_EQ(gemma3.decoder.rope.type, "linear");
    EXPECT_FALSE(gemma3.decoder.gemmaNorm); // the file holds 1 + w
}

// llama.cpp's permutation is undone where the views read the weights too: W_Q and W_K of the
// GGUF equal the folder's, column for column.
TEST(GgufWeights, TheViewsGetHuggingFacesQAndK) {
    for (const char* variant : {"llama3_gqa_f32", "llama2_mha_bf16_split"}) {
        const Opened o = openVariant(variant);
        const std::string source = reference()["variants"][variant]["source"].get<std::string>();
        const auto hf = openFolder(source);
        EXPECT_TRUE(o.model->weights().pairedQk);
        for (int l = 0; l < 2; ++l) {
            const auto g = o.model->attentionWeights(l), h = hf->attentionWeights(l);
            EXPECT_EQ(g->wQ, h->wQ) << variant << " layer " << l;
            EXPECT_EQ(g->wK, h->wK) << variant << " layer " << l;
            EXPECT_EQ(g->bQ, h->bQ) << variant << " layer " << l;
            EXPECT_EQ(g->bK, h->bK) << variant << " layer " << l;
        }
    }
    EXPECT_FALSE(openVariant("qwen3_bf16").model->weights().pairedQk); // NEOX rotation as HF's
}

// tests/gguf_writer.py and the reader agree on every value type (make_gguf_fixtures.py writes
// one key of each into the version 2 file).
TEST(GgufConfig, ThePythonWritersValuesReadBack) {
    const Opened opened = openVariant("qwen2_yarn_v2");
    const GgufFile& f = opened.file.first();
    EXPECT_EQ(f.version(), 2u);
    EXPECT_EQ(*f.unsignedValue("mha_viz.test.u8"), 200u);
    EXPECT_EQ(f.find("mha_viz.test.i8")->integer, -100);
    EXPECT_EQ(*f.unsignedValue("mha_viz.test.u16"), 60000u);
    EXPECT_EQ(f.find("mha_viz.test.i16")->integer, -30000);
    EXPECT_EQ(*f.unsignedValue("mha_viz.test.u32"), 4000000000u);
    EXPECT_EQ(*f.number("mha_viz.test.i32"), -2e9);
    EXPECT_EQ(*f.unsignedValue("mha_viz.test.u64"), std::uint64_t(1) << 40);
    EXPECT_EQ(f.find("mha_viz.test.i64")->integer, -(std::int64_t(1) << 40));
    EXPECT_EQ(*f.number("mha_viz.test.f32"), 0.25);
    EXPECT_EQ(*f.number("mha_viz.test.f64"), 0.125);
    EXPECT_EQ(*f.boolean("mha_viz.test.bool"), true);
    EXPECT_EQ(*f.string("mha_viz.test.string"), "h\xC3\xA9llo");
    EXPECT_EQ(f.numbers("mha_viz.test.array_of_f64"), (std::vector<double>{0.5, -1.5}));
    const GgufValue& nested = *f.find("mha_viz.test.array_of_arrays");
    ASSERT_EQ(nested.arrays.size(), 2u);
    EXPECT_EQ(nested.arrays[0].numbers, (std::vector<double>{1, 2}));
    EXPECT_EQ(nested.arrays[1].numbers, (std::vector<double>{3}));
    EXPECT_EQ(f.strings("tokenizer.ggml.merges").front().find(' ') != std::string::npos, true);
}

TEST(GgufWeights, TheFileTypeAndTheTensorsTypesAreNamed) {
    const Opened bf16 = openVariant("qwen3_bf16");
    EXPECT_EQ(bf16.model->dtype(), "BF16 (GGUF)");
    EXPECT_NE(bf16.model->weightTypes().find("BF16"), std::string::npos);
    EXPECT_NE(bf16.model->weightTypes().find("F32"), std::string::npos); // the norms
    EXPECT_NE(bf16.model->weightTypes().find("bits per weight"), std::string::npos);
    const Opened split = openVariant("llama2_mha_bf16_split");
    EXPECT_EQ(split.file.parts.size(), 3u);
    EXPECT_EQ(split.model->fileBytes(), split.file.fileBytes());
}

// A scratch folder per test, for files made from the fixtures or broken.
class GgufModelFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / // one per test: ctest runs them side by side
               ("mha-viz-gguf-model-" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

std::string openMessage(const std::string& path) {
    try {
        const GgufModel file = openGguf(path);
        const ModelConfig config = readGgufConfig(file);
        loadLlamaGguf(config, file, *file.first().string("general.architecture"));
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

// A minimal file: the architecture and a token_embd, nothing else.
testing_support::GgufBytes tiny(const std::string& arch) {
    testing_support::GgufBytes b;
    b.header(3, 1, 1).string("general.architecture", arch);
    b.tensor("token_embd.weight", {4, 2}, 0, 0).pad();
    return b.zeros(32);
}

TEST_F(GgufModelFiles, AnUnknownArchitectureIsRefusedNamingTheOnesThatOpen) {
    tiny("gpt2").write(dir_ / "gpt2.gguf");
    const std::string message = openMessage((dir_ / "gpt2.gguf").string());
    EXPECT_NE(message.find("general.architecture \"gpt2\" is not one mha-viz opens (llama, "
                           "qwen2, qwen3, gemma, gemma2, gemma3, phi3, olmo2)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("gpt2.gguf"), std::string::npos);
    tiny("llama").write(dir_ / "llama.gguf");
    EXPECT_NE(openMessage((dir_ / "llama.gguf").string()).find("llama.block_count is missing"),
              std::string::npos);
}

// Copies the fixture with one tensor's type number replaced (its bytes kept: the reader only
// checks sizes), to see a type mha-viz cannot compute refused by the tensor that has it.
std::string withTensorType(const fs::path& from, const fs::path& to, const std::string& tensor,
                           std::uint32_t type) {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const std::size_t name = bytes.find(tensor);
    const std::size_t at = name + tensor.size() + 4 + 2 * 8; // n_dims, two dimensions
    std::memcpy(&bytes[at], &type, 4);
    std::ofstream(to, std::ios::binary) << bytes;
    return to.string();
}

TEST_F(GgufModelFiles, ATypeMhaVizDoesNotComputeIsRefusedByTheTensorThatUsesIt) {
    // I32 takes 4 bytes a value, as F32 does: the file stays whole, one tensor's type changes.
    const std::string path =
        withTensorType(kDir / "llama3_gqa_f32.gguf", dir_ / "i32.gguf", "blk.1.attn_k.weight", 26);
    const std::string message = openMessage(path);
    EXPECT_NE(message.find("tensor blk.1.attn_k.weight is I32, a type mha-viz does not compute "
                           "with"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

// The fixture with metadata added after the header (`extra`, whole key-value pairs, `keys` of
// them), padded with a string key to a multiple of the alignment so the data stays aligned.
std::string withMetadata(const fs::path& from, const fs::path& to, std::string extra, int keys) {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    testing_support::GgufBytes pad;
    pad.string("general.padding", "");
    const std::size_t fill = (32 - (extra.size() + pad.bytes.size()) % 32) % 32;
    pad = {};
    pad.string("general.padding", std::string(fill, ' '));
    extra += pad.bytes;
    std::uint64_t count;
    std::memcpy(&count, &bytes[16], 8);
    count += std::uint64_t(keys) + 1;
    std::memcpy(&bytes[16], &count, 8);
    bytes.insert(24, extra);
    std::ofstream(to, std::ios::binary) << bytes;
    return to.string();
}

// Gemma 3 with the window pattern as one bool per layer (the form llama.cpp's converter writes
// for OLMo 3): its config's own pattern, so the numbers are the folder's.
TEST_F(GgufModelFiles, AWindowPatternPerLayerIsRead) {
    testing_support::GgufBytes pattern;
    pattern.key("gemma3.attention.sliding_window_pattern", 9).put<std::uint32_t>(7);
    pattern.put<std::uint64_t>(2).put<std::uint8_t>(1).put<std::uint8_t>(0);
    const std::string path =
        withMetadata(kDir / "gemma3_text.gguf", dir_ / "gemma3.gguf", pattern.bytes, 1);
    const GgufModel file = openGguf(path);
    const ModelConfig config = readGgufConfig(file);
    EXPECT_EQ(config.decoder.window, (std::vector<int>{3, 0}));
    const LlamaModel model(loadLlamaGguf(config, file, "gemma3"));
    for (const json& c : folderReference()["variants"]["gemma3_text"]["cases"]) {
        const CollectedForward out = collectForward(model, c["ids"].get<std::vector<int>>());
        EXPECT_LT(worstAttention(out, c["attention"]), 1e-4);
        EXPECT_LT(worstLogit(out.result.logits, c["logits"]), 1e-4);
    }
}

TEST_F(GgufModelFiles, AFileOrAFolderHoldingOneIsLocated) {
    const fs::path file = kDir / "olmo2.gguf";
    const ModelLocation direct = locateModel(file.string());
    EXPECT_EQ(direct.kind, ModelFolderKind::Gguf);
    EXPECT_EQ(direct.file, file.string());
    EXPECT_EQ(modelDisplayName(direct), "olmo2");
    fs::copy(file, dir_ / "sha256-0123abcd"); // an Ollama blob: the magic says what it is
    EXPECT_EQ(locateModel((dir_ / "sha256-0123abcd").string()).kind, ModelFolderKind::Gguf);
    fs::remove(dir_ / "sha256-0123abcd");
    fs::copy(file, dir_ / "OLMo-2-1B-Q8_0.gguf");
    std::ofstream(dir_ / "mmproj-OLMo-2-F16.gguf") << "a projector, not a model";
    const ModelLocation folder = locateModel(dir_.string());
    EXPECT_EQ(folder.kind, ModelFolderKind::Gguf);
    EXPECT_EQ(fs::path(folder.file).filename(), "OLMo-2-1B-Q8_0.gguf");
    fs::copy(kDir / "olmo2.gguf", dir_ / "OLMo-2-1B-F32.gguf");
    try {
        locateModel(dir_.string());
        ADD_FAILURE() << "a folder of two models opened one";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("holds 2 GGUF models (OLMo-2-1B-F32.gguf, "
                                             "OLMo-2-1B-Q8_0.gguf); name the file to open"),
                  std::string::npos)
            << e.what();
    }
    fs::create_directories(dir_ / "split");
    for (const json& name : reference()["variants"]["llama2_mha_bf16_split"]["files"])
        fs::copy(kDir / name.get<std::string>(), dir_ / "split" / name.get<std::string>());
    const ModelLocation split = locateModel((dir_ / "split").string());
    EXPECT_EQ(fs::path(split.file).filename(), "llama2_mha_bf16_split-00001-of-00003.gguf");
    EXPECT_EQ(modelDisplayName(split), "llama2_mha_bf16_split");
}

// The whole model (config, tokenizer, weights) through openRealModel, once the tokenizer from
// GGUF metadata is there.
TEST(GgufRealModel, OpensThroughOpenRealModel) {
    try {
        const auto model = openRealModel((kDir / "llama3_gqa_f32.gguf").string());
        EXPECT_EQ(model->location.kind, ModelFolderKind::Gguf);
        EXPECT_EQ(model->config().family, "Llama");
        EXPECT_EQ(model->dtype(), "F32 (GGUF)");
    } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).find("no tokenizer yet") == std::string::npos) throw;
        GTEST_SKIP() << "the tokenizer from GGUF metadata is not merged yet";
    }
}

} // namespace
