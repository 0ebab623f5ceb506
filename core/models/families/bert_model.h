// The BERT family's weights and forward, exactly as Hugging Face's BertForMaskedLM,
// RobertaForMaskedLM and DistilBertForMaskedLM compute them (docs/real-models.md, "BERT and its
// family"): word + position (+ token type) embeddings and LayerNorm; per layer bidirectional
// attention (Linear q, k, v scaled by 1/sqrt(d_head), the engine's own attention step, the
// output dense), residual and LayerNorm, the feed-forward (erf GELU unless the config says
// otherwise), residual and LayerNorm (post-LN); then the MLM head when the file has one:
// dense, activation, LayerNorm, the decoder tied to the word embeddings (or its own weight)
// plus a bias. RoBERTa counts its positions from pad_token_id + 1; DistilBERT has no token
// types and other tensor names. Old checkpoints' LayerNorm gamma / beta are read as weight /
// bias.
#pragma once

#include "models/formats/model_folder.h"
#include "models/formats/safetensors_map.h"
#include "models/transformer.h"

#include <memory>
#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

enum class EncoderFamily { Bert, Roberta, DistilBert };

struct BertLayerWeights {
    std::shared_ptr<const Weights> attention;        // W_Q ... W_O d x d (x W), biases 1 x d
    const TensorView* attentionNormWeight = nullptr; // d: after attention + residual
    const TensorView* attentionNormBias = nullptr;
    const TensorView* inWeight = nullptr;         // inner x d (Linear): intermediate / ffn.lin1
    const TensorView* inBias = nullptr;           // inner
    const TensorView* outWeight = nullptr;        // d x inner: output / ffn.lin2
    const TensorView* outBias = nullptr;          // d
    const TensorView* outputNormWeight = nullptr; // d: after the feed-forward + residual
    const TensorView* outputNormBias = nullptr;
};

struct BertWeights {
    ModelConfig config;
    EncoderFamily family = EncoderFamily::Bert;
    TensorStore store;
    std::string prefix;                             // "bert.", "roberta.", "distilbert." or ""
    const TensorView* wordEmbeddings = nullptr;     // V x d
    const TensorView* positionEmbeddings = nullptr; // P x d
    const TensorView* typeEmbeddings = nullptr;     // T x d, null for DistilBERT
    const TensorView* embeddingNormWeight = nullptr;
    const TensorView* embeddingNormBias = nullptr;
    std::vector<BertLayerWeights> layers;
    // The MLM head; mlmDense null when the file has none (a bare encoder).
    const TensorView* mlmDense = nullptr; // d x d (Linear)
    const TensorView* mlmDenseBias = nullptr;
    const TensorView* mlmNormWeight = nullptr;
    const TensorView* mlmNormBias = nullptr;
    const TensorView* decoder = nullptr;     // V x d: its own weight, or the word embeddings
    const TensorView* decoderBias = nullptr; // V
    bool tiedDecoder = true;
    std::string mlmActivation; // the config's; RoBERTa's head always uses erf GELU
    std::vector<std::string> warnings;
};

// Reads the weights against the config, names with or without the family's prefix. Throws
// std::invalid_argument naming the tensor or file.
BertWeights loadBertWeights(const ModelConfig& config, const HfFiles& files, EncoderFamily family);

// config.json in BERT's names (num_hidden_layers, num_attention_heads, hidden_size,
// intermediate_size, max_position_embeddings, layer_norm_eps, hidden_act, type_vocab_size);
// RoBERTa's are BERT's with positions counted from pad_token_id + 1; DistilBERT's its own
// (n_layers, n_heads, dim, hidden_dim, activation).
ModelConfig readBertConfig(const JsonFields& fields);
ModelConfig readRobertaConfig(const JsonFields& fields);
ModelConfig readDistilBertConfig(const JsonFields& fields);

class BertModel final : public Transformer {
  public:
    explicit BertModel(BertWeights weights) : w_(std::move(weights)) {}

    const ModelConfig& config() const override { return w_.config; }
    bool causal() const override { return false; }
    bool hasHead() const override { return w_.mlmDense != nullptr; }
    std::string dtype() const override { return dtypeName(w_.store.commonDtype()); }
    const std::vector<std::string>& warnings() const override { return w_.warnings; }
    std::uint64_t fileBytes() const override { return w_.store.fileBytes(); }
    Mat embed(const std::vector<int>& ids, const std::vector<int>& types) const override;
    // h = LN(attn(x) + x); x = LN(ffn(h) + h).
    void layer(int l, Mat& stream, const std::vector<int>& ablated, Attention& attention,
               Mat& attentionInput) const override;
    Mat head(const Mat& stream) const override;
    std::shared_ptr<const Weights> attentionWeights(int l) const override {
        return w_.layers.at(std::size_t(l)).attention;
    }
    std::string attentionInputName() const override {
        return "the hidden state after the previous layer (its LayerNorm)";
    }
    const BertWeights& weights() const { return w_; }

  private:
    BertWeights w_;
};

} // namespace core::models
