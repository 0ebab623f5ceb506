// The hand-written backward pass of the attention-only transformer (model.h), step by step in
// the reverse order of the forward: cross-entropy, unembed, then per layer (last first) the
// residual add and the attention, whose backward is the engine's (engine/attention_backward.h:
// W_O, the merge, weights * V, the softmax, the causal mask, the scale, q * k^T, the split and
// the Q/K/V projections); last the embeddings and positions. The first and last steps sit beside
// their forwards in embed_and_loss.cpp. Every step reads the forward's own intermediates
// (ForwardPass, core::Attention); nothing is recomputed.
#include "train/model.h"

#include "train/embed_and_loss.h"

namespace core::train {

namespace {

bool sameShapes(const Params& a, const Params& b) {
    const std::vector<ConstNamedTensor> ta = namedTensors(a), tb = namedTensors(b);
    if (ta.size() != tb.size()) return false;
    for (std::size_t i = 0; i < ta.size(); ++i)
        if (ta[i].tensor->rows() != tb[i].tensor->rows() ||
            ta[i].tensor->cols() != tb[i].tensor->cols())
            return false;
    return true;
}

} // namespace

Params backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                    const ForwardPass& pass) {
    Params grads;
    BackwardBuffers buffers;
    backwardPass(config, params, batch, pass, grads, buffers);
    return grads;
}

void backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                  const ForwardPass& pass, Params& grads, BackwardBuffers& buffers) {
    if (!sameShapes(grads, params)) grads = zeroParams(config);
    meanCrossEntropyBackward(pass.logits, batch, pass.lossPositions, buffers.dLogits); // (B*n) x V
    // logits = x_L * unembed
    const Mat& xLast = pass.residual.back();                                        // (B*n) x D
    engineMultiply(xLast, Transposed::Left, buffers.dLogits, grads.unembed);        // D x V
    engineMultiply(buffers.dLogits, Transposed::Right, params.unembed, buffers.dx); // (B*n) x D
    for (int l = config.layers - 1; l >= 0; --l) {
        // x_out = x + MHA(x): the residual add passes dx to both terms.
        core::backward(pass.residual[l], params.layers[l], pass.heads[l], buffers.dx,
                       buffers.attention);
        buffers.dx += buffers.attention.dx; // (B*n) x D
        grads.layers[l] = buffers.attention.weights;
    }
    embedTokensBackward(batch, buffers.dx, grads);
}

} // namespace core::train
