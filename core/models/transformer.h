// What every family of real model is to the rest of the app: a stack of layers around the
// engine's attention, run one layer at a time on the residual stream. GPT-2 (gpt2_model.h) and
// the BERT family (bert_model.h) implement it; the forward loop, the traces, the analyses and
// the views are written once against it.
//
// The stream is what a layer reads and what it hands on: for GPT-2 the residual stream (each
// layer adds to it), for a post-LayerNorm encoder the hidden state (each layer replaces it).
// stream[0] is the embeddings' output, stream[l + 1] what layer l hands on, and head() reads
// any of them, which is what the logit lens does.
#pragma once

#include "engine/attention.h"
#include "models/formats/model_folder.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core::models {

// Which of the attention's projections add a bias (q, k, v, the output), as the checkpoint holds
// them: what the window says of a model and what its parameter count adds.
struct AttentionBiases {
    bool q = false, k = false, v = false, o = false;
    bool any() const { return q || k || v || o; }
};

class Transformer {
  public:
    virtual ~Transformer() = default;

    virtual const ModelConfig& config() const = 0;
    virtual bool causal() const = 0;  // a decoder: token i sees the tokens up to i
    virtual bool hasHead() const = 0; // logits: an LM head, or an MLM head when the file has one
    virtual std::string dtype() const = 0;
    // Every tensor type the file holds with its count, and the bits per weight where they vary
    // (a GGUF's quantization mix); dtype() for the others (this base's answer).
    virtual std::string weightTypes() const { return dtype(); }
    // Non-finite weights, named with their tensors and counts.
    virtual const std::vector<std::string>& warnings() const = 0;
    virtual std::uint64_t fileBytes() const = 0;

    // N x d: the stream before layer 1, from the ids and (encoders) their token types.
    virtual Mat embed(const std::vector<int>& ids, const std::vector<int>& types) const = 0;
    // Layer l (from 0) on `stream` (N x d, replaced by what the layer hands on), with the heads
    // in `ablated` (from 0) zeroed before the out projection. `attention` is the engine's record
    // of the layer's attention, `attentionInput` (N x d) what it read.
    virtual void layer(int l, Mat& stream, const std::vector<int>& ablated, Attention& attention,
                       Mat& attentionInput) const = 0;
    // A decoder's cache: layer l on the stream of tokens [P, P + n) alone (n x d, replaced as
    // layer() replaces it), after the P tokens whose keys and values (P x (H_kv*d_head) each) an
    // earlier forward's layer l made; `attention` holds the n new queries against all P + n
    // keys. Throws std::logic_error for a model that is not causal (this base's answer).
    virtual void layerAfter(int l, Mat& stream, Mat&& pastKeys, Mat&& pastValues,
                            const std::vector<int>& ablated, Attention& attention,
                            Mat& attentionInput) const;
    // rows x V: the logits of stream rows (after the last layer, or any layer for the lens).
    // Throws std::logic_error when !hasHead().
    virtual Mat head(const Mat& stream) const = 0;
    // The engine's weights of layer l's attention (W_Q ... W_O with their biases).
    virtual std::shared_ptr<const Weights> attentionWeights(int l) const = 0;
    // The rotary tables that turned layer l's q and k for a text of n tokens (the Steps tab
    // turns them back); empty for a model with learned positions (this base's answer).
    virtual Rotation rotationOf(int l, int n) const {
        (void)l, (void)n;
        return {};
    }
    // What attentionWeights' answer costs a layer trace that keeps it: 0 when every trace
    // shares the model's own (GPT-2, BERT), its float copy's bytes when each call makes one.
    virtual std::size_t traceWeightBytes() const { return 0; }
    // What a layer's attention reads, for the Pipeline tab: "ln_1 of the residual stream".
    virtual std::string attentionInputName() const = 0;
    // The attention's biases: all four for GPT-2 and the BERT family, whose files must hold
    // them (this base's answer); the Llama family's where the file has them.
    virtual AttentionBiases attentionBiases() const { return {true, true, true, true}; }
};

struct ForwardOptions {
    std::vector<std::vector<int>> ablated; // per layer, 0-based heads zeroed before W_O
    bool logits = true;                    // compute the N x V logits (when the model has a head)
};

// Called with each layer's attention as it is computed; it may keep or drop it.
using LayerSink = std::function<void(int layer, Attention&& attention, Mat&& attentionInput)>;

struct ForwardResult {
    std::vector<Mat> stream; // L + 1 entries, N x d (see above)
    Mat logits;              // N x V, empty without ForwardOptions::logits or a head
};

// The whole forward. Throws std::invalid_argument for an empty input, an id outside the
// vocabulary, a token type outside the model's, more tokens than its positions, or an ablated
// head that does not exist.
ForwardResult runForward(const Transformer& model, const std::vector<int>& ids,
                         const std::vector<int>& types, const ForwardOptions& options,
                         const LayerSink& sink);

// The forward from layer `first` (0 <= first <= L) on `stream` (N x d), what the layers
// before it handed on: the result's stream holds L + 1 - first entries (stream[0] is the one
// given). How a switched-off head reruns only the layers from its own (the embedding and the
// layers before it cannot change). ids and types are checked as runForward checks them.
ForwardResult runForwardFrom(const Transformer& model, Mat stream, int first,
                             const std::vector<int>& ids, const std::vector<int>& types,
                             const ForwardOptions& options, const LayerSink& sink);

// The forward of tokens [P, N) after the first P, a decoder's cache: `tail` (n x d, n = N - P)
// the embeddings of the new tokens, pastKeys and pastValues per layer the keys and values of
// the first P tokens (at least P rows; the first P are read). The result's stream holds L + 1
// entries of the new rows alone, its logits theirs. ids are checked as runForward checks them.
ForwardResult runForwardAfter(const Transformer& model, Mat tail, const std::vector<int>& ids,
                              const std::vector<Mat>& pastKeys, const std::vector<Mat>& pastValues,
                              const ForwardOptions& options, const LayerSink& sink);

// runForward keeping every layer's attention (small inputs: tests, the detectors' sequence).
struct CollectedForward {
    std::vector<Attention> layers; // L
    ForwardResult result;
};
CollectedForward collectForward(const Transformer& model, const std::vector<int>& ids,
                                const std::vector<int>& types = {},
                                const ForwardOptions& options = {});

// The heads ablated in layer l (none when the list is shorter).
const std::vector<int>& ablatedIn(const std::vector<std::vector<int>>& ablated, int l);

} // namespace core::models
