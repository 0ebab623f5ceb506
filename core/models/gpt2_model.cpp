// GPT-2's weights bound from the mapping, and its forward (gpt2_model.h).
#include "models/gpt2_model.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace core::models {
namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Binds the tensors of one checkpoint by name, checking each shape against the config.
class Binder {
  public:
    explicit Binder(Gpt2Weights& w) : w_(w) {}

    const TensorView* get(const std::string& name, std::vector<std::int64_t> shape) {
        const std::string full = w_.prefix + name;
        const TensorView* t = w_.store.find(full);
        if (!t)
            throw std::invalid_argument("the checkpoint has no tensor " + full + " (config.json: " +
                                        std::to_string(w_.config.layers) + " layers)");
        if (t->shape != shape)
            throw std::invalid_argument(w_.store.fileOf(full) + ": tensor " + full + " has shape " +
                                        shapeText(t->shape) + ", config.json implies " +
                                        shapeText(shape));
        if (t->dtype == Dtype::Other)
            throw std::invalid_argument(w_.store.fileOf(full) + ": tensor " + full + " has dtype " +
                                        t->dtypeText + ", not F32, F16 or BF16");
        return t;
    }

  private:
    Gpt2Weights& w_;
};

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

Gpt2Block bindBlock(Binder& bind, const std::string& h, int d, int inner) {
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

// The shard index says where each tensor is: it must be where it says.
void checkShardIndex(const Gpt2Weights& w, const HfFiles& files) {
    for (const auto& [name, shard] : files.shardOf) {
        const std::string& actual = w.store.fileOf(name);
        if (actual.empty())
            throw std::invalid_argument("model.safetensors.index.json: tensor " + name +
                                        " is not in " + shard);
        if (actual != shard)
            throw std::invalid_argument("model.safetensors.index.json: tensor " + name + " is in " +
                                        actual + ", not " + shard);
    }
}

void checkActivation(const std::string& activation) {
    for (const char* known : {"gelu_new", "gelu_pytorch_tanh", "gelu_fast", "gelu", "relu"})
        if (activation == known) return;
    throw std::invalid_argument("config.json: activation_function \"" + activation +
                                "\" is not supported (gelu_new, gelu, relu)");
}

void warnNonFinite(Gpt2Weights& w) {
    for (const auto& [name, t] : w.store.tensors())
        if (const std::int64_t bad = nonFiniteCount(t); bad > 0)
            w.warnings.push_back("tensor " + name + " holds " + std::to_string(bad) +
                                 " non-finite values (NaN or Inf)");
}

} // namespace

Gpt2Weights loadGpt2Weights(const ModelConfig& config, const HfFiles& files) {
    checkActivation(config.activation);
    Gpt2Weights w;
    w.config = config;
    for (const std::string& path : files.weights) w.store.addFile(path);
    checkShardIndex(w, files);
    if (w.store.find("transformer.wte.weight"))
        w.prefix = "transformer.";
    else if (!w.store.find("wte.weight"))
        throw std::invalid_argument(
            "the checkpoint has no wte.weight (nor transformer.wte.weight): not a GPT-2 model");
    const int d = config.dModel, V = config.vocabSize;
    Binder bind(w);
    w.wte = bind.get("wte.weight", {V, d});
    w.wpe = bind.get("wpe.weight", {config.nPositions, d});
    w.lnFWeight = bind.get("ln_f.weight", {d});
    w.lnFBias = bind.get("ln_f.bias", {d});
    w.lmHead = w.wte;
    if (const TensorView* head = w.store.find("lm_head.weight")) {
        if (head->shape != std::vector<std::int64_t>{V, d})
            throw std::invalid_argument("tensor lm_head.weight has shape " +
                                        shapeText(head->shape) + ", config.json implies " +
                                        shapeText({V, d}));
        w.lmHead = head;
        w.tiedHead = false;
    }
    for (int l = 0; l < config.layers; ++l)
        w.blocks.push_back(bindBlock(bind, "h." + std::to_string(l) + ".", d, config.dInner));
    warnNonFinite(w);
    return w;
}

} // namespace core::models
