// BART and Marian (bart_model.h): config.json, the tensors bound by their Hugging Face names, and
// the post-LN forward of modeling_bart.py / modeling_marian.py with the engine's attention.
#include "models/families/bart_model.h"

#include "io/json_fields.h"
#include "models/formats/tensor_binding.h"
#include "models/tensor_ops.h"

#include <cmath>
#include <stdexcept>

namespace core::models {

BartConfig readBartConfig(const JsonFields& f, bool marian) {
    BartConfig c;
    ModelConfig& m = c.seq.base;
    m.modelType = f.string("model_type", marian ? "marian" : "bart");
    m.dModel = f.integer("d_model", 1, 1 << 16);
    m.layers = f.integer("encoder_layers", 1, 1024);
    m.heads = f.integer("encoder_attention_heads", 1, 1024);
    m.dInner = f.integer("encoder_ffn_dim", 1, 1 << 20);
    c.seq.decoderLayers = f.integer("decoder_layers", 1, 1024);
    if (f.integer("decoder_attention_heads", 1, 1024, m.heads) != m.heads ||
        f.integer("decoder_ffn_dim", 1, 1 << 20, m.dInner) != m.dInner)
        f.bad("the decoder's heads and feed-forward must be the encoder's");
    if (m.dModel % m.heads != 0) f.bad("\"d_model\" must be a multiple of the heads");
    m.vocabSize = f.integer("vocab_size", 1, 1 << 24);
    if (f.integer("decoder_vocab_size", 1, 1 << 24, m.vocabSize) != m.vocabSize)
        f.bad("\"decoder_vocab_size\" differs from \"vocab_size\": separate vocabularies are not "
              "supported");
    m.activation = f.string("activation_function", "gelu");
    checkActivation(m.activation, "activation_function");
    m.layerNormEpsilon = 1e-5; // nn.LayerNorm's default, which both files use
    m.nPositions = f.integer("max_position_embeddings", 1, 1 << 20);
    c.seq.positions = m.nPositions;
    c.seq.padId = f.integer("pad_token_id", 0, m.vocabSize - 1, 1);
    c.seq.eosId = f.integer("eos_token_id", 0, m.vocabSize - 1, 2);
    c.seq.decoderStartId = f.integer("decoder_start_token_id", 0, m.vocabSize - 1, c.seq.eosId);
    c.embedScale = f.boolean("scale_embedding", marian);
    c.sinusoidal = marian;
    c.positionOffset = marian ? 0 : 2;
    c.layernormEmbedding = !marian;
    if (f.has("bad_words_ids"))
        for (const auto& words : f.at("bad_words_ids"))
            if (words.is_array() && words.size() == 1 && words[0].is_number_integer())
                c.seq.neverGenerated.push_back(words[0].get<int>());
    return c;
}

namespace {

BartAttention bindAttention(const TensorBinder& bind, const std::string& a, const std::string& norm,
                            std::int64_t d) {
    BartAttention t;
    t.q = bind.get(a + "q_proj.weight", {d, d}), t.qb = bind.get(a + "q_proj.bias", {d});
    t.k = bind.get(a + "k_proj.weight", {d, d}), t.kb = bind.get(a + "k_proj.bias", {d});
    t.v = bind.get(a + "v_proj.weight", {d, d}), t.vb = bind.get(a + "v_proj.bias", {d});
    t.o = bind.get(a + "out_proj.weight", {d, d}), t.ob = bind.get(a + "out_proj.bias", {d});
    t.norm = bind.get(norm + ".weight", {d}), t.normBias = bind.get(norm + ".bias", {d});
    return t;
}

std::vector<BartLayer> bindLayers(const TensorBinder& bind, const BartConfig& c, bool decoder) {
    const std::int64_t d = c.seq.base.dModel, ff = c.seq.base.dInner;
    const int L = decoder ? c.seq.decoderLayers : c.seq.base.layers;
    std::vector<BartLayer> out(static_cast<std::size_t>(L));
    for (int l = 0; l < L; ++l) {
        const std::string p =
            std::string(decoder ? "decoder" : "encoder") + ".layers." + std::to_string(l) + ".";
        BartLayer& b = out[std::size_t(l)];
        b.self = bindAttention(bind, p + "self_attn.", p + "self_attn_layer_norm", d);
        if (decoder)
            b.cross = bindAttention(bind, p + "encoder_attn.", p + "encoder_attn_layer_norm", d);
        b.fc1 = bind.get(p + "fc1.weight", {ff, d}), b.fc1b = bind.get(p + "fc1.bias", {ff});
        b.fc2 = bind.get(p + "fc2.weight", {d, ff}), b.fc2b = bind.get(p + "fc2.bias", {d});
        b.norm = bind.get(p + "final_layer_norm.weight", {d});
        b.normBias = bind.get(p + "final_layer_norm.bias", {d});
    }
    return out;
}

} // namespace

Mat marianSinusoids(int rows, int d) {
    Mat out(rows, d); // rows x d
    const int half = d / 2 + d % 2;
    for (int p = 0; p < rows; ++p)
        for (int j = 0; j < d; ++j) {
            const double angle = p / std::pow(10000.0, 2.0 * (j / 2) / d);
            if (j % 2 == 0)
                out(p, j / 2) = Scalar(std::sin(angle));
            else
                out(p, half + j / 2) = Scalar(std::cos(angle));
        }
    return out;
}

namespace {

// An attention's projection of x with its bias. modeling_bart multiplies q by d_head^-1/2 after
// its bias; the engine multiplies the scores by the same factor.
Mat projected(const Mat& x, const TensorView& w, const TensorView& b) {
    return linear(x, w, &b);
}

} // namespace

BartModel::BartModel(BartConfig config, const HfFiles& files) : c_(std::move(config)) {
    mapWeights(files, store_);
    const ModelConfig& m = c_.seq.base;
    const TensorBinder bind(store_, m, "model.");
    const std::int64_t V = m.vocabSize, d = m.dModel;
    shared_ = bind.get("shared.weight", {V, d});
    const TensorBinder top(store_, m, "");
    lmHead_ = top.optional("lm_head.weight", {V, d});
    if (!lmHead_) lmHead_ = shared_;
    logitsBias_ = top.optional("final_logits_bias", {1, V});
    const std::int64_t rows = std::int64_t(m.nPositions) + c_.positionOffset;
    for (Side* side : {&encoder_, &decoder_}) {
        const std::string s = side == &encoder_ ? "encoder." : "decoder.";
        side->positions = c_.sinusoidal ? bind.optional(s + "embed_positions.weight", {rows, d})
                                        : bind.get(s + "embed_positions.weight", {rows, d});
        if (c_.sinusoidal && !side->positions) side->sinusoids = marianSinusoids(int(rows), int(d));
        if (c_.layernormEmbedding) {
            side->norm = bind.get(s + "layernorm_embedding.weight", {d});
            side->normBias = bind.get(s + "layernorm_embedding.bias", {d});
        }
        side->layers = bindLayers(bind, c_, side == &decoder_);
    }
    dtype_ = dtypeName(store_.commonDtype());
    warnings_ = nonFiniteWarnings(store_);
}

Mat BartModel::embed(const Side& side, const std::vector<int>& ids, int first) const {
    const int n = int(ids.size()), d = c_.seq.base.dModel;
    Mat x(n, d), position(1, d); // n x d; 1 x d
    const Scalar scale = c_.embedScale ? Scalar(std::sqrt(double(d))) : Scalar(1);
    for (int i = 0; i < n; ++i) {
        copyRow(*shared_, ids[std::size_t(i)], x.row(i).data());
        const int row = first + i + c_.positionOffset;
        if (side.positions)
            copyRow(*side.positions, row, position.data());
        else
            position = side.sinusoids.row(row);
        x.row(i) = x.row(i) * scale + position;
    }
    return side.norm ? layerNorm(x, *side.norm, *side.normBias, c_.seq.base.layerNormEpsilon) : x;
}

Mat BartModel::embedSource(const std::vector<int>& ids) const {
    return embed(encoder_, ids, 0);
}

Mat BartModel::embedTarget(const std::vector<int>& ids, int first) const {
    if (first + int(ids.size()) > c_.seq.positions)
        throw std::invalid_argument("the target reaches position " +
                                    std::to_string(first + int(ids.size())) + ", the model has " +
                                    std::to_string(c_.seq.positions));
    return embed(decoder_, ids, first);
}

Mat BartModel::feedForward(const BartLayer& b, const Mat& x) const {
    Mat h = linear(x, *b.fc1, b.fc1b); // n x ff
    activate(h, c_.seq.base.activation);
    return linear(h, *b.fc2, b.fc2b); // n x d
}

void BartModel::encoderLayer(int l, Mat& x, const std::vector<int>& ablated, Attention& attention,
                             Mat* read) const {
    const BartLayer& b = encoder_.layers.at(std::size_t(l));
    const ModelConfig& m = c_.seq.base;
    AttentionInput in;
    in.queryLen = in.keyLen = int(x.rows()), in.heads = m.heads, in.ablatedHeads = ablated;
    in.x = x; // post-LN: the layer reads its input as it is
    if (read) *read = x;
    in.q = projected(x, *b.self.q, *b.self.qb);
    in.k = projected(x, *b.self.k, *b.self.kb);
    in.v = projected(x, *b.self.v, *b.self.vb);
    attendProjected(in, attention); // the scores times d_head^-1/2
    projectOut(attention, *b.self.o, b.self.ob);
    x = layerNorm(x + attention.output, *b.self.norm, *b.self.normBias, m.layerNormEpsilon);
    x = layerNorm(x + feedForward(b, x), *b.norm, *b.normBias, m.layerNormEpsilon);
}

DecoderCache BartModel::startDecoder(const Mat& encoded) const {
    DecoderCache cache;
    const Eigen::Index d = c_.seq.base.dModel;
    for (const BartLayer& b : decoder_.layers) {
        cache.crossKeys.push_back(projected(encoded, *b.cross.k, *b.cross.kb));   // Ns x d
        cache.crossValues.push_back(projected(encoded, *b.cross.v, *b.cross.vb)); // Ns x d
        cache.selfKeys.emplace_back(0, d);
        cache.selfValues.emplace_back(0, d);
    }
    cache.encoded = encoded;
    return cache;
}

void BartModel::decoderLayer(int l, Mat& x, DecoderCache& cache, const DecoderAblation& ablated,
                             Attention& self, Attention& cross, std::pair<Mat, Mat>* read) const {
    const BartLayer& b = decoder_.layers.at(std::size_t(l));
    const ModelConfig& m = c_.seq.base;
    const double eps = m.layerNormEpsilon;
    AttentionInput in;
    in.heads = m.heads, in.ablatedHeads = ablated.self;
    in.x = x; // post-LN: the sublayer reads the stream as it is
    if (read) read->first = x;
    in.q = projected(x, *b.self.q, *b.self.qb);
    in.k = projected(x, *b.self.k, *b.self.kb);
    in.v = projected(x, *b.self.v, *b.self.vb);
    attendDecoderSelf(l, in, cache, self);
    projectOut(self, *b.self.o, b.self.ob);
    x = layerNorm(x + self.output, *b.self.norm, *b.self.normBias, eps);

    AttentionInput c;
    c.heads = m.heads, c.ablatedHeads = ablated.cross;
    c.x = x;
    if (read) read->second = x;
    c.q = projected(x, *b.cross.q, *b.cross.qb);
    attendDecoderCross(l, c, cache, cross);
    projectOut(cross, *b.cross.o, b.cross.ob);
    x = layerNorm(x + cross.output, *b.cross.norm, *b.cross.normBias, eps);
    x = layerNorm(x + feedForward(b, x), *b.norm, *b.normBias, eps);
}

Mat BartModel::head(const Mat& stream) const {
    Mat logits = linear(stream, *lmHead_, nullptr); // rows x V
    if (logitsBias_) {
        Mat bias; // 1 x V
        logits.rowwise() += tensorAsFloat(*logitsBias_, bias).row(0);
    }
    return logits;
}

std::shared_ptr<const Weights> BartModel::attentionWeights(Seq2SeqKind kind, int l) const {
    const Side& side = kind == Seq2SeqKind::Encoder ? encoder_ : decoder_;
    const BartLayer& b = side.layers.at(std::size_t(l));
    const BartAttention& a = kind == Seq2SeqKind::Cross ? b.cross : b.self;
    return linearAttentionWeights(*a.q, *a.k, *a.v, *a.o, {a.qb, a.kb, a.vb, a.ob});
}

} // namespace core::models
