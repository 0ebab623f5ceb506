// An encoder-decoder's trace as JSON, version 2 (docs/trace-json.md, "Version 2: an
// encoder-decoder"): the model, the source with its ids, the target the decoder read (the start
// token first) with its predictions and loss, then the attention of every layer of each kind:
// the encoder's over the source, the decoder's self-attention (causal) and its cross-attention
// (target rows, source columns).
#pragma once

#include "models/seq2seq_real_model.h"

#include <ostream>

namespace core::models {

// precision: significant digits of every float, 1..9; 0 the shortest exact text.
void writeSeq2SeqTraceJson(const Seq2SeqRealModel& model, const Seq2SeqTrace& trace, int precision,
                           std::ostream& out);

} // namespace core::models
