// GPT-2's weights and forward, exactly as Hugging Face's GPT2LMHeadModel computes them
// (docs/real-models.md, "GPT-2"): learned positions; per layer pre-LayerNorm (config epsilon),
// Conv1D projections (x W + b), causal attention scaled by 1/sqrt(d_head) on the engine's own
// attention step, residual, LayerNorm, MLP with tanh GELU, residual; final LayerNorm; logits
// through lm_head or the tied word embeddings.
#pragma once

#include "engine/attention.h"
#include "models/formats/model_folder.h"
#include "models/formats/safetensors_map.h"
#include "models/transformer.h"

#include <memory>
#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

// One block's tensors; the attention projections are split out of c_attn into the engine's
// Weights (copied once at load, shared with every trace), the rest stay in the mapping.
struct Gpt2Block {
    const TensorView* ln1Weight = nullptr;    // d
    const TensorView* ln1Bias = nullptr;      // d
    std::shared_ptr<const Weights> attention; // wQ wK wV wO d x d, biases 1 x d
    const TensorView* ln2Weight = nullptr;    // d
    const TensorView* ln2Bias = nullptr;      // d
    const TensorView* fcWeight = nullptr;     // d x inner
    const TensorView* fcBias = nullptr;       // inner
    const TensorView* projWeight = nullptr;   // inner x d
    const TensorView* projBias = nullptr;     // d
};

struct Gpt2Weights {
    ModelConfig config;
    TensorStore store;
    std::string prefix;                    // "transformer." or "" as the file names them
    const TensorView* wte = nullptr;       // V x d
    const TensorView* wpe = nullptr;       // P x d
    const TensorView* lnFWeight = nullptr; // d
    const TensorView* lnFBias = nullptr;   // d
    const TensorView* lmHead = nullptr;    // V x d: lm_head.weight, or wte when tied
    bool tiedHead = true;
    std::vector<Gpt2Block> blocks;     // config.layers
    std::vector<std::string> warnings; // non-finite weights, named with their counts
};

// Reads the weights of the safetensors files (one, or the shards) against the config: every
// tensor present with the shape config.json implies, names with or without "transformer.",
// the attn.bias / attn.masked_bias buffers ignored. Throws std::invalid_argument naming the
// tensor or file.
Gpt2Weights loadGpt2Weights(const ModelConfig& config, const HfFiles& files);

// config.json in GPT-2's names: n_layer, n_head, n_embd, n_positions (or the older n_ctx),
// n_inner, layer_norm_epsilon, activation_function.
ModelConfig readGpt2Config(const JsonFields& fields);

// GPT-2 as a Transformer (transformer.h): the stream is the residual stream.
class Gpt2Model final : public Transformer {
  public:
    explicit Gpt2Model(Gpt2Weights weights) : w_(std::move(weights)) {}

    const ModelConfig& config() const override { return w_.config; }
    bool causal() const override { return true; }
    bool hasHead() const override { return true; }
    std::string dtype() const override { return dtypeName(w_.store.commonDtype()); }
    const std::vector<std::string>& warnings() const override { return w_.warnings; }
    std::uint64_t fileBytes() const override { return w_.store.fileBytes(); }
    // wte[ids] + wpe[0..N); GPT-2 has no token types (`types` must be empty or all 0).
    Mat embed(const std::vector<int>& ids, const std::vector<int>& types) const override;
    // x += attn(ln_1(x)); x += mlp(ln_2(x)).
    void layer(int l, Mat& stream, const std::vector<int>& ablated, Attention& attention,
               Mat& attentionInput) const override;
    // The same block on the new tokens alone, after cached keys and values.
    void layerAfter(int l, Mat& stream, Mat&& pastKeys, Mat&& pastValues,
                    const std::vector<int>& ablated, Attention& attention,
                    Mat& attentionInput) const override;
    // ln_f, then the unembedding (lm_head, or wte when tied).
    Mat head(const Mat& stream) const override;
    std::shared_ptr<const Weights> attentionWeights(int l) const override {
        return w_.blocks.at(std::size_t(l)).attention;
    }
    std::string attentionInputName() const override { return "ln_1 of the residual stream"; }
    const Gpt2Weights& weights() const { return w_; }

  private:
    // layer() and layerAfter(): `in` holds the cached keys and values, or none.
    void block(int l, Mat& x, AttentionInput& in, Attention& attention, Mat& attentionInput) const;
    Gpt2Weights w_;
};

} // namespace core::models
