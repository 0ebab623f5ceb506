// The four projection matrices of one attention layer.
#pragma once

#include "engine/scalar.h"

#include <cstdint>

namespace core {

// Row-vector convention of the NumPy reference: Q = X * wQ. PyTorch's
// in_proj_weight is [wQ^T; wK^T; wV^T] and out_proj.weight is wO^T. The toy scenes and the
// trained models have no biases; a real checkpoint's (GPT-2's c_attn and c_proj) are added
// after each product, Q = X * wQ + bQ.
// The toy scenes' are d_model x d_model each; a model with grouped-query attention or its own
// head size has H query heads and H_kv K/V heads of d_head columns each (AttentionInput::heads).
struct Weights {
    Mat wQ;    // d_model x (H*d_head)
    Mat wK;    // d_model x (H_kv*d_head)
    Mat wV;    // d_model x (H_kv*d_head)
    Mat wO;    // (H*d_head) x d_model
    RowVec bQ; // 1 x (H*d_head), or empty: no bias (likewise bK, bV: 1 x (H_kv*d_head); bO)
    RowVec bK;
    RowVec bV;
    RowVec bO;

    int dModel() const { return int(wQ.rows()); }
    long long parameterCount() const {
        return wQ.size() + wK.size() + wV.size() + wO.size() + bQ.size() + bK.size() + bV.size() +
               bO.size();
    }
};

// Glorot-uniform U(-sqrt(6 / (fan_in + fan_out)), +same) = U(-sqrt(3 / d), sqrt(3 / d)).
// Matrix m (0 = Q, 1 = K, 2 = V, 3 = O) is filled row by row from
// SplitMix64(seed ^ (0x6D68612D76697A00 + m)), so the seed alone fixes every value.
// kvColumns (H_kv*d_head; 0 = d_model) narrows W_K and W_V to their first kvColumns columns:
// the K/V heads of grouped-query attention are the first H_kv heads MHA would have with the
// same seed, drawn with MHA's bound, so changing H_kv keeps every remaining head's numbers.
Weights randomWeights(std::uint64_t seed, int d_model, int kvColumns = 0);

} // namespace core
