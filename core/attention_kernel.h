// The hot part of the forward pass, compiled once per SIMD level (see simd.h): the built-in
// copy inside mha_core, and one shared object per level that simd.cpp loads at run time.
// Everything a kernel uses is inline (Eigen and this header), so each shared object is
// self-contained and its Eigen instantiations never mix with another level's.
#pragma once

#include "attention.h"

namespace core::kernel {

// Fills out.q, k, v, scores, attention, headOutputs, concat, output and outputShift. The
// caller (core::forward) has checked the shapes and set out's sizes, scale, causal flag, key
// padding and ablated heads.
void forward(const AttentionInput& in, const Weights& w, Attention& out);

// c = a * b with the same Eigen GEMM the kernel uses (the benchmark's yardstick).
void multiply(const Mat& a, const Mat& b, Mat& c);

// The level this copy was compiled for, from the compiler's own macros.
int compiledLevel(); // a SimdLevel

// Changes whenever a type crossing the shared-object boundary may have changed layout, so a
// stale kernel from an older build is refused instead of misreading memory.
// Bump the first number when the kernel interface itself changes.
constexpr int kAbi = 1 * 100'000'000 + EIGEN_MAX_ALIGN_BYTES * 1'000'000 +
                     int(sizeof(AttentionInput)) * 1000 + int(sizeof(Attention));

} // namespace core::kernel

// What each shared object exports (and nothing else: see engine_kernel.map).
struct MhaEngineKernel {
    int abi;   // core::kernel::kAbi of the build that made it
    int level; // core::SimdLevel
    void (*forward)(const core::AttentionInput&, const core::Weights&, core::Attention&);
    void (*multiply)(const core::Mat&, const core::Mat&, core::Mat&);
};
extern "C" const MhaEngineKernel* mha_engine_kernel_v1();

namespace core::kernel {
// The kernel of the active SIMD path (simd.cpp).
const MhaEngineKernel& active();
} // namespace core::kernel
