// The forward's building blocks (tensor_ops.h).
#include "models/tensor_ops.h"

#include "models/formats/ggml_quants.h"

#include <unsupported/Eigen/SpecialFunctions>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>

namespace core::models {

void copyRow(const TensorView& t, std::int64_t r, float* out) {
    const std::int64_t cols = t.shape.back();
    if (t.dtype == Dtype::Quantized) { // a GGUF token_embd: only this row's blocks
        ggmlDequantize(t.ggml, t.data + std::size_t(r) * t.rowBytes, out, cols);
        return;
    }
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

namespace {

// A GGUF tensor as the engine's blocked matrix: rows x cols, blocks along the rows; throws
// naming the tensor when its type is not one mha-viz computes with or its rows are not whole
// blocks.
QuantMatrix quantMatrixOf(const TensorView& t) {
    const auto info = ggmlTypeInfo(std::uint32_t(t.ggml));
    const GgmlDequantizer dequantize = ggmlDequantizer(t.ggml);
    if (!info || !dequantize)
        throw std::invalid_argument("tensor " + t.name + " has type " + ggmlTypeName(t.ggml) +
                                    ", which mha-viz does not compute with");
    const Eigen::Index cols = t.shape.empty() ? 1 : Eigen::Index(t.shape.back());
    const Eigen::Index rows = cols == 0 ? 0 : Eigen::Index(t.elements() / cols);
    if (ggmlRowBytes(t.ggml, std::uint64_t(cols)) != std::uint64_t(t.rowBytes))
        throw std::invalid_argument("tensor " + t.name + ": rows of " + std::to_string(cols) +
                                    " values are not whole " + info->name + " blocks of " +
                                    std::to_string(t.rowBytes) + " bytes");
    return {t.data, rows, cols, t.rowBytes, info->blockValues, info->blockBytes, dequantize};
}

// The product on the engine's SIMD path, threaded, reading the mapped weights in place: in
// mha_models' baseline SSE2 build Eigen's GEMM ran at a fraction of the machine's rate.
// BF16 and F16 weights stay as they are mapped: each thread widens the panel its chunk needs;
// quantized ones (GGUF) likewise, each thread dequantizing the panel its chunk needs.
Mat product(const Mat& x, const TensorView& weight, const TensorView* bias, bool transposed) {
    Mat y; // rows x out
    if (weight.dtype == Dtype::Quantized) {
        engineMultiply(mapOf(x), quantMatrixOf(weight), transposed, y);
    } else if (weight.dtype == Dtype::F16 || weight.dtype == Dtype::BF16) {
        const Eigen::Index rows = Eigen::Index(weight.shape.front());
        const HalfMatrix half{reinterpret_cast<const std::uint16_t*>(weight.data), rows,
                              Eigen::Index(weight.elements()) / rows, weight.dtype == Dtype::BF16};
        engineMultiply(mapOf(x), half, transposed, y);
    } else {
        Mat scratchW;
        engineMultiply(mapOf(x), tensorAsFloat(weight, scratchW), transposed, y);
    }
    Mat scratchB;
    if (bias) y.rowwise() += tensorAsFloat(*bias, scratchB).row(0);
    return y;
}

} // namespace

Mat conv1d(const Mat& x /* rows x in */, const TensorView& weight, const TensorView* bias) {
    return product(x, weight, bias, false);
}

Mat linear(const Mat& x /* rows x in */, const TensorView& weight, const TensorView* bias) {
    return product(x, weight, bias, true);
}

std::shared_ptr<const Weights> linearAttentionWeights(const TensorView& q, const TensorView& k,
                                                      const TensorView& v, const TensorView& o,
                                                      std::array<const TensorView*, 4> biases) {
    auto w = std::make_shared<Weights>();
    Mat scratch;
    w->wQ = tensorAsFloat(q, scratch).transpose(); // d x (H*d_head)
    w->wK = tensorAsFloat(k, scratch).transpose(); // d_kv_in x (H*d_head)
    w->wV = tensorAsFloat(v, scratch).transpose(); // d_kv_in x (H*d_head)
    w->wO = tensorAsFloat(o, scratch).transpose(); // (H*d_head) x d
    RowVec* rows[4] = {&w->bQ, &w->bK, &w->bV, &w->bO};
    for (int i = 0; i < 4; ++i)
        if (biases[std::size_t(i)])
            *rows[i] = tensorAsFloat(*biases[std::size_t(i)], scratch).row(0); // 1 x out
    return w;
}

Mat rmsNorm(const Mat& x /* rows x d */, const TensorView& weight, double eps, bool onePlus) {
    Mat scratch;
    const Eigen::Map<const Mat> w = tensorAsFloat(weight, scratch); // 1 x d
    if (w.cols() != x.cols()) throw std::invalid_argument("RMSNorm: weight and rows differ");
    const RowVec gain = onePlus ? RowVec((w.array() + Scalar(1)).matrix()) : RowVec(w.row(0));
    Mat out(x.rows(), x.cols()); // rows x d
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double meanSquare = x.row(r).cast<double>().squaredNorm() / double(x.cols());
        const Scalar inv = Scalar(1.0 / std::sqrt(meanSquare + eps));
        out.row(r) = (x.row(r) * inv).cwiseProduct(gain);
    }
    return out;
}

void rmsNormHeads(Mat& x /* rows x (heads*d_head) */, const TensorView& weight, double eps,
                  bool onePlus) {
    const Eigen::Index d_head = weight.elements();
    if (d_head < 1 || x.cols() % d_head != 0)
        throw std::invalid_argument("RMSNorm per head: the weight is not a head wide");
    Mat block(x.rows(), d_head); // rows x d_head
    for (Eigen::Index c0 = 0; c0 < x.cols(); c0 += d_head) {
        block = x.middleCols(c0, d_head);
        x.middleCols(c0, d_head) = rmsNorm(block, weight, eps, onePlus);
    }
}

void projectOut(Attention& a, const TensorView& weight, const TensorView* bias) {
    const bool ablated =
        std::find(a.headAblated.begin(), a.headAblated.end(), true) != a.headAblated.end();
    if (!ablated) {
        a.output = linear(a.concat, weight, bias);
        a.outputShift.resize(0);
        return;
    }
    const Mat unablated = linear(a.concat, weight, bias); // (B*N) x d_model
    for (int h = 0; h < a.heads; ++h)
        if (a.headAblated[std::size_t(h)])
            a.concat.middleCols(Eigen::Index(h) * a.d_head, a.d_head).setZero();
    a.output = linear(a.concat, weight, bias);
    a.outputShift = (a.output - unablated).rowwise().norm().transpose(); // 1 x (B*N)
}

void softCap(Mat& x, double cap) {
    if (cap <= 0) return;
    const Scalar c = Scalar(cap);
    x = ((x.array() / c).tanh() * c).matrix();
}

namespace {

constexpr const char* kActivations[] = {
    "gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu", "quick_gelu", "silu", "swish"};

} // namespace

bool knownActivation(const std::string& kind) {
    for (const char* known : kActivations)
        if (kind == known) return true;
    return false;
}

void checkActivation(const std::string& kind, const char* field) {
    if (knownActivation(kind)) return;
    std::string names;
    for (const char* known : kActivations)
        names += (names.empty() ? "" : ", ") + std::string(known);
    throw std::invalid_argument(std::string("config.json: ") + field + " \"" + kind +
                                "\" is not supported (" + names + ")");
}

void activate(Mat& x, const std::string& kind) {
    auto a = x.array(); // rows x inner
    if (kind == "relu") {
        a = a.cwiseMax(Scalar(0));
    } else if (kind == "gelu") { // the exact GELU, with erf (BERT's)
        // Eigen's vectorised float erf (a few ulp, as PyTorch's own): std::erf in double, one
        // call per entry, took 40 % of BERT-base's forward at 128 tokens.
        const Scalar invSqrt2 = Scalar(1.0 / std::numbers::sqrt2);
        a = Scalar(0.5) * a * (Scalar(1) + (a * invSqrt2).erf());
    } else if (kind == "gelu_new" || kind == "gelu_pytorch_tanh" || kind == "gelu_fast") {
        // The tanh approximation GPT-2 was trained with. In float with Eigen's vectorised tanh
        // (a few ulp): std::tanh in double, one call per entry, took as long as the MLP's
        // products at 128 tokens.
        const Scalar c = Scalar(std::sqrt(2.0 / std::numbers::pi));
        a = Scalar(0.5) * a * (Scalar(1) + (c * (a + Scalar(0.044715) * a.cube())).tanh());
    } else if (kind == "quick_gelu") {
        a = a / (Scalar(1) + (Scalar(-1.702) * a).exp());
    } else if (kind == "silu" || kind == "swish") {
        a = a / (Scalar(1) + (-a).exp());
    } else {
        throw std::invalid_argument("activation \"" + kind + "\" is not supported");
    }
}

Eigen::RowVectorXd logSoftmax(const Eigen::Ref<const RowVec>& logits) {
    const Eigen::RowVectorXd z = logits.cast<double>();
    const double top = z.maxCoeff();
    const double logSum = top + std::log((z.array() - top).exp().sum());
    return z.array() - logSum;
}

} // namespace core::models
