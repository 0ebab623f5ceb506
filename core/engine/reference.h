// A readable multi-head attention next to the fast one (attention_kernel.cpp,
// attention_backward_kernel.cpp): the forward and the backward written from the formulas, in
// double, with plain loops and one short function per step. Speed is no concern here. The tests
// check the engine against it, and the Step-through tab (step_detail.h) computes with it.
//
// Shapes: B sentences, N queries and M keys per sentence (M = N for self-attention), H query
// heads and H_kv K/V heads of d_head each (the toy scenes: H_kv = H, H * d_head = d_model).
// Sentence b owns rows [b*N, (b+1)*N) of a token matrix.
//   x                  (B*N) x d_model   query side's tokens
//   xSource            (B*M) x d_model   keys' and values' tokens (x itself for self-attention)
//   wQ, wO             d_model x (H*d_head), (H*d_head) x d_model
//   wK, wV             d_model x (H_kv*d_head)
//   Q = x wQ (+ bQ)    (B*N) x (H*d_head)   K = xSource wK, V = xSource wV: (B*M) x (H_kv*d_head)
//   rotated Q, K       the same shapes: each head's first r dimensions turned per position
//   Q_h                N x d_head        head h's slice of sentence b's Q; K_g, V_g: M x d_head
//                                        of K/V head g = h / (H / H_kv)
//   scores             N x M             scale * Q_h K_g^T (+ head h's score bias)
//   weights            N x M             softmax over the keys each query may see
//   headOutput         N x d_head        weights V_g
//   concat             (B*N) x (H*d_head) every head's output side by side, ablated heads 0
//   output             (B*N) x d_model   concat wO (+ bO) (concat itself with W_O off)
// The teaching switches of core::AttentionInput (scale kind, W_O off, ablated heads, the reshape
// bug, causal mask, key padding, cross-attention) each change one step, from its definition.
#pragma once

#include "engine/attention.h"
#include "engine/weights.h"

#include <Eigen/Core>

namespace core::reference {

using MatD = Eigen::MatrixXd; // column-major like any Eigen default; only read through (r, c)

// The numbers the reference computes with: core::AttentionInput's and core::Weights' in double.
struct Tensors {
    MatD x;       // (B*N) x d_model
    MatD xSource; // (B*M) x d_model; empty: self-attention, keys and values from x
    MatD wQ;      // d_model x (H*d_head)
    MatD wK;      // d_model x (H_kv*d_head)
    MatD wV;      // d_model x (H_kv*d_head)
    MatD wO;      // (H*d_head) x d_model
    MatD bQ;      // 1 x (H*d_head), or empty (likewise bK, bV 1 x (H_kv*d_head), bO 1 x d_model)
    MatD bK;
    MatD bV;
    MatD bO;
};
Tensors tensorsOf(const AttentionInput& in, const Weights& w);

// ---- the steps of the forward, in order ----

// a * b, a sum per entry: (rows x inner) * (inner x cols) -> rows x cols.
MatD multiply(const MatD& a, const MatD& b);

// 1. Projection: Q = x wQ + bQ (K, V alike; no bias when b is empty). x: rows x d_model ->
// rows x w's columns.
MatD project(const MatD& x, const MatD& w, const MatD& b = {});

// 1b. Rotary positions: in each of the `heads` d_head-wide heads of row r of a sentence, the
// pairs (a, b) of the first r dimensions turned by token t = offset + r's angle: (a cos - b sin,
// b cos + a sin). offset: the cached tokens before the rows (AttentionInput::pastKeys).
// m: (B*len) x (heads*d_head), changed in place.
void rotate(MatD& m, const Rotation& rotation, int len, int heads, int offset = 0);
// 1c. After cached keys (AttentionInput::pastKeys, P per sentence): sentence by sentence the P
// cached rows, then the N new ones. past (B*P) x width, fresh (B*N) x width -> (B*(P+N)) x width.
MatD afterPast(const Mat& past, const MatD& fresh, int batch);

// 2. Split: where head h's element (r, c) lives in sentence b's rows of a (B*len) x width
// matrix, width = heads * d_head. Correct: token r, column h*d_head + c. Reshape bug: the
// sentence's len x width block read flat as (heads, len, d_head) with no transpose, so element
// (h*len + r)*d_head + c of it.
struct Place {
    Eigen::Index row = 0, col = 0;
};
Place headPlace(int b, int h, int r, int c, int len, int width, int heads, bool reshapeBug);
// Head h of `heads` in sentence b's rows: (B*len) x (heads*d_head) -> len x d_head.
MatD splitHead(const MatD& m, int b, int h, int len, int heads, bool reshapeBug);

// 3. Scores: scale * Q_h K_g^T, one dot product per (query, key). N x d_head, M x d_head -> N x M.
double scaleOf(ScaleKind scale, int d_model, int d_head);
MatD scores(const MatD& qHead, const MatD& kHead, double scale);
// 3b. The score bias: head h's N x M block of AttentionInput::scoreBias added, when there is one.
void addScoreBias(MatD& scores, const AttentionInput& in, int h);
// 3c. The soft cap: tanh(scores / cap) * cap, when AttentionInput::scoreCap is set.
void capScores(MatD& scores, const AttentionInput& in);

// 4. Mask: query i of sentence b may not see key j when it is causal (j > P + i, P the cached
// tokens before the queries), outside its window (j <= P + i - window) or padding.
bool masked(const AttentionInput& in, int b, int i, int j);
// Sentence b's N x M scores with -inf where masked.
MatD maskScores(const MatD& scores, const AttentionInput& in, int b);

// 5. Softmax of each row: exp(s - max) / sum. A row with every key masked is all 0 (PyTorch: NaN).
// N x M -> N x M.
MatD softmax(const MatD& maskedScores);

// 6. Weighted values: headOutput = weights V_g. N x M, M x d_head -> N x d_head.
MatD weightedValues(const MatD& weights, const MatD& vHead);

// 7. Merge, the inverse of the split: head h's N x d_head output into its places of sentence b's
// rows of concat, (B*N) x (H*d_head).
void mergeHead(const MatD& headOutput, int b, int h, int heads, bool reshapeBug, MatD& concat);

// 8. Out projection: output = concat wO + bO, or concat itself with W_O off. (B*N) x d_model.
MatD outProject(const MatD& concat, const MatD& wO, bool outProjection, const MatD& bO = {});
// One token's output split by head: row g is the concat row's g-th d_head-wide slice through
// W_O's rows of that slice (with W_O off: the slice in its own columns, 0 elsewhere). The rows
// add up to the output row (without bO). concatRow: 1 x (H*d_head) -> H x d_model.
MatD headContributions(const MatD& concatRow, const MatD& wO, int heads, bool outProjection);

// Every intermediate, laid out like core::Attention: block (b, h) of a per-head tensor holds
// rows [(b*H + h)*N, (b*H + h + 1)*N), see headRow().
struct Forward {
    int batch = 0, queryLen = 0, keyLen = 0, heads = 0, d_model = 0, d_head = 0, kvHeads = 0;
    double scale = 1;
    MatD q;               // (B*N) x (H*d_head), after the bias and the rotation
    MatD k;               // (B*M) x (H_kv*d_head)
    MatD v;               // (B*M) x (H_kv*d_head)
    MatD scores;          // (B*H*N) x M, scaled (+ bias), before the mask
    MatD attention;       // (B*H*N) x M, softmax weights, masked keys 0
    MatD headOutputs;     // (B*H*N) x d_head, ablated heads included
    MatD concat;          // (B*N) x (H*d_head), ablated heads 0
    MatD output;          // (B*N) x d_model
    MatD unablatedOutput; // (B*N) x d_model, every head on
    MatD outputShift;     // (B*N) x 1, |output - unablatedOutput| per token

    Eigen::Index headRow(int b, int h, int i = 0) const {
        return (Eigen::Index(b) * heads + h) * queryLen + i;
    }
};

// The forward pass: shapes and switches from `in`, numbers from `t` (in.x and in.xSource are
// not read). The shapes must fit (core::forward checks them).
Forward forward(const AttentionInput& in, const Tensors& t);
Forward forward(const AttentionInput& in, const Weights& w);

// Shannon entropy -sum p ln p (natural log) of one weights row, 1 x M; masked keys, 0, add 0.
double entropy(const MatD& weightsRow);

// ---- the backward of the self-attention: each forward step's, in reverse ----
// Each takes its step's inputs and the gradient of its output, and returns the gradient of the
// input the loss flows back through (scoresBackward has two: both by argument); a weight's
// gradient goes to the last argument.

// 8. output = concat wO: d concat = d output wO^T, d wO = concat^T d output. With W_O off, d
// concat = d output and d wO = 0. (B*N) x d_model each.
MatD outProjectBackward(const MatD& concat, const MatD& wO, bool outProjection, const MatD& dOutput,
                        MatD& dwO);
// 7. The merge's backward is the split: head h's d headOutput = splitHead(d concat).

// 6. headOutput = weights V_h: d weights = d headOutput V_h^T (N x M), d V_h = weights^T
// d headOutput (M x d_head).
MatD weightedValuesBackward(const MatD& weights, const MatD& vHead, const MatD& dHeadOutput,
                            MatD& dvHead);

// 5. Softmax: d scores = weights ⊙ (d weights - rowsum(d weights ⊙ weights)). N x M each.
// 4. A masked key has weight 0, so its score gets 0: the mask needs no step of its own.
MatD softmaxBackward(const MatD& weights, const MatD& dWeights);

// 3. scores = scale * Q_h K_h^T: d Q_h = scale * d scores K_h (N x d_head), d K_h = scale *
// d scores^T Q_h (M x d_head).
void scoresBackward(const MatD& qHead, const MatD& kHead, double scale, const MatD& dScores,
                    MatD& dqHead, MatD& dkHead);
// 2. The split's backward is the merge: mergeHead(d Q_h) into d Q, (B*N) x d_model.

// 1. Q = x wQ (K, V alike): returns this projection's share of d x, d Q wQ^T, and d wQ =
// x^T d Q. (B*N) x d_model, d_model x d_model.
MatD projectBackward(const MatD& x, const MatD& w, const MatD& dProjected, MatD& dw);

// d loss / d every input of the self-attention of x.
struct Gradients {
    MatD wQ; // d_model x d_model
    MatD wK; // d_model x d_model
    MatD wV; // d_model x d_model
    MatD wO; // d_model x d_model, 0 with W_O off
    MatD x;  // (B*N) x d_model
};

// From dOutput = d loss / d output, (B*N) x d_model, through the forward of `in` (causal mask, key
// padding, ablated heads with zero gradient, W_O off, every scale kind). Throws
// std::invalid_argument, as core::backward does, for the reshape bug, for cross-attention and
// for a dOutput of another shape.
Gradients backward(const AttentionInput& in, const Tensors& t, const MatD& dOutput);
Gradients backward(const AttentionInput& in, const Weights& w, const MatD& dOutput);

} // namespace core::reference
