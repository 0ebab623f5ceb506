// The BERT family's weights bound from the mapping, and its forward (bert_model.h).
#include "models/families/bert_model.h"

#include "io/json_fields.h"
#include "models/formats/tensor_binding.h"
#include "models/tensor_ops.h"

#include <stdexcept>

namespace core::models {
namespace {

// The names one family gives each tensor of a layer, after "encoder.layer.{l}." or
// "transformer.layer.{l}.".
struct LayerNames {
    const char *stack, *query, *key, *value, *attentionOut, *attentionNorm, *in, *out, *outNorm;
};

constexpr LayerNames kBertNames = {
    "encoder.layer.",       "attention.self.query",   "attention.self.key",
    "attention.self.value", "attention.output.dense", "attention.output.LayerNorm",
    "intermediate.dense",   "output.dense",           "output.LayerNorm"};
constexpr LayerNames kDistilNames = {
    "transformer.layer.", "attention.q_lin",   "attention.k_lin",
    "attention.v_lin",    "attention.out_lin", "sa_layer_norm",
    "ffn.lin1",           "ffn.lin2",          "output_layer_norm"};

// A LayerNorm's weight and bias, under today's names or the old gamma / beta.
std::pair<const TensorView*, const TensorView*> norm(const TensorBinder& bind,
                                                     const std::string& name, int d) {
    return {bind.getAny({name + ".weight", name + ".gamma"}, {d}),
            bind.getAny({name + ".bias", name + ".beta"}, {d})};
}

// A Linear (out x in, y = x W^T + b) as the engine's x W: transposed once, at load.
void linearInto(const TensorBinder& bind, const std::string& name, int d, Mat& w, RowVec& b) {
    Mat scratch;
    w = tensorAsFloat(*bind.get(name + ".weight", {d, d}), scratch).transpose(); // d x d
    b = tensorAsFloat(*bind.get(name + ".bias", {d}), scratch).row(0);           // 1 x d
}

BertLayerWeights bindLayer(const TensorBinder& bind, const LayerNames& n, int l, int d, int inner) {
    const std::string at = std::string(n.stack) + std::to_string(l) + ".";
    BertLayerWeights layer;
    auto attention = std::make_shared<Weights>();
    linearInto(bind, at + n.query, d, attention->wQ, attention->bQ);
    linearInto(bind, at + n.key, d, attention->wK, attention->bK);
    linearInto(bind, at + n.value, d, attention->wV, attention->bV);
    linearInto(bind, at + n.attentionOut, d, attention->wO, attention->bO);
    layer.attention = std::move(attention);
    std::tie(layer.attentionNormWeight, layer.attentionNormBias) =
        norm(bind, at + n.attentionNorm, d);
    layer.inWeight = bind.get(at + n.in + ".weight", {inner, d});
    layer.inBias = bind.get(at + n.in + ".bias", {inner});
    layer.outWeight = bind.get(at + n.out + ".weight", {d, inner});
    layer.outBias = bind.get(at + n.out + ".bias", {d});
    std::tie(layer.outputNormWeight, layer.outputNormBias) = norm(bind, at + n.outNorm, d);
    return layer;
}

// The MLM head's names: dense, norm, decoder, and where the decoder's bias may be.
struct HeadNames {
    const char *dense, *norm, *decoder, *bias, *decoderBias;
};

void bindHead(BertWeights& w) {
    const HeadNames n =
        w.family == EncoderFamily::Bert
            ? HeadNames{"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                        "cls.predictions.decoder", "cls.predictions.bias",
                        "cls.predictions.decoder.bias"}
        : w.family == EncoderFamily::Roberta
            ? HeadNames{"lm_head.dense", "lm_head.layer_norm", "lm_head.decoder", "lm_head.bias",
                        "lm_head.decoder.bias"}
            : HeadNames{"vocab_transform", "vocab_layer_norm", "vocab_projector",
                        "vocab_projector.bias", "vocab_projector.bias"};
    const int d = w.config.dModel, V = w.config.vocabSize;
    const TensorBinder bind(w.store, w.config, ""); // the head is outside the base model
    const std::string dense = n.dense;
    w.mlmDense = bind.optional(dense + ".weight", {d, d});
    if (!w.mlmDense) return; // a bare encoder: no predictions
    w.mlmDenseBias = bind.get(dense + ".bias", {d});
    std::tie(w.mlmNormWeight, w.mlmNormBias) = norm(bind, n.norm, d);
    w.decoder = bind.optional(std::string(n.decoder) + ".weight", {V, d});
    w.tiedDecoder = w.decoder == nullptr; // saved files drop the tied copy
    if (w.tiedDecoder) w.decoder = w.wordEmbeddings;
    w.decoderBias = bind.getAny({n.bias, n.decoderBias}, {V});
    w.mlmActivation = w.family == EncoderFamily::Roberta ? "gelu" : w.config.activation;
}

} // namespace

BertWeights loadBertWeights(const ModelConfig& config, const HfFiles& files, EncoderFamily family) {
    checkActivation(config.activation,
                    family == EncoderFamily::DistilBert ? "activation" : "hidden_act");
    BertWeights w;
    w.config = config;
    w.family = family;
    mapWeights(files, w.store);
    const std::string own = w.family == EncoderFamily::Bert      ? "bert."
                            : w.family == EncoderFamily::Roberta ? "roberta."
                                                                 : "distilbert.";
    if (w.store.find(own + "embeddings.word_embeddings.weight"))
        w.prefix = own;
    else if (!w.store.find("embeddings.word_embeddings.weight"))
        throw std::invalid_argument("the checkpoint has no " + own +
                                    "embeddings.word_embeddings.weight (nor without \"" + own +
                                    "\"): not a " + config.modelType + " model");
    const int d = config.dModel;
    const TensorBinder bind(w.store, w.config, w.prefix);
    w.wordEmbeddings = bind.get("embeddings.word_embeddings.weight", {config.vocabSize, d});
    w.positionEmbeddings =
        bind.get("embeddings.position_embeddings.weight", {config.positionRows, d});
    if (w.family != EncoderFamily::DistilBert)
        w.typeEmbeddings =
            bind.get("embeddings.token_type_embeddings.weight", {config.typeVocabSize, d});
    std::tie(w.embeddingNormWeight, w.embeddingNormBias) = norm(bind, "embeddings.LayerNorm", d);
    const LayerNames& names = w.family == EncoderFamily::DistilBert ? kDistilNames : kBertNames;
    for (int l = 0; l < config.layers; ++l)
        w.layers.push_back(bindLayer(bind, names, l, d, config.dInner));
    bindHead(w);
    w.warnings = nonFiniteWarnings(w.store);
    return w;
}

Mat BertModel::embed(const std::vector<int>& ids, const std::vector<int>& types) const {
    const ModelConfig& c = w_.config;
    const int N = int(ids.size()), d = c.dModel;
    Mat x(N, d); // N x d
    RowVec row(d);
    int counted = 0; // RoBERTa: positions pad + 1, pad + 2, ... over the tokens that are not pad
    for (int i = 0; i < N; ++i) {
        const int id = ids[std::size_t(i)];
        copyRow(*w_.wordEmbeddings, id, x.row(i).data());
        if (w_.typeEmbeddings) { // (word + type) + position, in PyTorch's order
            copyRow(*w_.typeEmbeddings, types.empty() ? 0 : types[std::size_t(i)], row.data());
            x.row(i) += row;
        }
        int position = i;
        if (w_.family == EncoderFamily::Roberta)
            position = id == c.padTokenId ? c.padTokenId : c.padTokenId + ++counted;
        if (position >= c.positionRows)
            throw std::invalid_argument("position " + std::to_string(position) +
                                        " is past the model's position table");
        copyRow(*w_.positionEmbeddings, position, row.data());
        x.row(i) += row;
    }
    return layerNorm(x, *w_.embeddingNormWeight, *w_.embeddingNormBias, c.layerNormEpsilon);
}

void BertModel::layer(int l, Mat& x, const std::vector<int>& ablated, Attention& attention,
                      Mat& attentionInput) const {
    const ModelConfig& c = w_.config;
    const BertLayerWeights& b = w_.layers.at(std::size_t(l));
    AttentionInput in;
    in.queryLen = in.keyLen = int(x.rows());
    in.heads = c.heads;
    in.causal = false; // bidirectional
    in.x = x;          // N x d
    in.ablatedHeads = ablated;
    forward(in, *b.attention, attention);
    const Mat h = layerNorm(attention.output + x, *b.attentionNormWeight, *b.attentionNormBias,
                            c.layerNormEpsilon);  // N x d
    Mat inner = linear(h, *b.inWeight, b.inBias); // N x inner
    activate(inner, c.activation);
    x = layerNorm(linear(inner, *b.outWeight, b.outBias) + h, *b.outputNormWeight,
                  *b.outputNormBias, c.layerNormEpsilon);
    attentionInput = std::move(in.x);
}

Mat BertModel::head(const Mat& stream) const {
    if (!hasHead()) throw std::logic_error("this checkpoint has no MLM head");
    Mat t = linear(stream, *w_.mlmDense, w_.mlmDenseBias); // rows x d
    activate(t, w_.mlmActivation);
    t = layerNorm(t, *w_.mlmNormWeight, *w_.mlmNormBias, w_.config.layerNormEpsilon);
    return linear(t, *w_.decoder, w_.decoderBias); // rows x V
}

// BERT and RoBERTa share these names; RoBERTa's pad_token_id offsets its positions.
ModelConfig readBertConfig(const JsonFields& fields) {
    using namespace config_fields;
    ModelConfig c;
    const std::string positions = fields.string("position_embedding_type", "absolute");
    if (positions != "absolute")
        fields.bad("position_embedding_type \"" + positions +
                   "\" is not supported (only \"absolute\")");
    readShape(fields, "num_hidden_layers", "num_attention_heads", "hidden_size", c);
    c.dInner = fields.integer("intermediate_size", 1, kMaxInner);
    c.nPositions = fields.integer("max_position_embeddings", 1, kMaxPositions);
    c.vocabSize = fields.integer("vocab_size", 1, kMaxVocab);
    c.layerNormEpsilon = positiveEpsilon(fields, "layer_norm_eps", 1e-12);
    c.activation = fields.string("hidden_act", "gelu");
    c.typeVocabSize = fields.integer("type_vocab_size", 1, 1024, 2);
    c.padTokenId = padTokenId(fields, c.vocabSize);
    return c;
}

// RoBERTa: BERT's names, positions counted from pad_token_id + 1 (RobertaEmbeddings).
ModelConfig readRobertaConfig(const JsonFields& fields) {
    ModelConfig c = readBertConfig(fields);
    if (c.padTokenId < 0) c.padTokenId = 1; // RobertaConfig's default
    c.positionRows = c.nPositions;
    c.nPositions -= c.padTokenId + 1;
    if (c.nPositions < 1)
        fields.bad("max_position_embeddings " + std::to_string(c.positionRows) +
                   " leaves no position after pad_token_id " + std::to_string(c.padTokenId));
    return c;
}

ModelConfig readDistilBertConfig(const JsonFields& fields) {
    using namespace config_fields;
    ModelConfig c;
    readShape(fields, "n_layers", "n_heads", "dim", c);
    c.dInner = fields.integer("hidden_dim", 1, kMaxInner);
    c.nPositions = fields.integer("max_position_embeddings", 1, kMaxPositions);
    c.vocabSize = fields.integer("vocab_size", 1, kMaxVocab);
    c.layerNormEpsilon = 1e-12; // fixed in DistilBERT, not in its config
    c.activation = fields.string("activation", "gelu");
    c.padTokenId = padTokenId(fields, c.vocabSize);
    return c;
}

} // namespace core::models
