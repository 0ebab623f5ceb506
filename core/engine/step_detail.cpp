#include "engine/step_detail.h"

#include "engine/reference.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace core {

namespace {

[[noreturn]] void outside(const char* what, int index, int count) {
    throw std::out_of_range(std::string(what) + " " + std::to_string(index) +
                            " is outside the trace (" + std::to_string(count) + ")");
}

void checkIndexes(const Attention& a, int b, int h, int i) {
    if (b < 0 || b >= a.batch) outside("sentence", b, a.batch);
    if (h < 0 || h >= a.heads) outside("head", h, a.heads);
    if (i < 0 || i >= a.queryLen) outside("query", i, a.queryLen);
}

// Q's slice for this head, K and V of its K/V head for every key, through splitSource so the
// reshape bug shows what the head really reads. Q is H*d_head wide, K and V H_kv*d_head.
void headSlices(const Attention& a, StepDetail& s) {
    const int N = a.queryLen, M = a.keyLen, b = s.batchIndex, g = s.kvHead;
    const int qWidth = int(a.q.cols()), kvWidth = int(a.k.cols());
    s.qHead.resize(s.d_head);    // 1 x d_head
    s.kHead.resize(M, s.d_head); // M x d_head
    s.vHead.resize(M, s.d_head); // M x d_head
    for (int c = 0; c < s.d_head; ++c) {
        const SplitSource src = splitSource(s.head, s.query, c, N, qWidth, s.heads, s.reshapeBug);
        s.qHead[c] = a.q(Eigen::Index(b) * N + src.token, src.dim);
    }
    for (int j = 0; j < M; ++j)
        for (int c = 0; c < s.d_head; ++c) {
            const SplitSource src = splitSource(g, j, c, M, kvWidth, s.kvHeads, s.reshapeBug);
            s.kHead(j, c) = a.k(Eigen::Index(b) * M + src.token, src.dim);
            s.vHead(j, c) = a.v(Eigen::Index(b) * M + src.token, src.dim);
        }
}

// q . k per key, before the scale: the reference's scores step (scale 1) for this one query.
void rawScores(StepDetail& s) {
    const reference::MatD raw = // 1 x M
        reference::scores(s.qHead.cast<double>(), s.kHead.cast<double>(), 1.0);
    s.rawScores = raw.row(0).cast<Scalar>();
}

// Head g's part of the output row (reference::headContributions): its d_head-wide slice of the
// concat times W_O's rows of that slice. Their sum is the output; with W_O off each head only
// fills its own columns.
void outputContributions(const Mat& wO /* (H*d_head) x d_model */, StepDetail& s) {
    const reference::MatD parts = // H x d_model
        reference::headContributions(s.concat.cast<double>(), wO.cast<double>(), s.heads,
                                     s.outProjection);
    s.contributions = parts.cast<Scalar>();
}

// [SECTION] Rotary positions

// The pair (a, b) of pair p of the first r dimensions: as the engine and reference::rotate.
std::pair<int, int> pairDims(const Rotation& r, int p) {
    const int half = int(r.cos.cols());
    return r.interleaved ? std::pair{2 * p, 2 * p + 1} : std::pair{p, p + half};
}

// v turned by row `position` of the tables (inverse: turned back, dividing by the tables' norm,
// so tables scaled as a whole, as some RoPE variants make them, are undone exactly). In double.
RowVec turned(const RowVec& v, const Rotation& r, int position, bool inverse) {
    RowVec out = v; // 1 x d_head
    for (int p = 0; p < int(r.cos.cols()); ++p) {
        const auto [ia, ib] = pairDims(r, p);
        double c = r.cos(position, p), s = r.sin(position, p);
        if (inverse) {
            const double norm = c * c + s * s;
            c /= norm, s = -s / norm;
        }
        out[ia] = Scalar(double(v[ia]) * c - double(v[ib]) * s);
        out[ib] = Scalar(double(v[ib]) * c + double(v[ia]) * s);
    }
    return out;
}

Scalar dot(const RowVec& a, const RowVec& b) {
    return Scalar(a.cast<double>().dot(b.cast<double>()));
}

// Both positions moved by the same amount within the tables: back so the earlier sits at 0,
// else forward as far as the tables reach; 0 when neither moves (the tables hold one pair).
int shiftWithin(int rows, int first, int second) {
    const int earlier = std::min(first, second), later = std::max(first, second);
    if (earlier > 0) return -earlier;
    return rows - 1 - later;
}

} // namespace

RotaryDetail rotaryDetail(const Attention& a, const Rotation& r, int b, int h, int i, int j) {
    checkIndexes(a, b, h, i);
    if (j < 0 || j >= a.keyLen) outside("key", j, a.keyLen);
    RotaryDetail d;
    d.query = i, d.key = j;
    d.queryPosition = a.queryOffset + i, d.keyPosition = j;
    if (r.empty() || !a.rotated) return d;
    d.dims = r.dims(), d.interleaved = r.interleaved;
    const int g = a.kvHeadOf(h), d_head = a.d_head;
    d.qAfter = a.q.row(Eigen::Index(b) * a.queryLen + i).segment(Eigen::Index(h) * d_head, d_head);
    d.kAfter = a.k.row(Eigen::Index(b) * a.keyLen + j).segment(Eigen::Index(g) * d_head, d_head);
    d.qBefore = turned(d.qAfter, r, d.queryPosition, true);
    d.kBefore = turned(d.kAfter, r, d.keyPosition, true);
    const int pairs = int(r.cos.cols()), rows = int(r.cos.rows());
    d.frequencies.resize(pairs); // 1 x (r/2): the angle one position adds (row 1 of the tables)
    for (int p = 0; p < pairs; ++p)
        d.frequencies[p] =
            rows > 1 ? Scalar(std::atan2(double(r.sin(1, p)), double(r.cos(1, p)))) : Scalar(0);
    d.queryAngles = d.frequencies * Scalar(d.queryPosition);
    d.keyAngles = d.frequencies * Scalar(d.keyPosition);
    d.score = dot(d.qAfter, d.kAfter);
    d.shift = shiftWithin(rows, d.queryPosition, d.keyPosition);
    d.shiftedScore = dot(turned(d.qBefore, r, d.queryPosition + d.shift, false),
                         turned(d.kBefore, r, d.keyPosition + d.shift, false));
    return d;
}

StepDetail stepDetail(const Trace& trace, int b, int h, int i, int key) {
    const Attention& a = trace.attention;
    checkIndexes(a, b, h, i);
    StepDetail s;
    s.batchIndex = b, s.head = h, s.query = i;
    s.keyLen = a.keyLen, s.d_model = a.d_model, s.d_head = a.d_head, s.heads = a.heads;
    s.kvHeads = a.kvHeads > 0 ? a.kvHeads : a.heads, s.kvHead = a.kvHeadOf(h);
    s.reshapeBug = a.reshapeBug, s.outProjection = a.outProjection, s.scale = a.scale;
    const Eigen::Index tokenRow = Eigen::Index(b) * a.queryLen + i; // row in (B*N) x d_model
    const Eigen::Index headRow = a.headRow(b, h, i);                // row in (B*H*N) x ...
    s.x = trace.input.x.row(tokenRow);
    s.q = a.q.row(tokenRow);
    s.concat = a.concat.row(tokenRow);
    s.output = a.output.row(tokenRow);
    s.headOutput = a.headOutputs.row(headRow);
    s.scaledScores = a.scores.row(headRow);
    s.weights = a.attention.row(headRow);
    headSlices(a, s);
    rawScores(s);
    for (int j = 0; j < a.keyLen; ++j) {
        s.masked.push_back(a.masked(b, i, j));
        s.maskedCount += int(s.masked.back());
        s.weightSum += s.weights[j]; // in order, as the window always showed it
    }
    outputContributions(trace.weights->wO, s);
    if (key < 0) { // the key this query weighs most
        Eigen::Index most = 0;
        s.weights.maxCoeff(&most);
        key = int(most);
    }
    s.rotary = rotaryDetail(a, trace.input.rotation, b, h, i, key);
    return s;
}

} // namespace core
