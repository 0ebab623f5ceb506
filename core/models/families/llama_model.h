// The modern decoders — Llama 2 / 3, Mistral, Qwen 2 / 3, Gemma 1 / 2 / 3, Phi-3, OLMo 2 — and
// their forward, exactly as Hugging Face's modeling_<type>.py computes it
// (docs/real-models.md, "The Llama family"): token embeddings (times sqrt(d) for Gemma); per
// layer RMSNorm, q / k / v projections (biases where the file has them; Phi-3's fused), QK-norm
// (per head, or over the whole projection for OLMo 2), rotary positions, grouped-query attention
// on the engine with the family's scale, sliding window and soft cap, o_proj, the residual;
// RMSNorm, the gated MLP down(act(gate(x)) * up(x)), the residual; Gemma 2 / 3's norms after
// each sublayer and OLMo 2's in place of the ones before; final norm, lm_head (or the tied
// embeddings) and Gemma 2's logit soft cap. Weights are used where they are mapped: BF16 and F16
// matrices are widened a panel at a time inside the products, never converted whole.
#pragma once

#include "engine/attention.h"
#include "models/formats/model_folder.h"
#include "models/formats/safetensors_map.h"
#include "models/transformer.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

// One layer's tensors. The projections are views into the mapping (Phi-3's are row ranges of
// its fused tensors); the optional ones are null when the family or the file has none.
struct LlamaBlock {
    const TensorView* inputNorm = nullptr;     // d: before attention (not OLMo 2)
    const TensorView* attentionNorm = nullptr; // d: post_attention_layernorm (see layer())
    const TensorView* preMlpNorm = nullptr;    // d: Gemma 2 / 3's pre_feedforward_layernorm
    const TensorView* postMlpNorm = nullptr;   // d: Gemma 2 / 3's and OLMo 2's after the MLP
    TensorView q, k, v, o;                     // (H*hd) x d, (H_kv*hd) x d twice, d x (H*hd)
    const TensorView *qBias = nullptr, *kBias = nullptr, *vBias = nullptr, *oBias = nullptr;
    const TensorView *qNorm = nullptr, *kNorm = nullptr; // hd (per head) or H*hd / H_kv*hd
    TensorView gate, up, down;                           // I x d, I x d, d x I
    const TensorView *gateBias = nullptr, *upBias = nullptr, *downBias = nullptr;
};

// The MLP's tensor names in one spelling (Hugging Face's gate_proj, llama.cpp's ffn_gate):
// `fused` is Phi-3's gate-then-up tensor.
struct MlpNames {
    const char *fused, *gate, *up, *down;
};

// Binds gate, up and down (and their biases where the file has them) under `prefix`.
class TensorBinder;
void bindMlp(const TensorBinder& bind, const std::string& prefix, const ModelConfig& c,
             const MlpNames& names, LlamaBlock& b);

struct LlamaWeights {
    ModelConfig config;
    TensorStore store;
    std::string prefix;                 // "model.", "", "language_model.model." ...
    const TensorView* embed = nullptr;  // V x d
    const TensorView* norm = nullptr;   // d
    const TensorView* lmHead = nullptr; // V x d: lm_head.weight, or embed when tied
    bool tiedHead = true;
    std::vector<LlamaBlock> blocks;
    std::vector<std::string> warnings;
    // GGUF's llama: q's and k's rows permuted per head so that rotary pairs are adjacent (2i,
    // 2i + 1), as llama.cpp's converter stores them; the products' columns are put back into
    // Hugging Face's order (i, i + d_head / 2), so the numbers are the HF model's.
    bool pairedQk = false;
    std::string dtypeText;   // a GGUF's file type ("Q4_K_M, dequantized per block"); "" for HF
    std::string weightTypes; // a GGUF's tensor types with counts and bits per weight
};

// Binds the safetensors files against the config: every tensor present with the shape the
// config implies, "model." or no prefix (Gemma 3's language_model under either spelling).
// Throws std::invalid_argument naming the tensor and its file.
LlamaWeights loadLlamaWeights(const ModelConfig& config, const HfFiles& files);

// A GGUF model (gguf_file.h) of llama.cpp's architecture `arch` (llama, qwen2, qwen3, gemma,
// gemma2, gemma3, phi3, olmo2): its metadata read into the config the Hugging Face reader of the
// same family would make, and its tensors (token_embd, blk.N.attn_q ...) bound onto the same
// blocks (llama_gguf.cpp). Both throw std::invalid_argument naming the file and the key or
// tensor.
struct GgufModel;
ModelConfig readLlamaGgufConfig(const GgufModel& model, const std::string& arch);
LlamaWeights loadLlamaGguf(const ModelConfig& config, const GgufModel& model,
                           const std::string& arch);

// config.json readers, one per registry entry (llama_config.cpp, gemma_config.cpp).
ModelConfig readLlamaConfig(const JsonFields& fields);
ModelConfig readMistralConfig(const JsonFields& fields);
ModelConfig readQwen2Config(const JsonFields& fields);
ModelConfig readQwen3Config(const JsonFields& fields);
ModelConfig readPhi3Config(const JsonFields& fields);
ModelConfig readOlmo2Config(const JsonFields& fields);
ModelConfig readGemmaConfig(const JsonFields& fields);
ModelConfig readGemma2Config(const JsonFields& fields);
ModelConfig readGemma3Config(const JsonFields& fields);

// What the readers share (llama_config.cpp): Llama's shape names with `defaults` for what the
// file leaves out, hidden_act, tie_word_embeddings, the rope, a quantized checkpoint refused.
ModelConfig readDecoderShapes(const JsonFields& fields, const ModelConfig& defaults,
                              bool tiedByDefault);
// config.decoder.window: `window` on the layers `sliding` marks (or layer_types says).
void readDecoderWindows(const JsonFields& fields, int window, const std::vector<char>& sliding,
                        ModelConfig& config);

// Columns of x, head by head (each hd wide), from GGUF's adjacent rotary pairs (2i, 2i + 1) back
// to Hugging Face's halves (i, i + hd / 2): undoes llama.cpp's permutation of q's and k's rows.
void unpairHeadColumns(Mat& x /* rows x (heads*hd) */, int hd);

class LlamaModel final : public Transformer {
  public:
    explicit LlamaModel(LlamaWeights weights) : w_(std::move(weights)) {}

    const ModelConfig& config() const override { return w_.config; }
    bool causal() const override { return true; }
    bool hasHead() const override { return true; }
    std::string dtype() const override {
        return w_.dtypeText.empty() ? dtypeName(w_.store.commonDtype()) : w_.dtypeText;
    }
    std::string weightTypes() const override {
        return w_.weightTypes.empty() ? dtype() : w_.weightTypes;
    }
    const std::vector<std::string>& warnings() const override { return w_.warnings; }
    std::uint64_t fileBytes() const override { return w_.store.fileBytes(); }
    // embed_tokens[ids] (times sqrt(d) for Gemma); no token types.
    Mat embed(const std::vector<int>& ids, const std::vector<int>& types) const override;
    void layer(int l, Mat& stream, const std::vector<int>& ablated, Attention& attention,
               Mat& attentionInput) const override;
    void layerAfter(int l, Mat& stream, Mat&& pastKeys, Mat&& pastValues,
                    const std::vector<int>& ablated, Attention& attention,
                    Mat& attentionInput) const override;
    // The final norm, lm_head, Gemma 2's soft cap.
    Mat head(const Mat& stream) const override;
    // Layer l's projections widened to float for the views (made on each call, not kept:
    // an 8B model's would be 5 GB).
    std::shared_ptr<const Weights> attentionWeights(int l) const override;
    std::size_t traceWeightBytes() const override;
    Rotation rotationOf(int l, int n) const override { return rotation(l, n); }
    std::string attentionInputName() const override;
    // The biases the file holds (Qwen 2's q, k and v; attention_bias).
    AttentionBiases attentionBiases() const override;
    const LlamaWeights& weights() const { return w_; }

  private:
    void block(int l, Mat& x, AttentionInput& in, Attention& attention, Mat& attentionInput) const;
    void attend(int l, AttentionInput& in, Attention& attention) const;
    Mat mlp(const LlamaBlock& b, const Mat& x) const;
    Mat norm(const Mat& x, const TensorView* weight) const;
    // Layer l's cos and sin for `positions` tokens: made once per kind (global or local
    // rope, LongRoPE's short or long factors) and grown as texts grow, as a forward reruns every
    // layer for every change of the text.
    Rotation rotation(int l, int positions) const;
    LlamaWeights w_;
    mutable std::mutex tablesLock_;
    mutable std::map<int, Rotation> tables_; // by kind
};

} // namespace core::models
