// A real checkpoint opened for the explorer and the CLI (docs/real-models.md): where it came
// from, its config, weights and exact tokenizer, and its trace on a sentence in the shape every
// view already reads (one core::Trace per layer), with the next-token predictions.
#pragma once

#include "engine/trace.h"
#include "models/gpt2_model.h"
#include "models/gpt2_tokenizer.h"
#include "models/model_folder.h"

#include <memory>
#include <string>
#include <vector>

namespace core::models {

// What a model runs on when the user gave no sentence (the CLI, a model opened in the window).
inline constexpr const char* kDefaultRealSentence = "The cat sat on the mat because it was tired.";

struct RealModel {
    ModelLocation location;
    std::string family;  // "gpt2"
    Gpt2Weights weights; // config inside
    Gpt2Tokenizer tokenizer;
    double loadMilliseconds = 0;

    const ModelConfig& config() const { return weights.config; }
    std::string dtype() const { return dtypeName(weights.store.commonDtype()); }
};

// Locates (a folder, or a name in the Hugging Face cache), reads config.json, maps the weights
// and reads the tokenizer. Throws std::invalid_argument with one line naming the problem. A
// run folder of `mha-viz train` is not a real model: the caller checks locateModel first.
std::unique_ptr<RealModel> openRealModel(const std::string& dirOrName);

// The scene a real model fixes (its sizes, causal mask, scale 1/sqrt(d_head), learned
// positions) with these sentences: what every layer's trace carries and the window's controls
// show, read-only.
Scene realModelScene(const RealModel& model, const std::vector<std::string>& sentences);

struct TokenChoice {
    int id = 0;
    std::string token;     // readable (Gpt2Tokenizer::readable)
    float probability = 0; // softmax of the logits
};

struct RealTraceOptions {
    int topK = 1;                          // predictions kept per position
    std::vector<std::vector<int>> ablated; // per layer, 0-based heads switched off
    bool keepLogits = false;               // RealTrace::logits filled (N x V)
};

struct RealTrace {
    std::string text;
    std::vector<int> ids;                              // exactly what the model was fed
    Tokenized tokens;                                  // readable tokens, byte offsets into text
    std::vector<std::vector<TokenChoice>> predictions; // N: the top-k next tokens
    double loss = 0; // mean next-token cross-entropy over positions 0..N-2 (nats)
    std::vector<std::shared_ptr<const Trace>> layers; // L, as the explorer's views read them
    std::vector<Mat> residual;                        // L + 1, N x d (logit lens)
    Mat logits;                                       // N x V when kept
    std::vector<std::string> warnings;                // e.g. the text cut at n_positions
};

// Tokenizes and runs the text. Throws std::invalid_argument for invalid UTF-8 or text with
// no tokens; a text longer than the context is cut to n_positions tokens with a warning.
RealTrace traceRealModel(const RealModel& model, const std::string& text,
                         const RealTraceOptions& options = {});

// The top k of a row of logits, most likely first.
std::vector<TokenChoice> topTokens(const RealModel& model, const Eigen::Ref<const RowVec>& logits,
                                   int k);

} // namespace core::models
