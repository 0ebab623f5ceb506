// The fused dequantize-and-multiply (engineMultiply with a QuantMatrix, core/engine/
// quant_kernel.cpp) against a double-precision product of the dequantized matrix, on every SIMD
// path, for every type mha-viz reads: torch.nn.Linear's out x in weights (a GGUF model's) and the
// in x out layout, with shapes that leave a partial panel, a partial row block, several depth
// blocks and the threaded path; then tensor_ops' linear and conv1d on a quantized tensor, and
// the refusals.
#include "engine/attention.h"
#include "models/formats/ggml_quants.h"
#include "models/tensor_ops.h"

#include "simd_paths.h"

#include <Eigen/Core>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using core::models::GgmlType;

class QuantMultiplyOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(QuantMultiplyOnEveryPath);

const GgmlType kTypes[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16, GgmlType::Q4_0,
                           GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q8_0,
                           GgmlType::Q2_K, GgmlType::Q3_K, GgmlType::Q4_K, GgmlType::Q5_K,
                           GgmlType::Q6_K};

// Where each block type keeps its F16 scales (ggml-common.h).
std::vector<int> scaleOffsets(GgmlType type) {
    switch (type) {
    case GgmlType::Q4_1:
    case GgmlType::Q5_1:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
        return {0, 2};
    case GgmlType::Q2_K:
        return {80, 82};
    case GgmlType::Q3_K:
        return {108};
    case GgmlType::Q6_K:
        return {208};
    default:
        return {0};
    }
}

// A rows x cols matrix of the type: plain types from normal values, block types from random
// bytes (any quant bits are valid) with small finite scales.
struct Quantized {
    GgmlType type;
    Eigen::Index rows, cols;
    std::vector<std::uint8_t> bytes;
    core::Mat values; // rows x cols, dequantized

    core::QuantMatrix matrix() const {
        const auto info = *core::models::ggmlTypeInfo(std::uint32_t(type));
        return {reinterpret_cast<const std::byte*>(bytes.data()),
                rows,
                cols,
                std::size_t(*core::models::ggmlRowBytes(type, std::uint64_t(cols))),
                info.blockValues,
                info.blockBytes,
                core::models::ggmlDequantizer(type)};
    }
};

Quantized randomQuantized(GgmlType type, Eigen::Index rows, Eigen::Index cols, std::mt19937& rng) {
    Quantized q{type, rows, cols, {}, core::Mat(rows, cols)};
    const auto info = *core::models::ggmlTypeInfo(std::uint32_t(type));
    const std::size_t rowBytes = *core::models::ggmlRowBytes(type, std::uint64_t(cols));
    q.bytes.resize(rowBytes * std::size_t(rows));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const auto half = [](float f) {
        return Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(f));
    };
    for (std::size_t at = 0; at < q.bytes.size(); at += std::size_t(info.blockBytes)) {
        std::uint8_t* block = q.bytes.data() + at;
        const float f = normal(rng);
        if (type == GgmlType::F32) {
            std::memcpy(block, &f, 4);
        } else if (type == GgmlType::F16 || type == GgmlType::BF16) {
            std::uint32_t bits;
            std::memcpy(&bits, &f, 4);
            const std::uint16_t h = type == GgmlType::F16 ? half(f) : std::uint16_t(bits >> 16);
            std::memcpy(block, &h, 2);
        } else {
            for (int i = 0; i < info.blockBytes; ++i) block[i] = std::uint8_t(rng());
            for (int offset : scaleOffsets(type)) {
                const std::uint16_t h = half(0.05f * normal(rng));
                std::memcpy(block + offset, &h, 2);
            }
        }
    }
    for (Eigen::Index r = 0; r < rows; ++r)
        core::models::ggmlDequantize(
            type, reinterpret_cast<const std::byte*>(q.bytes.data()) + std::size_t(r) * rowBytes,
            q.values.row(r).data(), cols);
    return q;
}

core::Mat randomMat(Eigen::Index rows, Eigen::Index cols, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    core::Mat m(rows, cols); // rows x cols
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
    return m;
}

// |c - a b| within float rounding of a depth-long sum, relative to the sum of |a_ik b_kj|.
void expectProduct(const core::Mat& c, const core::Mat& a, const core::Mat& b, GgmlType type) {
    const Eigen::MatrixXd exact = a.cast<double>() * b.cast<double>();
    const Eigen::MatrixXd scale = a.cast<double>().cwiseAbs() * b.cast<double>().cwiseAbs();
    ASSERT_EQ(c.rows(), a.rows());
    ASSERT_EQ(c.cols(), b.cols());
    for (Eigen::Index i = 0; i < c.rows(); ++i)
        for (Eigen::Index j = 0; j < c.cols(); ++j)
            ASSERT_NEAR(c(i, j), exact(i, j), 1e-5 * (1.0 + scale(i, j)))
                << core::models::ggmlTypeName(type) << " " << i << ", " << j;
}

struct Shape {
    int rows, depth, cols;
};

// out x in weights (every row whole blocks): 13 rows, a partial row block; depth 768, three
// depth blocks (three K super-blocks); 37 outputs, a partial panel; 64 x 1024 x 300 the
// threaded path with a partial chunk; depth 0 writes zeros.
TEST_P(QuantMultiplyOnEveryPath, LinearWeightsDequantizedPanelByPanel) {
    std::mt19937 rng(5);
    const Shape shapes[] = {{13, 768, 37}, {1, 256, 5}, {64, 1024, 300}, {3, 0, 9}};
    for (GgmlType type : kTypes)
        for (const Shape s : shapes) {
            const Quantized w = randomQuantized(type, s.cols, s.depth, rng); // out x in
            const core::Mat a = randomMat(s.rows, s.depth, rng);
            core::Mat c;
            core::engineMultiply(core::models::mapOf(a), w.matrix(), true, c);
            expectProduct(c, a, w.values.transpose(), type);
        }
}

// in x out weights (GPT-2's Conv1D layout), blocks along the outputs: chunks of whole blocks
// (256 columns for the K types), the last one shorter; plain types with a partial panel.
TEST_P(QuantMultiplyOnEveryPath, InByOutWeightsDequantizedChunkByChunk) {
    std::mt19937 rng(9);
    for (GgmlType type : kTypes) {
        const int block = core::models::ggmlTypeInfo(std::uint32_t(type))->blockValues;
        const int cols = block == 256 ? 768 : block == 32 ? 288 : 37;
        for (const Shape s : {Shape{13, 37, cols}, Shape{64, 300, cols}}) {
            const Quantized w = randomQuantized(type, s.depth, s.cols, rng); // in x out
            const core::Mat a = randomMat(s.rows, s.depth, rng);
            core::Mat c;
            core::engineMultiply(core::models::mapOf(a), w.matrix(), false, c);
            expectProduct(c, a, w.values, type);
        }
    }
}

TEST(QuantMultiply, MismatchedShapesAndBrokenBlocksAreRefused) {
    std::mt19937 rng(1);
    const Quantized w = randomQuantized(GgmlType::Q4_K, 4, 256, rng);
    const core::Mat a = randomMat(2, 256, rng), narrow = randomMat(2, 255, rng);
    core::Mat c;
    EXPECT_THROW(core::engineMultiply(core::models::mapOf(narrow), w.matrix(), true, c),
                 std::invalid_argument);
    core::QuantMatrix broken = w.matrix();
    broken.rowBytes += 1;
    EXPECT_THROW(core::engineMultiply(core::models::mapOf(a), broken, true, c),
                 std::invalid_argument);
    broken = w.matrix();
    broken.dequantize = nullptr;
    EXPECT_THROW(core::engineMultiply(core::models::mapOf(a), broken, true, c),
                 std::invalid_argument);
    broken = w.matrix();
    broken.blockValues = 3;
    EXPECT_THROW(core::engineMultiply(core::models::mapOf(a), broken, true, c),
                 std::invalid_argument);
}

// A GGUF tensor view (Dtype::Quantized) through tensor_ops: linear (x W^T + b) and conv1d
// (x W + b) equal the product of the dequantized weights; a type mha-viz does not compute with
// is refused naming the tensor and the type.
core::models::TensorView viewOf(const Quantized& q, const std::string& name) {
    core::models::TensorView t;
    t.name = name;
    t.dtype = core::models::Dtype::Quantized;
    t.ggml = q.type;
    t.elementBytes = 0;
    t.rowBytes = std::size_t(*core::models::ggmlRowBytes(q.type, std::uint64_t(q.cols)));
    t.shape = {q.rows, q.cols};
    t.data = reinterpret_cast<const std::byte*>(q.bytes.data());
    return t;
}

TEST(QuantMultiply, TensorOpsMultiplyQuantizedTensors) {
    std::mt19937 rng(13);
    const Quantized w = randomQuantized(GgmlType::Q6_K, 40, 512, rng); // out x in
    const Quantized b = randomQuantized(GgmlType::F32, 1, 40, rng);
    const core::Mat x = randomMat(7, 512, rng);
    const auto weight = viewOf(w, "blk.0.attn_q.weight"), bias = viewOf(b, "blk.0.attn_q.bias");
    const core::Mat y = core::models::linear(x, weight, &bias); // 7 x 40
    const core::Mat expected =
        (x.cast<double>() * w.values.cast<double>().transpose()).cast<float>().rowwise() +
        b.values.row(0);
    EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-5f * expected.cwiseAbs().maxCoeff());

    const Quantized wT = randomQuantized(GgmlType::Q8_0, 40, 64, rng); // in x out
    const core::Mat x2 = randomMat(3, 40, rng);
    const core::Mat y2 = core::models::conv1d(x2, viewOf(wT, "c_fc.weight"), nullptr); // 3 x 64
    const core::Mat expected2 = (x2.cast<double>() * wT.values.cast<double>()).cast<float>();
    EXPECT_LT((y2 - expected2).cwiseAbs().maxCoeff(), 1e-5f * expected2.cwiseAbs().maxCoeff());

    auto unreadable = weight;
    unreadable.ggml = GgmlType::IQ2_XXS;
    try {
        core::models::linear(x, unreadable, nullptr);
        FAIL() << "IQ2_XXS multiplied";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("blk.0.attn_q.weight"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("IQ2_XXS"), std::string::npos);
    }
}

} // namespace
