// Arbitrary bytes -> the attention-file reader (core/models/formats/attention_file.h), written
// as a .safetensors file in a folder of its own beside a tokens.json of three tokens (read when
// the bytes' metadata has none), then made into what the views show
// (core/models/analyses/saved_attention.h). The one failure they document is
// std::invalid_argument; anything else escapes and counts as a crash. What they accept must be
// what the contract says: every layer [H][N][N] for the N tokens, every weight in [0, 1].
#include "fuzz_check.h"

#include "models/analyses/saved_attention.h"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;

// One folder per process (-jobs=N), removed at exit; run_fuzzers.sh points TMPDIR into its
// work folder, which it deletes (libFuzzer's own end skips atexit).
const fs::path& folder() {
    static const fs::path dir = [] {
        const fs::path made =
            fs::temp_directory_path() / ("mha-fuzz-attention-" + std::to_string(::getpid()));
        fs::create_directories(made);
        std::ofstream(made / "tokens.json") << "[\"a\", \"b\", \"c\"]";
        std::atexit([] { fs::remove_all(folder()); });
        return made;
    }();
    return dir;
}

void checkStack(const models::AttentionStack& s, int queries, int keys) {
    FUZZ_CHECK(s.heads >= 1 && s.heads <= models::kMaxAttentionHeads);
    FUZZ_CHECK(s.queries == queries && (keys < 0 || s.keys == keys));
    for (const core::Mat& layer : s.layers) {
        FUZZ_CHECK(layer.rows() == core::Mat::Index(s.heads) * s.queries);
        FUZZ_CHECK(layer.cols() == s.keys);
        for (Eigen::Index i = 0; i < layer.size(); ++i)
            FUZZ_CHECK(std::isfinite(layer.data()[i]) && layer.data()[i] >= -0.01f &&
                       layer.data()[i] <= 1.01f);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path path = folder() / "a.safetensors";
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), std::streamsize(size));
    models::AttentionFile file;
    try {
        file = models::readAttentionFile(path.string());
    } catch (const std::invalid_argument&) {
        return 0;
    }
    const int n = int(file.tokens.size());
    FUZZ_CHECK(n >= 1 && !file.self.empty());
    checkStack(file.self, n, n);
    const int ns = int(file.sourceTokens.size());
    if (!file.encoder.empty()) checkStack(file.encoder, ns, ns);
    if (!file.cross.empty()) checkStack(file.cross, n, ns);
    for (const std::string& token : file.tokens) FUZZ_CHECK(fuzz::isValidUtf8(token));
    const auto saved = models::savedAttentionOf(std::move(file)); // the views' maps
    FUZZ_CHECK(saved->layerCount() == int(saved->self.rollout.size()));
    FUZZ_CHECK(saved->self.sinkShares.rows() == saved->layerCount());
    FUZZ_CHECK(saved->encoder.rollout.size() == saved->encoder.layers.size());
    FUZZ_CHECK(saved->cross.thumbnails.size() ==
               saved->cross.layers.size() * std::size_t(saved->cross.heads));
    return 0;
}
