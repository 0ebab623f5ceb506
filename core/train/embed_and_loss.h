// The model's two ends around the engine's attention, each forward next to its backward: the
// embedding at the bottom (x0 = embed[tokens] + pos) and the cross-entropy loss at the top.
// Internal to core/train: model.cpp runs the forwards, model_backward.cpp the backwards.
#pragma once

#include "train/model.h"

namespace core::train {

// x0 = embed[tokens] + pos, one row per (b, t).
void embedTokens(const Params& params, const Batch& batch, Mat& x /* (B*n) x D */);
// The backward of embedTokens: d x0 into grads.embed and grads.pos (both overwritten).
void embedTokensBackward(const Batch& batch, const Mat& dx0 /* (B*n) x D */, Params& grads);

// Mean cross-entropy of logits row (b, t) against tokens[b][t+1] over the masked positions;
// `positions` gets how many there are.
double meanCrossEntropy(const Mat& logits /* (B*n) x V */, const Batch& batch, int& positions);
// The backward of meanCrossEntropy: d loss / d logits, 0 on the rows the loss mask leaves out.
void meanCrossEntropyBackward(const Mat& logits /* (B*n) x V */, const Batch& batch, int positions,
                              Mat& dLogits /* (B*n) x V */);

} // namespace core::train
