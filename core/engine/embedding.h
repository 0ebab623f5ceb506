// Toy embeddings: a fixed random vector per token plus sinusoidal positions.
#pragma once

#include "engine/scalar.h"

#include <string>
#include <string_view>
#include <vector>

namespace core {

inline constexpr int kMinDModel = 2;
inline constexpr int kMaxDModel = 1024;

// Key that decides a token's vector: ASCII-lowercased, so "The" and "the" agree.
std::string embeddingKey(std::string_view token);

// 1 x d_model. Each dimension is uniform in [-sqrt(3), sqrt(3)): mean 0, variance 1
// across tokens. The draws come from SplitMix64(fnv1a64(key)) in order, so the first
// k dimensions of a token are the same for every d_model >= k.
RowVec tokenEmbedding(std::string_view token, int d_model);

// Vaswani et al. 2017: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same).
RowVec positionalEncoding(int position, int d_model);

// N x d_model: one row per token, plus the positional encoding when asked.
Mat embedTokens(const std::vector<std::string>& tokens, int d_model, bool positional);

} // namespace core
