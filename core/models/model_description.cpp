// A real model's attention in words (model_description.h).
#include "models/model_description.h"

#include <cmath>
#include <cstdio>

namespace core::models {

KvGroups kvGroups(const ModelConfig& config) {
    return {config.heads, config.kvHeadCount()};
}

const char* kvGroupsKind(const KvGroups& g) {
    if (!g.shared()) return "MHA";
    return g.groups() == 1 ? "MQA" : "GQA";
}

std::string kvGroupsLegend(const KvGroups& g) {
    if (!g.shared()) return {};
    if (g.groups() == 1)
        return "all " + std::to_string(g.heads) + " query heads share one K/V head (MQA)";
    return std::to_string(g.perGroup()) + " query heads per K/V head (GQA)";
}

std::string kvGroupNote(const KvGroups& g, int h) {
    if (!g.shared() || h < 0 || h >= g.heads) return {};
    const int group = g.groupOf(h), first = g.firstHead(group) + 1;
    const std::string which = "query head " + std::to_string(h + 1) + " \xC2\xB7 K/V head " +
                              std::to_string(group + 1) + " of " + std::to_string(g.groups());
    if (g.groups() == 1)
        return which + " (shared by all " + std::to_string(g.heads) + " heads, MQA)";
    return which + " (shared with heads " + std::to_string(first) + "\xE2\x80\x93" +
           std::to_string(first + g.perGroup() - 1) + ")";
}

namespace {

// 500000 -> "500000", 2.5 -> "2.5": a config's numbers as it writes them (not "5e+05").
std::string plain(double v) {
    char text[32];
    if (std::isfinite(v) && v == std::round(v) && std::fabs(v) < 1e15)
        std::snprintf(text, sizeof text, "%.0f", v);
    else
        std::snprintf(text, sizeof text, "%g", v);
    return text;
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
    std::string text;
    for (const std::string& part : parts) text += (text.empty() ? "" : separator) + part;
    return text;
}

// Layers from 0 as people count them, runs shortened: "1–4, 6".
std::string layerList(const std::vector<int>& layers) {
    std::vector<std::string> runs;
    for (std::size_t i = 0; i < layers.size();) {
        std::size_t j = i;
        while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
        std::string run = std::to_string(layers[i] + 1);
        if (j > i) run += (j == i + 1 ? ", " : "\xE2\x80\x93") + std::to_string(layers[j] + 1);
        runs.push_back(run);
        i = j + 1;
    }
    return joined(runs, ", ");
}

// "on every layer", "on layer 1", "on every layer but 6, 12": where `on` (from 0) lies among L.
std::string whichLayers(const std::vector<int>& on, int layers) {
    if (int(on.size()) == layers) return "on every layer";
    if (2 * on.size() > std::size_t(layers)) {
        std::vector<int> off;
        for (int l = 0, k = 0; l < layers; ++l)
            if (k < int(on.size()) && on[std::size_t(k)] == l)
                ++k;
            else
                off.push_back(l);
        return "on every layer but " + layerList(off);
    }
    return (on.size() == 1 ? "on layer " : "on layers ") + layerList(on);
}

// The sliding windows as the config sets them per layer, "" when every layer sees all before.
std::string windowPhrase(const ModelConfig& c, bool brief) {
    std::vector<int> on;
    int low = 0, high = 0;
    for (int l = 0; l < int(c.decoder.window.size()); ++l)
        if (const int w = c.decoder.window[std::size_t(l)]; w > 0) {
            on.push_back(l);
            low = low == 0 ? w : std::min(low, w), high = std::max(high, w);
        }
    if (on.empty()) return {};
    const std::string size = std::to_string(low) + (low == high ? "" : "-" + std::to_string(high));
    const std::string where = whichLayers(on, c.layers);
    if (brief) return "window " + size + " " + where;
    std::string text = "a sliding window of " + size + " tokens " + where;
    if (low == high && low > 1)
        text += " (a token sees itself and the " + std::to_string(low - 1) + " before it)";
    return int(on.size()) == c.layers ? text : text + ", the other layers every earlier token";
}

// "llama3 scaling x8 from 16 positions", "" for none.
std::string ropeScaling(const RopeSpec& r) {
    if (r.type.empty() || r.type == "default") return {};
    std::string text = r.type + " scaling";
    if (r.type != "longrope") text += " x" + plain(r.factor);
    if (r.originalMax > 0 && r.type != "linear" && r.type != "dynamic")
        text += " from " + std::to_string(r.originalMax) + " positions";
    return text;
}

// "rotary positions (RoPE, theta 500000, llama3 scaling x8 from 16 positions)".
std::string ropePhrase(const ModelConfig& c) {
    const RopeSpec& r = c.decoder.rope;
    std::vector<std::string> parts = {"RoPE", "theta " + plain(r.theta)};
    if (r.dims > 0 && r.dims < c.headSize())
        parts.push_back("on " + std::to_string(r.dims) + " of " + std::to_string(c.headSize()) +
                        " dimensions per head");
    if (const std::string scaling = ropeScaling(r); !scaling.empty()) parts.push_back(scaling);
    if (!c.decoder.localRope.empty())
        parts.push_back("theta " + plain(c.decoder.localRope.theta) + " on the windowed layers");
    return "rotary positions (" + joined(parts, ", ") + ")";
}

std::string positionsPhrase(const RealModel& model) {
    switch (model.architecture->positions) {
    case Positions::Rotary:
        return ropePhrase(model.config());
    case Positions::LearnedAfterPad:
        return "learned positions (counted from the padding id + 1)";
    default:
        return "learned positions";
    }
}

std::string normPhrase(const RealModel& model) {
    const DecoderSpec& s = model.config().decoder;
    if (model.architecture->normKind == NormKind::LayerNorm)
        return model.architecture->norm == NormPlace::PostNorm
                   ? "LayerNorm after each sublayer (on the residual sum)"
                   : "LayerNorm before each sublayer";
    const std::string norm = s.gemmaNorm ? "RMSNorm (times 1 + w)" : "RMSNorm";
    if (model.architecture->norm == NormPlace::OnOutput)
        return norm + " on each sublayer's output, x + norm(f(x))";
    return norm + (s.sandwichNorms ? " before and after each sublayer" : " before each sublayer");
}

std::string scalePhrase(const ModelConfig& c) {
    if (c.decoder.queryScale > 0) {
        const double scalar = 1.0 / (c.decoder.queryScale * c.decoder.queryScale);
        return "scale 1/sqrt(query_pre_attn_scalar) = 1/sqrt(" + plain(std::round(scalar)) + ")";
    }
    return "scale 1/sqrt(d_head) = 1/sqrt(" + std::to_string(c.headSize()) + ")";
}

// "q, k and v add biases, o_proj none": which projections the file gives a bias.
std::string biasPhrase(AttentionBiases b, const std::string& out) {
    const std::pair<bool, std::string> all[] = {{b.q, "q"}, {b.k, "k"}, {b.v, "v"}, {b.o, out}};
    std::vector<std::string> with, without;
    for (const auto& [has, name] : all) (has ? with : without).push_back(name);
    const auto list = [](const std::vector<std::string>& names) {
        std::string text;
        for (std::size_t i = 0; i < names.size(); ++i)
            text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
        return text;
    };
    if (with.empty()) return "no projection adds a bias";
    if (without.empty()) return list(with) + " add their biases";
    return list(with) + (with.size() == 1 ? " adds a bias, " : " add biases, ") + list(without) +
           " none";
}

// Mask, positions, norm, scale, soft cap, QK-norm and the K/V heads, in that order.
std::vector<std::string> attentionParts(const RealModel& model) {
    const ModelConfig& c = model.config();
    std::vector<std::string> parts;
    parts.push_back(model.isEncoder() ? "no mask (every token sees every token)" : "causal mask");
    if (const std::string window = windowPhrase(c, false); !window.empty()) parts.push_back(window);
    parts.push_back(positionsPhrase(model));
    parts.push_back(normPhrase(model));
    parts.push_back(scalePhrase(c));
    if (c.decoder.attentionSoftcap > 0)
        parts.push_back("scores soft-capped, cap x tanh(score / cap) with cap " +
                        plain(c.decoder.attentionSoftcap));
    using QkNorm = DecoderSpec::QkNorm;
    if (c.decoder.qkNorm == QkNorm::PerHead)
        parts.push_back("QK-norm (RMSNorm of each head's q and k)");
    else if (c.decoder.qkNorm == QkNorm::Whole)
        parts.push_back("QK-norm (RMSNorm over the whole q and the whole k)");
    const KvGroups g = kvGroups(c);
    if (g.shared())
        parts.push_back(std::string(g.groups() == 1 ? "multi-query" : "grouped-query") +
                        " attention: " + kvGroupsLegend(g));
    return parts;
}

} // namespace

std::string fixedByModelText(const RealModel& model) {
    return "Fixed by the model: " + joined(attentionParts(model), "; ") +
           "; its weights. x of a layer is " + model.net->attentionInputName() + "; " +
           biasPhrase(model.net->attentionBiases(), model.architecture->outProjection) + ".";
}

std::string attentionCaptionLine(const RealModel& model) {
    const ModelConfig& c = model.config();
    if (model.architecture->positions != Positions::Rotary) return {};
    const RopeSpec& r = c.decoder.rope;
    std::string rope = "RoPE theta " + plain(r.theta);
    if (const std::string scaling = ropeScaling(r); !scaling.empty()) rope += " (" + scaling + ")";
    std::vector<std::string> parts = {rope, "RMSNorm", scalePhrase(c)};
    if (const std::string window = windowPhrase(c, true); !window.empty()) parts.push_back(window);
    if (c.decoder.attentionSoftcap > 0)
        parts.push_back("soft cap " + plain(c.decoder.attentionSoftcap));
    if (c.decoder.qkNorm != DecoderSpec::QkNorm::None) parts.push_back("QK-norm");
    return "attention: " + joined(parts, ", ");
}

std::vector<std::string> realShapePieces(const ModelConfig& c, int tokens) {
    std::vector<std::string> pieces = {
        "B=1", "N=" + std::to_string(tokens), "M=" + std::to_string(tokens),
        "d_model=" + std::to_string(c.dModel), "H=" + std::to_string(c.heads)};
    if (c.kvHeadCount() != c.heads) pieces.push_back("H_kv=" + std::to_string(c.kvHeadCount()));
    pieces.push_back("d_head=" + std::to_string(c.headSize()));
    return pieces;
}

namespace {

std::string formulaOf(const ModelConfig& c) {
    if (c.kvHeadCount() != c.heads) return "2 x d_model x d_head x (H + H_kv)";
    if (c.heads * c.headSize() == c.dModel) return "4 x d_model^2";
    return "4 x d_model x H x d_head";
}

} // namespace

AttentionParameterCount attentionParameters(const ModelConfig& c, AttentionBiases b) {
    const long long d = c.dModel, q = (long long)c.heads * c.headSize(),
                    kv = (long long)c.kvHeadCount() * c.headSize();
    AttentionParameterCount p;
    p.count = d * q + 2 * d * kv + q * d; // W_Q, W_K and W_V, W_O
    p.formula = formulaOf(c);
    p.terms = "W_Q " + std::to_string(d) + " x " + std::to_string(q) + ", W_K and W_V " +
              std::to_string(d) + " x " + std::to_string(kv) + " each, W_O " + std::to_string(q) +
              " x " + std::to_string(d);
    const long long biases = (b.q ? q : 0) + (b.k ? kv : 0) + (b.v ? kv : 0) + (b.o ? d : 0);
    if (biases > 0) {
        p.count += biases;
        p.formula += " + biases";
        p.terms += ", biases " + std::to_string(biases);
    }
    using QkNorm = DecoderSpec::QkNorm;
    const long long norms = c.decoder.qkNorm == QkNorm::PerHead ? 2LL * c.headSize()
                            : c.decoder.qkNorm == QkNorm::Whole ? q + kv
                                                                : 0;
    if (norms > 0) {
        p.count += norms;
        p.formula += " + QK-norm";
        p.terms += ", QK-norm " + std::to_string(norms);
    }
    return p;
}

AttentionParameterCount attentionParameters(const RealModel& model) {
    return attentionParameters(model.config(), model.net->attentionBiases());
}

std::string groupedDigits(long long n) {
    const std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out = n < 0 ? "-" : ""; // built forwards: GCC 12 warns falsely on insert(",")
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace core::models
