// config.json, read into the fields every family needs under one set of names. Each family
// reads its own names (GPT-2's n_layer, n_head, n_embd ...; BERT's num_hidden_layers,
// num_attention_heads, hidden_size ...) in its own file, through its entry in the
// architecture registry (models/architectures.h); the checks every family shares are here.
#pragma once

#include "models/rotary.h"

#include <algorithm>
#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

// What the modern decoders (the Llama family, models/families/llama_model.h) vary, as their
// config.json says it; GPT-2 and the BERT family leave it as it is.
struct DecoderSpec {
    RopeSpec rope;              // every layer's, or Gemma 3's global layers'
    RopeSpec localRope;         // Gemma 3's windowed layers' (rope_local_base_freq); empty: none
    std::vector<int> window;    // per layer: 0 full causal, W: keys j with i - W < j <= i
    bool gemmaNorm = false;     // RMSNorm times (1 + w)
    bool sandwichNorms = false; // Gemma 2 / 3: a norm after attention and after the MLP too
    bool normAfter = false;     // OLMo 2: x + norm(attn(x)), no norm before the sublayer
    enum class QkNorm { None, PerHead, Whole } qkNorm = QkNorm::None;
    bool embedScale = false;     // Gemma: embeddings times sqrt(d_model)
    double attentionSoftcap = 0; // Gemma 2: scores = tanh(scores / cap) * cap; 0 none
    double finalSoftcap = 0;     // Gemma 2: the logits' cap; 0 none
    double queryScale = 0;   // the scores' factor (query_pre_attn_scalar^-1/2); 0: 1/sqrt(d_head)
    bool fused = false;      // Phi-3: qkv_proj and gate_up_proj
    bool tied = false;       // tie_word_embeddings
    bool multimodal = false; // Gemma 3 with a vision tower: its language_model is read
};

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
    int kvHeads = 0;        // K/V heads (grouped-query attention); 0 means heads
    int headDim = 0;        // a head's width; 0 means dModel / heads
    std::string family;     // the registry's name for people ("Llama", "GPT-2"), set on parse
    DecoderSpec decoder;    // the modern decoders' variants (empty rope for GPT-2 and BERT)
    int positionRows = 0;   // rows of the position table: nPositions, but RoBERTa's
                            // max_position_embeddings, of which the first pad + 1 are never a
                            // token's (its nPositions is max_position_embeddings - pad - 1)

    int kvHeadCount() const { return kvHeads > 0 ? kvHeads : heads; }
    int headSize() const { return headDim > 0 ? headDim : dModel / std::max(heads, 1); }
};

// How the model splits its heads, for people: "12 heads (d_head 64)", "32 query heads, 8 K/V
// heads (GQA, 4 per group), d_head 64", "8 query heads, 1 K/V head (MQA), d_head 256".
std::string headLayout(const ModelConfig& config);

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
// A number, or `fallback` when the field is absent or null (the modern decoders' configs
// write null for "not used": sliding_window, soft caps, rope fields).
double numberOrNull(const JsonFields& fields, const char* name, double fallback);
// A LayerNorm epsilon in (0, 1), `fallback` when absent.
double positiveEpsilon(const JsonFields& fields, const char* name, double fallback);
// pad_token_id within the vocabulary, or -1 when absent or null.
int padTokenId(const JsonFields& fields, int vocabSize);

} // namespace config_fields

} // namespace core::models
