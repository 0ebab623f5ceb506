// The modern decoders from GGUF files (llama_model.h, docs/real-models.md "GGUF files"): the
// metadata llama.cpp's converter writes for each architecture read back into the
// config the Hugging Face reader of the same family makes, and the tensors it names
// (token_embd, blk.N.attn_q, ...) bound onto the same blocks. What the converter changed is
// undone or read as it is: llama's q and k rows permuted into adjacent rotary pairs (the
// forward puts the products' columns back, LlamaWeights::pairedQk), Gemma's norm weights
// stored as 1 + w (read with a plain RMSNorm), Llama 3's rope scaling as the rope_freqs tensor,
// Phi-3's LongRoPE factors as rope_factors_long / _short. What the converter drops is taken as
// llama.cpp takes it: Gemma 2 / 3's query scale from the model's size, Gemma 3's window on five
// layers of six, no window for Qwen 2.
#include "models/families/llama_model.h"

#include "models/formats/gguf_file.h"
#include "models/formats/tensor_binding.h"
#include "models/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace core::models {

using namespace config_fields;

namespace {

// The metadata of one architecture: `<arch>.<name>` read with its checks.
class ArchKeys {
  public:
    ArchKeys(const GgufModel& model, std::string arch) : m_(model), arch_(std::move(arch)) {}

    const GgufFile& file() const { return m_.first(); }
    std::string key(const std::string& name) const { return arch_ + "." + name; }
    bool has(const std::string& name) const { return file().find(key(name)) != nullptr; }

    // A whole number in [low, high]; `fallback` when absent (no fallback: required). A per-layer
    // array is read when every layer has the same value.
    int count(const std::string& name, int low, int high, std::optional<int> fallback) const {
        const std::string k = key(name);
        const GgufValue* v = file().find(k);
        if (!v) {
            if (!fallback) file().bad(k, "is missing (every GGUF of " + arch_ + " has it)");
            return *fallback;
        }
        double value = 0;
        if (v->type == GgufType::Array) {
            const std::vector<double> all = file().numbers(k);
            if (all.empty() ||
                std::any_of(all.begin(), all.end(), [&](double x) { return x != all.front(); }))
                file().bad(k, "varies from layer to layer, which mha-viz does not run");
            value = all.front();
        } else {
            value = double(*file().unsignedValue(k));
        }
        if (!(value >= low && value <= high))
            file().bad(k, "is " + std::to_string(std::int64_t(value)) + ", not in [" +
                              std::to_string(low) + ", " + std::to_string(high) + "]");
        return int(value);
    }
    double number(const std::string& name, double fallback) const {
        return file().number(key(name)).value_or(fallback);
    }
    // A tensor of any part, or null.
    const TensorView* tensor(const std::string& name) const {
        for (const auto& part : m_.parts)
            for (const TensorView& t : part->tensors())
                if (t.name == name) return &t;
        return nullptr;
    }
    // A 1-D float tensor's values (rope_freqs, rope_factors_*), `size` of them, or empty.
    std::vector<double> floats(const std::string& name, int size) const {
        const TensorView* t = tensor(name);
        if (!t) return {};
        if (t->elements() != size || t->dtype == Dtype::Quantized || t->dtype == Dtype::Other)
            file().bad("tensor " + name, "must hold " + std::to_string(size) + " float values");
        Mat scratch;
        const auto values = tensorAsFloat(*t, scratch); // 1 x size
        std::vector<double> out;
        for (Eigen::Index i = 0; i < values.size(); ++i) {
            if (!(values(i) > 0)) file().bad("tensor " + name, "holds a factor that is not > 0");
            out.push_back(values(i));
        }
        return out;
    }
    const std::string& arch() const { return arch_; }

  private:
    const GgufModel& m_;
    std::string arch_;
};

// Llama's sizes as the converter writes them for every architecture.
ModelConfig readShapes(const ArchKeys& k) {
    ModelConfig c;
    c.layers = k.count("block_count", 1, kMaxLayers, std::nullopt);
    c.dModel = k.count("embedding_length", 1, kMaxDModel, std::nullopt);
    c.dInner = k.count("feed_forward_length", 1, kMaxInner, std::nullopt);
    c.heads = k.count("attention.head_count", 1, kMaxDModel, std::nullopt);
    c.kvHeads = k.count("attention.head_count_kv", 1, kMaxDModel, c.heads);
    if (c.heads % c.kvHeads != 0)
        k.file().bad(k.key("attention.head_count_kv"),
                     std::to_string(c.kvHeads) + " does not divide " +
                         k.key("attention.head_count") + " " + std::to_string(c.heads));
    const int split = c.dModel % c.heads == 0 ? c.dModel / c.heads : 0;
    c.headDim = k.count("attention.key_length", 1, kMaxDModel,
                        split > 0 ? std::optional<int>(split) : std::nullopt);
    if (k.count("attention.value_length", 1, kMaxDModel, c.headDim) != c.headDim)
        k.file().bad(k.key("attention.value_length"), "differs from the key length, which these "
                                                      "families never do");
    c.nPositions = k.count("context_length", 1, kMaxPositions, std::nullopt);
    c.layerNormEpsilon = k.number("attention.layer_norm_rms_epsilon", 1e-5);
    if (!(c.layerNormEpsilon > 0 && c.layerNormEpsilon < 1))
        k.file().bad(k.key("attention.layer_norm_rms_epsilon"), "must be in (0, 1)");
    const TensorView* embed = k.tensor("token_embd.weight");
    if (!embed || embed->shape.size() != 2)
        k.file().bad("tensor token_embd.weight", "is missing (not a model's GGUF?)");
    if (embed->shape[0] < 1 || embed->shape[0] > kMaxVocab)
        k.file().bad("tensor token_embd.weight",
                     "has " + std::to_string(embed->shape[0]) + " rows");
    c.vocabSize = int(embed->shape[0]);
    c.decoder.tied = k.tensor("output.weight") == nullptr;
    c.activation = "silu";
    return c;
}

// The rotary positions: rope.freq_base, rope.dimension_count, rope.scaling.* (linear, yarn;
// the older rope.scale_linear), and Llama 3's rope_freqs tensor.
RopeSpec readRope(const ArchKeys& k, const ModelConfig& c) {
    RopeSpec s;
    s.type = "default";
    s.theta = k.number("rope.freq_base", 10000);
    s.dims = k.count("rope.dimension_count", 2, c.headDim, c.headDim);
    s.maxPositions = c.nPositions;
    if (!(s.theta > 1) || s.dims % 2 != 0)
        k.file().bad(k.key("rope.freq_base"), "and rope.dimension_count must be above 1 and even");
    const std::string type = k.file().string(k.key("rope.scaling.type")).value_or("none");
    const double factor = k.number("rope.scaling.factor", k.number("rope.scale_linear", 0));
    if (type == "linear" || (type == "none" && factor > 1)) {
        s.type = "linear", s.factor = factor > 0 ? factor : 1;
    } else if (type == "yarn") {
        s.type = "yarn", s.factor = factor;
        s.originalMax = k.count("rope.scaling.original_context_length", 1, kMaxPositions, 0);
        s.betaFast = k.number("rope.scaling.yarn_beta_fast", 32);
        s.betaSlow = k.number("rope.scaling.yarn_beta_slow", 1);
        s.attentionFactor = k.number("rope.scaling.yarn_attn_factor", 0);
    } else if (type != "none" && type != "longrope") {
        k.file().bad(k.key("rope.scaling.type"),
                     "\"" + type + "\" is not one mha-viz computes (none, linear, yarn, longrope)");
    }
    s.freqFactors = k.floats("rope_freqs.weight", s.dims / 2);
    if (!s.freqFactors.empty()) // Llama 3.1's scaling, as its factors
        s.type = "llama3", s.factor = *std::max_element(s.freqFactors.begin(), s.freqFactors.end());
    return s;
}

// Phi-3's LongRoPE: the per-pair factors as two tensors, the context they switch at and the
// attention factor as metadata.
void readLongRope(const ArchKeys& k, RopeSpec& s) {
    s.shortFactor = k.floats("rope_factors_short.weight", s.dims / 2);
    s.longFactor = k.floats("rope_factors_long.weight", s.dims / 2);
    if (s.shortFactor.empty() != s.longFactor.empty())
        k.file().bad("tensor rope_factors_long.weight", "comes without rope_factors_short");
    if (s.shortFactor.empty()) return; // Phi-3 mini 4k: plain rotary positions
    s.type = "longrope";
    s.originalMax = k.count("rope.scaling.original_context_length", 1, kMaxPositions, std::nullopt);
    s.attentionFactor = k.number("rope.scaling.attn_factor", 0);
}

// `window` on the layers `on` marks.
void setWindows(ModelConfig& c, int window, const std::vector<char>& on) {
    c.decoder.window.assign(std::size_t(c.layers), 0);
    for (int l = 0; l < c.layers && window > 0; ++l)
        if (on.at(std::size_t(l))) c.decoder.window[std::size_t(l)] = window;
}

// Every `pattern`-th layer full, the others windowed: llama.cpp's swa pattern.
std::vector<char> patterned(int layers, int pattern) {
    std::vector<char> on(std::size_t(layers), 1);
    for (int l = 0; l < layers; ++l) on[std::size_t(l)] = (l + 1) % std::max(pattern, 1) != 0;
    return on;
}

// The windowed layers: `.attention.sliding_window_pattern` as a number (every n-th layer full)
// or, as the converter writes it for OLMo 3, one bool per layer; `pattern` when absent.
std::vector<char> slidingLayers(const ArchKeys& k, int layers, int pattern) {
    const std::string key = k.key("attention.sliding_window_pattern");
    const GgufValue* v = k.file().find(key);
    if (!v || v->type != GgufType::Array)
        return patterned(layers,
                         k.count("attention.sliding_window_pattern", 1, kMaxLayers, pattern));
    const std::vector<double> flags = k.file().numbers(key);
    if (int(flags.size()) != layers)
        k.file().bad(key, "has " + std::to_string(flags.size()) + " entries for " +
                              std::to_string(layers) + " layers");
    std::vector<char> on;
    for (double f : flags) on.push_back(f != 0);
    return on;
}

// Gemma's switches: embeddings times sqrt(d), tanh GELU; the norms' 1 + w is in the file.
void readGemma(const ArchKeys& k, ModelConfig& c, int sizeOf27B, int pattern) {
    c.activation = "gelu_pytorch_tanh";
    c.decoder.embedScale = true;
    if (sizeOf27B == 0) return; // Gemma 1
    c.decoder.sandwichNorms = true;
    // Not in the file: llama.cpp's rule, which is what the configs' query_pre_attn_scalar is.
    const double scalar = c.layers == sizeOf27B ? double(c.dModel / c.heads) : c.headDim;
    c.decoder.queryScale = k.number("attention.scale", 1.0 / std::sqrt(scalar));
    const bool gemma2 = pattern == 2;
    c.decoder.attentionSoftcap = k.number("attn_logit_softcapping", gemma2 ? 50.0 : 0.0);
    c.decoder.finalSoftcap = k.number("final_logit_softcapping", gemma2 ? 30.0 : 0.0);
    const int window = k.count("attention.sliding_window", 0, kMaxPositions, gemma2 ? 4096 : 0);
    setWindows(c, window, slidingLayers(k, c.layers, pattern));
}

// Gemma 3's windowed layers turn by rope.freq_base_swa (10000, llama.cpp's, when absent).
void readGemma3Rope(const ArchKeys& k, ModelConfig& c) {
    c.decoder.qkNorm = DecoderSpec::QkNorm::PerHead;
    c.decoder.localRope.type = "default";
    c.decoder.localRope.theta = k.number("rope.freq_base_swa", 10000);
    c.decoder.localRope.dims = c.decoder.rope.dims;
    c.decoder.localRope.maxPositions = c.nPositions;
}

} // namespace

ModelConfig readLlamaGgufConfig(const GgufModel& model, const std::string& arch) {
    const ArchKeys k(model, arch);
    ModelConfig c = readShapes(k);
    c.decoder.rope = readRope(k, c);
    const int window = k.count("attention.sliding_window", 0, kMaxPositions, 0);
    const std::vector<char> all(std::size_t(c.layers), 1);
    setWindows(c, 0, all);
    if (arch == "llama") {
        setWindows(c, window, all); // not written by llama.cpp's converter, read when present
    } else if (arch == "qwen3") {
        c.decoder.qkNorm = DecoderSpec::QkNorm::PerHead;
    } else if (arch == "gemma") {
        readGemma(k, c, 0, 0);
    } else if (arch == "gemma2") {
        readGemma(k, c, 46, 2);
    } else if (arch == "gemma3") {
        readGemma(k, c, 62, 6);
        readGemma3Rope(k, c);
    } else if (arch == "phi3") {
        c.decoder.fused = true;
        readLongRope(k, c.decoder.rope);
        setWindows(c, window, all);
    } else if (arch == "olmo2") {
        c.decoder.normAfter = true;
        c.decoder.qkNorm = DecoderSpec::QkNorm::Whole;
        setWindows(c, window, slidingLayers(k, c.layers, 4)); // OLMo 3's, when it has a window
    }
    return c;
}

namespace {

void bindGgufAttention(const TensorBinder& bind, const std::string& a, const ModelConfig& c,
                       LlamaBlock& b) {
    const std::int64_t d = c.dModel, hd = c.headSize(), q = c.heads * hd, kv = c.kvHeadCount() * hd;
    if (c.decoder.fused) { // Phi-3: q rows, then k, then v
        const TensorView* qkv = bind.get(a + "attn_qkv.weight", {q + 2 * kv, d});
        b.q = rowRange(*qkv, 0, q, "q rows");
        b.k = rowRange(*qkv, q, kv, "k rows");
        b.v = rowRange(*qkv, q + kv, kv, "v rows");
    } else {
        b.q = *bind.get(a + "attn_q.weight", {q, d});
        b.k = *bind.get(a + "attn_k.weight", {kv, d});
        b.v = *bind.get(a + "attn_v.weight", {kv, d});
        b.qBias = bind.optional(a + "attn_q.bias", {q});
        b.kBias = bind.optional(a + "attn_k.bias", {kv});
        b.vBias = bind.optional(a + "attn_v.bias", {kv});
    }
    b.o = *bind.get(a + "attn_output.weight", {d, q});
    b.oBias = bind.optional(a + "attn_output.bias", {d});
    using QkNorm = DecoderSpec::QkNorm;
    if (c.decoder.qkNorm != QkNorm::None) {
        const bool whole = c.decoder.qkNorm == QkNorm::Whole;
        b.qNorm = bind.get(a + "attn_q_norm.weight", {whole ? q : hd});
        b.kNorm = bind.get(a + "attn_k_norm.weight", {whole ? kv : hd});
    }
}

// A layer's norms by llama.cpp's names: attn_norm before attention, ffn_norm before the MLP
// (Gemma 2 / 3: its pre-feedforward norm), post_attention_norm and post_ffw_norm after them.
LlamaBlock bindGgufBlock(const TensorBinder& bind, const std::string& h, const ModelConfig& c) {
    LlamaBlock b;
    const std::int64_t d = c.dModel;
    const DecoderSpec& s = c.decoder;
    if (!s.normAfter) b.inputNorm = bind.get(h + "attn_norm.weight", {d});
    const bool after = s.sandwichNorms || s.normAfter;
    b.attentionNorm = bind.get(h + (after ? "post_attention_norm.weight" : "ffn_norm.weight"), {d});
    if (s.sandwichNorms) b.preMlpNorm = bind.get(h + "ffn_norm.weight", {d});
    if (after) b.postMlpNorm = bind.get(h + "post_ffw_norm.weight", {d});
    bindGgufAttention(bind, h, c, b);
    bindMlp(bind, h, c, {"ffn_up", "ffn_gate", "ffn_up", "ffn_down"}, b);
    return b;
}

// "Q4_K_M (GGUF), dequantized per block" and "GGUF Q4_K_M: 113 Q4_K, 15 Q6_K, 49 F32; 4.85 bits
// per weight": the file type and what the tensors really are.
void describeTypes(const GgufModel& model, LlamaWeights& w) {
    std::map<std::string, int> count;
    std::uint64_t bits = 0, values = 0, largest = 0;
    bool quantized = false;
    std::string mostly = "F32";
    for (const auto& [name, t] : w.store.tensors()) {
        ++count[t.dtypeText];
        const std::uint64_t bytes = t.dtype == Dtype::Quantized
                                        ? t.rowBytes * std::uint64_t(t.elements() / t.shape.back())
                                        : std::uint64_t(t.elements()) * t.elementBytes;
        bits += 8 * bytes, values += std::uint64_t(t.elements());
        quantized = quantized || t.dtype == Dtype::Quantized;
        if (t.shape.size() == 2 && std::uint64_t(t.elements()) > largest)
            largest = std::uint64_t(t.elements()), mostly = t.dtypeText;
    }
    std::string type = mostly;
    if (const auto ft = model.first().unsignedValue("general.file_type"))
        if (const std::string named = ggufFileTypeName(*ft); !named.empty()) type = named;
    w.dtypeText = type + " (GGUF)" + (quantized ? ", dequantized per block" : "");
    std::vector<std::pair<int, std::string>> order;
    for (const auto& [name, n] : count) order.push_back({-n, name});
    std::sort(order.begin(), order.end());
    std::string list;
    for (const auto& [n, name] : order)
        list += (list.empty() ? "" : ", ") + std::to_string(-n) + " " + name;
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.2f", values ? double(bits) / double(values) : 0.0);
    w.weightTypes = "GGUF " + type + ": " + list + "; " + rate + " bits per weight";
}

} // namespace

LlamaWeights loadLlamaGguf(const ModelConfig& config, const GgufModel& model,
                           const std::string& arch) {
    checkActivation(config.activation, "hidden_act");
    LlamaWeights w;
    w.config = config;
    addGgufTensors(model, w.store);
    w.prefix = "";
    const std::int64_t d = config.dModel, V = config.vocabSize;
    const TensorBinder bind(w.store, w.config, "");
    w.embed = bind.get("token_embd.weight", {V, d});
    w.norm = bind.get("output_norm.weight", {d});
    w.lmHead = w.embed;
    if (const TensorView* head = bind.optional("output.weight", {V, d}))
        w.lmHead = head, w.tiedHead = false;
    for (int l = 0; l < config.layers; ++l)
        w.blocks.push_back(bindGgufBlock(bind, "blk." + std::to_string(l) + ".", w.config));
    w.pairedQk = arch == "llama";
    describeTypes(model, w);
    w.warnings = nonFiniteWarnings(w.store);
    return w;
}

} // namespace core::models
