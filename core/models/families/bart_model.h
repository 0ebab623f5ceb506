// BART (bart-base, bart-large, bart-large-cnn) and Marian (Helsinki-NLP/opus-mt-*) as Hugging
// Face's modeling_bart.py and modeling_marian.py compute them: post-LN layers (the sublayer's
// output added, then LayerNorm), q scaled by d_head^-1/2, every projection with a bias, the
// decoder's cross-attention between its self-attention and its feed-forward, and the head tied
// to the shared embedding plus final_logits_bias. BART: learned positions read at position + 2
// and layernorm_embedding; Marian: sinusoidal positions, the embeddings times sqrt(d_model).
#pragma once

#include "models/formats/model_folder.h"
#include "models/formats/safetensors_map.h"
#include "models/seq2seq_model.h"

namespace core {
class JsonFields;
}

namespace core::models {

struct BartConfig {
    Seq2SeqConfig seq;
    bool sinusoidal = false;        // Marian's fixed table (stored or computed)
    int positionOffset = 2;         // BART's learned table starts its positions at row 2
    bool embedScale = false;        // scale_embedding: times sqrt(d_model)
    bool layernormEmbedding = true; // BART's norm of embeddings + positions
};

// config.json's BART / Marian fields (d_model, encoder_ / decoder_layers, _attention_heads,
// _ffn_dim, activation_function, max_position_embeddings, scale_embedding, the special ids,
// bad_words_ids). `marian` chooses Marian's positions and embeddings. Throws
// std::invalid_argument naming the field.
BartConfig readBartConfig(const JsonFields& fields, bool marian);

// Marian's position table as MarianSinusoidalPositionalEmbedding makes it (in double): for
// position p and column j the angle p / 10000^(2*(j/2)/d); the sines of the even columns' angles
// in the first half, the cosines of the odd columns' in the second. rows x d.
Mat marianSinusoids(int rows, int d);

struct BartAttention { // q, k, v, out projections with their biases, and the norm after it
    const TensorView *q = nullptr, *qb = nullptr, *k = nullptr, *kb = nullptr;
    const TensorView *v = nullptr, *vb = nullptr, *o = nullptr, *ob = nullptr;
    const TensorView *norm = nullptr, *normBias = nullptr;
};

struct BartLayer {
    BartAttention self, cross; // cross: the decoder's only
    const TensorView *fc1 = nullptr, *fc1b = nullptr, *fc2 = nullptr, *fc2b = nullptr;
    const TensorView *norm = nullptr, *normBias = nullptr; // final_layer_norm
};

class BartModel final : public Seq2SeqModel {
  public:
    // Binds every tensor of files' weights; throws std::invalid_argument naming a tensor that is
    // missing or of another shape.
    BartModel(BartConfig config, const HfFiles& files);

    const Seq2SeqConfig& config() const override { return c_.seq; }
    std::string dtype() const override { return dtype_; }
    const std::vector<std::string>& warnings() const override { return warnings_; }
    Mat embedSource(const std::vector<int>& ids) const override;
    void encoderLayer(int l, Mat& stream, const std::vector<int>& ablated, Attention& attention,
                      Mat* read) const override;
    Mat encoderOutput(const Mat& stream) const override { return stream; }
    DecoderCache startDecoder(const Mat& encoded) const override;
    Mat embedTarget(const std::vector<int>& ids, int first) const override;
    void decoderLayer(int l, Mat& stream, DecoderCache& cache, const DecoderAblation& ablated,
                      Attention& self, Attention& cross, std::pair<Mat, Mat>* read) const override;
    Mat head(const Mat& stream) const override;
    std::shared_ptr<const Weights> attentionWeights(Seq2SeqKind kind, int l) const override;

  private:
    struct Side { // one stack's embedding parts and layers
        const TensorView *positions = nullptr, *norm = nullptr, *normBias = nullptr;
        Mat sinusoids; // positions x d, Marian's when the file holds no table
        std::vector<BartLayer> layers;
    };
    Mat embed(const Side& side, const std::vector<int>& ids, int first) const;
    Mat feedForward(const BartLayer& b, const Mat& x) const; // n x d

    BartConfig c_;
    TensorStore store_;
    const TensorView *shared_ = nullptr, *lmHead_ = nullptr, *logitsBias_ = nullptr;
    Side encoder_, decoder_;
    std::string dtype_;
    std::vector<std::string> warnings_;
};

} // namespace core::models
