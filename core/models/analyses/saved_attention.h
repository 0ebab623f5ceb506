// Attention another framework saved (an attention file, models/formats/attention_file.h), in the
// shape the views already read: one core::Trace per layer holding the weights alone (no x, no W_Q
// ... the file has none), with what the model view, the rollout and the detectors show beside them,
// all made once when the file opens (nothing is recomputed: there is no model to run). What needs
// the model (the pipeline, the steps, value-weighted attention, ablation, the logit lens,
// predictions, another sentence) is not made, and says so (kNeedsTheModel).
#pragma once

#include "engine/scene.h"
#include "engine/trace.h"
#include "models/analyses/model_analysis.h"
#include "models/formats/attention_file.h"

#include <memory>
#include <string>
#include <vector>

namespace core::models {

// What every view or control that needs the model says with an attention file open.
inline constexpr const char* kNeedsTheModel = "needs the model: this file holds attention only";

// Which of the file's attentions a view shows: layers.* (a decoder's, or the only one), an
// encoder-decoder's encoder.* (its self-attention over the source tokens) or cross.* (the
// tokens' queries on the source tokens).
enum class SavedStack { Layers, Encoder, Cross };

// One of them as the views read it, made when the file is read.
struct SavedStackView {
    std::vector<std::shared_ptr<const Trace>> layers; // L: the weights only, no x or W_Q ...
    bool causal = false;                              // every map 0 above its diagonal
    int heads = 0;                                    // H
    std::vector<Mat> thumbnails;                      // L x H (layer-major), at most kThumbnailSide
    int thumbnailStep = 1;                            // tokens per thumbnail cell, each way
    // Self-attention only (empty for cross.*, whose queries and keys are two sentences):
    std::vector<Mat> meanAttention;            // L, N x N: each layer's mean over its heads
    Mat sinkShares;                            // L x H: each head's attention on token 1
    std::vector<Mat> rollout;                  // L, N x N: the rollout after layer l + 1
    std::vector<HeadDetectorScores> detectors; // on the sentence (detectSavedHeads)

    bool empty() const { return layers.empty(); }
    int layerCount() const { return int(layers.size()); }
};

struct SavedAttention {
    std::string path;              // the file, as given
    std::string name;              // its file name: "gpt2-attention.safetensors"
    std::string dtype, tokensFrom; // as AttentionFile says them
    Tokenized tokens;              // the sentence: the tokens joined, each with its byte range
    std::vector<int> ids;   // per token, the position of its first copy: equal tokens, equal ids
    Tokenized sourceTokens; // an encoder-decoder's source tokens, else empty
    std::vector<int> sourceIds;        // as `ids`, of the source tokens
    SavedStackView self;               // layers.*: what the window opens on
    SavedStackView encoder, cross;     // encoder.* and cross.*, empty without them
    std::vector<std::string> warnings; // the file's (rows off 1, tensors left out, ...)

    // layers.*'s, what most views read.
    const std::vector<std::shared_ptr<const Trace>>& layers() const { return self.layers; }
    int layerCount() const { return self.layerCount(); }
    int heads() const { return self.heads; }
    bool causal() const { return self.causal; }
    const SavedStackView& stack(SavedStack which) const;
    // The stack's query tokens: the source tokens for encoder.*, else the tokens.
    const Tokenized& queries(SavedStack which) const;
    // The stacks the file holds, layers.* first.
    std::vector<SavedStack> stacks() const;
};

// The model view's maps of a stack whose layers are set and, of a self-attention stack (`self`),
// its means, rollout, sink shares and detectors on `ids` (its tokens; equal tokens, equal ids).
void analyseSavedStack(SavedStackView& stack, const std::vector<int>& ids, bool self);

// The tokens joined into one text: a space between two unless the later brings its own
// (" cat"), each token's bytes kept.
Tokenized joinTokens(const std::vector<std::string>& tokens);

// "decoder", "encoder", "cross": the window's choice; "layers" alone when the file has no
// other.
std::string savedStackLabel(const SavedAttention& saved, SavedStack which);
// The caption's line saying which attention a figure shows: "" for layers.*, else
// "cross.<l>: cross-attention, the tokens' queries on the source tokens" and the like.
std::string savedStackLine(SavedStack which);

// readAttentionFile, then everything the views show made from it. Throws like
// readAttentionFile (std::invalid_argument, one line naming the file and the problem).
std::shared_ptr<const SavedAttention> openSavedAttention(const std::string& path);
// The same from a file already read (its maps are moved into the traces).
std::shared_ptr<const SavedAttention> savedAttentionOf(AttentionFile file);

// The scene the controls show (read-only) of a stack: its sentence (and cross-attention's
// source), H, the mask seen in the maps. The sizes the file does not hold (d_model, the scale)
// are 0 and none: no model is claimed.
Scene savedAttentionScene(const SavedAttention& saved, SavedStack which = SavedStack::Layers);

// "attention from gpt2-attention.safetensors (saved elsewhere)": titles and captions.
std::string savedAttentionTitle(const SavedAttention& saved);
// What every figure of the file says under it: the sentence, where the maps come from (the file,
// computed elsewhere: no weights here) and their sizes.
std::vector<std::string> savedAttentionCaption(const SavedAttention& saved);

// The head detectors that read only the sentence's maps (model_analysis.h's patterns, scored
// TransformerLens's way on the file's own tokens): previous_token, self (the diagonal), a
// bidirectional file's next_token, and duplicate_token and induction when a token repeats. The
// sink share (first_token_on_sentence) is SavedStackView::sinkShares. None for one token.
std::vector<HeadDetectorScores>
detectSavedHeads(const std::vector<std::shared_ptr<const Trace>>& layers,
                 const std::vector<int>& ids, bool causal);

} // namespace core::models
