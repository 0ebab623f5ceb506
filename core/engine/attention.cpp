#include "engine/attention.h"

#include "engine/attention_kernel.h"
#include "engine/cost_model.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace core {

Scalar scaleFactor(ScaleKind scale, int d_model, int d_head) {
    switch (scale) {
    case ScaleKind::SqrtDHead:
        return Scalar(1.0 / std::sqrt(double(d_head)));
    case ScaleKind::SqrtDModel:
        return Scalar(1.0 / std::sqrt(double(d_model)));
    case ScaleKind::None:
        return 1;
    }
    return 1;
}

double forwardFlops(int batch, int queryLen, int keyLen, int d_model) {
    return forwardCost({double(batch), double(queryLen), double(keyLen), double(d_model)}).flops;
}

namespace {

[[noreturn]] void fail(const std::string& what) {
    throw std::invalid_argument(what);
}

// H, d_head and H_kv from the weights: W_Q d_model x (H*d_head), W_K and W_V
// d_model x (H_kv*d_head) with H_kv dividing H, W_O (H*d_head) x d_model.
void checkWeights(const AttentionInput& in, const Weights& w) {
    const int d_model = w.dModel(), H = in.heads;
    if (H < 1 || w.wQ.cols() % H != 0) {
        if (w.wQ.cols() == d_model)
            fail("heads (" + std::to_string(H) + ") must divide d_model (" +
                 std::to_string(d_model) + ")");
        fail("heads (" + std::to_string(H) + ") must divide W_Q's " + std::to_string(w.wQ.cols()) +
             " columns");
    }
    const Eigen::Index d_head = w.wQ.cols() / H, inner = w.wQ.cols();
    if (d_head < 1) fail("W_Q has no columns");
    const Eigen::Index kvCols = w.wK.cols();
    const Eigen::Index kvHeads = kvCols % d_head == 0 ? kvCols / d_head : 0;
    if (kvHeads < 1 || H % kvHeads != 0)
        fail("W_K's " + std::to_string(kvCols) + " columns are not K/V heads of d_head " +
             std::to_string(d_head) + " dividing the " + std::to_string(H) + " query heads");
    if (w.wK.rows() != d_model || w.wV.rows() != d_model || w.wV.cols() != kvCols)
        fail("W_K and W_V must both be d_model x (H_kv*d_head)");
    if (w.wO.rows() != inner || w.wO.cols() != d_model) fail("W_O must be (H*d_head) x d_model");
    if (w.bQ.size() != 0 && w.bQ.size() != inner) fail("b_Q must be 1 x (H*d_head)");
    for (const RowVec* b : {&w.bK, &w.bV})
        if (b->size() != 0 && b->size() != kvCols) fail("b_K and b_V must be 1 x (H_kv*d_head)");
    if (w.bO.size() != 0 && w.bO.size() != d_model) fail("b_O must be 1 x d_model");
    const Rotation& r = in.rotation;
    if (!r.empty() && (r.dims() > d_head || r.sin.rows() != r.cos.rows() ||
                       r.sin.cols() != r.cos.cols() || r.cos.rows() < in.pastLen() + in.queryLen))
        fail("the rotation's cos and sin must be equal tables of at least P + N rows and at most "
             "d_head / 2 columns");
    if (!r.empty() && in.isCross()) fail("a rotation is for self-attention");
}

// The cached keys and values of AttentionInput::pastKeys: P rows per sentence of each, K/V wide.
void checkPast(const AttentionInput& in, const Weights& w) {
    const Mat &k = in.pastKeys, &v = in.pastValues;
    if (k.size() == 0 && v.size() == 0) return;
    if (in.isCross() || in.reshapeBug) fail("cached keys are for self-attention without the bug");
    if (k.rows() != v.rows() || k.rows() % in.batch != 0 || k.cols() != w.wK.cols() ||
        v.cols() != w.wV.cols())
        fail("cached keys and values must both be (B*P) x (H_kv*d_head)");
}

void checkShapes(const AttentionInput& in, const Weights& w) {
    const int d_model = w.dModel();
    if (in.batch < 1 || in.queryLen < 1 || in.keyLen < 1) fail("batch and lengths must be >= 1");
    checkWeights(in, w);
    checkPast(in, w);
    if (in.x.rows() != Eigen::Index(in.batch) * in.queryLen || in.x.cols() != d_model)
        fail("x must be (B*N) x d_model");
    if (in.isCross()) {
        if (in.xSource.rows() != Eigen::Index(in.batch) * in.keyLen || in.xSource.cols() != d_model)
            fail("x_source must be (B*M) x d_model");
    } else if (in.keyLen != in.pastLen() + in.queryLen) {
        fail(in.pastKeys.size() > 0 ? "self-attention after cached keys needs M = P + N"
                                    : "self-attention needs M = N");
    }
    if (in.keyPadding.size() > 0 &&
        (in.keyPadding.rows() != in.batch || in.keyPadding.cols() != in.keyLen))
        fail("key padding must be B x M");
    if (in.window < 0 || in.scoreCap < 0) fail("the window and the score cap must be >= 0");
    if (in.scoreBias.size() > 0 && (in.scoreBias.rows() != Eigen::Index(in.heads) * in.queryLen ||
                                    in.scoreBias.cols() != in.keyLen))
        fail("the score bias must be (H*N) x M");
    for (int h : in.ablatedHeads)
        if (h < 0 || h >= in.heads)
            fail("ablated head " + std::to_string(h + 1) +
                 " does not exist (heads = " + std::to_string(in.heads) + ")");
}

} // namespace

SplitSource splitSource(int head, int row, int col, int len, int d_model, int heads,
                        bool reshapeBug) {
    const int d_head = d_model / heads;
    if (!reshapeBug) return {row, head * d_head + col};
    const long long flat = (static_cast<long long>(head) * len + row) * d_head + col;
    return {int(flat / d_model), int(flat % d_model)};
}

std::vector<SplitBlock> splitBlocks(int head, int len, int d_model, int heads, bool reshapeBug) {
    const int d_head = d_model / heads;
    // Each row of the slice is d_head cells in one token's row (d_head divides d_model, so a
    // run never wraps): first join runs that continue along a token, then stack equal ones.
    std::vector<SplitBlock> runs;
    for (int r = 0; r < len; ++r) {
        const SplitSource s = splitSource(head, r, 0, len, d_model, heads, reshapeBug);
        if (!runs.empty() && runs.back().tokenBegin == s.token && runs.back().dimEnd == s.dim)
            runs.back().dimEnd += d_head;
        else
            runs.push_back({s.token, s.token + 1, s.dim, s.dim + d_head});
    }
    std::vector<SplitBlock> blocks;
    for (const SplitBlock& run : runs) {
        SplitBlock* last = blocks.empty() ? nullptr : &blocks.back();
        if (last && last->tokenEnd == run.tokenBegin && last->dimBegin == run.dimBegin &&
            last->dimEnd == run.dimEnd)
            last->tokenEnd = run.tokenEnd;
        else
            blocks.push_back(run);
    }
    return blocks;
}

namespace {

// Everything of `out` but the arithmetic: sizes, flags, the mask, buffers sized.
void prepare(const AttentionInput& in, int d_model, int d_head, int kvHeads, Attention& out) {
    const int B = in.batch, N = in.queryLen, M = in.keyLen, H = in.heads;
    out.batch = B, out.queryLen = N, out.keyLen = M, out.heads = H;
    out.d_model = d_model, out.d_head = d_head, out.kvHeads = kvHeads;
    out.causal = in.causal;
    out.queryOffset = in.pastLen();
    out.cross = in.isCross();
    out.rotated = !in.rotation.empty();
    out.scoreBias = in.scoreBias.size() > 0;
    out.window = in.window;
    out.scoreCap = in.scoreCap;
    out.scale = in.scaleValue > 0 ? in.scaleValue : scaleFactor(in.scale, d_model, d_head);
    out.outProjection = in.outProjection;
    out.reshapeBug = in.reshapeBug;
    out.intermediates = in.intermediates;
    out.headAblated.assign(H, false);
    for (int h : in.ablatedHeads) out.headAblated[h] = true;
    if (in.keyPadding.size() > 0)
        out.keyPadding = in.keyPadding;
    else
        out.keyPadding.setConstant(B, M, false);
    const Eigen::Index headRows = Eigen::Index(B) * H * N;
    const bool kept = in.intermediates;
    out.scores.resize(kept ? headRows : 0, M);                        // (B*H*N) x M
    out.attention.resize(headRows, M);                                // (B*H*N) x M
    out.headOutputs.resize(kept ? headRows : 0, d_head);              // (B*H*N) x d_head
    out.concat.resize(Eigen::Index(B) * N, Eigen::Index(H) * d_head); // (B*N) x (H*d_head)
}

// attendProjected's input: q, k and v of one head size, K/V heads dividing the query heads,
// the rows of the new tokens; the rest as checkShapes checks it.
void checkProjected(const AttentionInput& in) {
    const int H = in.heads;
    if (in.batch < 1 || in.queryLen < 1 || in.keyLen < 1) fail("batch and lengths must be >= 1");
    if (H < 1 || in.q.cols() % H != 0 || in.q.cols() == 0)
        fail("q's " + std::to_string(in.q.cols()) + " columns are not " + std::to_string(H) +
             " heads");
    const Eigen::Index d_head = in.q.cols() / H, kvCols = in.k.cols();
    const Eigen::Index kvHeads = kvCols % d_head == 0 ? kvCols / d_head : 0;
    if (kvHeads < 1 || H % kvHeads != 0 || in.v.cols() != kvCols)
        fail("k and v must be K/V heads of d_head " + std::to_string(d_head) + " dividing the " +
             std::to_string(H) + " query heads");
    const Eigen::Index fresh = Eigen::Index(in.batch) * (in.keyLen - in.pastLen());
    if (in.q.rows() != Eigen::Index(in.batch) * in.queryLen || in.k.rows() != fresh ||
        in.v.rows() != fresh)
        fail("q must be (B*N) rows and k, v (B*(M - P)) rows");
    if (in.pastKeys.size() > 0 &&
        (in.pastKeys.cols() != kvCols || in.pastValues.cols() != kvCols ||
         in.pastKeys.rows() != in.pastValues.rows() || in.pastKeys.rows() % in.batch != 0))
        fail("cached keys and values must both be (B*P) x (H_kv*d_head)");
    const Rotation& r = in.rotation;
    if (!r.empty() && (r.dims() > d_head || r.sin.rows() != r.cos.rows() ||
                       r.sin.cols() != r.cos.cols() || r.cos.rows() < in.keyLen))
        fail("the rotation's cos and sin must be equal tables of at least P + N rows and at most "
             "d_head / 2 columns");
    if (in.keyPadding.size() > 0 &&
        (in.keyPadding.rows() != in.batch || in.keyPadding.cols() != in.keyLen))
        fail("key padding must be B x M");
    if (in.window < 0 || in.scoreCap < 0) fail("the window and the score cap must be >= 0");
    if (in.scoreBias.size() > 0 &&
        (in.scoreBias.rows() != Eigen::Index(H) * in.queryLen || in.scoreBias.cols() != in.keyLen))
        fail("the score bias must be (H*N) x M");
    for (int h : in.ablatedHeads)
        if (h < 0 || h >= H)
            fail("ablated head " + std::to_string(h + 1) +
                 " does not exist (heads = " + std::to_string(H) + ")");
}

} // namespace

void forward(const AttentionInput& in, const Weights& w, Attention& out) {
    checkShapes(in, w);
    const int d_head = int(w.wQ.cols()) / in.heads;
    prepare(in, w.dModel(), d_head, int(w.wK.cols()) / d_head, out);
    kernel::active().forward(in, w, out); // the arithmetic, on this CPU's SIMD path
}

void attendProjected(AttentionInput& in, Attention& out) {
    checkProjected(in);
    if (in.reshapeBug || !in.outProjection) fail("a model's own projections have no pitfalls");
    const int d_head = int(in.q.cols()) / in.heads;
    prepare(in, int(in.x.cols()), d_head, int(in.k.cols()) / d_head, out);
    out.output.resize(0, 0);
    out.outputShift.resize(0);
    kernel::active().attendProjected(in, out);
}

void engineMultiply(const Mat& a, const Mat& b, Mat& c) {
    kernel::active().multiply(a, b, c);
}

void engineMultiply(const Mat& a, Transposed which, const Mat& b, Mat& c) {
    kernel::active().multiplyTransposed(a, which, b, c);
}

void engineMultiply(const ConstMatMap& a, const ConstMatMap& b, bool transposedB, Mat& c) {
    kernel::active().multiplyMapped(a, b, transposedB, c);
}

void engineMultiply(const ConstMatMap& a, const HalfMatrix& b, bool transposedB, Mat& c) {
    if (a.cols() != (transposedB ? b.cols : b.rows))
        fail("the product's depths differ: " + std::to_string(a.cols()) + " and " +
             std::to_string(transposedB ? b.cols : b.rows));
    kernel::active().multiplyHalf(a, b, transposedB, c);
}

void engineMultiply(const ConstMatMap& a, const QuantMatrix& b, bool transposedB, Mat& c) {
    if (a.cols() != (transposedB ? b.cols : b.rows))
        fail("the product's depths differ: " + std::to_string(a.cols()) + " and " +
             std::to_string(transposedB ? b.cols : b.rows));
    const bool blocks = b.blockValues > 0 && b.blockBytes > 0 && 256 % b.blockValues == 0;
    if (!b.dequantize || !blocks || b.cols % b.blockValues != 0 ||
        b.rowBytes != std::size_t(b.cols / b.blockValues) * std::size_t(b.blockBytes))
        fail("the quantized matrix's rows are not whole blocks of its type");
    kernel::active().multiplyQuant(a, b, transposedB, c);
}

} // namespace core
