// GPT-2's forward (gpt2_model.h): the arithmetic of Hugging Face's GPT2Model and GPT2LMHeadModel,
// step by step, with the engine's attention in the middle of each block.
#include "models/gpt2_model.h"

#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>

namespace core::models {
namespace {

// Row r of a tensor as floats (one embedding row), without converting the whole table.
void copyRow(const TensorView& t, std::int64_t r, float* out) {
    const std::int64_t cols = t.shape.back();
    const std::byte* row = t.data + r * cols * std::int64_t(t.elementBytes);
    if (t.dtype == Dtype::F32) {
        std::memcpy(out, row, std::size_t(cols) * sizeof(float));
        return;
    }
    for (std::int64_t c = 0; c < cols; ++c) {
        std::uint16_t bits;
        std::memcpy(&bits, row + 2 * c, 2);
        out[c] = t.dtype == Dtype::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
    }
}

// LayerNorm over each row: (x - mean) / sqrt(var + eps) * weight + bias, with the biased
// variance, as torch.nn.LayerNorm. Sums in double.
Mat layerNorm(const Mat& x /* rows x d */, const TensorView& weight, const TensorView& bias,
              double eps) {
    Mat scratchW, scratchB;
    const Eigen::Map<const Mat> w = tensorAsFloat(weight, scratchW); // 1 x d
    const Eigen::Map<const Mat> b = tensorAsFloat(bias, scratchB);   // 1 x d
    Mat out(x.rows(), x.cols());                                     // rows x d
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const Eigen::RowVectorXd row = x.row(r).cast<double>();
        const double mean = row.mean();
        const double var = (row.array() - mean).square().mean();
        const double inv = 1.0 / std::sqrt(var + eps);
        out.row(r) = ((row.array() - mean) * inv).cast<Scalar>().matrix().cwiseProduct(w) + b;
    }
    return out;
}

// A whole matrix as a map: the product reads it where it is.
ConstMatMap mapOf(const Mat& m /* rows x cols */) {
    return ConstMatMap(m.data(), m.rows(), m.cols());
}

// y = x W + b, Hugging Face's Conv1D (W stored in x out). The product runs on the engine's
// SIMD path, threaded, reading the mapped weights in place: in mha_models' baseline SSE2
// build Eigen's GEMM ran at a fraction of the machine's rate.
Mat conv1d(const Mat& x /* rows x in */, const TensorView& weight, const TensorView& bias) {
    Mat scratchW, scratchB;
    const Eigen::Map<const Mat> w = tensorAsFloat(weight, scratchW); // in x out
    const Eigen::Map<const Mat> b = tensorAsFloat(bias, scratchB);   // 1 x out
    Mat y;                                                           // rows x out
    engineMultiply(mapOf(x), w, false, y);
    y.rowwise() += b.row(0);
    return y;
}

void activate(Mat& x, const std::string& kind) {
    if (kind == "relu") {
        x = x.cwiseMax(Scalar(0));
    } else if (kind == "gelu") { // the exact GELU, with erf
        x = x.unaryExpr(
            [](Scalar v) { return Scalar(0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2))); });
    } else { // gelu_new: the tanh approximation GPT-2 was trained with
        // In float with Eigen's vectorised tanh (a few ulp): std::tanh in double, one call
        // per entry, took as long as the MLP's products at 128 tokens.
        const Scalar c = Scalar(std::sqrt(2.0 / std::numbers::pi));
        auto a = x.array(); // rows x inner
        a = Scalar(0.5) * a * (Scalar(1) + (c * (a + Scalar(0.044715) * a.cube())).tanh());
    }
}

void checkInput(const Gpt2Weights& w, const std::vector<int>& ids, const Gpt2Options& options) {
    const ModelConfig& c = w.config;
    if (ids.empty()) throw std::invalid_argument("the sentence has no tokens");
    if (int(ids.size()) > c.nPositions)
        throw std::invalid_argument(std::to_string(ids.size()) + " tokens, more than the model's " +
                                    std::to_string(c.nPositions) + " positions");
    for (int id : ids)
        if (id < 0 || id >= c.vocabSize)
            throw std::invalid_argument("token id " + std::to_string(id) +
                                        " is outside the vocabulary (" +
                                        std::to_string(c.vocabSize) + ")");
    if (options.ablated.size() > std::size_t(c.layers))
        throw std::invalid_argument("heads switched off in layer " +
                                    std::to_string(options.ablated.size()) + " of " +
                                    std::to_string(c.layers));
}

// One block: x += attn(ln_1(x)); x += mlp(ln_2(x)).
void block(const Gpt2Weights& w, const Gpt2Block& b, const std::vector<int>& ablated, Mat& x,
           Attention& attention, Mat& attentionInput) {
    const ModelConfig& c = w.config;
    AttentionInput in;
    in.queryLen = in.keyLen = int(x.rows());
    in.heads = c.heads;
    in.causal = true;
    in.x = layerNorm(x, *b.ln1Weight, *b.ln1Bias, c.layerNormEpsilon); // N x d
    in.ablatedHeads = ablated;
    forward(in, *b.attention, attention);
    x += attention.output;
    attentionInput = std::move(in.x);
    Mat hidden = conv1d(layerNorm(x, *b.ln2Weight, *b.ln2Bias, c.layerNormEpsilon), *b.fcWeight,
                        *b.fcBias); // N x inner
    activate(hidden, c.activation);
    x += conv1d(hidden, *b.projWeight, *b.projBias); // N x d
}

} // namespace

Gpt2Forward gpt2Forward(const Gpt2Weights& w, const std::vector<int>& ids,
                        const Gpt2Options& options) {
    checkInput(w, ids, options);
    const int N = int(ids.size()), d = w.config.dModel;
    Mat x(N, d); // N x d: token embedding + position embedding
    RowVec position(d);
    for (int i = 0; i < N; ++i) {
        copyRow(*w.wte, ids[std::size_t(i)], x.row(i).data());
        copyRow(*w.wpe, i, position.data());
        x.row(i) += position;
    }
    Gpt2Forward out;
    out.layers.resize(std::size_t(w.config.layers));
    out.attentionInput.resize(std::size_t(w.config.layers));
    for (int l = 0; l < w.config.layers; ++l) {
        out.residual.push_back(x);
        const bool any = std::size_t(l) < options.ablated.size();
        block(w, w.blocks[std::size_t(l)],
              any ? options.ablated[std::size_t(l)] : std::vector<int>{}, x,
              out.layers[std::size_t(l)], out.attentionInput[std::size_t(l)]);
    }
    out.residual.push_back(x);
    if (options.logits) out.logits = gpt2Unembed(w, x);
    return out;
}

Mat gpt2Unembed(const Gpt2Weights& w, const Mat& residual) {
    const Mat normed = layerNorm(residual, *w.lnFWeight, *w.lnFBias, w.config.layerNormEpsilon);
    Mat scratch;
    const Eigen::Map<const Mat> head = tensorAsFloat(*w.lmHead, scratch); // V x d
    Mat logits; // rows x V: the largest product of the forward, on the engine's path
    engineMultiply(mapOf(normed), head, true, logits);
    return logits;
}

Eigen::RowVectorXd logSoftmax(const Eigen::Ref<const RowVec>& logits) {
    const Eigen::RowVectorXd z = logits.cast<double>();
    const double top = z.maxCoeff();
    const double logSum = top + std::log((z.array() - top).exp().sum());
    return z.array() - logSum;
}

} // namespace core::models
