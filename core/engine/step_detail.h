// One query token through one head, every number of every step: what the Step-through tab
// shows. Read from the trace where the forward kept it (scores, weights, outputs), computed
// with the readable reference (engine/reference.h) where it did not (q . k before scaling,
// each head's share of the output through W_O), in double and rounded once to Scalar.
#pragma once

#include "engine/scalar.h"
#include "engine/trace.h"

#include <vector>

namespace core {

// Rotary positions (AttentionInput::rotation) for one query i and one key j of a head: q and k
// before and after their turn, the angle of every pair, and the score computed again with both
// positions moved by the same amount, which is the same: RoPE's score depends only on i - j.
// Made from an Attention (its turned q and k) and the Rotation that turned them, nothing else,
// so a real model's layer with rotation set gives it as the toy scenes do.
struct RotaryDetail {
    int query = 0, key = 0;                 // i (of the N queries) and j (of the M keys)
    int queryPosition = 0, keyPosition = 0; // their tables' rows: P + i and j
    int dims = 0;                           // r: the first r of d_head are turned; 0: no rotation
    bool interleaved = false;               // pairs (2p, 2p+1), else (p, p + r/2)
    RowVec qBefore, qAfter;                 // 1 x d_head: query head h's slice of token i's q
    RowVec kBefore, kAfter;                 // 1 x d_head: K/V head g's slice of key j's k
    RowVec frequencies;                     // 1 x (r/2): theta_p, radians per position
    RowVec queryAngles, keyAngles;          // 1 x (r/2): position x theta_p (unwrapped)
    Scalar score = 0;                       // qAfter . kAfter, before the scale
    int shift = 0;           // both positions moved by this; 0: the tables hold no other pair
    Scalar shiftedScore = 0; // qBefore and kBefore turned at rows P + i + shift, j + shift
    bool on() const { return dims > 0; }
};

// Query head h of sentence b at query i, key j. dims 0 when the attention was not turned.
// The slices are the token's own columns (the rotation turns token rows before the split).
RotaryDetail rotaryDetail(const Attention& attention, const Rotation& rotation, int b, int h, int i,
                          int j);

struct StepDetail {
    int batchIndex = 0, head = 0, query = 0; // b, h, i
    int keyLen = 0, d_model = 0, d_head = 0, heads = 0;
    int kvHeads = 0, kvHead = 0; // H_kv, and g = h / (H / H_kv): the K/V head this head reads
    bool reshapeBug = false;     // the head's slices are cut from the flat buffer
    bool outProjection = true;   // false: W_O is off, heads are not mixed
    Scalar scale = 1;            // what the scores were multiplied by
    RowVec x;                    // 1 x d_model: the token's input row
    RowVec q;                    // 1 x (H*d_head): x W_Q (turned with rotary), before the split
    RowVec qHead;                // 1 x d_head: what this head really reads of Q (the bug included)
    Mat kHead;                   // M x d_head: K/V head g's keys
    RowVec rawScores;            // 1 x M: q . k, before the scale
    RowVec scaledScores;         // 1 x M: the trace's scores, scaled, before the mask
    std::vector<bool> masked;    // M: keys this query may not see (-inf before the softmax)
    int maskedCount = 0;         // how many of them
    RowVec weights;              // 1 x M: the softmax row, masked keys exactly 0
    Scalar weightSum = 0;        // of that row: 1, or 0 when every key is masked
    Mat vHead;                   // M x d_head: K/V head g's values
    RowVec headOutput;           // 1 x d_head: weights . V
    RowVec concat;               // 1 x (H*d_head): every head's output side by side
    Mat contributions;           // H x d_model: head g's slice of the concat through W_O's rows
    RowVec output;               // 1 x d_model: the sum of the contributions (the concat, W_O off)
    RotaryDetail rotary;         // query i and the key followed, when q and k were turned
};

// Query `query` of sentence `batchIndex` through head `head`; `key` is the key the rotary
// detail follows (-1: the one this query weighs most). Throws std::out_of_range when one of
// them is outside the trace.
StepDetail stepDetail(const Trace& trace, int batchIndex, int head, int query, int key = -1);

} // namespace core
