// The trace as JSON ("format": "mha-trace", "version": 1), the contract in docs/trace-json.md,
// and a trained model's trace ("version": 2): the model, its sentences and a "layers" array whose
// entries are version 1 traces, one per layer.
#pragma once

#include "engine/trace.h"
#include "io/trained_run.h"
#include "train/model_trace.h"

#include <ostream>
#include <string>

namespace core {

inline constexpr int kTraceJsonVersion = 1;

void writeTraceJson(const Trace& trace, std::ostream& out);
class JsonWriter;
// The v1 object into an open writer: a file of its own, or an entry of a v2 trace's "layers".
void writeTraceObject(JsonWriter& w, const Trace& trace);
std::string traceJson(const Trace& trace);
// The softmax weights alone, "attention" [B][H][N][M] as in the v1 object: a trace that
// leaves out the weights and activations (--json-attention-only).
void writeAttentionTensor(JsonWriter& w, const Trace& trace);
// The same of one attention's record (an encoder-decoder's layers, which are no Trace).
void writeAttentionTensor(JsonWriter& w, const Attention& attention);

inline constexpr int kModelTraceJsonVersion = 2;

// The v2 trace of `run`'s model on the sentences of `trace` (docs/trace-json.md, "Version 2").
void writeModelTraceJson(const ModelTrace& trace, const TrainedRun& run, std::ostream& out);
std::string modelTraceJson(const ModelTrace& trace, const TrainedRun& run);

} // namespace core
