#include "engine/embedding.h"

#include "base/prng.h"

#include <cmath>

namespace core {

std::string embeddingKey(std::string_view token) {
    std::string key(token);
    for (char& c : key)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return key;
}

RowVec tokenEmbedding(std::string_view token, int d_model) {
    const float sqrt3 = std::sqrt(3.0f); // correctly rounded by IEEE 754
    SplitMix64 rng(fnv1a64(embeddingKey(token)));
    RowVec row(d_model); // 1 x d_model
    for (int j = 0; j < d_model; ++j) row[j] = rng.symmetric(sqrt3);
    return row;
}

RowVec positionalEncoding(int position, int d_model) {
    RowVec row(d_model);                       // 1 x d_model
    for (int i = 0; i + 1 < d_model; i += 2) { // d_model is even (validated by the scene)
        // In double so the table is the same whatever the float libm does.
        const double angle = position / std::pow(10000.0, double(i) / d_model);
        row[i] = Scalar(std::sin(angle));
        row[i + 1] = Scalar(std::cos(angle));
    }
    return row;
}

Mat embedTokens(const std::vector<std::string>& tokens, int d_model, bool positional) {
    Mat x(Eigen::Index(tokens.size()), d_model); // N x d_model
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        x.row(Eigen::Index(i)) = tokenEmbedding(tokens[i], d_model);
        if (positional) x.row(Eigen::Index(i)) += positionalEncoding(int(i), d_model);
    }
    return x;
}

} // namespace core
