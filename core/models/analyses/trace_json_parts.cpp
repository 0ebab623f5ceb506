// What the v2 trace writers share (trace_json_parts.h).
#include "models/analyses/trace_json_parts.h"

#include "io/trace_json.h"

namespace core::models {

void beginTraceJson(JsonWriter& w, int precision, bool attentionOnly) {
    w.setPrecision(precision);
    w.beginObject();
    w.field("format", "mha-trace");
    w.field("version", kModelTraceJsonVersion);
    if (attentionOnly) w.field("attention_only", true);
    if (precision > 0) w.field("precision", precision);
}

void writeChoice(JsonWriter& w, const TokenChoice& choice) {
    w.beginObject();
    w.field("token", choice.token);
    w.field("id", choice.id);
    w.field("probability", choice.probability);
    w.endObject();
}

void writePredictions(JsonWriter& w, const std::vector<std::vector<TokenChoice>>& predictions) {
    w.beginArray();
    for (const std::vector<TokenChoice>& top : predictions) {
        if (top.empty()) continue;
        w.beginObject();
        w.field("token", top.front().token);
        w.field("id", top.front().id);
        w.field("probability", top.front().probability);
        if (top.size() > 1) {
            w.key("top");
            w.beginArray();
            for (const TokenChoice& choice : top) writeChoice(w, choice);
            w.endArray();
        }
        w.endObject();
    }
    w.endArray();
}

void writeInts(JsonWriter& w, const char* key, const std::vector<int>& values) {
    w.key(key);
    w.beginArray();
    for (int v : values) w.value(v);
    w.endArray();
}

} // namespace core::models
