// config.json, read into the fields every family needs under one set of names. Each family
// reads its own names (GPT-2's n_layer, n_head, n_embd ...; BERT's num_hidden_layers,
// num_attention_heads, hidden_size ...) in its own file, through its entry in the
// architecture registry (models/architectures.h); the checks every family shares are here.
#pragma once

#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

struct ModelConfig {
    std::string modelType; // config.json's model_type, as the file says
    int layers = 0;
    int heads = 0;
    int dModel = 0;
    int dInner = 0; // the MLP's hidden width (GPT-2: n_inner, or 4 * n_embd when null)
    int nPositions = 0;
    int vocabSize = 0;
    double layerNormEpsilon = 1e-5;
    std::string activation; // one of tensor_ops.h's activations
    int typeVocabSize = 0;  // token types (BERT's segments; 0 when the family has none)
    int padTokenId = -1;    // -1 when absent (RoBERTa's positions count from it)
    int positionRows = 0;   // rows of the position table: nPositions, but RoBERTa's
                            // max_position_embeddings, of which the first pad + 1 are never a
                            // token's (its nPositions is max_position_embeddings - pad - 1)
};

// The model_types this build opens, in the registry's order, for messages ("supported: gpt2").
const std::vector<std::string>& supportedModelTypes();

// The model_types whose config.json can be read: every registry entry's (the same list; kept
// apart so a family's config reader can land before its forward).
const std::vector<std::string>& readableModelTypes();

// Reads and checks config.json's text: a model_type in `families` (else the message names
// them), sizes present and positive, heads dividing d_model. Throws std::invalid_argument
// starting "config.json: ".
ModelConfig parseModelConfig(const std::string& text, const std::vector<std::string>& families);

// The shared checks of the families' config readers.
namespace config_fields {

// Caps far above any real checkpoint: a larger value is a damaged file, and refusing it here
// keeps the sizes computed from them (d_model * d_inner, vocab * d_model) in range.
inline constexpr int kMaxLayers = 256;
inline constexpr int kMaxDModel = 65536;
inline constexpr int kMaxInner = 4 * kMaxDModel;
inline constexpr int kMaxPositions = 1 << 20;
inline constexpr int kMaxVocab = 10'000'000;

// `name` holds a whole number in [1, high], or is null or absent (then `fallback`).
int integerOrNull(const JsonFields& fields, const char* name, int high, int fallback);
// heads divide d_model, named as the file names them.
void checkHeads(const JsonFields& fields, const ModelConfig& c, const char* headsName,
                const char* dModelName);
// The layers, heads and d_model under the family's names, in that order, heads dividing
// d_model: what every family's reader starts with.
void readShape(const JsonFields& fields, const char* layersName, const char* headsName,
               const char* dModelName, ModelConfig& c);
// A LayerNorm epsilon in (0, 1), `fallback` when absent.
double positiveEpsilon(const JsonFields& fields, const char* name, double fallback);
// pad_token_id within the vocabulary, or -1 when absent or null.
int padTokenId(const JsonFields& fields, int vocabSize);

} // namespace config_fields

} // namespace core::models
