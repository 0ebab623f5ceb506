// A real model's trace as JSON, version 2 (docs/trace-json.md, "Version 2: real models"): the
// model, the sentence with its exact token ids and next-token predictions, and one version 1
// trace per layer. The full logits only when asked (V = 50257 makes them large).
#pragma once

#include "models/real_model.h"

#include <ostream>

namespace core::models {

struct RealTraceJsonOptions {
    bool logits = false; // "logits": [B][N][V]
};

void writeRealTraceJson(const RealModel& model, const RealTrace& trace,
                        const RealTraceJsonOptions& options, std::ostream& out);

} // namespace core::models
