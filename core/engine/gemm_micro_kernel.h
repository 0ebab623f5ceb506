// A GEMM micro-kernel for the two per-head products of attention, scores = Q_h K_h^T and
// out = weights V_h, on one tile of queries at a time, with K_h and V_h packed once per head.
// Eigen's GEMM packs its right-hand side again on every call: with tiles of 64 queries and d_head =
// 64 that copy, strided across the (B*M) x d_model matrices, cost about as much as the arithmetic,
// and at d_head = 8 its set-up (blocking, a heap buffer) cost more than the product. Written with
// Eigen's packet functions, so each engine variant gets its own width (1 float on the scalar path).
// Only the kernels' sources include it (attention_kernel.cpp, quant_kernel.cpp: once per SIMD
// level).
#pragma once

#include "engine/scalar.h"

#include <Eigen/Core>

#include <algorithm>
#include <cstring>

namespace core::kernel::gemm {

using Packet = Eigen::internal::packet_traits<Scalar>::type;
inline constexpr int kWidth = Eigen::internal::packet_traits<Scalar>::size;
inline constexpr int kPanel = 2 * kWidth;          // columns per micro-kernel: two packets
inline constexpr int kRows = kWidth == 16 ? 8 : 6; // rows per micro-kernel: 2 * kRows accumulators
inline constexpr int kDepthBlock = 256; // depths per pass over the rows (see multiplyPanels)
// How the products are cut among threads: columns per chunk (a multiple of every SIMD width),
// each chunk one single-threaded product; below kSerialFlops a step stays on one thread
// (waking the other costs more).
inline constexpr Eigen::Index kChunkCols = 128;
inline constexpr double kSerialFlops = 4e6;

// Columns of a packed matrix, rounded up to whole panels (the padding is zero).
inline Eigen::Index paddedCols(Eigen::Index cols) {
    return (cols + kPanel - 1) / kPanel * kPanel;
}

// Packs the transpose of a (rows x cols) strided block: panel p holds, for each k < cols,
// the kPanel entries m(p*kPanel + c, k). For K_h (M x d_head): K_h^T in panels of keys.
// dst: paddedCols(rows) * cols floats.
inline void packTransposed(const Scalar* m, Eigen::Index stride, int rows, int cols, Scalar* dst) {
    for (int p0 = 0; p0 < rows; p0 += kPanel) {
        const int width = std::min(kPanel, rows - p0);
        for (int k = 0; k < cols; ++k, dst += kPanel) {
            for (int c = 0; c < width; ++c) dst[c] = m[(p0 + c) * stride + k];
            std::fill(dst + width, dst + kPanel, Scalar(0));
        }
    }
}

// Packs a (rows x cols) strided block by column panels: panel p holds, for each row k, the
// kPanel entries m(k, p*kPanel + c). For V_h (M x d_head). dst: rows * paddedCols(cols).
inline void packPanels(const Scalar* m, Eigen::Index stride, int rows, int cols, Scalar* dst) {
    for (int p0 = 0; p0 < cols; p0 += kPanel) {
        const int width = std::min(kPanel, cols - p0);
        for (int k = 0; k < rows; ++k, dst += kPanel) {
            std::copy(m + k * stride + p0, m + k * stride + p0 + width, dst);
            std::fill(dst + width, dst + kPanel, Scalar(0));
        }
    }
}

// Where the right-hand side of a product is: panel p (columns [p*kPanel, (p+1)*kPanel)) starts
// at data + p * panelStep, and its row k is kStride further per k. Packed (packTransposed,
// packPanels): panelStep = kPanel * depth, kStride = kPanel. A row-major matrix whose width is
// whole panels can be read in place: panelStep = kPanel, kStride = its row stride.
struct Rhs {
    const Scalar* data;
    Eigen::Index panelStep, kStride;
    static Rhs packed(const Scalar* data, int depth) {
        return {data, Eigen::Index(kPanel) * depth, kPanel};
    }
};

// R rows of out (stride ldo) at columns [col, col + width) = scale * sum over k < depth of
// a(r, k) * panel(k, c), where a has stride lda; with Add, that sum is added to out instead.
template <int R, bool Add = false>
void microKernel(const Scalar* a, Eigen::Index lda, const Scalar* panel, Eigen::Index kStride,
                 int depth, Scalar scale, Scalar* out, Eigen::Index ldo, int width) {
    using namespace Eigen::internal;
    Packet acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = pset1<Packet>(Scalar(0));
    for (int k = 0; k < depth; ++k, panel += kStride) {
        const Packet b0 = ploadu<Packet>(panel), b1 = ploadu<Packet>(panel + kWidth);
        for (int r = 0; r < R; ++r) {
            const Packet x = pset1<Packet>(a[r * lda + k]);
            acc[r][0] = pmadd(x, b0, acc[r][0]);
            acc[r][1] = pmadd(x, b1, acc[r][1]);
        }
    }
    const Packet s = pset1<Packet>(scale);
    for (int r = 0; r < R; ++r) {
        Scalar* row = out + r * ldo;
        if constexpr (Add) { // a later block of the depth: rarely partial, so plain adds there
            alignas(64) Scalar tmp[kPanel];
            pstoreu(tmp, pmul(s, acc[r][0]));
            pstoreu(tmp + kWidth, pmul(s, acc[r][1]));
            if (width == kPanel) {
                pstoreu(row, padd(ploadu<Packet>(row), ploadu<Packet>(tmp)));
                pstoreu(row + kWidth,
                        padd(ploadu<Packet>(row + kWidth), ploadu<Packet>(tmp + kWidth)));
            } else {
                for (int c = 0; c < width; ++c) row[c] += tmp[c];
            }
        } else if (width == kPanel) {
            pstoreu(row, pmul(s, acc[r][0]));
            pstoreu(row + kWidth, pmul(s, acc[r][1]));
        } else { // the last, partial panel: a whole first packet goes straight to the row
            // (d_head = 8 on AVX2)
            const Packet first = pmul(s, acc[r][0]), second = pmul(s, acc[r][1]);
            alignas(64) Scalar tmp[kWidth];
            int c = 0;
            if (width >= kWidth) {
                pstoreu(row, first);
                pstoreu(tmp, second);
                c = kWidth;
            } else {
                pstoreu(tmp, first);
            }
            // The rest in power-of-two runs: constant-size copies inline as moves, where a
            // loop of width - c entries would become a memmove call.
            const Scalar* from = tmp;
            for (int run = kWidth / 2; run > 0; run /= 2)
                if (width - c >= run) {
                    std::memcpy(row + c, from, sizeof(Scalar) * std::size_t(run));
                    c += run, from += run;
                }
        }
    }
}

// The micro-kernel for the last `rows` (< R) rows of a block, with rows a compile-time count.
template <int R, bool Add, class... Args>
void microKernelTail(int rows, Args... args) {
    if constexpr (R > 0) {
        if (rows == R) return microKernel<R, Add>(args...);
        microKernelTail<R - 1, Add>(rows, args...);
    }
}

// One block of the depth (depth <= kDepthBlock) for every row of one panel.
template <bool Add>
void panelBlock(const Scalar* a, Eigen::Index lda, int rows, int depth, const Scalar* panel,
                Eigen::Index kStride, int width, Scalar scale, Scalar* out, Eigen::Index ldo) {
    int r = 0;
    for (; r + kRows <= rows; r += kRows)
        microKernel<kRows, Add>(a + r * lda, lda, panel, kStride, depth, scale, out + r * ldo, ldo,
                                width);
    microKernelTail<kRows - 1, Add>(rows - r, a + r * lda, lda, panel, kStride, depth, scale,
                                    out + r * ldo, ldo, width);
}

// out (rows x cols, stride ldo) = scale * a (rows x depth, stride lda) * b (depth x cols).
// The depth is taken kDepthBlock at a time, every row for each block, so the panel's block
// stays in L1 while all rows read it: a model's projection (depth 2048 to 8192) read its whole
// panel (up to 1 MB with AVX-512's 32 columns) from L2 again for every 6 rows.
inline void multiplyPanels(const Scalar* a, Eigen::Index lda, int rows, int depth, Rhs b, int cols,
                           Scalar scale, Scalar* out, Eigen::Index ldo) {
    for (int p0 = 0; p0 < cols; p0 += kPanel) {
        const Scalar* panel = b.data + Eigen::Index(p0 / kPanel) * b.panelStep;
        const int width = std::min(kPanel, cols - p0);
        for (int k0 = 0; k0 == 0 || k0 < depth; k0 += kDepthBlock) { // depth 0 writes zeros
            const int block = std::min(kDepthBlock, depth - k0);
            const Scalar* from = panel + Eigen::Index(k0) * b.kStride;
            if (k0 == 0)
                panelBlock<false>(a, lda, rows, block, from, b.kStride, width, scale, out + p0,
                                  ldo);
            else
                panelBlock<true>(a + k0, lda, rows, block, from, b.kStride, width, scale, out + p0,
                                 ldo);
        }
    }
}

// The columns of a rows x cols product cut into chunks of chunkCols, chunk(c0, width, buffer)
// called for each: on one thread below kSerialFlops (or with one chunk), else spread over the
// OpenMP threads (dynamic: the last chunk may be narrow), each thread with a buffer of
// bufferSize floats of its own, allocated once per call (not a thread_local: see PackedHeads).
template <class Chunk>
void chunksOverThreads(Eigen::Index cols, Eigen::Index chunkCols, Eigen::Index bufferSize,
                       double flops, const Chunk& chunk) {
    const int chunks = int((cols + chunkCols - 1) / chunkCols);
    const auto run = [&](int item, Scalar* buffer) {
        const Eigen::Index c0 = Eigen::Index(item) * chunkCols;
        chunk(c0, std::min(chunkCols, cols - c0), buffer);
    };
    if (chunks == 1 || flops <= kSerialFlops) {
        Eigen::VectorX<Scalar> buffer(bufferSize);
        for (int item = 0; item < chunks; ++item) run(item, buffer.data());
        return;
    }
#pragma omp parallel
    {
        Eigen::VectorX<Scalar> buffer(bufferSize);
#pragma omp for schedule(dynamic)
        for (int item = 0; item < chunks; ++item) run(item, buffer.data());
    }
}

} // namespace core::kernel::gemm
