// Arbitrary bytes -> the GGUF reader (core/models/formats/gguf_file.h) and what reads a GGUF
// model after it (core/models/gguf_model.h: the architecture's config from the metadata, the
// tokenizer's arrays, the tensors bound onto the Llama family's blocks). The bytes are written
// as a .gguf file of their own. The one failure they document is std::invalid_argument;
// anything else escapes and counts as a crash. What they accept must be consistent: every
// tensor's bytes inside the mapped file, sizes in range, the vocabulary's arrays one per token.
#include "fuzz_check.h"

#include "models/architectures.h"
#include "models/formats/gguf_file.h"
#include "models/gguf_model.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;

// One file per process, its name with the pid so parallel jobs (-jobs=N) do not share it;
// run_fuzzers.sh points TMPDIR into its work folder, which it deletes.
const fs::path& ggufPath() {
    static const fs::path path =
        fs::temp_directory_path() / ("mha-fuzz-" + std::to_string(::getpid()) + ".gguf");
    static const bool removed = (std::atexit([] { fs::remove(ggufPath()); }), true);
    (void)removed;
    return path;
}

// Each tensor's bytes lie inside the mapping, its shape in Hugging Face's order.
void checkTensors(const models::GgufFile& file) {
    const std::byte* begin = file.mapping()->data();
    const std::byte* end = begin + file.mapping()->size();
    for (const models::TensorView& t : file.tensors()) {
        FUZZ_CHECK(!t.shape.empty() && t.shape.size() <= 4);
        std::uint64_t bytes = 0;
        const std::uint64_t rows =
            t.shape.back() ? std::uint64_t(t.elements() / t.shape.back()) : 0;
        if (t.dtype == models::Dtype::Quantized)
            bytes = rows * t.rowBytes;
        else if (t.elementBytes > 0)
            bytes = std::uint64_t(t.elements()) * t.elementBytes;
        FUZZ_CHECK(t.data >= begin && t.data <= end);
        FUZZ_CHECK(bytes <= std::uint64_t(end - t.data));
    }
}

void checkModel(const models::GgufModel& model) {
    try {
        const models::ModelConfig c = models::readGgufConfig(model);
        FUZZ_CHECK(c.layers >= 1 && c.layers <= 256 && c.heads >= 1 && c.dModel >= 1);
        FUZZ_CHECK(c.heads % c.kvHeadCount() == 0 && c.headSize() >= 1);
        FUZZ_CHECK(c.vocabSize >= 1 && c.layerNormEpsilon > 0 && c.layerNormEpsilon < 1);
        FUZZ_CHECK(int(c.decoder.window.size()) == c.layers);
        const std::string arch = *model.first().string("general.architecture");
        const models::Architecture& a = models::ggufArchitecture(model.first());
        a.loadGguf(c, model, arch); // binds (and checks) every tensor; runs nothing
    } catch (const std::invalid_argument&) {
    }
    try {
        const models::GgufVocab v = models::readGgufVocab(model.first());
        FUZZ_CHECK(!v.tokens.empty());
        FUZZ_CHECK(v.scores.empty() || v.scores.size() == v.tokens.size());
        FUZZ_CHECK(v.tokenTypes.empty() || v.tokenTypes.size() == v.tokens.size());
        FUZZ_CHECK(v.bos < int(v.tokens.size()) && v.eos < int(v.tokens.size()));
    } catch (const std::invalid_argument&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::ofstream(ggufPath(), std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), std::streamsize(size));
    models::GgufModel model;
    try {
        model = models::openGguf(ggufPath().string());
    } catch (const std::invalid_argument&) {
        return 0;
    }
    FUZZ_CHECK(model.parts.size() == 1);
    checkTensors(model.first());
    checkModel(model);
    return 0;
}
