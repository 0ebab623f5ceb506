// The operations every family's forward is made of, on a checkpoint's mapped tensors: an
// embedding row, LayerNorm, the two layouts of a linear layer (GPT-2's Conv1D `x W + b` with W
// stored in x out, torch.nn.Linear's `x W^T + b` with W stored out x in), the activations the
// configs name, and a row's log-softmax. Each as PyTorch computes it, in float, the products on
// the engine's SIMD path (engineMultiply). Weights may be F32, F16, BF16 or, from a GGUF file,
// ggml's quantized blocks (Dtype::Quantized): read where they are mapped, converted or
// dequantized a row or a panel at a time, never a whole matrix.
#pragma once

#include "engine/attention.h"
#include "engine/weights.h"
#include "models/formats/safetensors_map.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace core::models {

// Row r of a tensor as floats (one embedding row), without converting the whole table: a
// quantized token_embd dequantizes only that row's blocks.
void copyRow(const TensorView& t, std::int64_t r, float* out);

// (x - mean) / sqrt(var + eps) * weight + bias over each row, with the biased variance, as
// torch.nn.LayerNorm. Sums in double.
Mat layerNorm(const Mat& x /* rows x d */, const TensorView& weight, const TensorView& bias,
              double eps);

// y = x W + b, W stored in x out (Hugging Face's Conv1D). `bias` may be null.
Mat conv1d(const Mat& x /* rows x in */, const TensorView& weight, const TensorView* bias);

// y = x W^T + b, W stored out x in (torch.nn.Linear). `bias` may be null.
Mat linear(const Mat& x /* rows x in */, const TensorView& weight, const TensorView* bias);

// One attention's four torch.nn.Linear projections (out x in) and their biases (null: none) in
// the engine's convention, x W + b: what a layer trace's pipeline and steps show.
std::shared_ptr<const Weights> linearAttentionWeights(const TensorView& q, const TensorView& k,
                                                      const TensorView& v, const TensorView& o,
                                                      std::array<const TensorView*, 4> biases = {});

// x / sqrt(mean(x^2) + eps) * weight over each row (Llama's RMSNorm, mean in double), or
// * (1 + weight) with onePlus (Gemma's).
Mat rmsNorm(const Mat& x /* rows x d */, const TensorView& weight, double eps, bool onePlus);
// The same over each head's d_head-wide block of every row, the weight d_head long (Qwen 3's
// and Gemma 3's q_norm and k_norm).
void rmsNormHeads(Mat& x /* rows x (heads*d_head) */, const TensorView& weight, double eps,
                  bool onePlus);

// a.output = a.concat W^T + b after attendProjected (engine/attention.h), W out x in: with
// ablated heads, their columns of concat zeroed first and a.outputShift set, as forward() does.
void projectOut(Attention& a, const TensorView& weight, const TensorView* bias);

// x = tanh(x / cap) * cap (Gemma 2's soft-capping); nothing when cap <= 0.
void softCap(Mat& x, double cap);

// The activations config files name: "gelu" (exact, with erf), "gelu_new" / "gelu_pytorch_tanh"
// / "gelu_fast" (the tanh approximation), "relu", "quick_gelu", "silu" / "swish". Throws
// std::invalid_argument for any other name.
void activate(Mat& x, const std::string& kind);

// Whether activate knows the name.
bool knownActivation(const std::string& kind);
// Throws std::invalid_argument "config.json: <field> "kind" is not supported (gelu, ...)" naming
// every activation activate knows, unless it knows this one.
void checkActivation(const std::string& kind, const char* field);

// log-softmax of a row, in double for the sum (probabilities and the loss).
Eigen::RowVectorXd logSoftmax(const Eigen::Ref<const RowVec>& logits);

// A whole matrix as a map: a product reads it where it is.
inline ConstMatMap mapOf(const Mat& m /* rows x cols */) {
    return ConstMatMap(m.data(), m.rows(), m.cols());
}

} // namespace core::models
