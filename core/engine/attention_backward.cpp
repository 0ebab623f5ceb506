// core::backward's checks; the arithmetic is in attention_backward_kernel.cpp, on the active
// SIMD path.
#include "engine/attention_backward.h"

#include "engine/attention_kernel.h"

#include <stdexcept>
#include <string>

namespace core {

namespace {

void checkBackward(const Mat& x, const Weights& w, const Attention& a, const Mat& dOutput) {
    auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    if (a.reshapeBug) fail("the backward pass has no reshape bug (a teaching switch only)");
    if (a.cross || a.keyLen != a.queryLen)
        fail("the backward pass is for self-attention (keys and values from x itself)");
    if (a.rotated || a.scoreBias) fail("the backward pass has no rotation and no score bias");
    const int d_model = a.d_model;
    for (const Mat* m : {&w.wQ, &w.wK, &w.wV, &w.wO})
        if (m->rows() != d_model || m->cols() != d_model)
            fail("weights must be d_model x d_model (d_model " + std::to_string(d_model) + ")");
    const Eigen::Index rows = Eigen::Index(a.batch) * a.queryLen;
    for (const Mat* m : {&x, &dOutput, &a.q, &a.k, &a.v, &a.concat})
        if (m->rows() != rows || m->cols() != d_model)
            fail("x, d output and the forward's q, k, v, concat must be (B*N) x d_model");
    if (a.attention.rows() != rows * a.heads || a.attention.cols() != a.keyLen)
        fail("the forward's attention weights must be (B*H*N) x M");
    if (int(a.headAblated.size()) != a.heads) fail("the forward's ablated heads must be H flags");
}

} // namespace

void backward(const Mat& x, const Weights& w, const Attention& a, const Mat& dOutput,
              AttentionGradients& grads) {
    checkBackward(x, w, a, dOutput);
    kernel::active().backward(x, w, a, dOutput, grads); // on this CPU's SIMD path
}

} // namespace core
