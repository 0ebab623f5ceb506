// A stand-in for openGgufTokenizer (gguf_vocab.h) until the tokenizer from GGUF metadata is
// merged: it refuses every vocabulary, so a GGUF model's weights can be read and tested by ids.
#include "models/tokenizers/gguf_vocab.h"

#include <stdexcept>

namespace core::models {

std::unique_ptr<ModelTokenizer> openGgufTokenizer(const GgufVocab&) {
    throw std::invalid_argument("no tokenizer yet for GGUF files (tokenizer.ggml.*)");
}

} // namespace core::models
