// The modern decoders' weights bound from the mapping (llama_model.h).
#include "models/families/llama_model.h"

#include "models/formats/tensor_binding.h"
#include "models/tensor_ops.h"

#include <stdexcept>

namespace core::models {
namespace {

// Where the checkpoint keeps the decoder: "model.", nothing, or Gemma 3's language model.
std::string findPrefix(const TensorStore& store) {
    for (const char* prefix : {"model.", "", "language_model.model.", "model.language_model."})
        if (store.find(std::string(prefix) + "embed_tokens.weight")) return prefix;
    throw std::invalid_argument("the checkpoint has no model.embed_tokens.weight (nor "
                                "embed_tokens.weight): not a Llama-family decoder");
}

void bindAttention(const TensorBinder& bind, const std::string& a, const ModelConfig& c,
                   LlamaBlock& b) {
    const std::int64_t d = c.dModel, hd = c.headSize(), q = c.heads * hd, kv = c.kvHeadCount() * hd;
    if (c.decoder.fused) { // Phi-3: q rows, then k, then v
        const TensorView* qkv = bind.get(a + "qkv_proj.weight", {q + 2 * kv, d});
        b.q = rowRange(*qkv, 0, q, "q rows");
        b.k = rowRange(*qkv, q, kv, "k rows");
        b.v = rowRange(*qkv, q + kv, kv, "v rows");
    } else {
        b.q = *bind.get(a + "q_proj.weight", {q, d});
        b.k = *bind.get(a + "k_proj.weight", {kv, d});
        b.v = *bind.get(a + "v_proj.weight", {kv, d});
        b.qBias = bind.optional(a + "q_proj.bias", {q}); // Qwen 2's, attention_bias
        b.kBias = bind.optional(a + "k_proj.bias", {kv});
        b.vBias = bind.optional(a + "v_proj.bias", {kv});
    }
    b.o = *bind.get(a + "o_proj.weight", {d, q});
    b.oBias = bind.optional(a + "o_proj.bias", {d});
    using QkNorm = DecoderSpec::QkNorm;
    if (c.decoder.qkNorm == QkNorm::PerHead) {
        b.qNorm = bind.get(a + "q_norm.weight", {hd});
        b.kNorm = bind.get(a + "k_norm.weight", {hd});
    } else if (c.decoder.qkNorm == QkNorm::Whole) {
        b.qNorm = bind.get(a + "q_norm.weight", {q});
        b.kNorm = bind.get(a + "k_norm.weight", {kv});
    }
}

LlamaBlock bindBlock(const TensorBinder& bind, const std::string& h, const ModelConfig& c) {
    LlamaBlock b;
    const std::int64_t d = c.dModel;
    const DecoderSpec& s = c.decoder;
    if (!s.normAfter) b.inputNorm = bind.get(h + "input_layernorm.weight", {d});
    b.attentionNorm = bind.get(h + "post_attention_layernorm.weight", {d});
    if (s.sandwichNorms) b.preMlpNorm = bind.get(h + "pre_feedforward_layernorm.weight", {d});
    if (s.sandwichNorms || s.normAfter)
        b.postMlpNorm = bind.get(h + "post_feedforward_layernorm.weight", {d});
    bindAttention(bind, h + "self_attn.", c, b);
    bindMlp(bind, h + "mlp.", c, {"gate_up_proj", "gate_proj", "up_proj", "down_proj"}, b);
    return b;
}

} // namespace

LlamaWeights loadLlamaWeights(const ModelConfig& config, const HfFiles& files) {
    checkActivation(config.activation, "hidden_act");
    LlamaWeights w;
    w.config = config;
    mapWeights(files, w.store);
    w.prefix = findPrefix(w.store);
    const std::int64_t d = config.dModel, V = config.vocabSize;
    const TensorBinder bind(w.store, w.config, w.prefix);
    w.embed = bind.get("embed_tokens.weight", {V, d});
    w.norm = bind.get("norm.weight", {d});
    w.lmHead = w.embed;
    if (!config.decoder.tied) {
        const TensorBinder top(w.store, w.config, "");
        const TensorView* head = top.optional("lm_head.weight", {V, d});
        if (!head) head = top.optional("language_model.lm_head.weight", {V, d});
        if (!head)
            throw std::invalid_argument("the checkpoint has no lm_head.weight and config.json's "
                                        "tie_word_embeddings is false");
        w.lmHead = head;
        w.tiedHead = false;
    }
    for (int l = 0; l < config.layers; ++l)
        w.blocks.push_back(bindBlock(bind, "layers." + std::to_string(l) + ".", w.config));
    w.warnings = nonFiniteWarnings(w.store);
    return w;
}

std::shared_ptr<const Weights> LlamaModel::attentionWeights(int l) const {
    const LlamaBlock& b = w_.blocks.at(std::size_t(l));
    auto shared = std::make_shared<Weights>();
    Mat scratch;
    // torch.nn.Linear stores out x in; the engine's convention is x W (in x out).
    shared->wQ = tensorAsFloat(b.q, scratch).transpose(); // d x (H*hd)
    shared->wK = tensorAsFloat(b.k, scratch).transpose(); // d x (H_kv*hd)
    shared->wV = tensorAsFloat(b.v, scratch).transpose(); // d x (H_kv*hd)
    shared->wO = tensorAsFloat(b.o, scratch).transpose(); // (H*hd) x d
    const auto bias = [&](const TensorView* t, RowVec& out) {
        if (t) out = tensorAsFloat(*t, scratch).row(0);
    };
    bias(b.qBias, shared->bQ), bias(b.kBias, shared->bK), bias(b.vBias, shared->bV);
    bias(b.oBias, shared->bO);
    if (w_.pairedQk) { // GGUF's llama: the columns in Hugging Face's order
        const int hd = w_.config.headSize();
        unpairHeadColumns(shared->wQ, hd);
        unpairHeadColumns(shared->wK, hd);
        Mat q = shared->bQ, k = shared->bK; // 1 x (H*hd), 1 x (H_kv*hd); empty without biases
        if (q.size() > 0) unpairHeadColumns(q, hd), shared->bQ = q.row(0);
        if (k.size() > 0) unpairHeadColumns(k, hd), shared->bK = k.row(0);
    }
    return shared;
}

AttentionBiases LlamaModel::attentionBiases() const {
    AttentionBiases any; // a bias any layer has (real files have them in all or none)
    for (const LlamaBlock& b : w_.blocks) {
        any.q = any.q || b.qBias, any.k = any.k || b.kBias;
        any.v = any.v || b.vBias, any.o = any.o || b.oBias;
    }
    return any;
}

std::size_t LlamaModel::traceWeightBytes() const {
    const LlamaBlock& b = w_.blocks.front();
    std::size_t floats =
        std::size_t(b.q.elements() + b.k.elements() + b.v.elements() + b.o.elements());
    for (const TensorView* t : {b.qBias, b.kBias, b.vBias, b.oBias})
        if (t) floats += std::size_t(t->elements());
    return 4 * floats;
}

std::string LlamaModel::attentionInputName() const {
    return w_.config.decoder.normAfter ? "the residual stream (OLMo 2 normalises after attention)"
                                       : "input_layernorm (RMSNorm) of the residual stream";
}

void bindMlp(const TensorBinder& bind, const std::string& m, const ModelConfig& c,
             const MlpNames& names, LlamaBlock& b) {
    const std::int64_t d = c.dModel, inner = c.dInner;
    const auto name = [&](const char* tensor, const char* part) { return m + tensor + "." + part; };
    if (c.decoder.fused) { // Phi-3: gate rows, then up
        const TensorView* gateUp = bind.get(name(names.fused, "weight"), {2 * inner, d});
        b.gate = rowRange(*gateUp, 0, inner, "gate rows");
        b.up = rowRange(*gateUp, inner, inner, "up rows");
    } else {
        b.gate = *bind.get(name(names.gate, "weight"), {inner, d});
        b.up = *bind.get(name(names.up, "weight"), {inner, d});
        b.gateBias = bind.optional(name(names.gate, "bias"), {inner}); // mlp_bias
        b.upBias = bind.optional(name(names.up, "bias"), {inner});
    }
    b.down = *bind.get(name(names.down, "weight"), {d, inner});
    b.downBias = bind.optional(name(names.down, "bias"), {d});
}

} // namespace core::models
