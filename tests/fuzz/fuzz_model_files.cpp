// Arbitrary bytes -> the readers of a Hugging Face model folder
// (core/models/formats/model_folder.h): written as config.json for readModelConfig (and parsed by
// every family's reader), and as model.safetensors.index.json for hfFiles, in a folder of its own
// that also holds two shards and a tokenizer. The one failure they document is
// std::invalid_argument; anything else escapes and counts as a crash. What they accept must be
// consistent: sizes in range, heads dividing the width, and every shard a file inside the folder
// (no path leaves it).
#include "fuzz_check.h"

#include "models/formats/model_folder.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;

void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// One folder per process, its name with the pid so parallel jobs (-jobs=N) do not share it.
// Removed at exit; libFuzzer's own end skips atexit, so run_fuzzers.sh points TMPDIR into
// its work folder, which it deletes.
const fs::path& modelDir() {
    static const fs::path dir = [] {
        const fs::path made =
            fs::temp_directory_path() / ("mha-fuzz-model-files-" + std::to_string(::getpid()));
        fs::create_directories(made);
        write(made / "model-00001-of-00002.safetensors", "a");
        write(made / "model-00002-of-00002.safetensors", "b");
        write(made / "vocab.json", "{}");
        write(made / "merges.txt", "");
        std::atexit([] { fs::remove_all(modelDir()); });
        return made;
    }();
    return dir;
}

void checkConfig(const models::ModelConfig& c) {
    FUZZ_CHECK(c.layers >= 1 && c.layers <= 256);
    FUZZ_CHECK(c.heads >= 1 && c.dModel >= 1 && c.dModel <= 65536 && c.dModel % c.heads == 0);
    FUZZ_CHECK(c.dInner >= 1 && c.nPositions >= 1);
    FUZZ_CHECK(c.vocabSize >= 1 && c.vocabSize <= 10'000'000);
    FUZZ_CHECK(c.layerNormEpsilon > 0 && c.layerNormEpsilon < 1);
    FUZZ_CHECK(c.padTokenId >= -1 && c.padTokenId < c.vocabSize);
    FUZZ_CHECK(c.positionRows >= c.nPositions && c.typeVocabSize >= 0);
}

void checkConfigFile(const std::string& bytes) {
    const fs::path path = modelDir() / "config.json";
    write(path, bytes);
    try {
        const models::ModelConfig config = models::readModelConfig(path.string());
        const std::vector<std::string>& families = models::supportedModelTypes();
        FUZZ_CHECK(std::find(families.begin(), families.end(), config.modelType) != families.end());
        checkConfig(config);
    } catch (const std::invalid_argument&) {
    }
    try {
        checkConfig(models::parseModelConfig(bytes, models::readableModelTypes()));
    } catch (const std::invalid_argument&) {
    }
}

void checkShardIndex(const std::string& bytes) {
    write(modelDir() / "model.safetensors.index.json", bytes);
    models::HfFiles files;
    try {
        files =
            models::hfFiles({models::ModelFolderKind::HuggingFace, modelDir().string(), "", ""});
    } catch (const std::invalid_argument&) {
        return;
    }
    FUZZ_CHECK(!files.weights.empty() && !files.shardOf.empty());
    for (const std::string& shard : files.weights) {
        FUZZ_CHECK(fs::path(shard).parent_path() == modelDir());
        FUZZ_CHECK(fs::is_regular_file(shard));
    }
    for (const auto& [tensor, shard] : files.shardOf)
        FUZZ_CHECK(std::find(files.weights.begin(), files.weights.end(), shard) !=
                   files.weights.end());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    checkConfigFile(bytes);
    checkShardIndex(bytes);
    return 0;
}
