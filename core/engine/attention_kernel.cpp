// The forward pass's arithmetic (attention_kernel.h). Compiled into mha_engine for the
// baseline, and with MHA_ENGINE_VARIANT into one shared object per SIMD level.
//
// Map: each step of the math, the function here that computes it (gemm:: is
// gemm_micro_kernel.h), and its readable version in engine/reference.h (in double, plain loops).
//   Q, K, V = x wQ, xSource wK, xSource wV  forward -> multiplyChunked         project
//   (+ bQ, bK, bV when the weights have biases)  addBias
//   rotary positions on q and k (optional)  rotate                             rotate
//   split into heads (or the reshape bug)   headView, packHead                 splitHead
//   scores = scale * Q_h K_h^T              attendTile -> gemm::multiplyPanels scores
//   (+ the score bias, optional)            attendTile                         scores
//   mask: causal, key padding               maskedSoftmax, visibleMax          maskScores
//   softmax over the visible keys           maskedSoftmax, normalizeRow,       softmax
//                                           shortRowsSoftmax, expAndSum
//   headOutput = weights V_h                attendTile -> gemm::multiplyPanels weightedValues
//   merge into concat                       attendTile (headView)              mergeHead
//   ablated heads zeroed, outputShift       forward                            forward
//   output = concat wO (or concat, W_O off) project                            outProject
// The call: core::forward (attention.cpp) checks the shapes and calls kernel::active().forward,
// the forward of the active SIMD level's MhaEngineKernel table (attention_kernel.h), which
// simd.cpp fills with this file's forward: the built-in copy, or the one in
// lib/mha-viz/libmha_engine_<level>.so that it loads with dlopen.
#include "engine/attention_kernel.h"

#include "engine/gemm_micro_kernel.h"
#include "engine/simd.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

namespace core::kernel {

namespace {

// Head h's (len x d_head) slice of sentence b in m, a (B*len) x d_model matrix. A sentence's
// rows are contiguous (row-major), so the slice is a strided view. Correct split: the column
// block [h*d_head, (h+1)*d_head). Reshape bug: the flat run [h*len*d_head, (h+1)*len*d_head)
// of the block read as len x d_head, i.e. (len, d_model) viewed as (H, len, d_head) with no
// transpose. One Map type for both: the correct split runs the same kernels a block would,
// and with H = 1 the bug reads the very same numbers (same start, same stride).
template <class Matrix>
auto headView(Matrix& m, int b, int h, int len, int d_head, bool reshapeBug) {
    using View = Eigen::Map<std::conditional_t<std::is_const_v<Matrix>, const Mat, Mat>, 0,
                            Eigen::OuterStride<>>; // len x d_head
    const Eigen::Index d_model = m.cols();
    auto* sentence = m.data() + Eigen::Index(b) * len * d_model;
    if (reshapeBug)
        return View(sentence + Eigen::Index(h) * len * d_head, len, d_head,
                    Eigen::OuterStride<>(d_head));
    return View(sentence + Eigen::Index(h) * d_head, len, d_head, Eigen::OuterStride<>(d_model));
}

// Query rows per work item: a tile's scores and weights (kTileRows x M) are still in cache when
// the softmax reads them and weights * V reads the weights, instead of a whole head's going
// out to memory and back between passes. Tiles also spread one head over threads.
constexpr int kTileRows = 64;

using gemm::kSerialFlops; // below it a step stays on one thread

// The largest score query i may see, or -inf when it sees none (or only NaN scores).
Scalar visibleMax(const Attention& a, int b, int i, bool padded, const Scalar* row) {
    constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();
    const int visible = padded ? a.keyLen : a.leadingKeys(i);
    if (!padded) // NaN scores are passed over; all NaN gives NaN
        return Eigen::Map<const Eigen::RowVectorX<Scalar>>(row, visible)
            .maxCoeff<Eigen::PropagateNumbers>();
    Scalar rowMax = kNegInf;
    for (int j = 0; j < a.keyLen; ++j)
        if (!a.masked(b, i, j)) rowMax = std::max(rowMax, row[j]);
    return rowMax;
}

// A softmax row after its exp: masked weights to 0, then scaled to sum to 1.
void normalizeRow(const Attention& a, int b, int i, bool padded, Scalar rowMax, Scalar* row) {
    const int M = a.keyLen;
    Eigen::Map<Eigen::RowVectorX<Scalar>> w(row, M);            // 1 x M
    if (!(rowMax > -std::numeric_limits<Scalar>::infinity())) { // every key masked (or NaN)
        w.setZero();
        return;
    }
    // A multiply per weight, not a division (as PyTorch's softmax does), and only of visible
    // weights: a NaN sum (a NaN score) must not reach the masked ones, which stay exactly 0.
    if (padded) {
        for (int j = 0; j < M; ++j)
            if (a.masked(b, i, j)) w[j] = 0;
        const Scalar inv = 1 / w.sum();
        for (int j = 0; j < M; ++j)
            if (!a.masked(b, i, j)) w[j] *= inv;
        return;
    }
    const int visible = a.leadingKeys(i);
    w.tail(M - visible).setZero();
    w.head(visible) *= 1 / w.head(visible).sum();
}

// weights[j] = exp(scores[j] - shift) for j < n, in one pass that also sums them: packets from
// j = 0, then std::exp for the last n % width entries, so an entry's rounding depends only on
// its position in the row.
Scalar expAndSum(const Scalar* scores, Scalar shift, Scalar* weights, int n) {
    using namespace Eigen::internal;
    const gemm::Packet by = pset1<gemm::Packet>(shift);
    gemm::Packet acc = pset1<gemm::Packet>(Scalar(0));
    int j = 0;
    for (; j + gemm::kWidth <= n; j += gemm::kWidth) {
        const gemm::Packet e = pexp(psub(ploadu<gemm::Packet>(scores + j), by));
        pstoreu(weights + j, e);
        acc = padd(acc, e);
    }
    Scalar sum = predux(acc);
    for (; j < n; ++j) sum += weights[j] = std::exp(scores[j] - shift);
    return sum;
}

// Rows at least this long are done one at a time, so a row is still in L1 from its max to its
// division; shorter rows (a short sentence) are done as one tile, so their exp is vectorised.
constexpr int kRowwiseSoftmax = 64;

// maskedSoftmax for short rows (M < kRowwiseSoftmax) without padded keys: query i sees keys
// [0, leadingKeys(i)). Plain loops over the few keys of a row, where Eigen's dynamic-size
// reductions cost more in set-up than in arithmetic; the exp runs over the whole tile. Its
// last loop is normalizeRow's unpadded case: giving visibleMax and normalizeRow such loops for
// short rows instead left the 10-token forward 8% slower (their per-row calls and maps).
void shortRowsSoftmax(const Attention& a, int i0, int rows, const Scalar* scores, Scalar* weights) {
    constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();
    const int M = a.keyLen;
    std::array<Scalar, kTileRows> rowMax; // the largest visible score; NaN passed over
    for (int r = 0; r < rows; ++r) {
        const Scalar* s = scores + Eigen::Index(r) * M;
        Scalar* w = weights + Eigen::Index(r) * M;
        Scalar m = kNegInf;
        for (int j = 0, visible = a.leadingKeys(i0 + r); j < visible; ++j) m = s[j] > m ? s[j] : m;
        rowMax[std::size_t(r)] = m;
        const Scalar shift = m > kNegInf ? m : 0; // no visible key, or only NaN: zeroed below
        for (int j = 0; j < M; ++j) w[j] = s[j] - shift;
    }
    Eigen::Map<Eigen::ArrayX<Scalar>> tile(weights, Eigen::Index(rows) * M); // rows*M
    tile = tile.exp();
    for (int r = 0; r < rows; ++r) {
        Scalar* w = weights + Eigen::Index(r) * M;
        const int visible = rowMax[std::size_t(r)] > kNegInf ? a.leadingKeys(i0 + r) : 0;
        Scalar sum = 0;
        for (int j = 0; j < visible; ++j) sum += w[j];
        const Scalar inv = 1 / sum; // visible weights only, as in normalizeRow
        for (int j = 0; j < visible; ++j) w[j] *= inv;
        for (int j = visible; j < M; ++j) w[j] = 0;
    }
}

// Softmax of queries [i0, i0 + rows) of sentence b, from scores into weights (rows x M each,
// contiguous; they may be the same memory), over the keys each query may see. A row with no
// visible key is all 0 (PyTorch would give NaN there). Masked weights are set to 0 after the
// exp, not left to exp(-inf): vectorised exp clamps its argument on some SIMD paths (AVX2 gives
// 2.9e-39 for -inf), and the trace contract says masked weights are exactly 0. The exp runs
// over whole rows (or the whole tile), masked keys included, so every path rounds each entry
// alike whatever the mask. A sentence without padded keys (every training batch, every single
// sentence) sees keys [0, visible) and skips the per-key test.
void maskedSoftmax(const Attention& a, int b, int i0, int rows, const Scalar* scores,
                   Scalar* weights) {
    constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();
    const int M = a.keyLen;
    const bool padded = a.paddedKeys(b);
    const bool rowwise = M >= kRowwiseSoftmax;
    if (!rowwise && !padded) return shortRowsSoftmax(a, i0, rows, scores, weights);
    Eigen::Matrix<Scalar, Eigen::Dynamic, 1, 0, kTileRows, 1> rowMax(rows); // rows x 1
    for (int r = 0; r < rows; ++r) {
        const Eigen::Index at = Eigen::Index(r) * M;
        rowMax[r] = visibleMax(a, b, i0 + r, padded, scores + at);
        const Scalar shift = rowMax[r] > kNegInf ? rowMax[r] : 0; // an empty row: zeroed below
        Eigen::Map<Eigen::ArrayX<Scalar>> w(weights + at, M);     // M
        const Eigen::Map<const Eigen::ArrayX<Scalar>> s(scores + at, M);
        if (!rowwise) {
            w = s - shift;
            continue;
        }
        if (!padded && a.leadingKeys(i0 + r) == M && rowMax[r] > kNegInf) { // all keys seen
            w *= 1 / expAndSum(scores + at, shift, weights + at, M);
            continue;
        }
        w = (s - shift).exp();
        normalizeRow(a, b, i0 + r, padded, rowMax[r], weights + at);
    }
    if (rowwise) return;
    Eigen::Map<Eigen::ArrayX<Scalar>> tile(weights, Eigen::Index(rows) * M); // rows*M
    tile = tile.exp();
    for (int r = 0; r < rows; ++r)
        normalizeRow(a, b, i0 + r, padded, rowMax[r], weights + Eigen::Index(r) * M);
}

// K_g^T and V_g of every (b, g), g a K/V head, packed once per forward for the micro-kernel, read
// by every tile of the query heads that share it. Allocated per forward, uninitialised: not a
// thread_local kept between calls, whose dynamic TLS block in this dlopen'ed kernel crashed
// LeakSanitizer's thread scan at exit.
class PackedHeads {
  public:
    explicit PackedHeads(const Attention& a)
        : kSize_(gemm::paddedCols(a.keyLen) * a.d_head),
          vSize_(Eigen::Index(a.keyLen) * gemm::paddedCols(a.d_head)), heads_(a.kvHeads),
          buffer_(Eigen::Index(a.batch) * a.kvHeads * (kSize_ + vSize_)) {}
    Scalar* k(int b, int h) { return buffer_.data() + offset(b, h); }
    Scalar* v(int b, int h) { return k(b, h) + kSize_; }
    const Scalar* k(int b, int h) const { return buffer_.data() + offset(b, h); }
    const Scalar* v(int b, int h) const { return k(b, h) + kSize_; }

  private:
    Eigen::Index offset(int b, int h) const {
        return (Eigen::Index(b) * heads_ + h) * (kSize_ + vSize_);
    }
    Eigen::Index kSize_, vSize_;
    int heads_;                     // H_kv
    Eigen::VectorX<Scalar> buffer_; // B*H_kv*(kSize + vSize)
};

// Packs K_g and V_g of block (b, g), g a K/V head.
void packHead(const Attention& a, PackedHeads& packed, int b, int g) {
    const int M = a.keyLen, d_head = a.d_head;
    const auto kHead = headView(a.k, b, g, M, d_head, a.reshapeBug); // M x d_head
    const auto vHead = headView(a.v, b, g, M, d_head, a.reshapeBug); // M x d_head
    gemm::packTransposed(kHead.data(), kHead.outerStride(), M, d_head, packed.k(b, g));
    gemm::packPanels(vHead.data(), vHead.outerStride(), M, d_head, packed.v(b, g));
}

// Scores, weights and weights * V of queries [i0, i0 + rows) of block (b, h), merged into
// out.concat. Query head h reads K/V head kvHeadOf(h); `bias` is the score bias or empty.
void attendTile(Attention& out, const PackedHeads& packed, const Mat& bias, int b, int h, int i0,
                int rows) {
    const int N = out.queryLen, M = out.keyLen, d_head = out.d_head;
    const bool bug = out.reshapeBug;
    const auto qTile =
        headView(std::as_const(out.q), b, h, N, d_head, bug).middleRows(i0, rows); // rows x d_head
    const Eigen::Index r0 = out.headRow(b, h, i0);
    auto weights = out.attention.middleRows(r0, rows); // rows x M
    // Merge, the inverse of the split: correct, head h fills columns
    // [h*d_head, (h+1)*d_head) of its tokens' rows; with the bug, a flat run of the block.
    auto merged = headView(out.concat, b, h, N, d_head, bug).middleRows(i0, rows); // rows x d_head
    // Without intermediates the same products go straight into attention and concat.
    Scalar* scores = out.intermediates ? out.scores.row(r0).data() : weights.data(); // rows x M
    const int g = out.kvHeadOf(h);
    gemm::multiplyPanels(qTile.data(), qTile.outerStride(), rows, d_head,
                         gemm::Rhs::packed(packed.k(b, g), d_head), M, out.scale, scores, M);
    if (bias.size() > 0) // rows x M, head h's rows of the (H*N) x M bias
        Eigen::Map<Mat>(scores, rows, M) += bias.middleRows(Eigen::Index(h) * N + i0, rows);
    if (out.scoreCap > 0) { // Gemma 2's soft cap, before the mask as Hugging Face's
        Eigen::Map<Eigen::ArrayX<Scalar>> s(scores, Eigen::Index(rows) * M);
        s = (s * (1 / out.scoreCap)).tanh() * out.scoreCap;
    }
    maskedSoftmax(out, b, i0, rows, scores, weights.data());
    if (!out.intermediates) {
        gemm::multiplyPanels(weights.data(), M, rows, M, gemm::Rhs::packed(packed.v(b, g), M),
                             d_head, 1, merged.data(), merged.outerStride());
        return;
    }
    auto headOut = out.headOutputs.middleRows(r0, rows); // rows x d_head
    gemm::multiplyPanels(weights.data(), M, rows, M, gemm::Rhs::packed(packed.v(b, g), M), d_head,
                         1, headOut.data(), d_head);
    merged = headOut;
}

// Every (b, h) block, a tile of queries at a time, after packing each (b, g) block's K_g and V_g.
void attendPerHead(Attention& out, const Mat& bias) {
    const int N = out.queryLen, H = out.heads, blocks = out.batch * H;
    const int G = out.kvHeads, kvBlocks = out.batch * G;
    const int tiles = (N + kTileRows - 1) / kTileRows;
    const int items = blocks * tiles;
    PackedHeads packed(out);
    const auto tile = [&](int item) {
        const int bh = item / tiles, i0 = item % tiles * kTileRows;
        attendTile(out, packed, bias, bh / H, bh % H, i0, std::min(kTileRows, N - i0));
    };
    // Tiles are independent: spread them over threads when the work pays for the wake-up.
    // Small scenes stay on this thread without entering a parallel region at all: even a
    // one-thread region costs libgomp futex calls, a fifth of a 10-token forward.
    const double flops = 4.0 * out.batch * H * N * out.keyLen * out.d_head;
    if (items == 1 || flops <= kSerialFlops) {
        for (int bg = 0; bg < kvBlocks; ++bg) packHead(out, packed, bg / G, bg % G);
        for (int item = 0; item < items; ++item) tile(item);
        return;
    }
#pragma omp parallel
    {
#pragma omp for schedule(dynamic)
        for (int bg = 0; bg < kvBlocks; ++bg) packHead(out, packed, bg / G, bg % G);
#pragma omp for schedule(dynamic)
        for (int item = 0; item < items; ++item) tile(item);
    }
}

using gemm::kChunkCols; // columns per GEMM in the projections

// products[p].out = products[p].a * products[p].w for every p: the projections. Each product's
// columns are cut into chunks of kChunkCols, one single-threaded GEMM each, spread over threads.
// The cut does not depend on the thread count, and threads meet only at the loop's end, not
// inside Eigen's parallel GEMM, whose threads spin-wait on each other: on a busy machine (the
// window beside llvmpipe's threads) one descheduled thread stalled the other for whole time
// slices, and a 3 ms recompute took 60.
struct Product {
    const Mat* a; // rows x inner
    const Mat* w; // inner x cols
    Mat* out;     // rows x cols
};
// Whether the micro-kernel can read every weight matrix in place: whole panels wide, and small
// enough (256 KB) to stay in cache for every row block. Such a product is too small for
// Eigen's GEMM set-up (blocking sizes, packing both sides, a heap buffer) to pay off.
template <std::size_t P>
bool fitsInPlace(const std::array<Product, P>& products) {
    for (const Product& p : products)
        if (p.w->cols() % gemm::kPanel != 0 || p.w->size() > 65536) return false;
    return true;
}

template <std::size_t P>
void multiplyChunked(const std::array<Product, P>& products) {
    double flops = 0;
    for (const Product& p : products) {
        p.out->resize(p.a->rows(), p.w->cols());
        flops += 2.0 * double(p.a->rows()) * double(p.a->cols()) * double(p.w->cols());
    }
    if (flops <= kSerialFlops && fitsInPlace(products)) { // a short sentence, a small d_model
        for (const Product& p : products)
            gemm::multiplyPanels(p.a->data(), p.a->cols(), int(p.a->rows()), int(p.a->cols()),
                                 {p.w->data(), gemm::kPanel, p.w->cols()}, int(p.w->cols()), 1,
                                 p.out->data(), p.out->cols());
        return;
    }
    Eigen::Index widest = 0; // K and V are narrower than Q with grouped-query attention
    for (const Product& p : products) widest = std::max(widest, p.w->cols());
    const int chunks = int((widest + kChunkCols - 1) / kChunkCols);
    const int items = int(P) * chunks;
    const auto chunk = [&](int item) {
        const Product& p = products[std::size_t(item / chunks)];
        const Eigen::Index c0 = Eigen::Index(item % chunks) * kChunkCols;
        const Eigen::Index width = std::min(kChunkCols, p.w->cols() - c0);
        if (width > 0) p.out->middleCols(c0, width).noalias() = *p.a * p.w->middleCols(c0, width);
    };
    if (items == 1 || flops <= kSerialFlops) { // no parallel region (see attendPerHead)
        for (int item = 0; item < items; ++item) chunk(item);
        return;
    }
#pragma omp parallel for schedule(dynamic)
    for (int item = 0; item < items; ++item) chunk(item);
}

// A real checkpoint's bias, added to every row; the toy weights have none (empty).
void addBias(Mat& m /* rows x d_model */, const RowVec& bias /* 1 x d_model */) {
    if (bias.size() > 0) m.rowwise() += bias;
}

// Rotary positions: the first r dimensions of each d_head-wide head of every row of m,
// (B*len) x (heads*d_head), turned pair by pair by token t's angles (t = offset + the row within
// its sentence, offset the cached tokens before it): (a, b) -> (a cos - b sin, b cos + a sin),
// Hugging Face's q cos + rotate_half(q) sin.
void rotate(Mat& m, const Rotation& turn, int len, int heads, int d_head, int offset) {
    const int half = int(turn.cos.cols());
    for (Eigen::Index row = 0; row < m.rows(); ++row) {
        const Eigen::Index t = offset + row % len;
        for (int h = 0; h < heads; ++h) {
            Scalar* x = m.row(row).data() + Eigen::Index(h) * d_head; // row-major: contiguous
            for (int j = 0; j < half; ++j) {
                const int a = turn.interleaved ? 2 * j : j, b = turn.interleaved ? a + 1 : a + half;
                const Scalar c = turn.cos(t, j), s = turn.sin(t, j), xa = x[a], xb = x[b];
                x[a] = xa * c + -xb * s;
                x[b] = xb * c + xa * s;
            }
        }
    }
}

// output = concat * W_O + bO, or concat itself with the out projection switched off.
void project(const Attention& out, const Weights& w, Mat& result /* (B*N) x d_model */) {
    if (out.outProjection) {
        multiplyChunked(std::array<Product, 1>{{{&out.concat, &w.wO, &result}}});
        addBias(result, w.bO);
    } else {
        result = out.concat; // heads side by side, never mixed
    }
}

// Sentence by sentence, the cached rows (P per sentence) and then the new ones (N): the keys or
// values of every token, (B*(P + N)) x width.
void stackAfterPast(const Mat& past, const Mat& fresh, int batch, Mat& out) {
    const Eigen::Index P = past.rows() / batch, N = fresh.rows() / batch;
    out.resize(batch * (P + N), fresh.cols());
    for (int b = 0; b < batch; ++b) {
        out.middleRows(b * (P + N), P) = past.middleRows(b * P, P);
        out.middleRows(b * (P + N) + P, N) = fresh.middleRows(b * N, N);
    }
}

// The rotation and the cache on q and the new keys and values (`k`, `v`: (B*N) x (H_kv*d_head)
// after cached keys, else already out.k and out.v).
void turnAndStack(const AttentionInput& in, Mat& k, Mat& v, Attention& out) {
    const bool past = in.pastKeys.size() > 0;
    const int P = out.queryOffset;
    if (!in.rotation.empty()) {
        rotate(out.q, in.rotation, out.queryLen, out.heads, out.d_head, P);
        rotate(past ? k : out.k, in.rotation, past ? out.queryLen : out.keyLen, out.kvHeads,
               out.d_head, P);
    }
    if (!past) return;
    stackAfterPast(in.pastKeys, k, out.batch, out.k);
    stackAfterPast(in.pastValues, v, out.batch, out.v);
}

// q, k and v for all tokens and all heads at once: q (B*N) x (H*d_head), k and v
// (B*M) x (H_kv*d_head), biased and turned; after cached keys only x's rows are projected.
void projectQkv(const AttentionInput& in, const Weights& w, Attention& out) {
    const Mat& source = in.isCross() ? in.xSource : in.x; // (B*M) x d_model, or x after a cache
    const bool past = in.pastKeys.size() > 0;
    Mat k, v; // (B*N) x (H_kv*d_head): the new tokens' keys and values after a cache
    multiplyChunked(std::array<Product, 3>{{{&in.x, &w.wQ, &out.q},
                                            {&source, &w.wK, past ? &k : &out.k},
                                            {&source, &w.wV, past ? &v : &out.v}}});
    addBias(out.q, w.bQ);
    addBias(past ? k : out.k, w.bK);
    addBias(past ? v : out.v, w.bV);
    turnAndStack(in, k, v, out);
}

} // namespace

void forward(const AttentionInput& in, const Weights& w, Attention& out) {
    projectQkv(in, w, out);
    attendPerHead(out, in.scoreBias);
    if (in.ablatedHeads.empty()) {
        project(out, w, out.output);
        out.outputShift.resize(0);
        return;
    }
    // Ablation: the output with every head on, for outputShift; one extra GEMM, only here.
    Mat unablated; // (B*N) x d_model
    project(out, w, unablated);
    // Zero the ablated heads where the merge put them; headOutputs keep their values
    // so the UI can show what was removed.
    for (int b = 0; b < out.batch; ++b)
        for (int h = 0; h < out.heads; ++h)
            if (out.headAblated[h]) // N x d_head
                headView(out.concat, b, h, out.queryLen, out.d_head, out.reshapeBug).setZero();
    project(out, w, out.output);
    out.outputShift = (out.output - unablated).rowwise().norm().transpose(); // 1 x (B*N)
}

void attendProjected(AttentionInput& in, Attention& out) {
    const bool past = in.pastKeys.size() > 0;
    out.q = std::move(in.q);
    Mat k = std::move(in.k), v = std::move(in.v); // (B*N) x (H_kv*d_head)
    if (!past) out.k = std::move(k), out.v = std::move(v);
    turnAndStack(in, k, v, out);
    attendPerHead(out, in.scoreBias);
}

void multiply(const Mat& a, const Mat& b, Mat& c) {
    c.noalias() = a * b;
}

void multiplyTransposed(const Mat& a, Transposed which, const Mat& b, Mat& c) {
    if (which == Transposed::Left)
        c.noalias() = a.transpose() * b;
    else
        c.noalias() = a * b.transpose();
}

namespace {
void multiplyFloatTransposed(const ConstMatMap& a, const ConstMatMap& b, Mat& c);
} // namespace

// One chunk of multiplyMapped: columns [c0, c0 + width) of c. A weight matrix whose width is
// whole panels goes to the micro-kernel, read in place: Eigen's GEMM packed the weights and `a`
// again for every chunk into a fresh heap buffer and zeroed the output first, and the page
// faults of those buffers cost as much as the arithmetic. The transposed case (the
// unembedding, V x d) stays on Eigen, whose packing reads the rows in order.
void mappedChunk(const ConstMatMap& a, const ConstMatMap& b, bool transposedB, Mat& c,
                 Eigen::Index c0, Eigen::Index width) {
    if (transposedB) { // b's rows [c0, c0 + width), read as depth x width
        c.middleCols(c0, width).noalias() = a * b.middleRows(c0, width).transpose();
    } else if (b.cols() % gemm::kPanel == 0) {
        gemm::multiplyPanels(a.data(), a.cols(), int(a.rows()), int(a.cols()),
                             {b.data() + c0, gemm::kPanel, b.cols()}, int(width), 1, c.data() + c0,
                             c.cols());
    } else {
        c.middleCols(c0, width).noalias() = a * b.middleCols(c0, width);
    }
}

// The chunk width of a product by b^T (torch.nn.Linear's out x in weights, Eigen's GEMM or GEMV
// on each chunk): about 4 * kChunkCols wide (each of Eigen's GEMMs packs all of `a` again), in a
// whole number of chunks per thread: 512 + 256 for a 768-wide projection left one thread with
// two thirds of it.
Eigen::Index transposedChunkCols(Eigen::Index cols) {
    const Eigen::Index threads = std::max(1, Eigen::nbThreads());
    Eigen::Index chunks = std::max<Eigen::Index>(1, (cols + 4 * kChunkCols - 1) / (4 * kChunkCols));
    chunks = (chunks + threads - 1) / threads * threads;
    const Eigen::Index width = (cols + chunks - 1) / chunks;
    return (width + 15) / 16 * 16;
}

// Like multiplyChunked: column chunks of c, one single-threaded product each (Eigen runs
// serially inside a parallel region), so threads meet only at the end. The projections' chunk
// width: 256 left the MLP's c_proj (768 columns) in 3 chunks, one thread doing two. A few rows
// by b^T (a decoder's step: Eigen's GEMV, bound by reading b) share b's rows between the
// threads from 256 KB of weights on, where the FLOP count alone kept them on one thread.
void multiplyMapped(const ConstMatMap& a, const ConstMatMap& b, bool transposedB, Mat& c) {
    if (transposedB && a.rows() > 4 && a.cols() == b.cols())
        return multiplyFloatTransposed(a, b, c);
    const Eigen::Index cols = transposedB ? b.rows() : b.cols();
    const Eigen::Index chunkCols = transposedB ? transposedChunkCols(cols) : kChunkCols;
    c.resize(a.rows(), cols); // rows x cols
    const int chunks = int((cols + chunkCols - 1) / chunkCols);
    const auto chunk = [&](int item) {
        const Eigen::Index c0 = Eigen::Index(item) * chunkCols;
        mappedChunk(a, b, transposedB, c, c0, std::min(chunkCols, cols - c0));
    };
    const double flops = 2.0 * double(a.rows()) * double(a.cols()) * double(cols);
    const bool streamed = transposedB && a.rows() <= 4 && b.size() >= (Eigen::Index(1) << 16);
    if (chunks == 1 || (flops <= kSerialFlops && !streamed)) { // no parallel region (attendPerHead)
        for (int item = 0; item < chunks; ++item) chunk(item);
        return;
    }
#pragma omp parallel for schedule(dynamic)
    for (int item = 0; item < chunks; ++item) chunk(item);
}

namespace {

inline Scalar widen(const HalfMatrix& b, std::uint16_t bits) {
    if (b.bf16) { // the top half of a float's bits
        const std::uint32_t wide = std::uint32_t(bits) << 16;
        Scalar f;
        std::memcpy(&f, &wide, sizeof f);
        return f;
    }
    return float(Eigen::half(Eigen::half_impl::raw_uint16_to_half(bits)));
}

// kWidth entries of a row of b, widened into one packet. BF16 in registers: through a float
// array, the halves' stores and the whole packet's load missed store forwarding (half of the
// packing's time).
inline gemm::Packet widenPacket(const HalfMatrix& b, const std::uint16_t* row) {
    if constexpr (gemm::kWidth > 1) {
        if (b.bf16) {
            using Halves = std::uint16_t __attribute__((vector_size(2 * gemm::kWidth)));
            using Words = std::uint32_t __attribute__((vector_size(4 * gemm::kWidth)));
            Halves halves;
            std::memcpy(&halves, row, sizeof halves);
            const Words words = __builtin_convertvector(halves, Words) << 16;
            gemm::Packet packet;
            std::memcpy(&packet, &words, sizeof packet);
            return packet;
        }
    }
    alignas(64) Scalar wide[gemm::kWidth];
    for (int i = 0; i < gemm::kWidth; ++i) wide[i] = widen(b, row[i]);
    return Eigen::internal::pload<gemm::Packet>(wide);
}

// Rows [p0, p0 + width) of b (width <= kPanel) widened and packed as one panel of the
// micro-kernel (gemm::packTransposed's layout: for each k the kPanel entries b(p0 + c, k), zero
// past width): the right-hand side b^T of a product by torch.nn.Linear's out x in weights.
// kWidth x kWidth blocks are widened a row at a time and turned in registers (ptranspose):
// value by value, the strided writes took a quarter of a BF16 model's forward.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes" // PacketBlock of a vector type
void packHalfPanel(const HalfMatrix& b, Eigen::Index p0, int width, Scalar* dst) {
    using namespace Eigen::internal;
    constexpr int kW = gemm::kWidth;
    const Eigen::Index depth = b.cols, whole = depth / kW * kW;
    if (width < gemm::kPanel) std::fill(dst, dst + depth * gemm::kPanel, Scalar(0));
    for (int c0 = 0; c0 + kW <= width; c0 += kW)
        for (Eigen::Index k0 = 0; k0 < whole; k0 += kW) {
            PacketBlock<gemm::Packet, kW> block;
            for (int i = 0; i < kW; ++i)
                block.packet[i] = widenPacket(b, b.data + (p0 + c0 + i) * depth + k0);
            ptranspose(block); // packet j: depth k0 + j, columns c0 .. c0 + kW
            for (int j = 0; j < kW; ++j)
                pstoreu(dst + (k0 + j) * gemm::kPanel + c0, block.packet[j]);
        }
    for (int c = 0; c < width; ++c) { // the columns past whole blocks, and the depths past them
        const std::uint16_t* row = b.data + (p0 + c) * depth;
        const Eigen::Index from = c < width / kW * kW ? whole : 0;
        for (Eigen::Index k = from; k < depth; ++k) dst[k * gemm::kPanel + c] = widen(b, row[k]);
    }
}

// Rows [p0, p0 + width) of b (F32, width <= kPanel) as one panel of the micro-kernel, like
// packHalfPanel without the widening: kWidth x kWidth blocks turned in registers.
void packFloatPanel(const ConstMatMap& b, Eigen::Index p0, int width, Scalar* dst) {
    using namespace Eigen::internal;
    constexpr int kW = gemm::kWidth;
    const Eigen::Index depth = b.cols(), whole = depth / kW * kW;
    if (width < gemm::kPanel) std::fill(dst, dst + depth * gemm::kPanel, Scalar(0));
    for (int c0 = 0; c0 + kW <= width; c0 += kW)
        for (Eigen::Index k0 = 0; k0 < whole; k0 += kW) {
            PacketBlock<gemm::Packet, kW> block;
            for (int i = 0; i < kW; ++i)
                block.packet[i] = ploadu<gemm::Packet>(b.data() + (p0 + c0 + i) * depth + k0);
            ptranspose(block); // packet j: depth k0 + j, columns c0 .. c0 + kW
            for (int j = 0; j < kW; ++j)
                pstoreu(dst + (k0 + j) * gemm::kPanel + c0, block.packet[j]);
        }
    for (int c = 0; c < width; ++c) { // the columns past whole blocks, and the depths past them
        const Scalar* row = b.data() + (p0 + c) * depth;
        const Eigen::Index from = c < width / kW * kW ? whole : 0;
        for (Eigen::Index k = from; k < depth; ++k) dst[k * gemm::kPanel + c] = row[k];
    }
}
#pragma GCC diagnostic pop

// c = a * b^T for F32 weights in torch.nn.Linear's layout (T5's, BERT's) and more than a few
// rows: each thread packs b a panel at a time for the micro-kernel, as multiplyHalf does.
// Eigen's GEMM on such chunks ran at 71 GFLOP/s on one core of the EPYC, a fifth of it in
// packing the weights again for each chunk.
void multiplyFloatTransposed(const ConstMatMap& a, const ConstMatMap& b, Mat& c) {
    const Eigen::Index cols = b.rows(), depth = a.cols();
    const int rows = int(a.rows());
    c.resize(a.rows(), cols); // rows x cols
    gemm::chunksOverThreads(
        cols, kChunkCols, depth * gemm::kPanel, 2.0 * double(rows) * double(depth) * double(cols),
        [&](Eigen::Index c0, Eigen::Index width, Scalar* buffer) {
            for (Eigen::Index p0 = c0; p0 < c0 + width; p0 += gemm::kPanel) {
                const int w = int(std::min<Eigen::Index>(gemm::kPanel, c0 + width - p0));
                packFloatPanel(b, p0, w, buffer);
                gemm::multiplyPanels(a.data(), depth, rows, int(depth),
                                     gemm::Rhs::packed(buffer, int(depth)), w, 1, c.data() + p0,
                                     c.cols());
            }
        });
}

// Columns [c0, c0 + width) of b widened, b.rows x width row-major into dst.
void widenColumns(const HalfMatrix& b, Eigen::Index c0, Eigen::Index width, Scalar* dst) {
    for (Eigen::Index r = 0; r < b.rows; ++r) {
        const std::uint16_t* row = b.data + r * b.cols + c0;
        for (Eigen::Index c = 0; c < width; ++c) dst[r * width + c] = widen(b, row[c]);
    }
}

// Columns [c0, c0 + width) of c = a * b^T (transposedB) or a * b, one panel of b at a time
// widened into `buffer` (depth * max(kPanel, width) floats) and multiplied by the micro-kernel.
void halfChunk(const ConstMatMap& a, const HalfMatrix& b, bool transposedB, Mat& c, Eigen::Index c0,
               Eigen::Index width, Scalar* buffer) {
    const Eigen::Index depth = a.cols();
    const int rows = int(a.rows());
    if (!transposedB) {
        widenColumns(b, c0, width, buffer); // depth x width, read in place when whole panels
        if (width % gemm::kPanel == 0)
            gemm::multiplyPanels(a.data(), depth, rows, int(depth), {buffer, gemm::kPanel, width},
                                 int(width), 1, c.data() + c0, c.cols());
        else
            c.middleCols(c0, width).noalias() = a * Eigen::Map<const Mat>(buffer, depth, width);
        return;
    }
    for (Eigen::Index p0 = c0; p0 < c0 + width; p0 += gemm::kPanel) {
        const int w = int(std::min<Eigen::Index>(gemm::kPanel, c0 + width - p0));
        packHalfPanel(b, p0, w, buffer);
        gemm::multiplyPanels(a.data(), depth, rows, int(depth),
                             gemm::Rhs::packed(buffer, int(depth)), w, 1, c.data() + p0, c.cols());
    }
}

} // namespace

// Like multiplyMapped: column chunks of c spread over threads, each thread widening b a panel at
// a time into a buffer of its own, allocated once per call (not a thread_local: see
// PackedHeads).
void multiplyHalf(const ConstMatMap& a, const HalfMatrix& b, bool transposedB, Mat& c) {
    const Eigen::Index cols = transposedB ? b.rows : b.cols, depth = a.cols();
    c.resize(a.rows(), cols); // rows x cols
    gemm::chunksOverThreads(cols, kChunkCols,
                            depth * std::max<Eigen::Index>(gemm::kPanel, kChunkCols),
                            2.0 * double(a.rows()) * double(depth) * double(cols),
                            [&](Eigen::Index c0, Eigen::Index width, Scalar* buffer) {
                                halfChunk(a, b, transposedB, c, c0, width, buffer);
                            });
}

int compiledLevel() {
#if !defined(EIGEN_VECTORIZE)
    return int(SimdLevel::Scalar);
#elif defined(EIGEN_VECTORIZE_AVX512)
    return int(SimdLevel::Avx512);
#elif defined(EIGEN_VECTORIZE_AVX2) && defined(EIGEN_VECTORIZE_FMA)
    return int(SimdLevel::Avx2);
#else
    return int(SimdLevel::Sse2);
#endif
}

} // namespace core::kernel

#ifdef MHA_ENGINE_VARIANT
// The one symbol the shared object exports (everything else is hidden, then made local).
extern "C" __attribute__((visibility("default"))) const MhaEngineKernel* mha_engine_kernel_v1() {
    static const MhaEngineKernel kernel{core::kernel::kAbi,
                                        core::kernel::compiledLevel(),
                                        core::kernel::forward,
                                        core::kernel::multiply,
                                        core::kernel::multiplyTransposed,
                                        core::kernel::backward,
                                        core::kernel::rowEntropy,
                                        core::kernel::meanRowEntropy,
                                        core::kernel::multiplyMapped,
                                        core::kernel::attendProjected,
                                        core::kernel::multiplyHalf,
                                        core::kernel::multiplyQuant};
    return &kernel;
}
#endif
