// Rotary positions as the modern decoders' config.json describes them (docs/real-models.md,
// "Rotary positions"): the base rope_theta, the rotated share of a head, and a scaling from
// `rope_scaling` or the newer `rope_parameters` (default, linear, dynamic, llama3, yarn,
// longrope), turned into the engine's cos / sin tables (engine/attention.h, Rotation) exactly
// as Hugging Face's modeling_rope_utils.py makes its inverse frequencies: in float32, then
// angle = position x inverse frequency in float32, and cos, sin times the attention factor.
#pragma once

#include "engine/attention.h"

#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

struct RopeSpec {
    std::string type; // "" (no rotary positions), default, linear, dynamic, llama3, yarn, longrope
    double theta = 10000; // rope_theta
    int dims = 0;         // dimensions turned per head: head_dim x partial_rotary_factor, even
    double factor = 1;    // the scaling's factor (linear, dynamic, llama3, yarn)
    double lowFreqFactor = 1, highFreqFactor = 4; // llama3
    int originalMax = 0;        // original_max_position_embeddings (llama3, yarn, longrope)
    int maxPositions = 0;       // config.json's max_position_embeddings
    double attentionFactor = 0; // cos and sin times this; 0: the type's own (yarn, longrope)
    double betaFast = 32, betaSlow = 1, mscale = 0, mscaleAllDim = 0; // yarn
    bool truncate = true;                                             // yarn
    std::vector<double> shortFactor, longFactor;                      // longrope
    // GGUF's rope_freqs tensor (Llama 3's scaling as llama.cpp stores it): each pair's inverse
    // frequency divided by its own factor, in place of the type's formula. Empty: none.
    std::vector<double> freqFactors;

    bool empty() const { return type.empty(); }
};

// The types this build computes, for messages.
const std::vector<std::string>& ropeTypes();

// The inverse frequency of each rotated pair (dims / 2 of them) for a text of seqLen tokens (only
// dynamic and longrope depend on it), and the factor cos and sin are multiplied by.
struct RopeFrequencies {
    std::vector<float> inverse;
    float attentionFactor = 1;
};
RopeFrequencies ropeFrequencies(const RopeSpec& spec, int seqLen);

// cos and sin of rows [0, positions) for a text of seqLen tokens (>= positions), rotate_half
// layout. An empty spec gives an empty Rotation.
Rotation rotationTables(const RopeSpec& spec, int positions, int seqLen);

// The spec of config.json's fields: rope_theta (or `thetaName`), partial_rotary_factor, and
// rope_scaling / rope_parameters (`parameters` when the caller picked a per-layer-type entry).
// Throws std::invalid_argument "config.json: ..." naming an unknown type or a bad field.
RopeSpec readRope(const JsonFields& config, int headDim, int maxPositions);
// The same from one rope_parameters object (Gemma 3's per layer type), `theta` its fallback base.
RopeSpec readRopeParameters(const JsonFields& parameters, double theta, int headDim,
                            int maxPositions, double partial);

} // namespace core::models
