// Attention that another framework saved, read without the model that made it
// (docs/attention-files.md): a safetensors file whose tensors `layers.<l>` hold each layer's
// softmax weights, [H][N][N] or [1][H][N][N] in F32, F16 or BF16, with the N tokens as a JSON
// list in the header's __metadata__ under "tokens" (or in a tokens.json beside the file). An
// encoder-decoder may add `encoder.<l>` ([H][N_s][N_s]) and `cross.<l>` ([H][N][N_s]), the
// encoder's tokens under "source_tokens". Everything is checked before anything is shown:
// shapes against the tokens and each other, every weight finite and in [0, 1]. Rows that do not
// sum to 1 are kept as saved with one warning (pre-dropout or masked rows).
#pragma once

#include "engine/scalar.h"

#include <string>
#include <vector>

namespace core::models {

// The layers of one kind of attention in the file (layers.*, encoder.* or cross.*).
struct AttentionStack {
    // L, each (H*Nq) x Nk: head h's map in rows [h*Nq, (h+1)*Nq), row i the query i, exactly the
    // file's values widened to float.
    std::vector<Mat> layers;
    int heads = 0;   // H, the same in every layer
    int queries = 0; // Nq
    int keys = 0;    // Nk
    bool empty() const { return layers.empty(); }
    // Head h of layer l (from 0): Nq x Nk.
    Mat head(int l, int h) const;
};

struct AttentionFile {
    std::string path;                      // as given
    std::vector<std::string> tokens;       // N: the queries (and keys) of `self`, valid UTF-8
    std::vector<std::string> sourceTokens; // N_s: the encoder's tokens; empty without one
    std::string tokensFrom;                // "the file's metadata" or the tokens.json read
    AttentionStack self;                   // layers.*: what the views show
    AttentionStack encoder, cross;         // encoder.* and cross.*, often empty
    std::string dtype;                     // "BF16", or "F32 and BF16" when the tensors differ
    std::vector<std::string> warnings;     // rows not summing to 1, tensors left out, ...
};

// Past these the file is refused: they bound what the views and the memory are asked to hold.
inline constexpr int kMaxAttentionLayers = 1024;
inline constexpr int kMaxAttentionHeads = 1024;

// Reads and checks the file. Throws std::invalid_argument with one line that starts with the
// path and names the problem: not safetensors (truncated, a bad header), no layers.0, a missing
// layer, a dtype other than F32/F16/BF16, a shape that is not [H][N][N] or [1][H][N][N] (a batch
// of more than one sentence is refused, saying how to save one), tensors that disagree with the
// tokens or with each other, no tokens or tokens that are not a JSON list of strings, a weight
// that is NaN, infinite or outside [0, 1].
AttentionFile readAttentionFile(const std::string& path);

// The tokens.json that readAttentionFile reads beside `path` when the file's metadata has none.
std::string tokensFileBeside(const std::string& path);

// Whether the window opens `path` as an attention file: a regular file named *.safetensors (a
// model is opened by its folder).
bool looksLikeAttentionFile(const std::string& path);

} // namespace core::models
