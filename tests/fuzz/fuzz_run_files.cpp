// Arbitrary bytes -> the readers of a training run's files: parseSafetensors (checkpoints) and
// parseModelJson (model.json), the files `--model DIR` and the Train view open. The one failure
// they document is std::invalid_argument; anything else escapes and counts as a crash. A file
// they accept must be consistent: every tensor inside the data, a config the model takes, and
// a checkpoint that writes back to a file that reads the same.
#include "fuzz_check.h"

#include "io/run_folder.h"
#include "io/safetensors.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void checkSafetensors(const std::string& bytes) {
    core::SafetensorsFile file;
    try {
        file = core::parseSafetensors(bytes);
    } catch (const std::invalid_argument&) {
        return;
    }
    std::size_t values = 0;
    for (const core::NamedMatrix& t : file.tensors) values += std::size_t(t.values.size());
    FUZZ_CHECK(values * sizeof(float) <= bytes.size());
    const core::SafetensorsFile again =
        core::parseSafetensors(core::safetensorsBytes(file.tensors, file.metadata));
    FUZZ_CHECK(again.tensors.size() == file.tensors.size() && again.metadata == file.metadata);
    for (std::size_t i = 0; i < file.tensors.size(); ++i)
        FUZZ_CHECK(again.tensors[i].name == file.tensors[i].name &&
                   again.tensors[i].values.rows() == file.tensors[i].values.rows() &&
                   again.tensors[i].values.cols() == file.tensors[i].values.cols());
}

void checkModelJson(const std::string& text) {
    core::ModelInfo info;
    try {
        info = core::parseModelJson(text);
    } catch (const std::invalid_argument&) {
        return;
    }
    core::train::validate(info.config); // must not throw: parseModelJson checked it
    FUZZ_CHECK(info.config.vocab == int(info.vocab.size()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    checkSafetensors(bytes);
    checkModelJson(bytes);
    return 0;
}
