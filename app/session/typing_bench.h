// --bench-typing N (docs/performance.md): with a Hugging Face model in the window, a text of N
// tokens pasted into the sentence, then characters typed at its end one at a time, each timed
// from the edit to the frame that shows its maps (the model view's textures made from the trace
// of that very text, swapped onto the screen). Prints the paste's time and the keystrokes' p50
// and max. No GL and no ImGui: the session calls it before its recompute and after the swap.
#pragma once

#include "explorer/model_runner.h"

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace app {

class TypingBench {
  public:
    // The text pasted: N tokens of `model`'s tokenizer (fewer when its context is shorter, so
    // the characters typed still fit), then `characters` typed.
    TypingBench(const core::models::RealModel& model, int tokens, int characters = 20);

    // Before the frame's recompute: the next edit of `sentence`, once the first trace is there
    // and the last edit's maps are on screen.
    void edit(std::string& sentence, const ModelRunner& runner);
    // After the swap, with the generation the model view's textures hold: true once every
    // edit's maps were shown (or the model refused the text), the report written to `out`.
    bool frameShown(const ModelRunner& runner, int mapsGeneration, std::ostream& out);

    bool waiting() const { return waiting_; } // for an edit's maps
    const std::string& text() const { return text_; }
    int tokens() const { return tokens_; }

  private:
    using Clock = std::chrono::steady_clock;
    void report(std::ostream& out) const;

    std::string text_;   // the N-token text pasted
    int tokens_ = 0;     // its tokens
    int characters_ = 0; // to type after it
    int typed_ = 0;      // typed so far
    bool pasted_ = false, waiting_ = false;
    std::string expected_; // the sentence whose maps are awaited
    Clock::time_point editedAt_;
    double pasteMillis_ = 0;
    std::vector<double> keyMillis_;
    std::vector<int> reusedRows_; // per key, the rows its trace took from the one before
};

} // namespace app
