// GPT-2's weights and forward, exactly as Hugging Face's GPT2LMHeadModel computes them
// (docs/real-models.md, "GPT-2"): learned positions; per layer pre-LayerNorm (config epsilon),
// Conv1D projections (x W + b), causal attention scaled by 1/sqrt(d_head) on the engine's own
// attention step, residual, LayerNorm, MLP with tanh GELU, residual; final LayerNorm; logits
// through lm_head or the tied word embeddings.
#pragma once

#include "engine/attention.h"
#include "models/model_folder.h"
#include "models/safetensors_map.h"

#include <memory>
#include <string>
#include <vector>

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

struct Gpt2Options {
    std::vector<std::vector<int>> ablated; // per layer, 0-based heads zeroed before c_proj
    bool logits = true;                    // compute the N x V logits
};

// One forward over one sentence of token ids.
struct Gpt2Forward {
    std::vector<Attention> layers;   // the engine's attention of each layer (B = 1)
    std::vector<Mat> attentionInput; // L, N x d: ln_1 of the stream, what each attention read
    std::vector<Mat> residual;       // layers + 1 entries, N x d: the stream before each layer
                                     // and after the last (before ln_f), for the logit lens
    Mat logits;                      // N x V, empty without Gpt2Options::logits
};

// Throws std::invalid_argument for an empty sentence, an id outside the vocabulary, more
// tokens than n_positions, or an ablated head that does not exist.
Gpt2Forward gpt2Forward(const Gpt2Weights& weights, const std::vector<int>& ids,
                        const Gpt2Options& options = {});

// ln_f then the unembedding of residual rows (rows x d -> rows x V): the logits, and the
// logit lens of any layer's stream.
Mat gpt2Unembed(const Gpt2Weights& weights, const Mat& residual);

// log-softmax of a row, in double for the sum (probabilities and the loss).
Eigen::RowVectorXd logSoftmax(const Eigen::Ref<const RowVec>& logits);

} // namespace core::models
