// GPT-2's weights bound from the mapping (gpt2_model.h).
#include "models/families/gpt2_model.h"

#include "io/json_fields.h"
#include "models/formats/tensor_binding.h"
#include "models/tensor_ops.h"

#include <stdexcept>

namespace core::models {
namespace {

// c_attn's d x 3d weight and 3d bias split into the engine's Q, K, V, with c_proj as W_O.
std::shared_ptr<const Weights> attentionWeights(const TensorView& cAttnW, const TensorView& cAttnB,
                                                const TensorView& cProjW, const TensorView& cProjB,
                                                int d) {
    Mat scratch;
    auto shared = std::make_shared<Weights>();
    Weights& w = *shared;
    const Eigen::Map<const Mat> qkv = tensorAsFloat(cAttnW, scratch); // d x 3d
    w.wQ = qkv.middleCols(0, d);
    w.wK = qkv.middleCols(d, d);
    w.wV = qkv.middleCols(2 * d, d);
    const Eigen::Map<const Mat> bias = tensorAsFloat(cAttnB, scratch); // 1 x 3d
    w.bQ = bias.middleCols(0, d);
    w.bK = bias.middleCols(d, d);
    w.bV = bias.middleCols(2 * d, d);
    w.wO = tensorAsFloat(cProjW, scratch); // d x d
    w.bO = tensorAsFloat(cProjB, scratch); // 1 x d
    return shared;
}

Gpt2Block bindBlock(const TensorBinder& bind, const std::string& h, int d, int inner) {
    Gpt2Block b;
    b.ln1Weight = bind.get(h + "ln_1.weight", {d});
    b.ln1Bias = bind.get(h + "ln_1.bias", {d});
    b.attention = attentionWeights(
        *bind.get(h + "attn.c_attn.weight", {d, 3 * d}), *bind.get(h + "attn.c_attn.bias", {3 * d}),
        *bind.get(h + "attn.c_proj.weight", {d, d}), *bind.get(h + "attn.c_proj.bias", {d}), d);
    b.ln2Weight = bind.get(h + "ln_2.weight", {d});
    b.ln2Bias = bind.get(h + "ln_2.bias", {d});
    b.fcWeight = bind.get(h + "mlp.c_fc.weight", {d, inner});
    b.fcBias = bind.get(h + "mlp.c_fc.bias", {inner});
    b.projWeight = bind.get(h + "mlp.c_proj.weight", {inner, d});
    b.projBias = bind.get(h + "mlp.c_proj.bias", {d});
    return b;
}

} // namespace

Gpt2Weights loadGpt2Weights(const ModelConfig& config, const HfFiles& files) {
    checkActivation(config.activation, "activation_function");
    Gpt2Weights w;
    w.config = config;
    mapWeights(files, w.store);
    if (w.store.find("transformer.wte.weight"))
        w.prefix = "transformer.";
    else if (!w.store.find("wte.weight"))
        throw std::invalid_argument(
            "the checkpoint has no wte.weight (nor transformer.wte.weight): not a GPT-2 model");
    const int d = config.dModel, V = config.vocabSize;
    const TensorBinder bind(w.store, w.config, w.prefix);
    w.wte = bind.get("wte.weight", {V, d});
    w.wpe = bind.get("wpe.weight", {config.nPositions, d});
    w.lnFWeight = bind.get("ln_f.weight", {d});
    w.lnFBias = bind.get("ln_f.bias", {d});
    w.lmHead = w.wte;
    if (const TensorView* head =
            TensorBinder(w.store, w.config, "").optional("lm_head.weight", {V, d})) {
        w.lmHead = head;
        w.tiedHead = false;
    }
    for (int l = 0; l < config.layers; ++l)
        w.blocks.push_back(bindBlock(bind, "h." + std::to_string(l) + ".", d, config.dInner));
    w.warnings = nonFiniteWarnings(w.store);
    return w;
}

// config.json in GPT-2's names.
ModelConfig readGpt2Config(const JsonFields& fields) {
    using namespace config_fields;
    ModelConfig c;
    readShape(fields, "n_layer", "n_head", "n_embd", c);
    c.dInner = integerOrNull(fields, "n_inner", kMaxInner, 4 * c.dModel);
    // Configs written before n_positions existed call the context length n_ctx.
    c.nPositions = fields.has("n_positions") || !fields.has("n_ctx")
                       ? fields.integer("n_positions", 1, kMaxPositions)
                       : fields.integer("n_ctx", 1, kMaxPositions);
    c.vocabSize = fields.integer("vocab_size", 1, kMaxVocab);
    c.layerNormEpsilon = positiveEpsilon(fields, "layer_norm_epsilon", 1e-5);
    c.activation = fields.string("activation_function", "gelu_new");
    c.padTokenId = padTokenId(fields, c.vocabSize);
    return c;
}

} // namespace core::models
