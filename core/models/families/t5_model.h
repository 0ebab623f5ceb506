// T5 (v1.0, v1.1, Flan-T5) and mT5 as Hugging Face's modeling_t5.py computes them: RMS norms
// without a mean or bias before each sublayer, no score scaling, a relative position bias from
// each stack's first layer shared by the stack (bidirectional buckets in the encoder, causal ones
// in the decoder, none in the cross-attention), a relu or gated-gelu feed-forward, and the tied
// head's d_model^-1/2 rescale. The weights stay where the safetensors file maps them.
#pragma once

#include "models/formats/model_folder.h"
#include "models/formats/safetensors_map.h"
#include "models/seq2seq_model.h"

#include <memory>

namespace core {
class JsonFields;
}

namespace core::models {

// T5's relative position bucket of key j seen from query i (relative = j - i), as
// _relative_position_bucket: half the buckets for keys after the query when bidirectional, an
// exact bucket for each of the first buckets/2 distances, then logarithmic up to maxDistance.
int t5Bucket(int relative, bool bidirectional, int buckets, int maxDistance);

struct T5Config {
    Seq2SeqConfig seq;
    int buckets = 32, maxDistance = 128;
    bool gated = false;        // gated-gelu: wo(act(wi_0 x) * wi_1 x)
    bool tied = true;          // the head is shared.weight, after the rescale
    bool rescaleOutput = true; // tied T5 multiplies by d_model^-1/2 first
};

// config.json's T5 fields (d_model, d_kv, d_ff, num_layers, num_decoder_layers, num_heads,
// relative_attention_num_buckets / _max_distance, feed_forward_proj, tie_word_embeddings,
// layer_norm_epsilon, decoder_start_token_id, eos / pad ids). Throws std::invalid_argument
// naming the field.
T5Config readT5Config(const JsonFields& fields);

struct T5Layer { // one block: its sublayers' norms and weights (null where the stack has none)
    const TensorView *selfNorm = nullptr, *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
    const TensorView *crossNorm = nullptr, *cq = nullptr, *ck = nullptr, *cv = nullptr,
                     *co = nullptr;
    const TensorView *ffNorm = nullptr, *wi = nullptr, *wi1 = nullptr, *wo = nullptr;
};

class T5Model final : public Seq2SeqModel {
  public:
    // Binds every tensor of files' weights; throws std::invalid_argument naming a tensor that is
    // missing or of another shape.
    T5Model(T5Config config, const HfFiles& files);

    const Seq2SeqConfig& config() const override { return c_.seq; }
    std::string dtype() const override { return dtype_; }
    const std::vector<std::string>& warnings() const override { return warnings_; }
    Mat embedSource(const std::vector<int>& ids) const override;
    void encoderLayer(int l, Mat& stream, const std::vector<int>& ablated, Attention& attention,
                      Mat* read) const override;
    Mat encoderOutput(const Mat& stream) const override;
    DecoderCache startDecoder(const Mat& encoded) const override;
    Mat embedTarget(const std::vector<int>& ids, int first) const override;
    void decoderLayer(int l, Mat& stream, DecoderCache& cache, const DecoderAblation& ablated,
                      Attention& self, Attention& cross, std::pair<Mat, Mat>* read) const override;
    Mat head(const Mat& stream) const override;
    std::shared_ptr<const Weights> attentionWeights(Seq2SeqKind kind, int l) const override;

  private:
    Mat positionBias(bool decoder, int first, int n, int keys) const; // (H*n) x keys
    Mat feedForward(const T5Layer& b, const Mat& x) const;            // n x d
    Mat embed(const std::vector<int>& ids) const;

    T5Config c_;
    TensorStore store_;
    const TensorView *shared_ = nullptr, *lmHead_ = nullptr;
    const TensorView *encoderBias_ = nullptr, *decoderBias_ = nullptr; // buckets x H
    const TensorView *encoderNorm_ = nullptr, *decoderNorm_ = nullptr;
    std::vector<T5Layer> encoder_, decoder_;
    std::string dtype_;
    std::vector<std::string> warnings_;
};

} // namespace core::models
