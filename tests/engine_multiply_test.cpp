// engineMultiply, the real models' linear layers, against a double-precision product on every
// SIMD path: F32 weights read in place and BF16 / F16 weights widened a panel at a time, with
// shapes that leave a partial panel, a partial row block, a depth past several depth blocks and
// not a whole number of packets (the edges of gemm_micro_kernel.h and packHalfPanel).
#include "engine/attention.h"

#include "simd_paths.h"

#include <Eigen/Core>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

class EngineMultiplyOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(EngineMultiplyOnEveryPath);

struct Shape {
    int rows, depth, cols;
};
// 13 rows: a partial row block; depth 601: three depth blocks, the last partial, not a multiple
// of any packet; 37 columns: a partial panel; 1024 x 2: the threaded path with whole panels;
// 2 rows by 300 x 512: a decoder step's product, b's rows shared between the threads.
const Shape kShapes[] = {{13, 601, 37},    {1, 7, 3}, {6, 256, 32},
                         {64, 1024, 1024}, {5, 0, 9}, {2, 512, 300}};

core::Mat randomMat(Eigen::Index rows, Eigen::Index cols, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    core::Mat m(rows, cols); // rows x cols
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
    return m;
}

std::uint16_t toBf16(float f) { // truncated: any 16 bits are a value, exactness is the point
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return std::uint16_t(bits >> 16);
}

float fromBf16(std::uint16_t h) {
    const std::uint32_t bits = std::uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// |c - a b| within float rounding of a depth-long sum, relative to the sum of |a_ik b_kj|.
void expectProduct(const core::Mat& c, const core::Mat& a, const core::Mat& b) {
    const Eigen::MatrixXd exact = a.cast<double>() * b.cast<double>();
    const Eigen::MatrixXd scale = a.cast<double>().cwiseAbs() * b.cast<double>().cwiseAbs();
    ASSERT_EQ(c.rows(), a.rows());
    ASSERT_EQ(c.cols(), b.cols());
    for (Eigen::Index i = 0; i < c.rows(); ++i)
        for (Eigen::Index j = 0; j < c.cols(); ++j)
            ASSERT_NEAR(c(i, j), exact(i, j), 1e-5 * (1.0 + scale(i, j))) << i << ", " << j;
}

TEST_P(EngineMultiplyOnEveryPath, F32WeightsInPlaceAndTransposed) {
    std::mt19937 rng(7);
    for (const Shape s : kShapes) {
        const core::Mat a = randomMat(s.rows, s.depth, rng), b = randomMat(s.depth, s.cols, rng);
        const core::Mat bT = b.transpose(); // cols x depth: an unembedding table
        core::Mat c;
        core::engineMultiply(core::ConstMatMap(a.data(), a.rows(), a.cols()),
                             core::ConstMatMap(b.data(), b.rows(), b.cols()), false, c);
        expectProduct(c, a, b);
        core::engineMultiply(core::ConstMatMap(a.data(), a.rows(), a.cols()),
                             core::ConstMatMap(bT.data(), bT.rows(), bT.cols()), true, c);
        expectProduct(c, a, b);
    }
}

// BF16 and F16 weights, as torch.nn.Linear's out x in (transposedB) and as in x out.
TEST_P(EngineMultiplyOnEveryPath, HalfWeightsWidenedPanelByPanel) {
    std::mt19937 rng(11);
    for (const bool bf16 : {true, false})
        for (const Shape s : kShapes) {
            const core::Mat a = randomMat(s.rows, s.depth, rng);
            const core::Mat w = randomMat(s.cols, s.depth, rng); // out x in
            std::vector<std::uint16_t> bits(std::size_t(w.size())), bitsT(bits.size());
            core::Mat widened(w.rows(), w.cols()); // out x in, the values the halves hold
            for (Eigen::Index i = 0; i < w.size(); ++i) {
                const Eigen::half h(w.data()[i]);
                bits[std::size_t(i)] =
                    bf16 ? toBf16(w.data()[i]) : Eigen::numext::bit_cast<std::uint16_t>(h);
                widened.data()[i] = bf16 ? fromBf16(bits[std::size_t(i)]) : float(h);
            }
            for (Eigen::Index r = 0; r < w.rows(); ++r) // in x out, row-major
                for (Eigen::Index k = 0; k < w.cols(); ++k)
                    bitsT[std::size_t(k * w.rows() + r)] = bits[std::size_t(r * w.cols() + k)];
            const core::ConstMatMap am(a.data(), a.rows(), a.cols());
            core::Mat c;
            core::engineMultiply(am, core::HalfMatrix{bits.data(), w.rows(), w.cols(), bf16}, true,
                                 c);
            expectProduct(c, a, widened.transpose());
            core::engineMultiply(am, core::HalfMatrix{bitsT.data(), w.cols(), w.rows(), bf16},
                                 false, c);
            expectProduct(c, a, widened.transpose());
        }
}

} // namespace
