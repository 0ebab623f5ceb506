// config.json of Gemma, Gemma 2 and Gemma 3 (llama_model.h): Llama's names with Gemma's
// switches (RMSNorm times 1 + w, embeddings times sqrt(d), tanh GELU, the sandwich norms,
// query_pre_attn_scalar, soft-capping, alternating sliding windows, Gemma 3's QK-norm and local
// RoPE base). Gemma 3's published configs leave most sizes to the class's defaults, so the
// defaults are Hugging Face's Gemma*Config's.
#include "models/families/llama_model.h"

#include "io/json_fields.h"
#include "models/tensor_ops.h"

#include <nlohmann/json.hpp>

namespace core::models {

using config_fields::numberOrNull;

namespace {

ModelConfig gemmaDefaults(int layers, int d, int inner, int heads, int kv, int positions,
                          int vocab) {
    ModelConfig c;
    c.layers = layers, c.dModel = d, c.dInner = inner, c.heads = heads, c.kvHeads = kv;
    c.headDim = 256, c.nPositions = positions, c.vocabSize = vocab;
    c.layerNormEpsilon = 1e-6;
    return c;
}

// What every Gemma shares, after Llama's names.
ModelConfig readGemmaCommon(const JsonFields& f, const ModelConfig& defaults) {
    ModelConfig c = readDecoderShapes(f, defaults, true);
    // Gemma's MLP runs hidden_activation, the tanh GELU when absent (hidden_act is not read:
    // the first Gemma configs said "gelu" for a model trained with the approximation).
    c.activation = f.has("hidden_activation") && !f.at("hidden_activation").is_null()
                       ? f.string("hidden_activation", "gelu_pytorch_tanh")
                       : "gelu_pytorch_tanh";
    checkActivation(c.activation, "hidden_activation");
    c.decoder.gemmaNorm = true;
    c.decoder.embedScale = true;
    return c;
}

// Gemma 2 and 3: norms after the sublayers too, the query scale, soft caps, windows.
void readGemmaLater(const JsonFields& f, ModelConfig& c, double attentionCap, double finalCap) {
    c.decoder.sandwichNorms = true;
    const double scalar = numberOrNull(f, "query_pre_attn_scalar", 256);
    if (!(scalar > 0)) f.bad("\"query_pre_attn_scalar\" must be positive");
    c.decoder.queryScale = 1.0 / std::sqrt(scalar);
    c.decoder.attentionSoftcap = numberOrNull(f, "attn_logit_softcapping", attentionCap);
    c.decoder.finalSoftcap = numberOrNull(f, "final_logit_softcapping", finalCap);
}

// The layers with a window: Gemma 2 every other one from the first; Gemma 3 all but every
// sliding_window_pattern-th.
std::vector<char> gemmaSliding(int layers, int pattern) {
    std::vector<char> on(std::size_t(layers), 0);
    for (int l = 0; l < layers; ++l) on[std::size_t(l)] = (l + 1) % pattern != 0;
    return on;
}

int windowOr(const JsonFields& f, int fallback) {
    if (!f.has("sliding_window")) return fallback;
    return f.at("sliding_window").is_null()
               ? 0
               : f.integer("sliding_window", 1, config_fields::kMaxPositions);
}

// Gemma 3's sliding layers turn q and k by rope_local_base_freq (or rope_parameters'
// sliding_attention entry), its global ones by the config's rope.
void readGemma3Rope(const JsonFields& f, ModelConfig& c) {
    const double localBase = numberOrNull(f, "rope_local_base_freq", 10000);
    if (f.has("rope_parameters") && f.at("rope_parameters").is_object() &&
        f.at("rope_parameters").contains("sliding_attention"))
        c.decoder.localRope =
            readRopeParameters(JsonFields(f.at("rope_parameters").at("sliding_attention"),
                                          "config.json: rope_parameters: "),
                               localBase, c.headDim, c.nPositions, 1.0);
    else
        c.decoder.localRope =
            readRopeParameters(JsonFields(nlohmann::json::object(), "config.json: "), localBase,
                               c.headDim, c.nPositions, 1.0);
}

ModelConfig readGemma3Text(const JsonFields& f) {
    ModelConfig c = readGemmaCommon(f, gemmaDefaults(26, 2304, 9216, 8, 4, 131072, 262208));
    if (!f.has("rope_theta") && !f.has("rope_parameters")) // Gemma3TextConfig's base
        c.decoder.rope.theta = 1'000'000;
    readGemmaLater(f, c, 0, 0);
    c.decoder.qkNorm = DecoderSpec::QkNorm::PerHead;
    const int pattern = int(numberOrNull(f, "sliding_window_pattern", 6));
    readDecoderWindows(f, windowOr(f, 4096), gemmaSliding(c.layers, std::max(pattern, 1)), c);
    readGemma3Rope(f, c);
    return c;
}

} // namespace

ModelConfig readGemmaConfig(const JsonFields& f) {
    ModelConfig c = readGemmaCommon(f, gemmaDefaults(28, 3072, 24576, 16, 16, 8192, 256000));
    readDecoderWindows(f, 0, {}, c);
    return c;
}

ModelConfig readGemma2Config(const JsonFields& f) {
    ModelConfig c = readGemmaCommon(f, gemmaDefaults(26, 2304, 9216, 8, 4, 8192, 256000));
    readGemmaLater(f, c, 50.0, 30.0);
    readDecoderWindows(f, windowOr(f, 4096), gemmaSliding(c.layers, 2), c);
    return c;
}

// gemma3_text, or gemma3 (image and text) whose text_config is read and vision tower ignored.
ModelConfig readGemma3Config(const JsonFields& f) {
    if (!f.has("text_config")) return readGemma3Text(f);
    const nlohmann::json& text = f.at("text_config");
    if (!text.is_object()) f.bad("\"text_config\" must be an object");
    ModelConfig c = readGemma3Text(JsonFields(text, "config.json: text_config: "));
    c.decoder.multimodal = true;
    return c;
}

} // namespace core::models
