// What the v2 trace writers share (real_trace_json.h for decoders and encoders,
// seq2seq_trace_json.h for encoder-decoders): a prediction as {token, id, probability} with its
// top k, and a list of ids.
#pragma once

#include "io/json_writer.h"
#include "models/real_model.h"

#include <vector>

namespace core::models {

// The opening every v2 trace shares: the object begun, "format", "version", "attention_only"
// when it is, and "precision" when one was asked for (set on `w` too).
void beginTraceJson(JsonWriter& w, int precision, bool attentionOnly);

void writeChoice(JsonWriter& w, const TokenChoice& choice);
// predictions[i]: the most likely token after position i; "top" lists the k best when more than
// one was asked for.
void writePredictions(JsonWriter& w, const std::vector<std::vector<TokenChoice>>& predictions);
void writeInts(JsonWriter& w, const char* key, const std::vector<int>& values);

} // namespace core::models
