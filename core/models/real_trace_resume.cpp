// A decoder's trace of a text that starts as an earlier trace's did (real_model.h,
// RealTraceOptions::resume): under the causal mask the rows of the tokens both texts share
// cannot change, so their streams, keys and values, attention rows, layer means and thumbnail
// rows are taken from the earlier trace and only the later tokens run, on its keys and values
// (a KV cache). Typing at the end of a long text reruns a few tokens, not all of them.
#include "models/real_trace_parts.h"

#include "models/transformer.h"

#include <algorithm>

namespace core::models {

namespace {

// Rows [0, P) of `top` over the rows of `bottom`: (P + rows) x cols.
Mat stacked(const Mat& top, Eigen::Index P, const Mat& bottom) {
    Mat out(P + bottom.rows(), bottom.cols());
    out.topRows(P) = top.topRows(P);
    out.bottomRows(bottom.rows()) = bottom;
    return out;
}

// The old rows' scores against the new keys, which the causal mask hides but the trace keeps
// (scores are before the mask): scale * q_h k_g^T of queries [0, P) and keys [P, N).
Mat hiddenScores(const Attention& old, const Attention& tail, int h, int P) {
    const int d = tail.d_head, g = tail.kvHeadOf(h);
    const Mat q = old.q.block(0, Eigen::Index(h) * d, P, d);                // P x d_head
    const Mat k = tail.k.block(P, Eigen::Index(g) * d, tail.keyLen - P, d); // n x d_head
    return tail.scale * (q * k.transpose());                                // P x n
}

// Layer l's whole attention from the earlier trace's (rows [0, P)) and the new rows' (queries
// [P, N) against every key): what a forward of all N tokens gives, to rounding.
Attention joinedAttention(const Attention& old, Attention&& tail, int P) {
    const int n = tail.queryLen, N = P + n, H = tail.heads;
    Attention a = tail; // sizes, switches, keys and values (N rows) as the new forward's
    a.queryLen = N, a.queryOffset = 0;
    a.keyPadding = BoolMat::Constant(1, N, false);
    a.q = stacked(old.q, P, tail.q); // N x (H*d_head)
    a.concat = stacked(old.concat, P, tail.concat);
    a.output = stacked(old.output, P, tail.output);
    if (tail.outputShift.size() > 0) {
        a.outputShift.resize(N); // 1 x N
        a.outputShift << old.outputShift.head(P), tail.outputShift;
    }
    a.scores.resize(Eigen::Index(H) * N, N);     // (H*N) x N
    a.attention.setZero(Eigen::Index(H) * N, N); // (H*N) x N: the old rows' new keys masked
    a.headOutputs.resize(Eigen::Index(H) * N, a.d_head);
    for (int h = 0; h < H; ++h) {
        const Eigen::Index at = Eigen::Index(h) * N, from = old.headRow(0, h);
        a.scores.block(at, 0, P, P) = old.scores.block(from, 0, P, P);
        a.scores.block(at, P, P, n) = hiddenScores(old, tail, h, P);
        a.attention.block(at, 0, P, P) = old.attention.block(from, 0, P, P);
        a.headOutputs.middleRows(at, P) = old.headOutputs.middleRows(from, P);
        a.scores.middleRows(at + P, n) = tail.scores.middleRows(tail.headRow(0, h), n);
        a.attention.middleRows(at + P, n) = tail.attention.middleRows(tail.headRow(0, h), n);
        a.headOutputs.middleRows(at + P, n) = tail.headOutputs.middleRows(tail.headRow(0, h), n);
    }
    return a;
}

// Layer l of the trace from the earlier one's rows [0, P) and the new rows' attention (queries
// [P, N), input n x d): its mean, thumbnails, keys and values; layer 1's whole trace (the views
// read their labels and mask from it), the later ones made again when shown.
void keepTail(RealTrace& r, const RealTrace& old, int l, int P, Attention&& tail, Mat&& input) {
    const int N = tail.keyLen, n = tail.queryLen, H = tail.heads;
    const Eigen::Index step = r.thumbnailStep, cells = (N + step - 1) / step, kept = P / step;
    Mat mean = Mat::Zero(N, N); // N x N
    mean.topLeftCorner(P, P) = old.meanAttention[std::size_t(l)].topLeftCorner(P, P);
    Mat tailMean = Mat::Zero(n, N); // n x N
    for (int h = 0; h < H; ++h) {
        const Mat map = headMap(tail, h); // n x N
        tailMean += map;
        const Mat& before = old.thumbnails[std::size_t(l * H + h)];
        Mat thumbnail = Mat::Zero(cells, cells); // the old cells' later keys are all masked
        const Eigen::Index cols = std::min(cells, before.cols());
        thumbnail.topLeftCorner(kept, cols) = before.topLeftCorner(kept, cols);
        thumbnail.bottomRows(cells - kept) = poolMap(map, step); // P is whole cells
        r.thumbnails.push_back(std::move(thumbnail));
    }
    mean.bottomRows(n) = tailMean / Scalar(std::max(H, 1));
    r.meanAttention.push_back(std::move(mean));
    r.firstKeyWeights.push_back(stacked(old.firstKeyWeights[std::size_t(l)], P,
                                        firstKeyColumn(tail))); // N x H
    if (l > 0) {                             // made again from its stream when shown
        r.keys.push_back(std::move(tail.k)); // N x (H_kv*d_head)
        r.values.push_back(std::move(tail.v));
        r.layers.push_back(nullptr);
        return;
    }
    r.keys.push_back(tail.k);
    r.values.push_back(tail.v);
    const Trace& first = *old.layers[0];
    Mat x = stacked(first.input.x, P, input); // N x d
    r.layers.push_back(
        makeLayerTrace(r, l, joinedAttention(first.attention, std::move(tail), P), std::move(x)));
}

// Whether `old` can be resumed after a prefix by the trace r with these options.
bool resumable(const RealTrace& r, const RealTrace& old, const RealTraceOptions& options) {
    const RealModel& model = *r.model;
    const int L = model.config().layers, H = model.config().heads;
    if (old.model != r.model || !model.net->causal() || options.keepLogits ||
        !options.pair.empty() || !old.pair.empty() || old.ids == r.ids)
        return false; // the same ids: the layers' own resume (RealTraceOptions::resume)
    if (old.layerCount() != L || int(old.keys.size()) != L || int(old.values.size()) != L ||
        int(old.firstKeyWeights.size()) != L ||
        old.thumbnails.size() != std::size_t(L) * std::size_t(H) || old.layers.empty() ||
        !old.layers[0] || old.layers[0]->attention.scoreBias)
        return false;
    if (old.thumbnailStep != r.thumbnailStep || old.topK != r.topK ||
        (model.net->hasHead() && !old.predictionsPending &&
         old.predictions.size() != old.ids.size()))
        return false; // the thumbnails' cells or the predictions differ
    for (int l = 0; l < L; ++l)
        if (ablatedIn(old.ablated, l) != ablatedIn(options.ablated, l)) return false;
    return true;
}

} // namespace

int reusableRows(const RealTrace& r, const RealTraceOptions& options) {
    const RealTrace* old = options.resume.get();
    if (!old || !resumable(r, *old, options)) return 0;
    const std::size_t n = std::min(r.ids.size(), old->ids.size());
    std::size_t shared = 0; // the tokens both texts start with
    while (shared < n && r.ids[shared] == old->ids[shared] &&
           (r.types.empty() ? 0 : r.types[shared]) == (old->types.empty() ? 0 : old->types[shared]))
        ++shared;
    // One token at least runs; the rows kept are whole thumbnail cells, so the old cells stay
    // exactly what pooling the new maps gives.
    const int last = std::min(int(shared), int(r.ids.size()) - 1);
    return last / r.thumbnailStep * r.thumbnailStep;
}

void traceAfterPrefix(RealTrace& r, int P, const RealTraceOptions& options) {
    const RealTrace& old = *options.resume;
    const RealModel& model = *r.model;
    const int N = int(r.ids.size()), n = N - P, L = model.config().layers;
    r.reusedRows = P;
    Mat x = model.net->embed(r.ids, r.types); // N x d: rows [0, P) as the earlier trace's
    ForwardOptions run;
    run.ablated = options.ablated;
    run.logits = false; // the head reads one row more (below)
    const LayerSink sink = [&](int l, Attention&& attention, Mat&& input) {
        keepTail(r, old, l, P, std::move(attention), std::move(input));
        stopIfCancelled(options);
    };
    stopIfCancelled(options);
    ForwardResult out =
        runForwardAfter(*model.net, x.bottomRows(n), r.ids, old.keys, old.values, run, sink);
    r.residual.push_back(std::move(x));
    for (int l = 1; l <= L; ++l)
        r.residual.push_back(stacked(old.residual[std::size_t(l)], P, out.stream[std::size_t(l)]));
    if (!model.net->hasHead()) return;
    if (old.predictionsPending) { // the earlier rows' are not made yet: all of them later
        r.predictionsPending = true;
        r.loss = std::nan("");
        return;
    }
    // Row P - 1's next token may have changed: its loss term is made again with the new rows'.
    const Mat rows = stacked(old.residual[std::size_t(L)].middleRows(P - 1, 1), 1,
                             out.stream[std::size_t(L)]); // (n + 1) x d
    r.predictions.assign(old.predictions.begin(), old.predictions.begin() + (P - 1));
    r.targetLogProbs.assign(old.targetLogProbs.begin(), old.targetLogProbs.begin() + (P - 1));
    predictRows(model, model.net->head(rows), P - 1, options.topK, r);
    finishLoss(model, r);
}

} // namespace core::models
