// T5 and mT5 (t5_model.h): config.json, the tensors bound by their Hugging Face names, and the
// forward of modeling_t5.py step by step with the engine's attention in each sublayer.
#include "models/families/t5_model.h"

#include "io/json_fields.h"
#include "models/formats/tensor_binding.h"
#include "models/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace core::models {

int t5Bucket(int relative, bool bidirectional, int buckets, int maxDistance) {
    int bucket = 0;
    if (bidirectional) {
        buckets /= 2;
        if (relative > 0) bucket += buckets;
        relative = std::abs(relative);
    } else {
        relative = -std::min(relative, 0);
    }
    const int exact = buckets / 2;
    if (relative < exact) return bucket + relative;
    // In float32 as torch computes it; double gives the same buckets (the fixtures check both).
    const float scaled = std::log(float(relative) / float(exact)) /
                         std::log(float(maxDistance) / float(exact)) * float(buckets - exact);
    return bucket + std::min(exact + int(scaled), buckets - 1);
}

T5Config readT5Config(const JsonFields& f) {
    T5Config c;
    ModelConfig& m = c.seq.base;
    m.modelType = f.string("model_type", "t5");
    m.dModel = f.integer("d_model", 1, 1 << 16);
    m.headDim = f.integer("d_kv", 1, 1 << 12);
    m.heads = f.integer("num_heads", 1, 1024);
    m.dInner = f.integer("d_ff", 1, 1 << 20);
    m.layers = f.integer("num_layers", 1, 1024);
    m.vocabSize = f.integer("vocab_size", 1, 1 << 24);
    m.layerNormEpsilon = f.number("layer_norm_epsilon", 1e-6);
    c.seq.decoderLayers = f.integer("num_decoder_layers", 1, 1024, m.layers);
    c.buckets = f.integer("relative_attention_num_buckets", 2, 1 << 12, 32);
    c.maxDistance = f.integer("relative_attention_max_distance", 2, 1 << 20, 128);
    const std::string ff = f.string("feed_forward_proj", "relu");
    c.gated = ff.rfind("gated-", 0) == 0;
    m.activation = c.gated ? ff.substr(6) : ff;
    if (m.activation == "gelu") m.activation = "gelu_new"; // modeling_t5: gated-gelu is gelu_new
    checkActivation(m.activation, "feed_forward_proj");
    c.tied = f.boolean("tie_word_embeddings", true);
    c.rescaleOutput = c.tied;
    c.seq.padId = f.integer("pad_token_id", 0, m.vocabSize - 1, 0);
    c.seq.eosId = f.integer("eos_token_id", 0, m.vocabSize - 1, 1);
    c.seq.decoderStartId = f.integer("decoder_start_token_id", 0, m.vocabSize - 1, c.seq.padId);
    m.nPositions = 0; // relative positions: any length the memory allows
    return c;
}

namespace {

// One stack's blocks: "encoder.block.{i}." with its self-attention and feed-forward, the
// decoder's with the cross-attention between them.
std::vector<T5Layer> bindStack(const TensorBinder& bind, const T5Config& c, bool decoder) {
    const ModelConfig& m = c.seq.base;
    const std::int64_t d = m.dModel, inner = std::int64_t(m.heads) * m.headSize(), ff = m.dInner;
    const int layers = decoder ? c.seq.decoderLayers : m.layers;
    std::vector<T5Layer> out(static_cast<std::size_t>(layers));
    for (int l = 0; l < layers; ++l) {
        const std::string b = std::string(decoder ? "decoder" : "encoder") + ".block." +
                              std::to_string(l) + ".layer.";
        T5Layer& t = out[std::size_t(l)];
        t.selfNorm = bind.get(b + "0.layer_norm.weight", {d});
        t.q = bind.get(b + "0.SelfAttention.q.weight", {inner, d});
        t.k = bind.get(b + "0.SelfAttention.k.weight", {inner, d});
        t.v = bind.get(b + "0.SelfAttention.v.weight", {inner, d});
        t.o = bind.get(b + "0.SelfAttention.o.weight", {d, inner});
        const std::string f = b + (decoder ? "2." : "1.");
        if (decoder) {
            t.crossNorm = bind.get(b + "1.layer_norm.weight", {d});
            t.cq = bind.get(b + "1.EncDecAttention.q.weight", {inner, d});
            t.ck = bind.get(b + "1.EncDecAttention.k.weight", {inner, d});
            t.cv = bind.get(b + "1.EncDecAttention.v.weight", {inner, d});
            t.co = bind.get(b + "1.EncDecAttention.o.weight", {d, inner});
        }
        t.ffNorm = bind.get(f + "layer_norm.weight", {d});
        t.wi = bind.get(f + (c.gated ? "DenseReluDense.wi_0.weight" : "DenseReluDense.wi.weight"),
                        {ff, d});
        if (c.gated) t.wi1 = bind.get(f + "DenseReluDense.wi_1.weight", {ff, d});
        t.wo = bind.get(f + "DenseReluDense.wo.weight", {d, ff});
    }
    return out;
}

} // namespace

T5Model::T5Model(T5Config config, const HfFiles& files) : c_(std::move(config)) {
    mapWeights(files, store_);
    ModelConfig& m = c_.seq.base;
    const TensorBinder bind(store_, m, "");
    const std::int64_t V = m.vocabSize, d = m.dModel, H = m.heads;
    shared_ = bind.get("shared.weight", {V, d});
    lmHead_ = c_.tied ? shared_ : bind.get("lm_head.weight", {V, d});
    encoderBias_ = bind.get("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                            {c_.buckets, H});
    decoderBias_ = bind.get("decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                            {c_.buckets, H});
    encoderNorm_ = bind.get("encoder.final_layer_norm.weight", {d});
    decoderNorm_ = bind.get("decoder.final_layer_norm.weight", {d});
    encoder_ = bindStack(bind, c_, false);
    decoder_ = bindStack(bind, c_, true);
    dtype_ = dtypeName(store_.commonDtype());
    warnings_ = nonFiniteWarnings(store_);
}

Mat T5Model::embed(const std::vector<int>& ids) const {
    const int n = int(ids.size()), V = c_.seq.base.vocabSize;
    Mat x(n, c_.seq.base.dModel); // n x d, no scale and no positions: T5's are in the scores
    for (int i = 0; i < n; ++i) {
        const int id = ids[std::size_t(i)];
        if (id < 0 || id >= V)
            throw std::invalid_argument("token id " + std::to_string(id) +
                                        " is outside the vocabulary of " + std::to_string(V));
        copyRow(*shared_, id, x.row(i).data());
    }
    return x;
}

Mat T5Model::embedSource(const std::vector<int>& ids) const {
    return embed(ids);
}

Mat T5Model::embedTarget(const std::vector<int>& ids, int first) const {
    (void)first; // relative positions: the decoder's place is in its score bias
    return embed(ids);
}

Mat T5Model::positionBias(bool decoder, int first, int n, int keys) const {
    const int H = c_.seq.base.heads, lowest = -(first + n - 1); // the smallest key - query
    Mat table;                                                  // buckets x H
    const auto bias = tensorAsFloat(decoder ? *decoderBias_ : *encoderBias_, table);
    Mat byDistance(H, keys - lowest); // H x distances: one bucket per key - query, not per pair
    for (int r = lowest; r < keys; ++r)
        byDistance.col(r - lowest) =
            bias.row(t5Bucket(r, !decoder, c_.buckets, c_.maxDistance)).transpose();
    Mat out(Eigen::Index(H) * n, keys); // (H*n) x keys, head h's rows [h*n, (h+1)*n)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i)
            out.row(Eigen::Index(h) * n + i) =
                byDistance.row(h).segment(-(first + i) - lowest, keys);
    return out;
}

Mat T5Model::feedForward(const T5Layer& b, const Mat& x) const {
    Mat h = linear(x, *b.wi, nullptr); // n x d_ff
    activate(h, c_.seq.base.activation);
    if (b.wi1) h.array() *= linear(x, *b.wi1, nullptr).array();
    return linear(h, *b.wo, nullptr); // n x d
}

void T5Model::encoderLayer(int l, Mat& x, const std::vector<int>& ablated, Attention& attention,
                           Mat* read) const {
    const T5Layer& b = encoder_.at(std::size_t(l));
    const ModelConfig& m = c_.seq.base;
    AttentionInput in;
    in.queryLen = in.keyLen = int(x.rows());
    in.heads = m.heads;
    in.ablatedHeads = ablated;
    in.x = rmsNorm(x, *b.selfNorm, m.layerNormEpsilon, false); // n x d
    if (read) *read = in.x;
    in.q = linear(in.x, *b.q, nullptr); // n x (H*d_kv)
    in.k = linear(in.x, *b.k, nullptr);
    in.v = linear(in.x, *b.v, nullptr);
    in.scaleValue = 1; // T5 folds the scale into its initialisation
    in.scoreBias = positionBias(false, 0, in.queryLen, in.keyLen);
    attendProjected(in, attention);
    projectOut(attention, *b.o, nullptr);
    x += attention.output;
    x += feedForward(b, rmsNorm(x, *b.ffNorm, m.layerNormEpsilon, false));
}

Mat T5Model::encoderOutput(const Mat& stream) const {
    return rmsNorm(stream, *encoderNorm_, c_.seq.base.layerNormEpsilon, false);
}

DecoderCache T5Model::startDecoder(const Mat& encoded) const {
    DecoderCache cache;
    const int L = c_.seq.decoderLayers;
    cache.selfKeys.resize(std::size_t(L)), cache.selfValues.resize(std::size_t(L));
    const Eigen::Index inner = Eigen::Index(c_.seq.base.heads) * c_.seq.base.headSize();
    for (const T5Layer& b : decoder_) {
        cache.crossKeys.push_back(linear(encoded, *b.ck, nullptr));   // Ns x (H*d_kv)
        cache.crossValues.push_back(linear(encoded, *b.cv, nullptr)); // Ns x (H*d_kv)
    }
    for (int l = 0; l < L; ++l) {
        cache.selfKeys[std::size_t(l)].resize(0, inner);
        cache.selfValues[std::size_t(l)].resize(0, inner);
    }
    cache.encoded = encoded;
    return cache;
}

void T5Model::decoderLayer(int l, Mat& x, DecoderCache& cache, const DecoderAblation& ablated,
                           Attention& self, Attention& cross, std::pair<Mat, Mat>* read) const {
    const T5Layer& b = decoder_.at(std::size_t(l));
    const ModelConfig& m = c_.seq.base;
    const double eps = m.layerNormEpsilon;
    const int past = cache.pastOf(l), n = int(x.rows());
    AttentionInput in;
    in.heads = m.heads, in.ablatedHeads = ablated.self;
    in.x = rmsNorm(x, *b.selfNorm, eps, false); // n x d
    if (read) read->first = in.x;
    in.q = linear(in.x, *b.q, nullptr); // n x (H*d_kv)
    in.k = linear(in.x, *b.k, nullptr);
    in.v = linear(in.x, *b.v, nullptr);
    in.scaleValue = 1;
    in.scoreBias = positionBias(true, past, n, past + n);
    attendDecoderSelf(l, in, cache, self);
    projectOut(self, *b.o, nullptr);
    x += self.output;

    AttentionInput c;
    c.heads = m.heads, c.ablatedHeads = ablated.cross;
    c.x = rmsNorm(x, *b.crossNorm, eps, false); // n x d
    if (read) read->second = c.x;
    c.q = linear(c.x, *b.cq, nullptr);
    c.scaleValue = 1; // no position bias across: the encoder's tokens have no place here
    attendDecoderCross(l, c, cache, cross);
    projectOut(cross, *b.co, nullptr);
    x += cross.output;
    x += feedForward(b, rmsNorm(x, *b.ffNorm, eps, false));
}

Mat T5Model::head(const Mat& stream) const {
    Mat y = rmsNorm(stream, *decoderNorm_, c_.seq.base.layerNormEpsilon, false); // rows x d
    if (c_.rescaleOutput) y *= Scalar(1.0 / std::sqrt(double(c_.seq.base.dModel)));
    return linear(y, *lmHead_, nullptr); // rows x V
}

std::shared_ptr<const Weights> T5Model::attentionWeights(Seq2SeqKind kind, int l) const {
    const T5Layer& b = (kind == Seq2SeqKind::Encoder ? encoder_ : decoder_).at(std::size_t(l));
    if (kind == Seq2SeqKind::Cross) return linearAttentionWeights(*b.cq, *b.ck, *b.cv, *b.co);
    return linearAttentionWeights(*b.q, *b.k, *b.v, *b.o); // T5's projections have no biases
}

} // namespace core::models
