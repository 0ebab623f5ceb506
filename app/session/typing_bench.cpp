// --bench-typing (typing_bench.h).
#include "session/typing_bench.h"

#include "platform/frame_stats.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace app {

namespace {

// Plain English prose, repeated: words, spaces and punctuation as a pasted text has them.
constexpr const char* kProse =
    "The cat sat on the mat because it was tired, and the dog watched it from the door. "
    "Later that evening the rain stopped, the clouds moved east and the garden smelled of "
    "wet earth; nobody in the house had noticed how quiet the street had become. ";
// What is typed at the end, one character at a time, cycled.
constexpr const char* kTyped = " and then they all went to sleep";

int tokenCount(const core::models::RealModel& model, const std::string& text) {
    return int(model.tokenizer->encode(text, nullptr, model.config().nPositions).ids.size());
}

// The longest prefix of repeated prose with at most `tokens` tokens (binary search on its
// characters: the count grows with the text).
std::string proseOf(const core::models::RealModel& model, int tokens) {
    std::string all;
    while (int(all.size()) < 8 * tokens + 64) all += kProse;
    std::size_t low = 1, high = all.size();
    while (low < high) {
        const std::size_t mid = (low + high + 1) / 2;
        if (tokenCount(model, all.substr(0, mid)) <= tokens)
            low = mid;
        else
            high = mid - 1;
    }
    return all.substr(0, low);
}

double millisSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

} // namespace

TypingBench::TypingBench(const core::models::RealModel& model, int tokens, int characters)
    : characters_(std::max(characters, 1)) {
    // Each character typed may be a token: the whole text stays inside the context.
    tokens = std::clamp(tokens, 1, std::max(1, model.config().nPositions - characters_));
    text_ = proseOf(model, tokens);
    tokens_ = tokenCount(model, text_);
}

void TypingBench::edit(std::string& sentence, const ModelRunner& runner) {
    if (waiting_ || typed_ >= characters_) return;
    if (!pasted_) { // after the first trace (the default sentence), as a user would paste
        if (!runner.realTrace() || runner.computing()) return;
        sentence = text_;
        pasted_ = true;
    } else {
        sentence += kTyped[std::size_t(typed_) % std::char_traits<char>::length(kTyped)];
        ++typed_;
    }
    expected_ = sentence;
    editedAt_ = Clock::now();
    waiting_ = true;
}

bool TypingBench::frameShown(const ModelRunner& runner, int mapsGeneration, std::ostream& out) {
    if (!waiting_) return false;
    const auto& trace = runner.realTrace();
    if (!runner.computing() && !runner.status().sceneError.empty() &&
        (!trace || trace->text != expected_)) {
        out << "typing: error: " << runner.status().sceneError << std::endl;
        return true;
    }
    if (!trace || trace->text != expected_ || mapsGeneration != runner.generation()) return false;
    waiting_ = false;
    if (typed_ == 0) {
        pasteMillis_ = millisSince(editedAt_);
        return false;
    }
    keyMillis_.push_back(millisSince(editedAt_));
    reusedRows_.push_back(trace->reusedRows);
    if (typed_ < characters_) return false;
    report(out);
    return true;
}

void TypingBench::report(std::ostream& out) const {
    char line[200];
    std::snprintf(line, sizeof line, "paste: first maps %.0f ms (%d tokens)", pasteMillis_,
                  tokens_);
    out << line << '\n';
    const double reused = std::accumulate(reusedRows_.begin(), reusedRows_.end(), 0.0) /
                          double(std::max<std::size_t>(reusedRows_.size(), 1));
    std::snprintf(line, sizeof line,
                  "typing: p50 %.0f ms, max %.0f ms (%d characters, %d tokens, %.0f rows reused "
                  "per key on average)",
                  percentileOf(keyMillis_, 50), percentileOf(keyMillis_, 100), characters_, tokens_,
                  reused);
    out << line << std::endl;
}

} // namespace app
