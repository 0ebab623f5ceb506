// The multi-head attention forward pass: projections, split, scaled dot-product
// attention per head, merge, output projection. No GUI, no I/O.
#pragma once

#include "base/enum_names.h"
#include "engine/scalar.h"
#include "engine/weights.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace core {

// What the scores are divided by. sqrt_d_head is the Transformer's (and PyTorch's).
enum class ScaleKind { SqrtDHead, SqrtDModel, None };
inline constexpr EnumName<ScaleKind> kScaleKindNames[] = {
    {ScaleKind::SqrtDHead, "sqrt_d_head", "1 / sqrt(d_head)"},
    {ScaleKind::SqrtDModel, "sqrt_d_model", "1 / sqrt(d_model)"},
    {ScaleKind::None, "none", "none"}};
constexpr std::span<const EnumName<ScaleKind>> enumNames(ScaleKind) {
    return kScaleKindNames;
}

enum class MaskKind { None, Causal };
inline constexpr EnumName<MaskKind> kMaskKindNames[] = {{MaskKind::None, "none", ""},
                                                        {MaskKind::Causal, "causal", ""}};
constexpr std::span<const EnumName<MaskKind>> enumNames(MaskKind) {
    return kMaskKindNames;
}

// Rotary positions (RoFormer): the first dims() dimensions of every head of q and k turned, pair
// by pair, by the angle position x theta_j. The model makes the tables (its base, scaling and
// positions); the engine only turns.
struct Rotation {
    Mat cos; // P x (r/2): row p for the token at index p of its sentence (P >= N)
    Mat sin; // P x (r/2)
    // Which dimensions pair: false, j with j + r/2 (Hugging Face's rotate_half); true, 2j with
    // 2j + 1 (RoFormer's own layout, and GGUF's for the llama architecture).
    bool interleaved = false;
    int dims() const { return int(cos.cols()) * 2; } // r, at most d_head
    bool empty() const { return cos.size() == 0; }
};

struct AttentionInput {
    int batch = 1;    // B
    int queryLen = 0; // N, after padding
    int keyLen = 0;   // M (= N for self-attention)
    // H query heads. d_head = W_Q's columns / H (d_model / H for the toy scenes), and the K/V
    // heads H_kv = W_K's columns / d_head: a divisor of H, query head h reading K/V head
    // h / (H / H_kv) (grouped-query attention; H_kv = 1 is multi-query, H_kv = H plain MHA).
    int heads = 1;
    Mat x;               // (B*N) x d_model, query side; rows of sentence b are [b*N, (b+1)*N)
    Mat xSource;         // (B*M) x d_model, keys and values; empty means self-attention
    BoolMat keyPadding;  // B x M, true where the key is padding; empty means none
    bool causal = false; // key j > query i is masked
    // > 0: query i (token P + i) sees only keys j > P + i - window as well, a sliding window
    // (Mistral's, Gemma's local layers), as Hugging Face's mask builds it.
    int window = 0;
    // > 0: scores = tanh(scores / cap) * cap after the scale and bias, before the mask (Gemma 2).
    Scalar scoreCap = 0;
    ScaleKind scale = ScaleKind::SqrtDHead;
    Scalar scaleValue = 0; // > 0: the scores' factor in place of `scale` (a model's own choice)
    Rotation rotation;     // empty: none; turns q and k after their projections (self-attention)
    Mat scoreBias; // (H*N) x M added to the scaled scores before the mask (every sentence), or
                   // empty: relative position biases, head h's block rows [h*N, (h+1)*N)
    // Teaching switches (the classic pitfalls), each changing the real computation:
    bool outProjection = true;     // false: output = concat, heads never mixed by W_O
    std::vector<int> ablatedHeads; // 0-based heads whose outputs are zeroed before W_O
    bool reshapeBug = false;       // split/merge heads by viewing (N, d_model) as (H, N, d_head)
    // false (training, core/train): Attention::scores and headOutputs stay empty, which saves
    // their stores and copies; every other field has the very same bits either way.
    bool intermediates = true;
    // A decoder's cache (self-attention): the keys and values of the P tokens before x's, as an
    // earlier forward projected (and turned) them, (B*P) x (H_kv*d_head) each, or empty. The
    // keys are those P and x's N, M = P + N, sentence b's rows [b*M, b*M + P) the cached ones.
    // Query i is token P + i: the causal mask lets it see keys j <= P + i and the rotation turns
    // it (and its key) by row P + i of the tables. Only x's rows are computed: text added at the
    // end of a sentence reruns its new tokens alone.
    Mat pastKeys;
    Mat pastValues;
    // attendProjected's input, the model's own projections (before the rotation): q
    // (B*N) x (H*d_head), k and v (B*N) x (H_kv*d_head). Empty for forward().
    Mat q, k, v;

    bool isCross() const { return xSource.size() > 0; }
    int pastLen() const { return batch > 0 ? int(pastKeys.rows()) / batch : 0; } // P
};

// Every intermediate of one forward pass. Per-head tensors stack the (b, h) blocks:
// block (b, h) holds rows [(b*H + h)*N, (b*H + h + 1)*N), see headRow().
// Shapes below with H*d_head = d_model and H_kv = H for the toy scenes and GPT-2 / BERT.
struct Attention {
    int batch = 0, queryLen = 0, keyLen = 0, d_model = 0, heads = 0, d_head = 0, kvHeads = 0;
    Scalar scale = 1; // the factor the scores were multiplied by
    bool causal = false;
    int queryOffset = 0;    // P: query i is token P + i (AttentionInput::pastKeys)
    bool cross = false;     // keys and values came from AttentionInput::xSource
    bool rotated = false;   // q and k were turned (AttentionInput::rotation)
    bool scoreBias = false; // the scores include AttentionInput::scoreBias
    int window = 0;         // AttentionInput::window
    Scalar scoreCap = 0;    // AttentionInput::scoreCap
    BoolMat keyPadding;     // B x M
    Mat q;                  // (B*N) x (H*d_head), projected (and turned), before the split
    Mat k;                  // (B*M) x (H_kv*d_head)
    Mat v;                  // (B*M) x (H_kv*d_head)
    Mat scores;      // (B*H*N) x M, scaled (+ bias), before the mask; empty without intermediates
    Mat attention;   // (B*H*N) x M, softmax weights; masked entries are exactly 0
    Mat headOutputs; // (B*H*N) x d_head, attention * V per head; empty without intermediates
    Mat concat;      // (B*N) x (H*d_head), heads merged side by side (ablated heads zeroed)
    Mat output;      // (B*N) x d_model, concat * W_O (= concat without the out projection)
    bool outProjection = true;
    bool reshapeBug = false;
    bool intermediates = true;     // scores and headOutputs kept (AttentionInput::intermediates)
    std::vector<bool> headAblated; // H
    RowVec outputShift; // 1 x (B*N): |output - output with no head ablated| per token; empty
                        // when nothing is ablated

    Eigen::Index headRow(int b, int h, int i = 0) const {
        return (Eigen::Index(b) * heads + h) * queryLen + i;
    }
    // The K/V head query head h reads.
    int kvHeadOf(int h) const { return kvHeads > 0 ? h / (heads / kvHeads) : h; }
    // True when query i of sentence b may not see key j (padding or causal).
    bool masked(int b, int i, int j) const {
        return (causal && j > queryOffset + i) || (window > 0 && j <= queryOffset + i - window) ||
               (keyPadding.size() > 0 && keyPadding(b, j));
    }
    // Whether sentence b has padded keys, or a window that hides some key's start. Without them
    // query i sees exactly the keys [0, leadingKeys(i)), so a row's mask is its tail and needs no
    // per-key test.
    bool paddedKeys(int b) const {
        return (window > 0 && queryOffset + queryLen > window) ||
               (keyPadding.size() > 0 && keyPadding.row(b).any());
    }
    int leadingKeys(int i) const { return causal ? std::min(queryOffset + i + 1, keyLen) : keyLen; }
};

// The scores' factor for a scale kind: 1/sqrt(d_head), 1/sqrt(d_model) or 1.
Scalar scaleFactor(ScaleKind scale, int d_model, int d_head);

// Where element (row r, column c) of head h's d_head-wide slice really comes from in the
// (len x d_model) matrix it is split from: with the correct split, token r and dimension
// h*d_head + c; with the reshape bug, the flat position (h*len + r)*d_head + c.
struct SplitSource {
    int token = 0, dim = 0;
};
SplitSource splitSource(int head, int row, int col, int len, int d_model, int heads,
                        bool reshapeBug);

// The cells of that (len x d_model) matrix head h's slice reads, as rectangles: tokens
// [tokenBegin, tokenEnd) x dimensions [dimBegin, dimEnd), in reading order. Made from
// splitSource, so what the Pipeline tab draws is what the engine reads: one column band with
// the correct split, runs along the flat rows with the reshape bug.
struct SplitBlock {
    int tokenBegin = 0, tokenEnd = 0, dimBegin = 0, dimEnd = 0;
    bool operator==(const SplitBlock&) const = default;
};
std::vector<SplitBlock> splitBlocks(int head, int len, int d_model, int heads, bool reshapeBug);

// Fills `out`, reusing its buffers when the shapes are unchanged (the window
// recomputes every frame while a slider moves). Throws std::invalid_argument
// when the shapes do not fit together.
void forward(const AttentionInput& input, const Weights& weights, Attention& out);

// c = a * b with Eigen's GEMM on the engine's active SIMD path (the benchmark's yardstick).
void engineMultiply(const Mat& a, const Mat& b, Mat& c);

// c = a^T * b (Transposed::Left) or a * b^T (Transposed::Right), the same way: the products of
// the training's unembedding and its gradients (core/train).
enum class Transposed { Left, Right };
void engineMultiply(const Mat& a, Transposed which, const Mat& b, Mat& c);

// A row-major matrix held elsewhere: a memory-mapped checkpoint's weights, read in place.
using ConstMatMap = Eigen::Map<const Mat>;

// c = a * b (a rows x depth, b depth x cols), or a * b^T with b cols x depth when transposedB
// (an unembedding by a V x d table): on the active SIMD path, with the columns of c cut into
// chunks spread over OpenMP threads. The real models' linear layers.
void engineMultiply(const ConstMatMap& a, const ConstMatMap& b, bool transposedB, Mat& c);

// The attention of q, k and v a model projected itself (in.q, in.k, in.v: its weights stay in
// their file's BF16, or it normalises q and k per head before the rotation): the rotation,
// scores, softmax, weights * V and the merge, as forward() does them after its projections.
// in.q is (B*N) x (H*d_head), in.k and in.v (B*N) x (H_kv*d_head) for self-attention (after
// cached keys, only the new tokens'); they are moved into `out`. in.x stays the record of what
// the layer read. W_O is the caller's: out.output is left empty and out.concat keeps every
// head, ablated ones included (see projectOut in core/models/tensor_ops.h). Throws
// std::invalid_argument when the shapes do not fit together.
void attendProjected(AttentionInput& in, Attention& out);

// A weight matrix held in a mapped file as 16-bit floats, rows x cols row-major.
struct HalfMatrix {
    const std::uint16_t* data = nullptr;
    Eigen::Index rows = 0, cols = 0;
    bool bf16 = true; // bfloat16, else IEEE half
};

// c = a * b, or a * b^T with b cols x depth when transposedB, b converted to float a panel at a
// time inside each thread's chunk of columns (never whole): a BF16 checkpoint's linear layers.
void engineMultiply(const ConstMatMap& a, const HalfMatrix& b, bool transposedB, Mat& c);

// A weight matrix held in a mapped file in blocks (ggml's quantized types, GGUF files):
// rows x cols values, row r the whole blocks at data + r * rowBytes, each block `blockValues`
// values (a divisor of 256) in `blockBytes` bytes. `dequantize` writes the values of whole
// blocks as floats (core/models/formats/ggml_quants.h): compiled once, outside the kernels, so
// every SIMD path multiplies the very same values.
struct QuantMatrix {
    const std::byte* data = nullptr;
    Eigen::Index rows = 0, cols = 0;
    std::size_t rowBytes = 0;
    int blockValues = 1, blockBytes = 4;
    void (*dequantize)(const std::byte* blocks, Scalar* out, std::int64_t count) = nullptr;
};

// c = a * b^T (transposedB: b out x in, torch.nn.Linear's weights) or a * b, b dequantized
// inside each thread's chunk of columns into a buffer of that thread's own, a panel of rows (or
// a chunk of columns) at a time, and multiplied by the micro-kernel: a quantized model is never
// expanded whole. Throws std::invalid_argument when the depths differ or b's blocks do not fit.
void engineMultiply(const ConstMatMap& a, const QuantMatrix& b, bool transposedB, Mat& c);

// FLOPs of one forward pass (multiply-adds count 2): projections, scores, weights*V, W_O.
double forwardFlops(int batch, int queryLen, int keyLen, int d_model);

} // namespace core
