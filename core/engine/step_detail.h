// One query token through one head, every number of every step: what the Step-through tab
// shows. Read from the trace where the forward kept it (scores, weights, outputs), computed
// with the readable reference (engine/reference.h) where it did not (q . k before scaling,
// each head's share of the output through W_O), in double and rounded once to Scalar.
#pragma once

#include "engine/scalar.h"
#include "engine/trace.h"

#include <vector>

namespace core {

struct StepDetail {
    int batchIndex = 0, head = 0, query = 0; // b, h, i
    int keyLen = 0, d_model = 0, d_head = 0, heads = 0;
    bool reshapeBug = false;   // the head's slices are cut from the flat buffer
    bool outProjection = true; // false: W_O is off, heads are not mixed
    Scalar scale = 1;          // what the scores were multiplied by
    RowVec x;                  // 1 x d_model: the token's input row
    RowVec q;                  // 1 x d_model: x W_Q, before the split
    RowVec qHead;              // 1 x d_head: what this head really reads of Q (the bug included)
    Mat kHead;                 // M x d_head: this head's keys
    RowVec rawScores;          // 1 x M: q . k, before the scale
    RowVec scaledScores;       // 1 x M: the trace's scores, scaled, before the mask
    std::vector<bool> masked;  // M: keys this query may not see (-inf before the softmax)
    int maskedCount = 0;       // how many of them
    RowVec weights;            // 1 x M: the softmax row, masked keys exactly 0
    Scalar weightSum = 0;      // of that row: 1, or 0 when every key is masked
    Mat vHead;                 // M x d_head: this head's values
    RowVec headOutput;         // 1 x d_head: weights . V
    RowVec concat;             // 1 x d_model: every head's output side by side
    Mat contributions;         // H x d_model: head g's slice of the concat through W_O's rows
    RowVec output;             // 1 x d_model: the sum of the contributions (the concat, W_O off)
};

// Query `query` of sentence `batchIndex` through head `head`. Throws std::out_of_range when
// one of them is outside the trace.
StepDetail stepDetail(const Trace& trace, int batchIndex, int head, int query);

} // namespace core
