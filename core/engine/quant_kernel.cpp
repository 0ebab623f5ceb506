// The product by a quantized weight matrix (core::engineMultiply with a QuantMatrix), compiled
// once per SIMD level like attention_kernel.cpp. b's blocks are turned into floats by the
// function the matrix names (compiled once, outside the kernels: every path multiplies the same
// values) a panel at a time, into a buffer of each thread's own, and multiplied by the
// micro-kernel (gemm_micro_kernel.h): no thread ever holds more than its panel of b as floats.
#include "engine/attention_kernel.h"
#include "engine/gemm_micro_kernel.h"

#include <algorithm>

namespace core::kernel {
namespace {

// dst[k * kPanel + c] = src[c * lds + k] for c < width, k < len: rows of b turned into the
// panel layout of the micro-kernel (gemm::packTransposed's). kWidth x kWidth blocks through
// registers (ptranspose), as packHalfPanel does; the edges value by value.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes" // PacketBlock of a vector type
void transposeIntoPanel(const Scalar* src, Eigen::Index lds, int width, int len, Scalar* dst) {
    using namespace Eigen::internal;
    constexpr int kW = gemm::kWidth;
    const int whole = len / kW * kW;
    for (int c0 = 0; c0 + kW <= width; c0 += kW)
        for (int k0 = 0; k0 < whole; k0 += kW) {
            PacketBlock<gemm::Packet, kW> block;
            for (int i = 0; i < kW; ++i)
                block.packet[i] = ploadu<gemm::Packet>(src + (c0 + i) * lds + k0);
            ptranspose(block); // packet j: depth k0 + j, columns c0 .. c0 + kW
            for (int j = 0; j < kW; ++j)
                pstoreu(dst + Eigen::Index(k0 + j) * gemm::kPanel + c0, block.packet[j]);
        }
    for (int c = 0; c < width; ++c) { // the rows past whole blocks, and the depths past them
        const int from = c < width / kW * kW ? whole : 0;
        for (int k = from; k < len; ++k) dst[Eigen::Index(k) * gemm::kPanel + c] = src[c * lds + k];
    }
}
#pragma GCC diagnostic pop

// Rows [p0, p0 + width) of b (width <= kPanel) dequantized and packed as one panel of the
// micro-kernel (zero past width), kDepthBlock depths at a time: those depths' blocks of each
// row are written to `rows` (kPanel x kDepthBlock floats) and turned into the panel while they
// are still in L1. A depth block starts on a block boundary (blockValues divides 256).
void packQuantPanel(const QuantMatrix& b, Eigen::Index p0, int width, Scalar* rows, Scalar* dst) {
    const Eigen::Index depth = b.cols;
    if (width < gemm::kPanel) std::fill(dst, dst + depth * gemm::kPanel, Scalar(0));
    for (Eigen::Index k0 = 0; k0 < depth; k0 += gemm::kDepthBlock) {
        const int len = int(std::min<Eigen::Index>(gemm::kDepthBlock, depth - k0));
        const std::size_t offset = std::size_t(k0 / b.blockValues) * std::size_t(b.blockBytes);
        for (int c = 0; c < width; ++c)
            b.dequantize(b.data + std::size_t(p0 + c) * b.rowBytes + offset,
                         rows + c * gemm::kDepthBlock, len);
        transposeIntoPanel(rows, gemm::kDepthBlock, width, len, dst + k0 * gemm::kPanel);
    }
}

// Columns [c0, c0 + width) of b (whole blocks: c0 and width multiples of blockValues, or width
// reaching the last column), b.rows x width row-major into dst.
void dequantizeColumns(const QuantMatrix& b, Eigen::Index c0, Eigen::Index width, Scalar* dst) {
    const std::size_t offset = std::size_t(c0 / b.blockValues) * std::size_t(b.blockBytes);
    for (Eigen::Index r = 0; r < b.rows; ++r)
        b.dequantize(b.data + std::size_t(r) * b.rowBytes + offset, dst + r * width, width);
}

// Columns [c0, c0 + width) of c = a * b^T (transposedB) or a * b. Transposed, one panel of b's
// rows at a time is dequantized into `buffer` (depth * kPanel floats, then kPanel *
// kDepthBlock for the rows) and multiplied; else the chunk's columns of every row of b
// (depth * width floats), read in place by the micro-kernel when they are whole panels.
void quantChunk(const ConstMatMap& a, const QuantMatrix& b, bool transposedB, Mat& c,
                Eigen::Index c0, Eigen::Index width, Scalar* buffer) {
    const Eigen::Index depth = a.cols();
    const int rows = int(a.rows());
    if (!transposedB) {
        dequantizeColumns(b, c0, width, buffer); // depth x width
        if (width % gemm::kPanel == 0)
            gemm::multiplyPanels(a.data(), depth, rows, int(depth), {buffer, gemm::kPanel, width},
                                 int(width), 1, c.data() + c0, c.cols());
        else
            c.middleCols(c0, width).noalias() = a * Eigen::Map<const Mat>(buffer, depth, width);
        return;
    }
    Scalar* rowsBuffer = buffer + depth * gemm::kPanel; // kPanel x kDepthBlock
    for (Eigen::Index p0 = c0; p0 < c0 + width; p0 += gemm::kPanel) {
        const int w = int(std::min<Eigen::Index>(gemm::kPanel, c0 + width - p0));
        packQuantPanel(b, p0, w, rowsBuffer, buffer);
        gemm::multiplyPanels(a.data(), depth, rows, int(depth),
                             gemm::Rhs::packed(buffer, int(depth)), w, 1, c.data() + p0, c.cols());
    }
}

} // namespace

// Like multiplyHalf: column chunks of c spread over threads, each thread dequantizing into a
// buffer of its own, allocated once per call. Without the transpose a chunk is whole blocks
// wide (256 columns for the K types), so each row's blocks are read once.
void multiplyQuant(const ConstMatMap& a, const QuantMatrix& b, bool transposedB, Mat& c) {
    const Eigen::Index cols = transposedB ? b.rows : b.cols, depth = a.cols();
    c.resize(a.rows(), cols); // rows x cols
    const Eigen::Index chunkCols =
        transposedB ? gemm::kChunkCols
                    : (gemm::kChunkCols + b.blockValues - 1) / b.blockValues * b.blockValues;
    const Eigen::Index bufferSize =
        transposedB ? (depth + gemm::kDepthBlock) * gemm::kPanel : depth * chunkCols;
    gemm::chunksOverThreads(cols, chunkCols, bufferSize,
                            2.0 * double(a.rows()) * double(depth) * double(cols),
                            [&](Eigen::Index c0, Eigen::Index width, Scalar* buffer) {
                                quantChunk(a, b, transposedB, c, c0, width, buffer);
                            });
}

} // namespace core::kernel
