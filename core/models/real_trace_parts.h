// The parts a real trace is made of (real_model.h), shared by the whole forward (real_model.cpp)
// and the forward that resumes after the tokens a text starts with (real_trace_resume.cpp).
// Internal to core/models.
#pragma once

#include "models/real_model.h"

#include <cstddef>

namespace core::models {

// Bytes a layer's full trace holds: q, k, v, concat, output, the head outputs and the input
// (7 N d floats), scores and weights (2 H N^2), and its own copy of the attention's weights when
// the model does not share one (Transformer::traceWeightBytes).
std::size_t layerTraceBytes(const Transformer& net, std::size_t n);

// Layer l's trace as the views read it, from its attention and the attention's input (N x d).
std::shared_ptr<const Trace> makeLayerTrace(const RealTrace& r, int l, Attention&& attention,
                                            Mat&& input);

// Head h's rows x M block of a layer's weights (one sentence).
Mat headMap(const Attention& a, int h);
// Each query's weight on key 0, per head: rows x H (RealTrace::firstKeyWeights).
Mat firstKeyColumn(const Attention& a);

// Predictions (top k) and the next token's log-probability of rows [first, first + rows) of the
// trace, from their logits (rows x V), appended to r's.
void predictRows(const RealModel& model, const Mat& logits, int first, int topK, RealTrace& r);
// r.loss from r.targetLogProbs (a decoder), NaN for an encoder.
void finishLoss(const RealModel& model, RealTrace& r);

// Throws TraceCancelled when the options' cancel flag is set.
void stopIfCancelled(const RealTraceOptions& options);

// The rows a decoder's trace may take from options.resume (RealTraceOptions): 0 when none.
int reusableRows(const RealTrace& r, const RealTraceOptions& options);
// The trace of r's tokens from row `first` on, after the first `first` of options.resume: r
// holds the tokenized text and options.
void traceAfterPrefix(RealTrace& r, int first, const RealTraceOptions& options);

} // namespace core::models
