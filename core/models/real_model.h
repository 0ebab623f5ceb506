// A real checkpoint opened for the explorer and the CLI (docs/real-models.md): where it came
// from, its family's forward and exact tokenizer, and its trace on a sentence (or an encoder's
// sentence pair) in the shape every view already reads (one core::Trace per layer), with the
// model's predictions.
//
// Traces stay bounded: a layer's trace holds its H attention maps of N x N twice (scores and
// weights), 5 GB for GPT-2 xl at 1024 tokens. RealTrace keeps the first layer's trace, and the
// next ones while they fit RealTraceOptions::keepBytes; it always keeps the stream before each
// layer, so
// RealTrace::layer(l) recomputes a layer it did not keep from its stream, bit for bit, by the
// same code. What shows every layer at once keeps less: a small map of each head (thumbnails)
// and each layer's mean attention (the rollout's input).
#pragma once

#include "engine/trace.h"
#include "models/architectures.h"
#include "models/tokenizers/model_tokenizer.h"
#include "models/transformer.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::models {

// What a model runs on when the user gave no sentence (the CLI, a model opened in the window).
inline constexpr const char* kDefaultRealSentence = "The cat sat on the mat because it was tired.";
// An encoder's default: a [MASK] to fill.
inline constexpr const char* kDefaultMaskedSentence =
    "The cat sat on the [MASK] because it was tired.";

struct RealModel {
    ModelLocation location;
    std::string family; // config.json's model_type, one of the registry's (architectures.h)
    const Architecture* architecture = nullptr; // its registry entry
    std::unique_ptr<const Transformer> net;
    std::unique_ptr<const ModelTokenizer> tokenizer;
    double loadMilliseconds = 0;

    const ModelConfig& config() const { return net->config(); }
    std::string dtype() const { return net->dtype(); }
    bool isEncoder() const { return !net->causal(); }
    // The mask token as typed in text ("[MASK]", "<mask>"), "" for a decoder.
    std::string maskText() const;
    // The sentence the model opens on: a [MASK] to fill for an encoder with an MLM head.
    std::string defaultSentence() const;
};

// Locates (a folder, or a name in the Hugging Face cache), reads config.json, maps the weights
// and reads the tokenizer. Throws std::invalid_argument with one line naming the problem. A
// run folder of `mha-viz train` is not a real model: the caller checks locateModel first.
std::unique_ptr<RealModel> openRealModel(const std::string& dirOrName);

// The scene a real model fixes (its sizes, causal mask or none, scale 1/sqrt(d_head), learned
// positions) with these sentences: what every layer's trace carries and the window's controls
// show, read-only.
Scene realModelScene(const RealModel& model, const std::vector<std::string>& sentences);

struct TokenChoice {
    int id = 0;
    std::string token;     // readable (ModelTokenizer::readable)
    float probability = 0; // softmax of the logits
};

// Past this, a trace keeps no more layer traces (RealTrace::layer recomputes them).
inline constexpr std::size_t kLayerTraceBudget = std::size_t(1) << 30;
// The side a thumbnail map is pooled down to (each pixel the largest weight it covers).
inline constexpr int kThumbnailSide = 128;

struct RealTrace;

// What a trace throws when RealTraceOptions::cancel was set while it ran (between layers).
struct TraceCancelled : std::runtime_error {
    TraceCancelled() : std::runtime_error("the trace was cancelled: a newer one replaces it") {}
};

struct RealTraceOptions {
    int topK = 1;                              // predictions kept per position
    std::vector<std::vector<int>> ablated;     // per layer, 0-based heads switched off
    bool keepLogits = false;                   // RealTrace::logits filled (N x V)
    std::size_t keepBytes = kLayerTraceBudget; // layer traces kept up to this size
    std::string pair;                          // an encoder's sentence B ("" for none)
    // A trace of the same model that this one starts from. On the same text (and pair): the
    // layers before the first whose switched-off heads differ are taken from it, not run again
    // (a head switched off in layer 9 reruns layers 9 to L only). A decoder on another text
    // with the same switches: the rows of the tokens both texts start with (down to whole
    // thumbnail cells, and one token at least left to run) are taken from it and only the later
    // tokens run, on its keys and values (a KV cache: typing at the end of a long text).
    // Ignored when neither fits; the result equals a whole forward's either way.
    std::shared_ptr<const RealTrace> resume;
    int thumbnailSide = kThumbnailSide; // RealTrace::thumbnails' largest side
    // Set by another thread: the trace stops at its next layer and throws TraceCancelled.
    std::shared_ptr<const std::atomic<bool>> cancel;
    // The window: the maps first. A trace that runs its whole forward leaves the head (N x V
    // logits, a quarter of GPT-2 small's forward at 1000 tokens) and the predictions to
    // completePredictions; one resumed after a complete trace makes its few new rows' at once.
    bool deferPredictions = false;
};

struct RealTrace {
    const RealModel* model = nullptr; // the model it ran on, which must outlive it
    std::string text, pair;           // pair: sentence B, "" without one
    std::vector<int> ids;             // exactly what the model was fed
    std::vector<int> types;           // token types (encoders), else all 0
    Tokenized tokens;                 // readable tokens, byte offsets into their text
    std::vector<char> special;        // per token: 1 for [CLS], [SEP], <s>, ...
    int pairStart = -1;               // the first token of sentence B, -1 without a pair
    // N, the top k: the next token (decoders), or the token at the position (encoders' MLM
    // head). Empty for an encoder without a head.
    std::vector<std::vector<TokenChoice>> predictions;
    double loss = 0; // decoders: mean next-token cross-entropy over positions 0..N-2 (nats)
    std::vector<std::vector<int>> ablated;            // as RealTraceOptions, kept for layer()
    std::vector<std::shared_ptr<const Trace>> layers; // L; null for a layer not kept (never
                                                      // the first)
    std::vector<Mat> residual;      // L + 1, N x d: the stream before each layer and after the last
    std::vector<Mat> meanAttention; // L, N x N: each layer's attention averaged over its heads
    std::vector<Mat> thumbnails;    // L x H maps (layer-major), at most thumbnailSide square
    // L, N x H: each query's weight on key 0 in each head, kept for every layer (a thumbnail
    // pools it away): the attention sink's share (model_analysis.h, attentionSinkShares).
    std::vector<Mat> firstKeyWeights;
    int thumbnailStep = 1; // tokens per thumbnail cell, each way
    // A decoder's keys and values per layer (L, N x (H_kv*d_head)): what a trace of a longer
    // text starts from (RealTraceOptions::resume). Empty for an encoder.
    std::vector<Mat> keys, values;
    // A decoder: N - 1, log p(ids[i + 1]) after token i, the loss's terms.
    std::vector<double> targetLogProbs;
    // The predictions, their log-probabilities and the loss are still to be made
    // (RealTraceOptions::deferPredictions): predictions empty, loss NaN.
    bool predictionsPending = false;
    int topK = 0;       // RealTraceOptions::topK
    int reusedRows = 0; // tokens whose rows were taken from RealTraceOptions::resume, else 0
    Mat logits;         // N x V when kept
    std::vector<std::string> warnings;

    int layerCount() const { return int(residual.empty() ? 0 : residual.size() - 1); }
    // Layer l's trace (from 0): the kept one, or recomputed from residual[l]. Throws
    // std::invalid_argument for a layer outside the model.
    std::shared_ptr<const Trace> layer(int l) const;
    // The positions of the mask token (an encoder's blanks to fill).
    std::vector<int> maskPositions() const;
};

// Tokenizes and runs the text. Throws std::invalid_argument for invalid UTF-8, text with no
// tokens, a pair given to a decoder or a pair longer than the context; a single text longer
// than the context is cut to it with a warning.
RealTrace traceRealModel(const RealModel& model, const std::string& text,
                         const RealTraceOptions& options = {});

// A copy of `r` with its deferred predictions made (RealTraceOptions::deferPredictions): the
// head on the last stream, every row's top k and the loss, as the whole forward makes them.
// `r` itself when nothing is pending. Throws TraceCancelled once options.cancel is set.
std::shared_ptr<const RealTrace> withPredictions(std::shared_ptr<const RealTrace> r,
                                                 const RealTraceOptions& options = {});

// The top k of a row of logits, most likely first.
std::vector<TokenChoice> topTokens(const RealModel& model, const Eigen::Ref<const RowVec>& logits,
                                   int k);
// The same read by `tokenizer` (an encoder-decoder's target tokenizer).
std::vector<TokenChoice> topTokens(const ModelTokenizer& tokenizer,
                                   const Eigen::Ref<const RowVec>& logits, int k);

// Each N x N map pooled to at most side x side, each cell the largest it covers (so a one-token
// diagonal stays visible); a map that fits is copied as it is.
Mat thumbnailOf(const Mat& map, int side = kThumbnailSide);
// The tokens per cell thumbnailOf pools an N x N map by: 1 when it fits, else ceil(N / side).
int thumbnailStep(Eigen::Index n, int side = kThumbnailSide);
// `map` pooled by `step` cells each way, each cell the largest it covers.
Mat poolMap(const Mat& map, Eigen::Index step);

} // namespace core::models
