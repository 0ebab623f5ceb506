// A GGUF file opened as a real model (docs/real-models.md, "GGUF files"): its
// general.architecture looked up in the registry (architectures.h), the family's reader of the
// metadata and loader of the tensors, and the tokenizer from tokenizer.ggml.*
// (tokenizers/gguf_vocab.h). openRealModel (real_model.h) comes here for a GGUF location.
#pragma once

#include "models/formats/gguf_file.h"
#include "models/real_model.h"
#include "models/tokenizers/gguf_vocab.h"

#include <memory>
#include <string>

namespace core::models {

// The registry's entry for the file's general.architecture; refuses a file without one, or of
// an architecture no entry opens (naming the ones that open).
const Architecture& ggufArchitecture(const GgufFile& file);

// The model's config, as its family's GGUF reader makes it (modelType and family set as the
// Hugging Face reader sets them).
ModelConfig readGgufConfig(const GgufModel& model);

// tokenizer.ggml.*: model, pre, tokens, scores, token_type, merges, the special ids,
// add_bos_token, add_eos_token, add_space_prefix; tokenizer.chat_template. Refuses values of
// the wrong type, and scores or types that are not one per token.
GgufVocab readGgufVocab(const GgufFile& file);

// Opens location.file (every part of a split model): config, tokenizer, weights.
std::unique_ptr<RealModel> openGgufModel(const ModelLocation& location);

} // namespace core::models
