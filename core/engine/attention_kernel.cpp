// The forward pass's arithmetic (attention_kernel.h). Compiled into mha_core for the
// baseline, and with MHA_ENGINE_VARIANT into one shared object per SIMD level.
#include "engine/attention_kernel.h"

#include "engine/simd.h"

#include <array>
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

// The largest score query i may see, or -inf when it sees none (or only NaN scores).
Scalar visibleMax(const Attention& a, int b, int i, bool padded, const Scalar* row) {
    constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();
    const int visible = a.causal && !padded ? std::min(i + 1, a.keyLen) : a.keyLen;
    if (!padded) // NaN scores are passed over; all NaN gives NaN
        return Eigen::Map<const Eigen::RowVectorX<Scalar>>(row, visible)
            .maxCoeff<Eigen::PropagateNumbers>();
    Scalar rowMax = kNegInf;
    for (int j = 0; j < a.keyLen; ++j)
        if (!a.masked(b, i, j)) rowMax = std::max(rowMax, row[j]);
    return rowMax;
}

// Softmax of queries [i0, i0 + rows) of sentence b, from scores into weights (rows x M each,
// contiguous; they may be the same memory), over the keys each query may see. A row with no
// visible key is all 0 (PyTorch would give NaN there). Masked weights are set to 0 after the
// exp, not left to exp(-inf): vectorised exp clamps its argument on some SIMD paths (AVX2 gives
// 2.9e-39 for -inf), and the trace contract says masked weights are exactly 0. The exp runs
// over the whole tile as one array, so short rows (a short sentence) are vectorised too and
// every path rounds each entry alike whatever the mask. A sentence without padded keys (every
// training batch, every single sentence) sees keys [0, visible) and skips the per-key test.
void maskedSoftmax(const Attention& a, int b, int i0, int rows, const Scalar* scores,
                   Scalar* weights) {
    constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();
    const int M = a.keyLen;
    const bool padded = a.keyPadding.size() > 0 && a.keyPadding.row(b).any();
    Eigen::Matrix<Scalar, Eigen::Dynamic, 1, 0, kTileRows, 1> rowMax(rows); // rows x 1
    for (int r = 0; r < rows; ++r) {
        rowMax[r] = visibleMax(a, b, i0 + r, padded, scores + Eigen::Index(r) * M);
        const Scalar shift = rowMax[r] > kNegInf ? rowMax[r] : 0; // an empty row: zeroed below
        for (Eigen::Index j = Eigen::Index(r) * M; j < Eigen::Index(r + 1) * M; ++j)
            weights[j] = scores[j] - shift;
    }
    Eigen::Map<Eigen::ArrayX<Scalar>> tile(weights, Eigen::Index(rows) * M); // rows*M
    tile = tile.exp();
    for (int r = 0; r < rows; ++r) {
        Eigen::Map<Eigen::RowVectorX<Scalar>> row(weights + Eigen::Index(r) * M, M); // 1 x M
        const int i = i0 + r;
        if (!(rowMax[r] > kNegInf)) { // every key masked (or every visible score NaN)
            row.setZero();
            continue;
        }
        if (padded) {
            for (int j = 0; j < M; ++j)
                if (a.masked(b, i, j)) row[j] = 0;
        } else if (a.causal && i + 1 < M) {
            row.tail(M - (i + 1)).setZero();
        }
        row /= row.sum();
    }
}

// Scores, weights and weights * V of queries [i0, i0 + rows) of block (b, h), merged into
// out.concat.
void attendTile(Attention& out, int b, int h, int i0, int rows) {
    const int N = out.queryLen, M = out.keyLen, d_head = out.d_head;
    const bool bug = out.reshapeBug;
    const auto qTile =
        headView(std::as_const(out.q), b, h, N, d_head, bug).middleRows(i0, rows); // rows x d_head
    const auto kHead = headView(std::as_const(out.k), b, h, M, d_head, bug);       // M x d_head
    const auto vHead = headView(std::as_const(out.v), b, h, M, d_head, bug);       // M x d_head
    const Eigen::Index r0 = out.headRow(b, h, i0);
    auto weights = out.attention.middleRows(r0, rows); // rows x M
    // Merge, the inverse of the split: correct, head h fills columns
    // [h*d_head, (h+1)*d_head) of its tokens' rows; with the bug, a flat run of the block.
    auto merged = headView(out.concat, b, h, N, d_head, bug).middleRows(i0, rows); // rows x d_head
    if (!out.intermediates) { // the same products, straight into attention and concat
        weights.noalias() = out.scale * (qTile * kHead.transpose());
        maskedSoftmax(out, b, i0, rows, weights.data(), weights.data());
        merged.noalias() = weights * vHead;
        return;
    }
    auto scores = out.scores.middleRows(r0, rows);       // rows x M
    auto headOut = out.headOutputs.middleRows(r0, rows); // rows x d_head
    scores.noalias() = out.scale * (qTile * kHead.transpose());
    maskedSoftmax(out, b, i0, rows, scores.data(), weights.data());
    headOut.noalias() = weights * vHead;
    merged = headOut;
}

// Every (b, h) block, a tile of queries at a time.
void attendPerHead(Attention& out) {
    const int N = out.queryLen, H = out.heads;
    const int tiles = (N + kTileRows - 1) / kTileRows;
    const int items = out.batch * H * tiles;
    // Tiles are independent: spread them over threads when the work pays for the wake-up;
    // small scenes stay on one thread.
    const double flops = 4.0 * out.batch * H * N * out.keyLen * out.d_head;
#pragma omp parallel for schedule(dynamic) if (items > 1 && flops > 4e6)
    for (int item = 0; item < items; ++item) {
        const int bh = item / tiles, i0 = item % tiles * kTileRows;
        attendTile(out, bh / H, bh % H, i0, std::min(kTileRows, N - i0));
    }
}

// Columns per GEMM in the projections (a multiple of every SIMD width).
constexpr Eigen::Index kChunkCols = 128;

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
template <std::size_t P>
void multiplyChunked(const std::array<Product, P>& products) {
    double flops = 0;
    for (const Product& p : products) {
        p.out->resize(p.a->rows(), p.w->cols());
        flops += 2.0 * double(p.a->rows()) * double(p.a->cols()) * double(p.w->cols());
    }
    const int chunks = int((products[0].w->cols() + kChunkCols - 1) / kChunkCols);
    const int items = int(P) * chunks;
#pragma omp parallel for schedule(dynamic) if (items > 1 && flops > 4e6)
    for (int item = 0; item < items; ++item) {
        const Product& p = products[std::size_t(item / chunks)];
        const Eigen::Index c0 = Eigen::Index(item % chunks) * kChunkCols;
        const Eigen::Index width = std::min(kChunkCols, p.w->cols() - c0);
        p.out->middleCols(c0, width).noalias() = *p.a * p.w->middleCols(c0, width);
    }
}

// output = concat * W_O, or concat itself with the out projection switched off.
void project(const Attention& out, const Weights& w, Mat& result /* (B*N) x d_model */) {
    if (out.outProjection)
        multiplyChunked(std::array<Product, 1>{{{&out.concat, &w.wO, &result}}});
    else
        result = out.concat; // heads side by side, never mixed
}

} // namespace

void forward(const AttentionInput& in, const Weights& w, Attention& out) {
    const Mat& source = in.isCross() ? in.xSource : in.x; // (B*M) x d_model
    // The projections for all tokens and all heads at once: q (B*N) x d_model, k and v
    // (B*M) x d_model.
    multiplyChunked(std::array<Product, 3>{
        {{&in.x, &w.wQ, &out.q}, {&source, &w.wK, &out.k}, {&source, &w.wV, &out.v}}});
    attendPerHead(out);
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

void multiply(const Mat& a, const Mat& b, Mat& c) {
    c.noalias() = a * b;
}

void multiplyTransposed(const Mat& a, Transposed which, const Mat& b, Mat& c) {
    if (which == Transposed::Left)
        c.noalias() = a.transpose() * b;
    else
        c.noalias() = a * b.transpose();
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
    static const MhaEngineKernel kernel{
        core::kernel::kAbi,     core::kernel::compiledLevel(),    core::kernel::forward,
        core::kernel::multiply, core::kernel::multiplyTransposed, core::kernel::backward};
    return &kernel;
}
#endif
