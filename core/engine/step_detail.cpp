#include "engine/step_detail.h"

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
// shows what the head really reads; then q . k per key.
void headSlices(const Attention& a, StepDetail& s) {
    const int N = a.queryLen, M = a.keyLen, b = s.batchIndex;
    s.qHead.resize(s.d_head);    // 1 x d_head
    s.kHead.resize(M, s.d_head); // M x d_head
    s.vHead.resize(M, s.d_head); // M x d_head
    s.rawScores.resize(M);       // 1 x M
    for (int c = 0; c < s.d_head; ++c) {
        const SplitSource src =
            splitSource(s.head, s.query, c, N, s.d_model, s.heads, s.reshapeBug);
        s.qHead[c] = a.q(Eigen::Index(b) * N + src.token, src.dim);
    }
    for (int j = 0; j < M; ++j) {
        Scalar dot = 0; // summed in order, as the window always showed it
        for (int c = 0; c < s.d_head; ++c) {
            const SplitSource src = splitSource(s.head, j, c, M, s.d_model, s.heads, s.reshapeBug);
            s.kHead(j, c) = a.k(Eigen::Index(b) * M + src.token, src.dim);
            s.vHead(j, c) = a.v(Eigen::Index(b) * M + src.token, src.dim);
            dot += s.qHead[c] * s.kHead(j, c);
        }
        s.rawScores[j] = dot;
    }
}

// Head g's part of the output row: its d_head-wide slice of the concat times W_O's rows of
// that slice. Their sum is the output; with W_O off each head only fills its own columns.
void outputContributions(const Mat& wO, StepDetail& s) { // wO: d_model x d_model
    s.contributions.resize(s.heads, s.d_model);          // H x d_model
    for (int g = 0; g < s.heads; ++g)
        for (int c = 0; c < s.d_model; ++c) {
            Scalar sum = 0;
            if (s.outProjection)
                for (int k = g * s.d_head; k < (g + 1) * s.d_head; ++k)
                    sum += s.concat[k] * wO(k, c);
            else if (c >= g * s.d_head && c < (g + 1) * s.d_head)
                sum = s.concat[c];
            s.contributions(g, c) = sum;
        }
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
    for (int j = 0; j < a.keyLen; ++j) {
        s.masked.push_back(a.masked(b, i, j));
        s.maskedCount += int(s.masked.back());
        s.weightSum += s.weights[j]; // in order, as the window always showed it
    }
    outputContributions(trace.weights->wO, s);
    return s;
}

} // namespace core
