// The tokenizer a GGUF file carries in its metadata (tokenizer.ggml.*), as the GGUF reader
// (core/models/formats/gguf_file.h) fills it, and the ModelTokenizer made from it.
#pragma once

#include "models/tokenizers/model_tokenizer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core::models {

struct GgufVocab {          // the tokenizer.ggml.* metadata
    std::string model, pre; // "gpt2" / "llama" ...; "llama-bpe", "qwen2", ...
    std::vector<std::string> tokens;
    std::vector<float> scores;            // may be empty
    std::vector<std::int32_t> tokenTypes; // may be empty
    std::vector<std::string> merges;      // may be empty
    int bos = -1, eos = -1, unknown = -1, padding = -1;
    std::optional<bool> addBos, addEos, addSpacePrefix;
    std::string chatTemplate; // unused, kept for display
};

std::unique_ptr<ModelTokenizer> openGgufTokenizer(const GgufVocab& vocab);

} // namespace core::models
