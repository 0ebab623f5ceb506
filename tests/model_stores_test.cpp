// core::models' Ollama store and LM Studio folders: names resolve to the GGUF a user means, the
// listings hold what `ollama list` and LM Studio show, and every refusal names the problem.
// Each case builds a fake store under its own temporary HOME.
#include "models/formats/model_stores.h"

#include "build_facts.h"
#include "models/formats/model_folder.h"

#include "thrown_message.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;
using testing_support::thrownMessage;

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// A manifest as `ollama pull` writes it: config, the model layer, a template and a license.
std::string manifest(const std::string& modelHex) {
    return R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
      "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:c0ff","size":5},
      "layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
           modelHex + R"(","size":7},
        {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:7e3","size":3},
        {"mediaType":"application/vnd.ollama.image.license","digest":"sha256:11c","size":3}]})";
}

class ModelStores : public ::testing::Test {
  protected:
    // What the stores and the Hugging Face cache are found by; each case starts with none.
    static constexpr const char* kVariables[] = {"HOME",         "OLLAMA_MODELS",
                                                 "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",
                                                 "HF_HOME",      "XDG_CACHE_HOME"};
    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        home_ = fs::temp_directory_path() /
                ("mha-stores-" + std::to_string(getpid()) + "-" + test->name());
        fs::remove_all(home_);
        fs::create_directories(home_);
        for (const char* name : kVariables)
            if (const char* v = std::getenv(name)) saved_.emplace_back(name, v);
        for (const char* name : kVariables) unsetenv(name);
        setenv("HOME", home_.c_str(), 1);
    }
    void TearDown() override {
        for (const char* name : kVariables) unsetenv(name);
        for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
        fs::remove_all(home_);
    }
    fs::path ollama() const { return home_ / ".ollama" / "models"; }
    // A pulled model: its manifest and its weights blob.
    void pull(const std::string& host, const std::string& space, const std::string& model,
              const std::string& tag, const std::string& hex) {
        write(ollama() / "manifests" / host / space / model / tag, manifest(hex));
        write(ollama() / "blobs" / ("sha256-" + hex), "GGUF...");
    }
    fs::path home_;
    std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(ModelStores, OllamaNamesResolveToTheModelLayersBlob) {
    pull("registry.ollama.ai", "library", "llama3.2", "latest", "aa11");
    pull("registry.ollama.ai", "library", "llama3.2", "1b", "bb22");
    pull("registry.ollama.ai", "someone", "tiny", "q8", "cc33");
    pull("hf.co", "bartowski", "Qwen3-4B-GGUF", "Q4_K_M", "dd44");
    const models::StoredModel latest = models::findOllamaModel("llama3.2");
    EXPECT_EQ(latest.name, "llama3.2:latest");
    EXPECT_EQ(latest.store, "ollama");
    EXPECT_EQ(fs::path(latest.file), ollama() / "blobs" / "sha256-aa11");
    EXPECT_EQ(latest.bytes, 7u);
    EXPECT_EQ(fs::path(models::findOllamaModel("llama3.2:1b").file).filename(), "sha256-bb22");
    EXPECT_EQ(models::findOllamaModel("someone/tiny:q8").name, "someone/tiny:q8");
    EXPECT_EQ(models::findOllamaModel("hf.co/bartowski/Qwen3-4B-GGUF:Q4_K_M").name,
              "hf.co/bartowski/Qwen3-4B-GGUF:Q4_K_M");
    const auto listed = models::listOllamaModels();
    ASSERT_EQ(listed.size(), 4u);
    EXPECT_EQ(listed[0].name, "hf.co/bartowski/Qwen3-4B-GGUF:Q4_K_M");
    EXPECT_EQ(listed[1].name, "llama3.2:1b");
    EXPECT_EQ(listed[2].name, "llama3.2:latest");
    EXPECT_EQ(listed[3].name, "someone/tiny:q8");
}

TEST_F(ModelStores, OllamaModelsVariableWins) {
    const fs::path elsewhere = home_ / "big-disk";
    write(elsewhere / "manifests/registry.ollama.ai/library/gemma3/latest", manifest("ee55"));
    write(elsewhere / "blobs/sha256-ee55", "GGUF");
    setenv("OLLAMA_MODELS", elsewhere.c_str(), 1);
    EXPECT_EQ(fs::path(models::findOllamaModel("gemma3").file), elsewhere / "blobs/sha256-ee55");
}

TEST_F(ModelStores, OllamaRefusalsNameTheProblem) {
    if (!fs::exists("/usr/share/ollama/.ollama/models")) { // the Linux service's store, if any
        const std::string none = thrownMessage([] { models::findOllamaModel("llama3.2"); });
        EXPECT_NE(none.find("no Ollama store"), std::string::npos) << none;
    }
    pull("registry.ollama.ai", "library", "llama3.2", "latest", "aa11");
    const std::string absent = thrownMessage([] { models::findOllamaModel("mistral"); });
    EXPECT_NE(absent.find("not in Ollama's store"), std::string::npos) << absent;
    EXPECT_NE(absent.find("ollama list"), std::string::npos) << absent;
    fs::remove(ollama() / "blobs" / "sha256-aa11");
    const std::string blob = thrownMessage([] { models::findOllamaModel("llama3.2"); });
    EXPECT_NE(blob.find("missing"), std::string::npos) << blob;
    EXPECT_NE(blob.find("ollama pull llama3.2:latest"), std::string::npos) << blob;
    EXPECT_TRUE(models::listOllamaModels().empty()) << "a model without its blob is not listed";
    write(ollama() / "manifests/registry.ollama.ai/library/broken/latest", "{not json");
    EXPECT_NE(
        thrownMessage([] { models::findOllamaModel("broken"); }).find("not an Ollama manifest"),
        std::string::npos);
    for (const char* bad : {"../../etc/passwd", "a/b/c/d", "x:", "/abs"})
        EXPECT_NE(
            thrownMessage([&] { models::findOllamaModel(bad); }).find("not an Ollama model name"),
            std::string::npos)
            << bad;
}

TEST_F(ModelStores, LmStudioReposResolveToTheirGguf) {
    const fs::path lms = home_ / ".lmstudio" / "models";
    write(lms / "lmstudio-community/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf", "GGUF");
    write(lms / "lmstudio-community/Qwen3-4B-GGUF/mmproj-Qwen3-4B-F16.gguf", "GGUF");
    write(lms / "bartowski/Llama-3.2-1B-GGUF/Llama-3.2-1B-Q8_0.gguf", "GGUF");
    write(lms / "bartowski/Llama-3.2-1B-GGUF/Llama-3.2-1B-Q4_K_M.gguf", "GGUF");
    write(lms / "big/Model-GGUF/Model-Q4_K_M-00001-of-00002.gguf", "GGUF");
    write(lms / "big/Model-GGUF/Model-Q4_K_M-00002-of-00002.gguf", "GGUF");
    const models::StoredModel qwen = models::findLmStudioModel("lmstudio-community/Qwen3-4B-GGUF");
    EXPECT_EQ(fs::path(qwen.file).filename(), "Qwen3-4B-Q4_K_M.gguf") << "the projector is not it";
    EXPECT_EQ(qwen.store, "lmstudio");
    EXPECT_EQ(fs::path(models::findLmStudioModel("big/Model-GGUF").file).filename(),
              "Model-Q4_K_M-00001-of-00002.gguf");
    const std::string several =
        thrownMessage([] { models::findLmStudioModel("bartowski/Llama-3.2-1B-GGUF"); });
    EXPECT_NE(several.find("holds 2 GGUF files"), std::string::npos) << several;
    EXPECT_NE(several.find("Llama-3.2-1B-Q8_0.gguf"), std::string::npos) << several;
    EXPECT_EQ(
        fs::path(
            models::findLmStudioModel("bartowski/Llama-3.2-1B-GGUF/Llama-3.2-1B-Q8_0.gguf").file)
            .filename(),
        "Llama-3.2-1B-Q8_0.gguf");
    const auto listed = models::listLmStudioModels();
    ASSERT_EQ(listed.size(), 4u);
    EXPECT_EQ(listed[0].name, "bartowski/Llama-3.2-1B-GGUF/Llama-3.2-1B-Q4_K_M.gguf");
    EXPECT_EQ(listed[2].name, "big/Model-GGUF");
    EXPECT_EQ(listed[3].name, "lmstudio-community/Qwen3-4B-GGUF");
    const std::string absent = thrownMessage([] { models::findLmStudioModel("no/such"); });
    EXPECT_NE(absent.find(lms.string()), std::string::npos) << "names the folders searched";
    EXPECT_NE(
        thrownMessage([] { models::findLmStudioModel("../x"); }).find("not an LM Studio model"),
        std::string::npos);
}

// The dialog's columns: Ollama's config layer gives family, size and file type; LM Studio's file
// name the quantization; a family or a type this build cannot run is named.
TEST_F(ModelStores, EntriesSayWhatTheyAreAndWhyOneCannotRun) {
    pull("registry.ollama.ai", "library", "llama3.2", "latest", "aa11");
    write(ollama() / "blobs/sha256-c0ff",
          R"({"model_format":"gguf","model_family":"llama","model_families":["llama"],)"
          R"("model_type":"3.2B","file_type":"Q4_K_M","architecture":"amd64","os":"linux"})");
    const models::StoredModel llama = models::findOllamaModel("llama3.2");
    EXPECT_EQ(llama.family, "llama");
    EXPECT_EQ(llama.parameters, "3.2B");
    EXPECT_EQ(llama.quantization, "Q4_K_M");
    EXPECT_EQ(llama.unsupported, "");
    EXPECT_EQ(models::listOllamaModels().at(0).quantization, "Q4_K_M");

    const fs::path lms = home_ / ".lmstudio" / "models";
    write(lms / "a/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q5_K_S.gguf", "GGUF");
    write(lms / "b/Qwen3-8B-GGUF/Qwen3-8B-IQ3_XXS.gguf", "GGUF");
    write(lms / "c/gemma-3-1b-it-GGUF/gemma-3-1b-it-bf16.gguf", "GGUF");
    EXPECT_EQ(models::findLmStudioModel("a/Llama-3.2-1B-Instruct-GGUF").quantization, "Q5_K_S");
    EXPECT_EQ(models::findLmStudioModel("c/gemma-3-1b-it-GGUF").quantization, "BF16");
    const models::StoredModel iq = models::findLmStudioModel("b/Qwen3-8B-GGUF");
    EXPECT_EQ(iq.quantization, "IQ3_XXS");
    EXPECT_NE(iq.unsupported.find("IQ3_XXS"), std::string::npos) << iq.unsupported;

    const std::vector<std::string> runnable = {"llama", "qwen3"};
    EXPECT_EQ(models::architectureProblem("mamba", runnable),
              "architecture mamba (mha-viz runs llama, qwen3)");
    EXPECT_EQ(models::architectureProblem("qwen3", runnable), "");
    EXPECT_EQ(models::quantizationProblem("Q8_0"), "");
    EXPECT_NE(models::quantizationProblem("tq1_0").find("TQ1_0"), std::string::npos);
}

TEST_F(ModelStores, OlderLmStudioFolderIsSearchedToo) {
    write(home_ / ".cache/lm-studio/models/TheBloke/Mistral-GGUF/mistral.Q5_K_M.gguf", "GGUF");
    EXPECT_EQ(fs::path(models::findLmStudioModel("TheBloke/Mistral-GGUF").file).filename(),
              "mistral.Q5_K_M.gguf");
    EXPECT_EQ(models::listLmStudioModels().size(), 1u);
}

// --model NAME: the Hugging Face cache first, then Ollama's store, then LM Studio's folders;
// ollama: and lmstudio: force one. A found GGUF is named by the store's name, not its digest.
TEST_F(ModelStores, ModelNamesReachTheStoresAfterTheCache) {
    const fs::path gguf = fs::path(build_facts::fixtureDir()) / "gguf" / "llama3_q8_0.gguf";
    write(ollama() / "manifests/registry.ollama.ai/library/tiny/latest", manifest("aa11"));
    fs::create_directories(ollama() / "blobs");
    fs::copy_file(gguf, ollama() / "blobs" / "sha256-aa11");
    const fs::path lms = home_ / ".lmstudio" / "models" / "pub" / "tiny-GGUF";
    fs::create_directories(lms);
    fs::copy_file(gguf, lms / "tiny-Q8_0.gguf");

    const models::ModelLocation byName = models::locateModel("tiny");
    EXPECT_EQ(byName.kind, models::ModelFolderKind::Gguf);
    EXPECT_EQ(fs::path(byName.file), ollama() / "blobs" / "sha256-aa11");
    EXPECT_EQ(models::modelDisplayName(byName), "tiny:latest") << "the store's name, not a digest";
    EXPECT_EQ(byName.source, "tiny");
    EXPECT_EQ(fs::path(models::locateModel("ollama:tiny:latest").file).filename(), "sha256-aa11");
    const models::ModelLocation lm = models::locateModel("pub/tiny-GGUF");
    EXPECT_EQ(fs::path(lm.file), lms / "tiny-Q8_0.gguf") << "not in Ollama: LM Studio's";
    EXPECT_EQ(models::modelDisplayName(lm), "pub/tiny-GGUF");
    EXPECT_EQ(fs::path(models::locateModel("lmstudio:pub/tiny-GGUF").file), lms / "tiny-Q8_0.gguf");

    // The same name in the Hugging Face cache wins.
    const fs::path snapshot = home_ / ".cache/huggingface/hub/models--pub--tiny-GGUF/snapshots/a";
    fs::create_directories(snapshot);
    fs::copy_file(gguf, snapshot / "tiny.gguf");
    EXPECT_EQ(fs::path(models::locateModel("pub/tiny-GGUF").file), snapshot / "tiny.gguf");

    const std::string nowhere = thrownMessage([] { models::locateModel("nothing-here"); });
    EXPECT_NE(nowhere.find("nor is it in Ollama's store or LM Studio's folders"), std::string::npos)
        << nowhere;
    const std::string forced = thrownMessage([] { models::locateModel("ollama:pub/tiny-GGUF"); });
    EXPECT_NE(forced.find("not in Ollama's store"), std::string::npos) << forced;
}

} // namespace
