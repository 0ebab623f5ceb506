// The real models' forward against the numbers PyTorch wrote into a fixture folder's
// reference.json (make_gpt2_fixtures.py, make_bert_fixtures.py, make_llama_fixtures.py): the
// largest difference of the logits and of every layer's attention.
#pragma once

#include "models/transformer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace testing_support {

// |logits - expected| at its largest; expected is [N][V].
inline double worstLogit(const core::Mat& logits, const nlohmann::json& expected) {
    double worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
        for (std::size_t v = 0; v < expected[i].size(); ++v)
            worst = std::max(worst, std::abs(double(logits(Eigen::Index(i), Eigen::Index(v))) -
                                             expected[i][v].get<double>()));
    return worst;
}

// |attention - expected| at its largest over every layer and head; expected is [L][H][N][N].
inline double worstAttention(const core::models::CollectedForward& out,
                             const nlohmann::json& expected) {
    double worst = 0;
    for (std::size_t l = 0; l < expected.size(); ++l) {
        const core::Attention& a = out.layers[l];
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i)
                for (int j = 0; j < a.keyLen; ++j)
                    worst = std::max(worst, std::abs(double(a.attention(a.headRow(0, h, i), j)) -
                                                     expected[l][h][i][j].get<double>()));
    }
    return worst;
}

} // namespace testing_support
