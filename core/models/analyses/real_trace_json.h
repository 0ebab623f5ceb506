// A real model's trace as JSON, version 2 (docs/trace-json.md, "Version 2: real models"): the
// model, the sentence with its exact token ids and next-token predictions, and one version 1
// trace per layer. The full logits only when asked (V = 50257 makes them large).
#pragma once

#include "models/real_model.h"

#include <ostream>

namespace core::models {

struct RealTraceJsonOptions {
    bool logits = false; // "logits": [B][N][V]
    // Each layer only its "attention" [B][H][N][M] (no weights, activations or scores): a
    // trace of GPT-2 small is then kilobytes per token instead of tens of megabytes per layer.
    bool attentionOnly = false;
    int precision = 0; // significant digits of every float, 1..9; 0: the shortest exact text
};

void writeRealTraceJson(const RealModel& model, const RealTrace& trace,
                        const RealTraceJsonOptions& options, std::ostream& out);

} // namespace core::models
