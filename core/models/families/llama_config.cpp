// config.json of the modern decoders (llama_model.h): the names they share (Llama's:
// num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim, hidden_size,
// intermediate_size, rms_norm_eps, rope_theta / rope_scaling ...), then each family's own
// switches, as its Hugging Face configuration class reads them, defaults included.
#include "models/families/llama_model.h"

#include "io/json_fields.h"
#include "models/tensor_ops.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace core::models {

using namespace config_fields;

namespace {

bool booleanOrNull(const JsonFields& f, const char* name, bool fallback) {
    return f.has(name) && !f.at(name).is_null() ? f.boolean(name, fallback) : fallback;
}

// A GPTQ, AWQ or bitsandbytes checkpoint holds packed integers this build does not read.
void refuseQuantized(const JsonFields& f) {
    if (!f.has("quantization_config") || f.at("quantization_config").is_null()) return;
    const nlohmann::json& q = f.at("quantization_config");
    std::string method = "a quantization";
    if (q.is_object() && q.contains("quant_method") && q.at("quant_method").is_string())
        method = q.at("quant_method").get<std::string>();
    f.bad("the checkpoint is quantized (" + method +
          "); mha-viz reads F32, F16 and BF16 safetensors: open the original (unquantized) "
          "model's folder");
}

// Llama's shape names, heads and K/V heads, head_dim, sizes; `defaults` fill what a config may
// leave out (Gemma 3's text_config relies on its class's defaults).
void readShapes(const JsonFields& f, const ModelConfig& defaults, ModelConfig& c) {
    c.layers = f.integer("num_hidden_layers", 1, kMaxLayers, defaults.layers);
    c.heads = f.integer("num_attention_heads", 1, kMaxDModel, defaults.heads);
    c.dModel = f.integer("hidden_size", 1, kMaxDModel, defaults.dModel);
    c.kvHeads = integerOrNull(f, "num_key_value_heads", kMaxDModel,
                              defaults.kvHeads > 0 ? defaults.kvHeads : c.heads);
    if (c.kvHeads > c.heads || c.heads % c.kvHeads != 0)
        f.bad("num_key_value_heads " + std::to_string(c.kvHeads) +
              " does not divide num_attention_heads " + std::to_string(c.heads));
    c.headDim = integerOrNull(f, "head_dim", kMaxDModel, defaults.headDim);
    if (c.headDim == 0) {
        checkHeads(f, c, "num_attention_heads", "hidden_size");
        c.headDim = c.dModel / c.heads;
    }
    c.dInner = f.integer("intermediate_size", 1, kMaxInner, defaults.dInner);
    c.nPositions = f.integer("max_position_embeddings", 1, kMaxPositions, defaults.nPositions);
    c.vocabSize = f.integer("vocab_size", 1, kMaxVocab, defaults.vocabSize);
    c.layerNormEpsilon = positiveEpsilon(f, "rms_norm_eps", defaults.layerNormEpsilon);
    c.padTokenId = padTokenId(f, c.vocabSize);
}

// Every layer's window: `window` on the layers `sliding` says, from layer_types when the file
// has it (newer configs write it for every family).
} // namespace

void readDecoderWindows(const JsonFields& f, int window, const std::vector<char>& sliding,
                        ModelConfig& c) {
    c.decoder.window.assign(std::size_t(c.layers), 0);
    if (window <= 0) return;
    std::vector<char> on = sliding;
    if (f.has("layer_types") && f.at("layer_types").is_array()) {
        const std::vector<std::string> types = f.strings("layer_types", true);
        if (int(types.size()) != c.layers)
            f.bad("\"layer_types\" has " + std::to_string(types.size()) + " entries for " +
                  std::to_string(c.layers) + " layers");
        on.clear();
        for (const std::string& t : types) on.push_back(t == "sliding_attention");
    }
    for (int l = 0; l < c.layers; ++l)
        if (on.at(std::size_t(l))) c.decoder.window[std::size_t(l)] = window;
}

namespace {

int windowOf(const JsonFields& f) {
    return f.has("sliding_window") && f.at("sliding_window").is_number_integer()
               ? f.integer("sliding_window", 1, kMaxPositions)
               : 0;
}

} // namespace

ModelConfig readDecoderShapes(const JsonFields& f, const ModelConfig& defaults,
                              bool tiedByDefault) {
    refuseQuantized(f);
    ModelConfig c;
    readShapes(f, defaults, c);
    c.activation = f.string("hidden_act", "silu");
    checkActivation(c.activation, "hidden_act");
    c.decoder.tied = booleanOrNull(f, "tie_word_embeddings", tiedByDefault);
    c.decoder.rope = readRope(f, c.headDim, c.nPositions);
    return c;
}

namespace {

ModelConfig llamaDefaults() {
    ModelConfig d;
    d.layerNormEpsilon = 1e-6;
    return d;
}

} // namespace

ModelConfig readLlamaConfig(const JsonFields& f) {
    ModelConfig c = readDecoderShapes(f, llamaDefaults(), false);
    readDecoderWindows(f, 0, {}, c);
    return c;
}

ModelConfig readMistralConfig(const JsonFields& f) {
    ModelConfig c = readDecoderShapes(f, llamaDefaults(), false);
    readDecoderWindows(f, windowOf(f), std::vector<char>(std::size_t(c.layers), 1), c);
    return c;
}

// Qwen 2 and 3: a window only with use_sliding_window, on the layers from max_window_layers.
ModelConfig readQwenConfig(const JsonFields& f, bool qwen3) {
    ModelConfig defaults = llamaDefaults();
    if (qwen3) defaults.headDim = 128; // Qwen3Config's, when head_dim is absent
    ModelConfig c = readDecoderShapes(f, defaults, false);
    if (qwen3) c.decoder.qkNorm = DecoderSpec::QkNorm::PerHead;
    const bool sliding = booleanOrNull(f, "use_sliding_window", false);
    const int from = int(numberOrNull(f, "max_window_layers", c.layers));
    std::vector<char> on(std::size_t(c.layers), 0);
    for (int l = from; l < c.layers; ++l) on[std::size_t(std::max(l, 0))] = 1;
    readDecoderWindows(f, sliding ? windowOf(f) : 0, on, c);
    return c;
}

ModelConfig readQwen2Config(const JsonFields& f) {
    return readQwenConfig(f, false);
}

ModelConfig readQwen3Config(const JsonFields& f) {
    return readQwenConfig(f, true);
}

ModelConfig readPhi3Config(const JsonFields& f) {
    ModelConfig c = readDecoderShapes(f, llamaDefaults(), false);
    c.decoder.fused = true;
    readDecoderWindows(f, windowOf(f), std::vector<char>(std::size_t(c.layers), 1), c);
    return c;
}

ModelConfig readOlmo2Config(const JsonFields& f) {
    ModelConfig c = readDecoderShapes(f, llamaDefaults(), false);
    c.decoder.normAfter = true;
    c.decoder.qkNorm = DecoderSpec::QkNorm::Whole;
    readDecoderWindows(f, 0, {}, c);
    return c;
}

} // namespace core::models
