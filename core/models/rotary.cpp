// Rotary positions from config.json (rotary.h).
#include "models/rotary.h"

#include "io/json_fields.h"
#include "models/formats/model_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace core::models {

using config_fields::numberOrNull;

const std::vector<std::string>& ropeTypes() {
    static const std::vector<std::string> types = {"default", "linear", "dynamic",
                                                   "llama3",  "yarn",   "longrope"};
    return types;
}

namespace {

// torch: 1 / base ** (arange(0, dim, 2).float() / dim), in float32.
std::vector<float> baseInverse(double base, int dim) {
    std::vector<float> inverse(std::size_t(dim / 2));
    for (int j = 0; j < dim / 2; ++j) {
        const float exponent = float(2 * j) / float(dim);
        inverse[std::size_t(j)] = 1.0f / std::pow(float(base), exponent);
    }
    return inverse;
}

// Llama 3.1's: long wavelengths divided by the factor, short ones kept, a smooth blend between.
void llama3Scale(const RopeSpec& s, std::vector<float>& inverse) {
    const double old = s.originalMax;
    const double lowWave = old / s.lowFreqFactor, highWave = old / s.highFreqFactor;
    for (float& f : inverse) {
        const double wave = 2 * std::numbers::pi / f;
        const float scaled = wave > lowWave ? float(f / s.factor) : f;
        if (wave < highWave || wave > lowWave) {
            f = scaled;
            continue;
        }
        const double smooth = (old / wave - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        f = float((1 - smooth) * scaled / s.factor + smooth * scaled);
    }
}

double yarnMscale(double scale, double mscale) {
    return scale <= 1 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

// YaRN: interpolated (divided by the factor) below a ramp of dimensions, extrapolated above.
RopeFrequencies yarn(const RopeSpec& s) {
    const int dim = s.dims;
    const double original = s.originalMax > 0 ? s.originalMax : s.maxPositions;
    const double factor = s.factor > 0 ? s.factor : s.maxPositions / original;
    RopeFrequencies out;
    out.attentionFactor =
        float(s.attentionFactor > 0 ? s.attentionFactor
              : (s.mscale != 0 && s.mscaleAllDim != 0)
                  ? yarnMscale(factor, s.mscale) / yarnMscale(factor, s.mscaleAllDim)
                  : yarnMscale(factor, 1));
    const auto correction = [&](double rotations) {
        return dim * std::log(original / (rotations * 2 * std::numbers::pi)) /
               (2 * std::log(s.theta));
    };
    double low = correction(s.betaFast), high = correction(s.betaSlow);
    if (s.truncate) low = std::floor(low), high = std::ceil(high);
    low = std::max(low, 0.0), high = std::min(high, double(dim - 1));
    if (low == high) high += 0.001;
    for (int j = 0; j < dim / 2; ++j) {
        const float posFreq = std::pow(float(s.theta), float(2 * j) / float(dim));
        const float extrapolation = 1.0f / posFreq, interpolation = 1.0f / float(factor * posFreq);
        const float ramp = std::clamp(float((j - low) / (high - low)), 0.0f, 1.0f);
        const float keep = 1 - ramp; // the share extrapolated
        out.inverse.push_back(interpolation * (1 - keep) + extrapolation * keep);
    }
    return out;
}

// LongRoPE (Phi-3's long-context models): per-pair factors, long past the original context.
RopeFrequencies longrope(const RopeSpec& s, int seqLen) {
    const double original = s.originalMax > 0 ? s.originalMax : s.maxPositions;
    const double factor = s.factor > 0 ? s.factor : s.maxPositions / original;
    RopeFrequencies out;
    out.attentionFactor =
        float(s.attentionFactor > 0 ? s.attentionFactor
              : factor <= 1         ? 1.0
                                    : std::sqrt(1 + std::log(factor) / std::log(original)));
    const std::vector<double>& ext = seqLen > original ? s.longFactor : s.shortFactor;
    for (int j = 0; j < s.dims / 2; ++j) {
        const float shape = float(2 * j) / float(s.dims);
        out.inverse.push_back(1.0f /
                              (float(ext[std::size_t(j)]) * std::pow(float(s.theta), shape)));
    }
    return out;
}

} // namespace

RopeFrequencies ropeFrequencies(const RopeSpec& s, int seqLen) {
    if (s.type == "yarn") return yarn(s);
    if (s.type == "longrope") return longrope(s, seqLen);
    RopeFrequencies out;
    double base = s.theta;
    if (s.type == "dynamic" && s.maxPositions > 0 && seqLen > s.maxPositions)
        base *= std::pow(s.factor * seqLen / s.maxPositions - (s.factor - 1),
                         double(s.dims) / (s.dims - 2));
    out.inverse = baseInverse(base, s.dims);
    if (!s.freqFactors.empty()) { // llama.cpp's: theta_j / factor_j, in float
        for (std::size_t j = 0; j < out.inverse.size() && j < s.freqFactors.size(); ++j)
            out.inverse[j] = float(out.inverse[j] / s.freqFactors[j]);
        return out;
    }
    if (s.type == "linear")
        for (float& f : out.inverse) f = float(f / s.factor);
    if (s.type == "llama3") llama3Scale(s, out.inverse);
    return out;
}

Rotation rotationTables(const RopeSpec& spec, int positions, int seqLen) {
    Rotation r;
    if (spec.empty()) return r;
    const RopeFrequencies f = ropeFrequencies(spec, seqLen);
    const int half = int(f.inverse.size());
    r.cos.resize(positions, half); // P x (r/2)
    r.sin.resize(positions, half); // P x (r/2)
    for (int p = 0; p < positions; ++p)
        for (int j = 0; j < half; ++j) {
            const float angle = float(p) * f.inverse[std::size_t(j)]; // float32, as torch
            r.cos(p, j) = float(std::cos(double(angle))) * f.attentionFactor;
            r.sin(p, j) = float(std::sin(double(angle))) * f.attentionFactor;
        }
    return r;
}

namespace {

std::vector<double> factors(const JsonFields& f, const char* name, int count) {
    const nlohmann::json& list = f.at(name);
    if (!list.is_array() || int(list.size()) != count)
        f.bad(std::string("rope \"") + name + "\" must be a list of " + std::to_string(count) +
              " numbers");
    std::vector<double> out;
    for (const nlohmann::json& v : list) {
        if (!v.is_number() || !(v.get<double>() > 0))
            f.bad(std::string("rope \"") + name + "\" holds a value that is not a positive number");
        out.push_back(v.get<double>());
    }
    return out;
}

std::string ropeType(const JsonFields& p) {
    std::string type =
        p.has("rope_type") ? p.string("rope_type", "default") : p.string("type", "default");
    if (type == "su") type = "longrope"; // Phi-3's first configs
    const auto& known = ropeTypes();
    if (std::find(known.begin(), known.end(), type) == known.end()) {
        std::string names;
        for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
        p.bad("rope type \"" + type + "\" is not supported (" + names + ")");
    }
    return type;
}

void needFactor(const JsonFields& p, RopeSpec& s) {
    s.factor = numberOrNull(p, "factor", 0);
    if (!(s.factor >= 1) && s.type != "yarn" && s.type != "longrope")
        p.bad("rope type \"" + s.type + "\" needs a \"factor\" of at least 1");
}

} // namespace

RopeSpec readRopeParameters(const JsonFields& p, double theta, int headDim, int maxPositions,
                            double partial) {
    RopeSpec s;
    s.type = ropeType(p);
    s.theta = numberOrNull(p, "rope_theta", theta);
    if (!(s.theta > 1)) p.bad("\"rope_theta\" must be a number above 1");
    partial = numberOrNull(p, "partial_rotary_factor", partial);
    s.dims = int(headDim * partial);
    if (!(partial > 0 && partial <= 1) || s.dims < 2 || s.dims % 2 != 0)
        p.bad("\"partial_rotary_factor\" must turn an even number of a head's dimensions");
    s.maxPositions = maxPositions;
    if (s.type == "default") return s;
    needFactor(p, s);
    s.originalMax = int(numberOrNull(p, "original_max_position_embeddings", 0));
    s.attentionFactor = numberOrNull(p, "attention_factor", 0);
    if (s.type == "llama3") {
        s.lowFreqFactor = numberOrNull(p, "low_freq_factor", 1);
        s.highFreqFactor = numberOrNull(p, "high_freq_factor", 4);
        if (s.originalMax < 1 || !(s.highFreqFactor > s.lowFreqFactor))
            p.bad("rope type \"llama3\" needs original_max_position_embeddings and "
                  "high_freq_factor above low_freq_factor");
    } else if (s.type == "yarn") {
        s.betaFast = numberOrNull(p, "beta_fast", 32), s.betaSlow = numberOrNull(p, "beta_slow", 1);
        s.mscale = numberOrNull(p, "mscale", 0),
        s.mscaleAllDim = numberOrNull(p, "mscale_all_dim", 0);
        s.truncate = !p.has("truncate") || p.boolean("truncate", true);
    } else if (s.type == "longrope") {
        s.shortFactor = factors(p, "short_factor", s.dims / 2);
        s.longFactor = factors(p, "long_factor", s.dims / 2);
    }
    return s;
}

RopeSpec readRope(const JsonFields& config, int headDim, int maxPositions) {
    const double theta = numberOrNull(config, "rope_theta", 10000);
    const double partial = numberOrNull(config, "partial_rotary_factor", 1);
    RopeSpec spec;
    if (config.has("rope_parameters") && config.at("rope_parameters").is_object()) {
        const nlohmann::json& all = config.at("rope_parameters");
        // Per layer type (Gemma 3): the full-attention layers' entry here.
        const nlohmann::json& one = all.contains("full_attention") ? all.at("full_attention") : all;
        spec = readRopeParameters(JsonFields(one, "config.json: rope_parameters: "), theta, headDim,
                                  maxPositions, partial);
    } else if (config.has("rope_scaling") && config.at("rope_scaling").is_object()) {
        spec = readRopeParameters(JsonFields(config.at("rope_scaling"), "config.json: "), theta,
                                  headDim, maxPositions, partial);
    } else {
        spec = readRopeParameters(JsonFields(nlohmann::json::object(), "config.json: "), theta,
                                  headDim, maxPositions, partial);
    }
    // Phi-3 keeps the pretrained context beside rope_scaling, not in it.
    if (spec.originalMax == 0 && config.has("original_max_position_embeddings"))
        spec.originalMax = config.integer("original_max_position_embeddings", 1, 1 << 24);
    return spec;
}

} // namespace core::models
