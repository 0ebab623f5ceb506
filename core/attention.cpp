#include "attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace core {

std::string_view toString(ScaleKind scale) {
    switch (scale) {
    case ScaleKind::SqrtDHead:
        return "sqrt_d_head";
    case ScaleKind::SqrtDModel:
        return "sqrt_d_model";
    case ScaleKind::None:
        return "none";
    }
    return "sqrt_d_head";
}

std::string_view toString(MaskKind mask) {
    return mask == MaskKind::Causal ? "causal" : "none";
}

std::optional<ScaleKind> parseScaleKind(std::string_view text) {
    for (ScaleKind s : {ScaleKind::SqrtDHead, ScaleKind::SqrtDModel, ScaleKind::None})
        if (text == toString(s)) return s;
    return std::nullopt;
}

std::optional<MaskKind> parseMaskKind(std::string_view text) {
    for (MaskKind m : {MaskKind::None, MaskKind::Causal})
        if (text == toString(m)) return m;
    return std::nullopt;
}

Scalar scaleFactor(ScaleKind scale, int d_model, int heads) {
    switch (scale) {
    case ScaleKind::SqrtDHead:
        return Scalar(1.0 / std::sqrt(double(d_model / heads)));
    case ScaleKind::SqrtDModel:
        return Scalar(1.0 / std::sqrt(double(d_model)));
    case ScaleKind::None:
        return 1;
    }
    return 1;
}

double forwardFlops(int batch, int queryLen, int keyLen, int d_model) {
    const double b = batch, n = queryLen, m = keyLen, d = d_model;
    const double projections = 2 * b * (n + 2 * m) * d * d; // Q from N rows, K and V from M
    const double scores = 2 * b * n * m * d;                // summed over heads: H * d_head = d
    const double weightedValues = 2 * b * n * m * d;
    const double outProjection = 2 * b * n * d * d;
    return projections + scores + weightedValues + outProjection;
}

namespace {

void checkShapes(const AttentionInput& in, const Weights& w) {
    const int d_model = w.dModel();
    auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    if (in.batch < 1 || in.queryLen < 1 || in.keyLen < 1) fail("batch and lengths must be >= 1");
    if (in.heads < 1 || d_model % in.heads != 0)
        fail("heads (" + std::to_string(in.heads) + ") must divide d_model (" +
             std::to_string(d_model) + ")");
    for (const Mat* m : {&w.wQ, &w.wK, &w.wV, &w.wO})
        if (m->rows() != d_model || m->cols() != d_model) fail("weights must be d_model x d_model");
    if (in.x.rows() != Eigen::Index(in.batch) * in.queryLen || in.x.cols() != d_model)
        fail("x must be (B*N) x d_model");
    if (in.isCross()) {
        if (in.xSource.rows() != Eigen::Index(in.batch) * in.keyLen || in.xSource.cols() != d_model)
            fail("x_source must be (B*M) x d_model");
    } else if (in.keyLen != in.queryLen) {
        fail("self-attention needs M = N");
    }
    if (in.keyPadding.size() > 0 &&
        (in.keyPadding.rows() != in.batch || in.keyPadding.cols() != in.keyLen))
        fail("key padding must be B x M");
    for (int h : in.ablatedHeads)
        if (h < 0 || h >= in.heads)
            fail("ablated head " + std::to_string(h + 1) +
                 " does not exist (heads = " + std::to_string(in.heads) + ")");
}

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

// Softmax of one (b, h) block in place, over the keys each query may see. A row
// with no visible key stays all 0 (PyTorch would give NaN there).
void maskedSoftmax(const Attention& a, int b, Eigen::Ref<Mat> block /* N x M */) {
    constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();
    for (int i = 0; i < a.queryLen; ++i) {
        auto row = block.row(i); // 1 x M
        for (int j = 0; j < a.keyLen; ++j)
            if (a.masked(b, i, j)) row[j] = kNegInf;
        const Scalar rowMax = row.maxCoeff();
        if (rowMax == kNegInf) { // every key masked
            row.setZero();
            continue;
        }
        row = (row.array() - rowMax).exp(); // exp(-inf) = 0 exactly: masked weights are 0
        row /= row.sum();
    }
}

} // namespace

SplitSource splitSource(int head, int row, int col, int len, int d_model, int heads,
                        bool reshapeBug) {
    const int d_head = d_model / heads;
    if (!reshapeBug) return {row, head * d_head + col};
    const long long flat = (static_cast<long long>(head) * len + row) * d_head + col;
    return {int(flat / d_model), int(flat % d_model)};
}

void forward(const AttentionInput& in, const Weights& w, Attention& out) {
    checkShapes(in, w);
    const int B = in.batch, N = in.queryLen, M = in.keyLen, H = in.heads;
    const int d_model = w.dModel(), d_head = d_model / H;
    out.batch = B, out.queryLen = N, out.keyLen = M, out.heads = H;
    out.d_model = d_model, out.d_head = d_head;
    out.causal = in.causal;
    out.scale = scaleFactor(in.scale, d_model, H);
    out.outProjection = in.outProjection;
    out.reshapeBug = in.reshapeBug;
    out.headAblated.assign(H, false);
    for (int h : in.ablatedHeads) out.headAblated[h] = true;
    const bool anyAblated = !in.ablatedHeads.empty();
    if (in.keyPadding.size() > 0)
        out.keyPadding = in.keyPadding;
    else
        out.keyPadding.setConstant(B, M, false);

    const Mat& source = in.isCross() ? in.xSource : in.x; // (B*M) x d_model
    // One GEMM per projection for all tokens and all heads at once.
    out.q.noalias() = in.x * w.wQ;   // (B*N) x d_model
    out.k.noalias() = source * w.wK; // (B*M) x d_model
    out.v.noalias() = source * w.wV; // (B*M) x d_model

    const Eigen::Index headRows = Eigen::Index(B) * H * N;
    out.scores.resize(headRows, M);                  // (B*H*N) x M
    out.attention.resize(headRows, M);               // (B*H*N) x M
    out.headOutputs.resize(headRows, d_head);        // (B*H*N) x d_head
    out.concat.resize(Eigen::Index(B) * N, d_model); // (B*N) x d_model

    // Heads are independent: spread the (b, h) blocks over threads when each is
    // big enough to pay for it; small scenes stay on one thread (no wake-up cost).
    const int blocks = B * H;
    const double blockFlops = 4.0 * N * M * d_head;
    const bool bug = in.reshapeBug;
#pragma omp parallel for schedule(static) if (blocks > 1 && blockFlops * blocks > 4e6)
    for (int bh = 0; bh < blocks; ++bh) {
        const int b = bh / H, h = bh % H;
        const Eigen::Index r0 = out.headRow(b, h);
        const auto qHead = headView(std::as_const(out.q), b, h, N, d_head, bug); // N x d_head
        const auto kHead = headView(std::as_const(out.k), b, h, M, d_head, bug); // M x d_head
        const auto vHead = headView(std::as_const(out.v), b, h, M, d_head, bug); // M x d_head
        auto scores = out.scores.middleRows(r0, N);                              // N x M
        auto weights = out.attention.middleRows(r0, N);                          // N x M
        auto headOut = out.headOutputs.middleRows(r0, N);                        // N x d_head
        scores.noalias() = out.scale * (qHead * kHead.transpose());
        weights = scores;
        maskedSoftmax(out, b, weights);
        headOut.noalias() = weights * vHead;
        // Merge, the inverse of the split: correct, head h fills columns
        // [h*d_head, (h+1)*d_head) of its tokens' rows; with the bug, a flat run of the block.
        headView(out.concat, b, h, N, d_head, bug) = headOut;
    }
    // output = concat * W_O, or concat itself with the out projection switched off.
    auto project = [&](Mat& result /* (B*N) x d_model */) {
        if (in.outProjection)
            result.noalias() = out.concat * w.wO;
        else
            result = out.concat; // heads side by side, never mixed
    };
    if (!anyAblated) {
        project(out.output);
        out.outputShift.resize(0);
        return;
    }
    // Ablation: the output with every head on, for outputShift; one extra GEMM, only here.
    Mat unablated; // (B*N) x d_model
    project(unablated);
    // Zero the ablated heads where the merge put them; headOutputs keep their values
    // so the UI can show what was removed.
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
            if (!out.headAblated[h]) continue;
            headView(out.concat, b, h, N, d_head, bug).setZero(); // N x d_head
        }
    project(out.output);
    out.outputShift = (out.output - unablated).rowwise().norm().transpose(); // 1 x (B*N)
}

} // namespace core
