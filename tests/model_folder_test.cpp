// core::models::locateModel, hfFiles and readModelConfig: which folders and cache names
// `mha-viz --model` opens, and the one-line refusals for the rest. Every case builds its
// folders (and a fake Hugging Face cache) under its own temporary folder.
#include "models/formats/model_folder.h"

#include "thrown_message.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;
using testing_support::thrownMessage;

const char* const kTinyGpt2 = R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8,
    "n_positions": 16, "vocab_size": 50})";

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// A folder as `huggingface-cli download` leaves it for a small GPT-2.
void writeHfFolder(const fs::path& dir) {
    write(dir / "config.json", kTinyGpt2);
    write(dir / "model.safetensors", "weights");
    write(dir / "vocab.json", "{}");
    write(dir / "merges.txt", "#version: 0.2\n");
}

// Every message is checked for the words a user needs, not for its exact wording.
void expectWords(const std::string& message, const std::vector<std::string>& words) {
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const std::string& word : words)
        EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' in: " << message;
}

class ModelFolder : public ::testing::Test {
  protected:
    // The variables the cache lookup reads; each test starts with none of them set.
    static constexpr const char* kVariables[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                                                 "XDG_CACHE_HOME", "HOME"};

    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        root_ = fs::temp_directory_path() /
                ("mha-model-folder-" + std::to_string(getpid()) + "-" + test->name());
        fs::remove_all(root_);
        fs::create_directories(root_);
        for (const char* name : kVariables) {
            const char* value = std::getenv(name);
            saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
            unsetenv(name);
        }
    }

    void TearDown() override {
        for (std::size_t i = 0; i < saved_.size(); ++i)
            if (saved_[i])
                setenv(kVariables[i], saved_[i]->c_str(), 1);
            else
                unsetenv(kVariables[i]);
        fs::remove_all(root_);
    }

    // A cache entry models--FOLDER with one snapshot whose files are links into blobs/, as
    // huggingface_hub writes them; returns the snapshot folder.
    fs::path writeCacheEntry(const fs::path& cache, const std::string& folder,
                             const std::string& hash, bool withRef = true) {
        const fs::path repo = cache / folder;
        const fs::path snapshot = repo / "snapshots" / hash;
        fs::create_directories(snapshot);
        const fs::path staging = root_ / ("staging-" + folder + hash);
        writeHfFolder(staging);
        for (const fs::directory_entry& file : fs::directory_iterator(staging)) {
            const std::string blob = hash + "-" + file.path().filename().string();
            fs::create_directories(repo / "blobs");
            fs::rename(file.path(), repo / "blobs" / blob);
            fs::create_symlink(fs::path("../../blobs") / blob, snapshot / file.path().filename());
        }
        fs::remove_all(staging);
        if (withRef) write(repo / "refs" / "main", hash + "\n");
        return snapshot;
    }

    fs::path root_;
    std::vector<std::optional<std::string>> saved_;
};

std::string locateError(const std::string& dirOrName) {
    return thrownMessage([&] { models::locateModel(dirOrName); });
}

std::string filesError(const fs::path& dir) {
    return thrownMessage([&] {
        models::hfFiles({models::ModelFolderKind::HuggingFace, dir, "", ""});
    });
}

} // namespace

TEST_F(ModelFolder, AHuggingFaceFolderAndItsFiles) {
    const fs::path dir = root_ / "gpt2";
    writeHfFolder(dir);
    write(dir / "tokenizer_config.json", "{}");
    const models::ModelLocation location = models::locateModel(dir.string());
    EXPECT_EQ(location.kind, models::ModelFolderKind::HuggingFace);
    EXPECT_EQ(location.dir, dir.string());
    EXPECT_EQ(location.source, dir.string());
    const models::HfFiles files = models::hfFiles(location);
    EXPECT_EQ(files.config, (dir / "config.json").string());
    EXPECT_EQ(files.weights, std::vector<std::string>{(dir / "model.safetensors").string()});
    EXPECT_TRUE(files.shardOf.empty());
    EXPECT_EQ(files.vocabJson, (dir / "vocab.json").string());
    EXPECT_EQ(files.merges, (dir / "merges.txt").string());
    EXPECT_EQ(files.tokenizerConfig, (dir / "tokenizer_config.json").string());
    EXPECT_EQ(files.tokenizerJson, "");
    EXPECT_EQ(files.vocabTxt, "");
}

TEST_F(ModelFolder, ARunFolderOfMhaVizTrain) {
    write(root_ / "run" / "model.json", "{}");
    const models::ModelLocation location = models::locateModel((root_ / "run").string());
    EXPECT_EQ(location.kind, models::ModelFolderKind::TrainRun);
    EXPECT_EQ(location.dir, (root_ / "run").string());
}

TEST_F(ModelFolder, AFolderThatIsNeitherOrAFile) {
    const fs::path dir = root_ / "photos";
    write(dir / "cat.png", "png");
    EXPECT_EQ(locateError(dir.string()),
              dir.string() + ": not a model folder (no config.json, model.json or .gguf file)");
    expectWords(locateError((dir / "cat.png").string()), {"cat.png", "not a model folder"});
    expectWords(locateError((root_ / "no" / "such").string()), {"no such folder"});
    expectWords(locateError(""), {"no model given"});
}

TEST_F(ModelFolder, OnlyPytorchWeightsAreRefusedWithWhatToDownload) {
    const fs::path dir = root_ / "torch";
    write(dir / "config.json", kTinyGpt2);
    write(dir / "pytorch_model.bin", "pickle");
    write(dir / "vocab.json", "{}");
    write(dir / "merges.txt", "");
    EXPECT_EQ(locateError(dir.string()),
              dir.string() + ": only pytorch_model.bin, which mha-viz does not read; download " +
                  "model.safetensors from the model's page");
    expectWords(filesError(dir), {"pytorch_model.bin", "download model.safetensors"});
    fs::remove(dir / "pytorch_model.bin");
    write(dir / "pytorch_model-00001-of-00002.bin", "pickle");
    expectWords(locateError(dir.string()),
                {"only pytorch_model-00001-of-00002.bin", "model.safetensors"});
    fs::remove(dir / "pytorch_model-00001-of-00002.bin");
    write(dir / "tf_model.h5", "hdf5");
    expectWords(locateError(dir.string()), {"only tf_model.h5", "model.safetensors"});
    write(dir / "model.safetensors", "weights"); // both: the safetensors are read
    EXPECT_EQ(models::locateModel(dir.string()).kind, models::ModelFolderKind::HuggingFace);
}

TEST_F(ModelFolder, NoWeightsOrNoTokenizerIsNamed) {
    const fs::path dir = root_ / "bare";
    writeHfFolder(dir);
    fs::remove(dir / "model.safetensors");
    expectWords(filesError(dir), {dir.string(), "no weights", "model.safetensors"});
    writeHfFolder(dir);
    fs::remove(dir / "merges.txt");
    expectWords(filesError(dir), {dir.string(), "no tokenizer files", "but not merges.txt",
                                  "vocab.json + merges.txt", "tokenizer.json", "vocab.txt"});
    write(dir / "tokenizer.json", "{}");
    EXPECT_EQ(
        models::hfFiles({models::ModelFolderKind::HuggingFace, dir.string(), "", ""}).tokenizerJson,
        (dir / "tokenizer.json").string());
}

TEST_F(ModelFolder, ShardsListedOnceInIndexOrder) {
    const fs::path dir = root_ / "sharded";
    writeHfFolder(dir);
    fs::remove(dir / "model.safetensors");
    write(dir / "model-00001-of-00002.safetensors", "a");
    write(dir / "model-00002-of-00002.safetensors", "b");
    write(dir / "model.safetensors.index.json", R"({"metadata": {"total_size": 2},
        "weight_map": {"wte.weight": "model-00001-of-00002.safetensors",
                       "h.0.attn.c_attn.weight": "model-00001-of-00002.safetensors",
                       "ln_f.weight": "model-00002-of-00002.safetensors"}})");
    const models::HfFiles files =
        models::hfFiles({models::ModelFolderKind::HuggingFace, dir.string(), "", ""});
    const std::string first = (dir / "model-00001-of-00002.safetensors").string();
    const std::string second = (dir / "model-00002-of-00002.safetensors").string();
    EXPECT_EQ(files.weights, std::vector<std::string>({first, second}));
    EXPECT_EQ(files.shardOf.size(), 3u);
    EXPECT_EQ(files.shardOf.at("wte.weight"), first);
    EXPECT_EQ(files.shardOf.at("ln_f.weight"), second);
}

TEST_F(ModelFolder, BadShardIndexesAreRefused) {
    const fs::path dir = root_ / "sharded";
    writeHfFolder(dir);
    fs::remove(dir / "model.safetensors");
    write(root_ / "x.safetensors", "outside");
    const auto index = [&](const std::string& text) {
        write(dir / "model.safetensors.index.json", text);
        return filesError(dir);
    };
    expectWords(index(R"({"weight_map": {"w": "model-00002-of-00002.safetensors"}})"),
                {"model.safetensors.index.json", "model-00002-of-00002.safetensors", "missing",
                 dir.string()});
    expectWords(index(R"({"weight_map": {"w": "../x.safetensors"}})"),
                {"model.safetensors.index.json", "../x.safetensors", "file name"});
    expectWords(index(R"({"weight_map": {"w": "/tmp/x.safetensors"}})"), {"file name"});
    expectWords(index(R"({"weight_map": {"w": "sub/x.safetensors"}})"), {"file name"});
    expectWords(index(R"({"weight_map": {"w": "notes.txt"}})"), {"not a .safetensors file"});
    expectWords(index(R"({"weight_map": {"w": 3}})"), {"tensor 'w'", "file name"});
    expectWords(index(R"({"weight_map": {}})"), {"names no tensors"});
    expectWords(index(R"({"metadata": {}})"), {"missing \"weight_map\""});
    EXPECT_EQ(index("{\"weight_map\": "),
              "model.safetensors.index.json: not valid JSON (it ends early, line 1)");
    EXPECT_EQ(index("[1, 2]"), "model.safetensors.index.json: not a JSON object");
}

TEST_F(ModelFolder, ANameInTheCacheFollowsRefsMainAndItsLinks) {
    const fs::path cache = root_ / "hub";
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    const fs::path snapshot = writeCacheEntry(cache, "models--someone--tiny-gpt2", "abc123");
    writeCacheEntry(cache, "models--someone--tiny-gpt2", "old999"); // refs/main says abc123
    write(cache / "models--someone--tiny-gpt2" / "refs" / "main", "  abc123 \n");
    const models::ModelLocation location = models::locateModel("someone/tiny-gpt2");
    EXPECT_EQ(location.kind, models::ModelFolderKind::HuggingFace);
    EXPECT_EQ(location.dir, snapshot.string());
    EXPECT_EQ(location.source, "someone/tiny-gpt2");
    const models::HfFiles files = models::hfFiles(location);
    EXPECT_EQ(files.weights, std::vector<std::string>{(snapshot / "model.safetensors").string()});
    EXPECT_EQ(models::readModelConfig(files.config).layers, 2); // read through the link
    // A link whose blob is gone (an interrupted download) is a missing file, named.
    fs::remove(fs::canonical(snapshot / "merges.txt"));
    expectWords(thrownMessage([&] { models::hfFiles(location); }),
                {"merges.txt", "missing file", "download merges.txt again"});
    write(cache / "models--someone--tiny-gpt2" / "refs" / "main", "fff000");
    expectWords(locateError("someone/tiny-gpt2"), {"refs/main", "fff000", "missing"});
}

TEST_F(ModelFolder, WithoutRefsMainTheNewestSnapshot) {
    const fs::path cache = root_ / "hub";
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    const fs::path only = writeCacheEntry(cache, "models--org--m", "one", false);
    EXPECT_EQ(models::locateModel("org/m").dir, only.string());
    const fs::path newer = writeCacheEntry(cache, "models--org--m", "two", false);
    const auto now = fs::file_time_type::clock::now();
    fs::last_write_time(only, now - std::chrono::hours(2));
    fs::last_write_time(newer, now - std::chrono::hours(1));
    EXPECT_EQ(models::locateModel("org/m").dir, newer.string());
    fs::remove_all(cache / "models--org--m" / "snapshots");
    expectWords(locateError("org/m"), {"models--org--m", "no snapshots", "nothing is downloaded"});
}

TEST_F(ModelFolder, TheCacheFolderComesFromTheEnvironmentInHuggingFacesOrder) {
    const fs::path home = root_ / "home";
    setenv("HOME", home.c_str(), 1);
    const fs::path inHome =
        writeCacheEntry(home / ".cache" / "huggingface" / "hub", "models--org--m", "h1");
    EXPECT_EQ(models::locateModel("org/m").dir, inHome.string());
    const fs::path hfHome = root_ / "hf-home";
    setenv("HF_HOME", hfHome.c_str(), 1);
    expectWords(locateError("org/m"), {(hfHome / "hub").string(), "models--org--m"});
    const fs::path inHfHome = writeCacheEntry(hfHome / "hub", "models--org--m", "h2");
    EXPECT_EQ(models::locateModel("org/m").dir, inHfHome.string());
    setenv("HF_HUB_CACHE", (root_ / "hub").c_str(), 1);
    expectWords(locateError("org/m"), {(root_ / "hub").string()});
}

TEST_F(ModelFolder, ABareNameIsAlsoTriedUnderOpenaiCommunity) {
    const fs::path cache = root_ / "hub";
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    const fs::path renamed = writeCacheEntry(cache, "models--openai-community--gpt2", "new");
    EXPECT_EQ(models::locateModel("gpt2").dir, renamed.string());
    EXPECT_EQ(models::locateModel("openai-community/gpt2").dir, renamed.string());
    const fs::path old = writeCacheEntry(cache, "models--gpt2", "old"); // as named at download
    EXPECT_EQ(models::locateModel("gpt2").dir, old.string());
}

// The --help example bert-base-uncased, cached by today's hub as google-bert/bert-base-uncased.
TEST_F(ModelFolder, ABareNameIsFoundUnderTheOneOrganisationThatHasIt) {
    const fs::path cache = root_ / "hub";
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    const fs::path bert = writeCacheEntry(cache, "models--google-bert--bert-base-uncased", "b1");
    writeCacheEntry(cache, "models--google-bert--bert-base-cased", "b2");
    EXPECT_EQ(models::locateModel("bert-base-uncased").dir, bert.string());
    writeCacheEntry(cache, "models--someone--bert-base-uncased", "b3");
    expectWords(locateError("bert-base-uncased"),
                {"google-bert/bert-base-uncased", "someone/bert-base-uncased", "name one"});
    expectWords(locateError("uncased"), {"models--uncased"}); // a tail of a name is not a name
}

TEST_F(ModelFolder, ANameNotInTheCacheSaysWhereItLookedAndWhatToDo) {
    const fs::path cache = root_ / "hub";
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    const std::string message = locateError("distilgpt2");
    expectWords(message, {"'distilgpt2'", cache.string(), "models--distilgpt2",
                          "models--openai-community--distilgpt2", "downloads nothing",
                          "path of a model folder"});
    expectWords(locateError("org/name"), {"models--org--name", cache.string()});
    unsetenv("HF_HUB_CACHE");
    expectWords(locateError("gpt2"), {"no HF_HOME or HOME"});
}

// The "Open model" dialog's list: what is in the cache, its type, and whether it opens; a
// broken entry is listed with its problem or left out, never thrown.
TEST_F(ModelFolder, TheCachedModelsAreListedWithTheirTypes) {
    const fs::path cache = root_ / "hub";
    setenv("HF_HUB_CACHE", cache.c_str(), 1);
    EXPECT_EQ(models::hubCacheDir(), cache.string());
    EXPECT_TRUE(models::listCachedModels().empty()); // the folder does not even exist
    const fs::path gpt2 = writeCacheEntry(cache, "models--someone--tiny-gpt2", "abc");
    writeCacheEntry(cache, "models--gpt2", "old");
    const fs::path t5 = writeCacheEntry(cache, "models--google--t5-tiny", "b1");
    write(fs::canonical(t5 / "config.json"), R"({"model_type": "t5"})");
    const fs::path broken = writeCacheEntry(cache, "models--org--broken", "x1");
    write(fs::canonical(broken / "config.json"), "{not json");
    writeCacheEntry(cache, "models--org--dangling", "d1");
    write(cache / "models--org--dangling" / "refs" / "main", "gone");          // names no snapshot
    fs::create_directories(cache / "models--org--empty" / "snapshots" / "e1"); // no config.json
    writeCacheEntry(cache, "datasets--org--data", "s1");                       // not a model
    write(cache / "models--org--file", "a file, not a folder");

    const std::vector<models::CachedModel> list = models::listCachedModels();
    std::vector<std::string> names;
    for (const models::CachedModel& m : list) names.push_back(m.name);
    EXPECT_EQ(names, (std::vector<std::string>{"google/t5-tiny", "gpt2", "org/broken",
                                               "someone/tiny-gpt2"}));
    ASSERT_EQ(list.size(), 4u);
    EXPECT_EQ(list[3].dir, gpt2.string());
    EXPECT_EQ(list[3].modelType, "gpt2");
    EXPECT_TRUE(list[3].supported);
    EXPECT_EQ(list[3].error, "");
    EXPECT_EQ(list[0].modelType, "t5");
    EXPECT_TRUE(list[0].supported) << "an encoder-decoder opens in the window too";
    EXPECT_EQ(list[0].error, "");
    EXPECT_FALSE(list[2].supported);
    expectWords(list[2].error, {"config.json", "not valid JSON"});
    EXPECT_EQ(models::locateModel(list[3].name).dir, list[3].dir); // a click opens this folder
}

TEST_F(ModelFolder, Gpt2ConfigWithDefaults) {
    write(root_ / "config.json", kTinyGpt2);
    const models::ModelConfig c = models::readModelConfig((root_ / "config.json").string());
    EXPECT_EQ(c.modelType, "gpt2");
    EXPECT_EQ(c.layers, 2);
    EXPECT_EQ(c.heads, 2);
    EXPECT_EQ(c.dModel, 8);
    EXPECT_EQ(c.dInner, 32); // 4 * n_embd
    EXPECT_EQ(c.nPositions, 16);
    EXPECT_EQ(c.vocabSize, 50);
    EXPECT_DOUBLE_EQ(c.layerNormEpsilon, 1e-5);
    EXPECT_EQ(c.activation, "gelu_new");
    EXPECT_EQ(c.typeVocabSize, 0);
    EXPECT_EQ(c.padTokenId, -1);
    const std::vector<std::string> gpt2 = {"gpt2"};
    EXPECT_EQ(models::parseModelConfig(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 1,
        "n_embd": 4, "n_inner": null, "n_ctx": 7, "vocab_size": 3, "layer_norm_epsilon": 0.001,
        "activation_function": "relu"})",
                                       gpt2)
                  .dInner,
              16);
    const models::ModelConfig old = models::parseModelConfig(
        R"({"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 4, "n_inner": 6,
            "n_ctx": 7, "vocab_size": 3, "layer_norm_epsilon": 0.001,
            "activation_function": "relu"})",
        gpt2);
    EXPECT_EQ(old.dInner, 6);
    EXPECT_EQ(old.nPositions, 7); // n_ctx, from configs older than n_positions
    EXPECT_DOUBLE_EQ(old.layerNormEpsilon, 0.001);
    EXPECT_EQ(old.activation, "relu");
}

TEST_F(ModelFolder, BadConfigsAreRefusedInOneLine) {
    const std::string path = (root_ / "config.json").string();
    const auto config = [&](const std::string& text) {
        write(path, text);
        return thrownMessage([&] { models::readModelConfig(path); });
    };
    const auto gpt2With = [&](const std::string& field) {
        return config(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8,
            "n_positions": 16, "vocab_size": 50, )" +
                      field + "}");
    };
    EXPECT_EQ(thrownMessage([&] { models::readModelConfig(path); }),
              "config.json: cannot read " + path);
    // Named by the file's path, with where the JSON goes wrong as an editor counts it.
    EXPECT_EQ(config("{\"model_type\": "), path + ": not valid JSON (it ends early, line 1)");
    EXPECT_EQ(config("{\n  \"model_type\": \"gpt2\",\n  \"n_layer\": 2,,\n}"),
              path + ": not valid JSON (line 3, column 16)"); // the second comma
    EXPECT_EQ(config("\"gpt2\""), path + ": not a JSON object");
    EXPECT_EQ(config(R"({"model_type": "t5", "d_model": 8})"),
              path + ": model_type \"t5\" is not supported yet (supported: gpt2, bert, "
                     "roberta, distilbert, llama, mistral, qwen2, qwen3, gemma, gemma2, "
                     "gemma3_text, gemma3, phi3, olmo2)");
    expectWords(config(R"({"model_type": "bert", "hidden_size": 8})"),
                {"config.json: ", "missing \"num_hidden_layers\""});
    expectWords(config(R"({"model_type": "bert", "num_hidden_layers": 2, "num_attention_heads": 2,
                           "hidden_size": 8, "intermediate_size": 16, "vocab_size": 30,
                           "max_position_embeddings": 16, "position_embedding_type": "relative_key"})"),
                {"position_embedding_type \"relative_key\" is not supported"});
    expectWords(
        config(R"({"model_type": "roberta", "num_hidden_layers": 2, "num_attention_heads": 2,
                           "hidden_size": 8, "intermediate_size": 16, "vocab_size": 30,
                           "max_position_embeddings": 2, "pad_token_id": 1})"),
        {"max_position_embeddings 2 leaves no position after pad_token_id 1"});
    expectWords(config(R"({"n_layer": 2})"), {"config.json: ", "model_type", "supported: gpt2"});
    expectWords(config(R"({"model_type": "gpt2", "n_head": 2})"),
                {"config.json: ", "missing \"n_layer\""});
    expectWords(gpt2With(R"("n_inner": "big")"), {"config.json: ", "n_inner", "whole number"});
    expectWords(gpt2With(R"("n_inner": 12.5)"), {"n_inner", "whole number"});
    expectWords(gpt2With(R"("n_inner": 0)"), {"n_inner", "out of range"});
    expectWords(gpt2With(R"("n_inner": -4)"), {"n_inner", "out of range"});
    expectWords(gpt2With(R"("layer_norm_epsilon": 0)"), {"layer_norm_epsilon"});
    expectWords(gpt2With(R"("pad_token_id": 50)"), {"pad_token_id", "out of range"});
    expectWords(config(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 3, "n_embd": 8})"),
                {"config.json: ", "n_head 3 does not divide n_embd 8"});
    expectWords(config(R"({"model_type": "gpt2", "n_layer": 100000, "n_head": 2, "n_embd": 8})"),
                {"n_layer", "out of range"});
    expectWords(config(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8,
                           "n_positions": 16, "vocab_size": 99999999999})"),
                {"vocab_size", "out of range"});
    expectWords(config(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8,
                           "vocab_size": 50})"),
                {"missing \"n_positions\""});
}

TEST_F(ModelFolder, BertFamiliesAreRead) {
    EXPECT_EQ(models::supportedModelTypes(),
              (std::vector<std::string>{"gpt2", "bert", "roberta", "distilbert", "llama", "mistral",
                                        "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text",
                                        "gemma3", "phi3", "olmo2"}));
    const std::vector<std::string>& all = models::readableModelTypes();
    const models::ModelConfig bert = models::parseModelConfig(
        R"({"model_type": "bert", "num_hidden_layers": 12, "num_attention_heads": 12,
            "hidden_size": 768, "intermediate_size": 3072, "max_position_embeddings": 512,
            "vocab_size": 30522, "hidden_act": "gelu", "type_vocab_size": 2,
            "pad_token_id": 0})",
        all);
    EXPECT_EQ(bert.layers, 12);
    EXPECT_EQ(bert.dInner, 3072);
    EXPECT_DOUBLE_EQ(bert.layerNormEpsilon, 1e-12);
    EXPECT_EQ(bert.typeVocabSize, 2);
    EXPECT_EQ(bert.padTokenId, 0);
    const models::ModelConfig roberta = models::parseModelConfig(
        R"({"model_type": "roberta", "num_hidden_layers": 1, "num_attention_heads": 2,
            "hidden_size": 8, "intermediate_size": 16, "max_position_embeddings": 514,
            "vocab_size": 50265, "layer_norm_eps": 1e-05, "pad_token_id": 1})",
        all);
    EXPECT_EQ(roberta.padTokenId, 1);
    EXPECT_EQ(roberta.nPositions, 512); // positions 2..513 are a token's
    EXPECT_EQ(roberta.positionRows, 514);
    EXPECT_EQ(bert.positionRows, 512);
    const models::ModelConfig distil = models::parseModelConfig(
        R"({"model_type": "distilbert", "n_layers": 6, "n_heads": 12, "dim": 768,
            "hidden_dim": 3072, "max_position_embeddings": 512, "vocab_size": 30522,
            "activation": "gelu"})",
        all);
    EXPECT_EQ(distil.layers, 6);
    EXPECT_EQ(distil.dModel, 768);
    expectWords(thrownMessage([&] { models::parseModelConfig(R"({"model_type": "t5"})", all); }),
                {"\"t5\" is not supported yet", "gpt2, bert, roberta, distilbert"});
}
