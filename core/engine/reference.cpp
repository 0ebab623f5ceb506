// The readable attention of reference.h: every product a loop of sums, every step on its own.
#include "engine/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace core::reference {

Tensors tensorsOf(const AttentionInput& in, const Weights& w) {
    Tensors t;
    t.x = in.x.cast<double>();
    if (in.isCross()) t.xSource = in.xSource.cast<double>();
    t.wQ = w.wQ.cast<double>();
    t.wK = w.wK.cast<double>();
    t.wV = w.wV.cast<double>();
    t.wO = w.wO.cast<double>();
    t.bQ = w.bQ.cast<double>();
    t.bK = w.bK.cast<double>();
    t.bV = w.bV.cast<double>();
    t.bO = w.bO.cast<double>();
    return t;
}

// ---- forward ----

MatD multiply(const MatD& a, const MatD& b) {
    MatD product = MatD::Zero(a.rows(), b.cols()); // rows x cols
    for (Eigen::Index r = 0; r < a.rows(); ++r)
        for (Eigen::Index c = 0; c < b.cols(); ++c)
            for (Eigen::Index k = 0; k < a.cols(); ++k) product(r, c) += a(r, k) * b(k, c);
    return product;
}

MatD project(const MatD& x, const MatD& w, const MatD& b) {
    MatD projected = multiply(x, w); // rows x w's columns
    if (b.size() > 0)
        for (Eigen::Index r = 0; r < projected.rows(); ++r)
            for (Eigen::Index c = 0; c < projected.cols(); ++c) projected(r, c) += b(0, c);
    return projected;
}

void rotate(MatD& m, const Rotation& rotation, int len, int heads, int offset) {
    const int half = int(rotation.cos.cols()), d_head = int(m.cols()) / heads;
    for (Eigen::Index row = 0; row < m.rows(); ++row)
        for (int h = 0; h < heads; ++h)
            for (int j = 0; j < half; ++j) {
                // The pair: (j, j + r/2) as Hugging Face's rotate_half, or (2j, 2j + 1).
                const int a = h * d_head + (rotation.interleaved ? 2 * j : j);
                const int b = rotation.interleaved ? a + 1 : a + half;
                const Eigen::Index t = offset + row % len; // the token's index in its sentence
                const double c = rotation.cos(t, j), s = rotation.sin(t, j);
                const double xa = m(row, a), xb = m(row, b);
                m(row, a) = xa * c - xb * s;
                m(row, b) = xb * c + xa * s;
            }
}

MatD afterPast(const Mat& past, const MatD& fresh, int batch) {
    const Eigen::Index P = past.rows() / batch, N = fresh.rows() / batch;
    MatD all(batch * (P + N), fresh.cols()); // (B*(P+N)) x width
    for (int b = 0; b < batch; ++b) {
        for (Eigen::Index r = 0; r < P; ++r)
            for (Eigen::Index c = 0; c < fresh.cols(); ++c)
                all(b * (P + N) + r, c) = double(past(b * P + r, c));
        for (Eigen::Index r = 0; r < N; ++r)
            for (Eigen::Index c = 0; c < fresh.cols(); ++c)
                all(b * (P + N) + P + r, c) = fresh(b * N + r, c);
    }
    return all;
}

Place headPlace(int b, int h, int r, int c, int len, int width, int heads, bool reshapeBug) {
    const int d_head = width / heads;
    const Eigen::Index first = Eigen::Index(b) * len; // sentence b's first row
    if (!reshapeBug) return {first + r, Eigen::Index(h) * d_head + c};
    // The bug: the position in the sentence's len x width block, read flat.
    const Eigen::Index flat = (Eigen::Index(h) * len + r) * d_head + c;
    return {first + flat / width, flat % width};
}

MatD splitHead(const MatD& m, int b, int h, int len, int heads, bool reshapeBug) {
    const int width = int(m.cols()), d_head = width / heads;
    MatD slice(len, d_head); // len x d_head
    for (int r = 0; r < len; ++r)
        for (int c = 0; c < d_head; ++c) {
            const Place at = headPlace(b, h, r, c, len, width, heads, reshapeBug);
            slice(r, c) = m(at.row, at.col);
        }
    return slice;
}

double scaleOf(ScaleKind scale, int d_model, int d_head) {
    switch (scale) {
    case ScaleKind::SqrtDHead:
        return 1 / std::sqrt(double(d_head));
    case ScaleKind::SqrtDModel:
        return 1 / std::sqrt(double(d_model));
    case ScaleKind::None:
        return 1;
    }
    return 1;
}

MatD scores(const MatD& qHead, const MatD& kHead, double scale) {
    MatD s(qHead.rows(), kHead.rows()); // N x M
    for (Eigen::Index i = 0; i < qHead.rows(); ++i)
        for (Eigen::Index j = 0; j < kHead.rows(); ++j) {
            double dot = 0;
            for (Eigen::Index c = 0; c < qHead.cols(); ++c) dot += qHead(i, c) * kHead(j, c);
            s(i, j) = scale * dot;
        }
    return s;
}

void addScoreBias(MatD& scores, const AttentionInput& in, int h) {
    if (in.scoreBias.size() == 0) return;
    const Eigen::Index first = Eigen::Index(h) * scores.rows(); // head h's block of (H*N) x M
    for (Eigen::Index i = 0; i < scores.rows(); ++i)
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            scores(i, j) += double(in.scoreBias(first + i, j));
}

void capScores(MatD& scores, const AttentionInput& in) {
    if (in.scoreCap <= 0) return;
    const double cap = in.scoreCap;
    scores = (scores.array() / cap).tanh() * cap;
}

bool masked(const AttentionInput& in, int b, int i, int j) {
    const bool padding = in.keyPadding.size() > 0 && in.keyPadding(b, j);
    const bool outside = in.window > 0 && j <= in.pastLen() + i - in.window;
    return (in.causal && j > in.pastLen() + i) || outside || padding;
}

MatD maskScores(const MatD& scores, const AttentionInput& in, int b) {
    MatD s = scores; // N x M
    for (int i = 0; i < int(s.rows()); ++i)
        for (int j = 0; j < int(s.cols()); ++j)
            if (masked(in, b, i, j)) s(i, j) = -std::numeric_limits<double>::infinity();
    return s;
}

MatD softmax(const MatD& maskedScores) {
    MatD weights = MatD::Zero(maskedScores.rows(), maskedScores.cols()); // N x M
    for (Eigen::Index i = 0; i < maskedScores.rows(); ++i) {
        double largest = -std::numeric_limits<double>::infinity();
        for (Eigen::Index j = 0; j < maskedScores.cols(); ++j)
            largest = std::max(largest, maskedScores(i, j));
        if (std::isinf(largest)) continue; // every key masked: the row stays 0
        double sum = 0;
        for (Eigen::Index j = 0; j < maskedScores.cols(); ++j)
            sum += weights(i, j) = std::exp(maskedScores(i, j) - largest); // exp(-inf) = 0
        for (Eigen::Index j = 0; j < maskedScores.cols(); ++j) weights(i, j) /= sum;
    }
    return weights;
}

MatD weightedValues(const MatD& weights, const MatD& vHead) {
    return multiply(weights, vHead); // N x d_head
}

void mergeHead(const MatD& headOutput, int b, int h, int heads, bool reshapeBug, MatD& concat) {
    const int len = int(headOutput.rows()), width = int(concat.cols());
    for (int r = 0; r < len; ++r)
        for (int c = 0; c < int(headOutput.cols()); ++c) {
            const Place at = headPlace(b, h, r, c, len, width, heads, reshapeBug);
            concat(at.row, at.col) = headOutput(r, c);
        }
}

MatD outProject(const MatD& concat, const MatD& wO, bool outProjection, const MatD& bO) {
    return outProjection ? project(concat, wO, bO) : concat; // (B*N) x d_model
}

MatD headContributions(const MatD& concatRow, const MatD& wO, int heads, bool outProjection) {
    const int width = int(concatRow.cols()), d_head = width / heads;
    const int d_model = outProjection ? int(wO.cols()) : width;
    MatD parts = MatD::Zero(heads, d_model); // H x d_model
    for (int g = 0; g < heads; ++g)
        for (int k = g * d_head; k < (g + 1) * d_head; ++k) { // head g's slice of the concat
            if (!outProjection) {
                parts(g, k) = concatRow(0, k); // in its own column, mixed with nothing
                continue;
            }
            for (int c = 0; c < d_model; ++c) parts(g, c) += concatRow(0, k) * wO(k, c);
        }
    return parts;
}

namespace {

bool ablated(const AttentionInput& in, int h) {
    return std::find(in.ablatedHeads.begin(), in.ablatedHeads.end(), h) != in.ablatedHeads.end();
}

// A Forward with its shapes and scale set and the tensors the heads fill at 0.
Forward shaped(const AttentionInput& in, const Tensors& t) {
    Forward f;
    f.batch = in.batch, f.queryLen = in.queryLen, f.keyLen = in.keyLen, f.heads = in.heads;
    f.d_model = int(t.wQ.rows()), f.d_head = int(t.wQ.cols()) / in.heads;
    f.kvHeads = int(t.wK.cols()) / f.d_head;
    f.scale = in.scaleValue > 0 ? double(in.scaleValue) : scaleOf(in.scale, f.d_model, f.d_head);
    const Eigen::Index headRows = Eigen::Index(in.batch) * in.heads * in.queryLen;
    f.scores = MatD::Zero(headRows, in.keyLen);                 // (B*H*N) x M
    f.attention = MatD::Zero(headRows, in.keyLen);              // (B*H*N) x M
    f.headOutputs = MatD::Zero(headRows, f.d_head);             // (B*H*N) x d_head
    f.concat = MatD::Zero(Eigen::Index(in.batch) * in.queryLen, // (B*N) x (H*d_head)
                          Eigen::Index(in.heads) * f.d_head);
    return f;
}

// Steps 2 to 7 for head h of sentence b: split, scores, mask, softmax, weighted values, merge
// (into everyHead always, into f.concat unless the head is ablated).
void attendHead(const AttentionInput& in, int b, int h, Forward& f, MatD& everyHead) {
    const int N = f.queryLen, M = f.keyLen, H = f.heads, G = f.kvHeads;
    const int g = h / (H / G); // the K/V head query head h reads
    const bool bug = in.reshapeBug;
    const MatD qHead = splitHead(f.q, b, h, N, H, bug); // N x d_head
    const MatD kHead = splitHead(f.k, b, g, M, G, bug); // M x d_head
    const MatD vHead = splitHead(f.v, b, g, M, G, bug); // M x d_head
    MatD s = scores(qHead, kHead, f.scale);             // N x M
    addScoreBias(s, in, h);
    capScores(s, in);
    const MatD weights = softmax(maskScores(s, in, b));     // N x M
    const MatD headOutput = weightedValues(weights, vHead); // N x d_head
    f.scores.middleRows(f.headRow(b, h), N) = s;
    f.attention.middleRows(f.headRow(b, h), N) = weights;
    f.headOutputs.middleRows(f.headRow(b, h), N) = headOutput;
    mergeHead(headOutput, b, h, H, bug, everyHead);
    if (!ablated(in, h)) mergeHead(headOutput, b, h, H, bug, f.concat); // ablated: 0 before W_O
}

} // namespace

Forward forward(const AttentionInput& in, const Tensors& t) {
    Forward f = shaped(in, t);
    const MatD& source = t.xSource.size() > 0 ? t.xSource : t.x; // (B*M) x d_model
    f.q = project(t.x, t.wQ, t.bQ);
    f.k = project(source, t.wK, t.bK); // (B*N) x (H_kv*d_head) after cached keys
    f.v = project(source, t.wV, t.bV);
    const int P = in.pastLen();
    if (!in.rotation.empty()) {
        rotate(f.q, in.rotation, f.queryLen, f.heads, P);
        rotate(f.k, in.rotation, P > 0 ? f.queryLen : f.keyLen, f.kvHeads, P);
    }
    if (P > 0) { // the cached rows first: they were projected and turned when they were new
        f.k = afterPast(in.pastKeys, f.k, f.batch);
        f.v = afterPast(in.pastValues, f.v, f.batch);
    }
    MatD everyHead = f.concat; // (B*N) x d_model: the concat with no head ablated
    for (int b = 0; b < f.batch; ++b)
        for (int h = 0; h < f.heads; ++h) attendHead(in, b, h, f, everyHead);
    f.output = outProject(f.concat, t.wO, in.outProjection, t.bO);
    f.unablatedOutput = outProject(everyHead, t.wO, in.outProjection, t.bO);
    f.outputShift = MatD::Zero(f.output.rows(), 1); // (B*N) x 1
    for (Eigen::Index r = 0; r < f.output.rows(); ++r) {
        double squares = 0;
        for (Eigen::Index c = 0; c < f.output.cols(); ++c)
            squares += std::pow(f.output(r, c) - f.unablatedOutput(r, c), 2);
        f.outputShift(r, 0) = std::sqrt(squares);
    }
    return f;
}

Forward forward(const AttentionInput& in, const Weights& w) {
    return forward(in, tensorsOf(in, w));
}

double entropy(const MatD& weightsRow) {
    double sum = 0;
    for (Eigen::Index j = 0; j < weightsRow.cols(); ++j) {
        const double p = weightsRow(0, j);
        if (p > 0) sum -= p * std::log(p); // p ln p -> 0 as p -> 0
    }
    return sum;
}

// ---- backward ----

MatD outProjectBackward(const MatD& concat, const MatD& wO, bool outProjection, const MatD& dOutput,
                        MatD& dwO) {
    if (!outProjection) {
        dwO = MatD::Zero(wO.rows(), wO.cols()); // d_model x d_model
        return dOutput;
    }
    dwO = multiply(concat.transpose(), dOutput); // d_model x d_model
    return multiply(dOutput, wO.transpose());    // (B*N) x d_model
}

MatD weightedValuesBackward(const MatD& weights, const MatD& vHead, const MatD& dHeadOutput,
                            MatD& dvHead) {
    dvHead = multiply(weights.transpose(), dHeadOutput); // M x d_head
    return multiply(dHeadOutput, vHead.transpose());     // N x M
}

MatD softmaxBackward(const MatD& weights, const MatD& dWeights) {
    MatD dScores(weights.rows(), weights.cols()); // N x M
    for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        double rowDot = 0; // sum over j of dWeights ⊙ weights
        for (Eigen::Index j = 0; j < weights.cols(); ++j) rowDot += dWeights(i, j) * weights(i, j);
        for (Eigen::Index j = 0; j < weights.cols(); ++j)
            dScores(i, j) = weights(i, j) * (dWeights(i, j) - rowDot);
    }
    return dScores;
}

void scoresBackward(const MatD& qHead, const MatD& kHead, double scale, const MatD& dScores,
                    MatD& dqHead, MatD& dkHead) {
    dqHead = scale * multiply(dScores, kHead);             // N x d_head
    dkHead = scale * multiply(dScores.transpose(), qHead); // M x d_head
}

MatD projectBackward(const MatD& x, const MatD& w, const MatD& dProjected, MatD& dw) {
    dw = multiply(x.transpose(), dProjected);   // d_model x d_model
    return multiply(dProjected, w.transpose()); // rows x d_model
}

namespace {

void checkBackward(const AttentionInput& in, const Tensors& t, const MatD& dOutput) {
    if (in.reshapeBug)
        throw std::invalid_argument("the reference backward has no reshape bug (teaching only)");
    if (in.isCross() || t.xSource.size() > 0)
        throw std::invalid_argument("the reference backward is for self-attention");
    if (!in.rotation.empty() || in.scoreBias.size() > 0 || t.wK.cols() != t.wQ.cols())
        throw std::invalid_argument("the reference backward has no rotation, score bias or K/V "
                                    "heads shared");
    if (dOutput.rows() != t.x.rows() || dOutput.cols() != t.wO.cols())
        throw std::invalid_argument("d output must be (B*N) x d_model");
}

// Steps 7 to 2 for head h of sentence b: from its slice of dConcat to its slices of dQ, dK, dV
// ((B*N) x d_model each).
void headBackward(const Forward& f, const MatD& dConcat, int b, int h, MatD& dQ, MatD& dK,
                  MatD& dV) {
    const int N = f.queryLen, H = f.heads;
    const MatD qHead = splitHead(f.q, b, h, N, H, false);            // N x d_head
    const MatD kHead = splitHead(f.k, b, h, N, H, false);            // N x d_head
    const MatD vHead = splitHead(f.v, b, h, N, H, false);            // N x d_head
    const MatD weights = f.attention.middleRows(f.headRow(b, h), N); // N x N
    // 7. the merge's backward: the split
    const MatD dHeadOutput = splitHead(dConcat, b, h, N, H, false); // N x d_head
    MatD dqHead, dkHead, dvHead;                                    // N x d_head each
    // 6. weighted values, 5. softmax (4. the mask: nothing), 3. scores
    const MatD dWeights = weightedValuesBackward(weights, vHead, dHeadOutput, dvHead); // N x N
    const MatD dScores = softmaxBackward(weights, dWeights);                           // N x N
    scoresBackward(qHead, kHead, f.scale, dScores, dqHead, dkHead);
    // 2. the split's backward: the merge
    mergeHead(dqHead, b, h, H, false, dQ);
    mergeHead(dkHead, b, h, H, false, dK);
    mergeHead(dvHead, b, h, H, false, dV);
}

} // namespace

Gradients backward(const AttentionInput& in, const Tensors& t, const MatD& dOutput) {
    checkBackward(in, t, dOutput);
    const Forward f = forward(in, t);
    Gradients g;
    const MatD dConcat = // (B*N) x d_model; 8. the out projection
        outProjectBackward(f.concat, t.wO, in.outProjection, dOutput, g.wO);
    // An ablated head's concat was 0 whatever its q, k, v: no gradient reaches them.
    MatD dQ = MatD::Zero(t.x.rows(), f.d_model); // (B*N) x d_model
    MatD dK = dQ, dV = dQ;                       // (B*N) x d_model each
    for (int b = 0; b < f.batch; ++b)
        for (int h = 0; h < f.heads; ++h)
            if (!ablated(in, h)) headBackward(f, dConcat, b, h, dQ, dK, dV);
    // 1. the projections: x fed all three, its gradient is the sum of their shares
    g.x = projectBackward(t.x, t.wQ, dQ, g.wQ) + projectBackward(t.x, t.wK, dK, g.wK) +
          projectBackward(t.x, t.wV, dV, g.wV);
    return g;
}

Gradients backward(const AttentionInput& in, const Weights& w, const MatD& dOutput) {
    return backward(in, tensorsOf(in, w), dOutput);
}

} // namespace core::reference
