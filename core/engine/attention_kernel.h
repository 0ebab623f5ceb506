// The hot part of the forward pass and of the training's backward pass, compiled once per SIMD
// level (see simd.h): the built-in copy inside mha_engine, and one shared object per level that
// simd.cpp loads at run time. Matrices allocated on one side are resized on the other (q, k, v,
// output, outputShift, the gradients): safe because every target is built with the same
// EIGEN_MAX_ALIGN_BYTES (CMakeLists.txt).
// Everything a kernel uses is inline (Eigen and this header), so each shared object is
// self-contained and its Eigen instantiations never mix with another level's.
#pragma once

#include "engine/attention.h"
#include "engine/attention_backward.h"

namespace core::kernel {

// Fills out.q, k, v, scores, attention, headOutputs, concat, output and outputShift. The
// caller (core::forward) has checked the shapes, sized scores, attention, headOutputs and
// concat, and set the scale, causal flag, key padding and ablated heads.
void forward(const AttentionInput& in, const Weights& w, Attention& out);

// c = a * b with the same Eigen GEMM the kernel uses (the benchmark's yardstick).
void multiply(const Mat& a, const Mat& b, Mat& c);
// c = a^T * b or a * b^T (core::engineMultiply with Transposed).
void multiplyTransposed(const Mat& a, Transposed which, const Mat& b, Mat& c);
// c = a * b or a * b^T on arrays held elsewhere, threaded (core::engineMultiply with maps).
void multiplyMapped(const ConstMatMap& a, const ConstMatMap& b, bool transposedB, Mat& c);
// The attention of a model's own projections (core::attendProjected), shapes checked there.
void attendProjected(AttentionInput& in, Attention& out);
// c = a * b or a * b^T, b widened from 16-bit floats a panel at a time (core::engineMultiply).
void multiplyHalf(const ConstMatMap& a, const HalfMatrix& b, bool transposedB, Mat& c);
// c = a * b or a * b^T, b dequantized a panel at a time (core::engineMultiply, checked there).
void multiplyQuant(const ConstMatMap& a, const QuantMatrix& b, bool transposedB, Mat& c);

// The backward pass (attention_backward.h, attention_backward_kernel.cpp). The caller
// (core::backward) has checked the shapes and that `a` is a self-attention without the bug.
void backward(const Mat& x, const Weights& w, const Attention& a, const Mat& dOutput,
              AttentionGradients& grads);

// The entropies of attention_stats.h (attention_stats_kernel.cpp).
double rowEntropy(const Attention& a, int b, int h, int i);
double meanRowEntropy(const Attention& a);

// The level this copy was compiled for, from the compiler's own macros.
int compiledLevel(); // a SimdLevel

// Changes whenever a type crossing the shared-object boundary may have changed: a hash of the
// headers that define them and of the compiler (made by core/CMakeLists.txt), with the sizes
// and the heap alignment, so a stale kernel from another build is refused, not misread.
#ifndef MHA_ENGINE_ABI_HASH
#error "MHA_ENGINE_ABI_HASH comes from core/CMakeLists.txt"
#endif
constexpr unsigned long long kAbi = (MHA_ENGINE_ABI_HASH << 24) ^ (sizeof(AttentionInput) << 16) ^
                                    (sizeof(Attention) << 4) ^ (sizeof(Weights) << 8) ^
                                    EIGEN_MAX_ALIGN_BYTES;

} // namespace core::kernel

// What each shared object exports (and nothing else: see engine_kernel.map).
struct MhaEngineKernel {
    unsigned long long abi; // core::kernel::kAbi of the build that made it
    int level;              // core::SimdLevel
    void (*forward)(const core::AttentionInput&, const core::Weights&, core::Attention&);
    void (*multiply)(const core::Mat&, const core::Mat&, core::Mat&);
    void (*multiplyTransposed)(const core::Mat&, core::Transposed, const core::Mat&, core::Mat&);
    void (*backward)(const core::Mat&, const core::Weights&, const core::Attention&,
                     const core::Mat&, core::AttentionGradients&);
    double (*rowEntropy)(const core::Attention&, int, int, int);
    double (*meanRowEntropy)(const core::Attention&);
    void (*multiplyMapped)(const core::ConstMatMap&, const core::ConstMatMap&, bool, core::Mat&);
    void (*attendProjected)(core::AttentionInput&, core::Attention&);
    void (*multiplyHalf)(const core::ConstMatMap&, const core::HalfMatrix&, bool, core::Mat&);
    void (*multiplyQuant)(const core::ConstMatMap&, const core::QuantMatrix&, bool, core::Mat&);
};
extern "C" const MhaEngineKernel* mha_engine_kernel_v1();

namespace core::kernel {
// The kernel of the active SIMD path (simd.cpp).
const MhaEngineKernel& active();
} // namespace core::kernel
