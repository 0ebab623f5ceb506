#include "engine/step_detail.h"

#include "engine/reference.h"

#include <stdexcept>
#include <string>

namespace core {

namespace {

void checkIndexes(const Attention& a, int b, int h, int i) {
    auto outside = [](const char* what, int index, int count) {
        throw std::out_of_range(std::string(what) + " " + std::to_string(index) +
                                " is outside the trace (" + std::to_string(count) + ")");
    };
    if (b < 0 || b >= a.batch) outside("sentence", b, a.batch);
    if (h < 0 || h >= a.heads) outside("head", h, a.heads);
    if (i < 0 || i >= a.queryLen) outside("query", i, a.queryLen);
}

// Q's slice for this head, K and V for every key, through splitSource so the reshape bug
// shows what the head really reads.
void headSlices(const Attention& a, StepDetail& s) {
    const int N = a.queryLen, M = a.keyLen, b = s.batchIndex;
    s.qHead.resize(s.d_head);    // 1 x d_head
    s.kHead.resize(M, s.d_head); // M x d_head
    s.vHead.resize(M, s.d_head); // M x d_head
    for (int c = 0; c < s.d_head; ++c) {
        const SplitSource src =
            splitSource(s.head, s.query, c, N, s.d_model, s.heads, s.reshapeBug);
        s.qHead[c] = a.q(Eigen::Index(b) * N + src.token, src.dim);
    }
    for (int j = 0; j < M; ++j)
        for (int c = 0; c < s.d_head; ++c) {
            const SplitSource src = splitSource(s.head, j, c, M, s.d_model, s.heads, s.reshapeBug);
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
void outputContributions(const Mat& wO /* d_model x d_model */, StepDetail& s) {
    const reference::MatD parts = // H x d_model
        reference::headContributions(s.concat.cast<double>(), wO.cast<double>(), s.heads,
                                     s.outProjection);
    s.contributions = parts.cast<Scalar>();
}

} // namespace

StepDetail stepDetail(const Trace& trace, int b, int h, int i) {
    const Attention& a = trace.attention;
    checkIndexes(a, b, h, i);
    StepDetail s;
    s.batchIndex = b, s.head = h, s.query = i;
    s.keyLen = a.keyLen, s.d_model = a.d_model, s.d_head = a.d_head, s.heads = a.heads;
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
    return s;
}

} // namespace core
