#include "engine/designed_heads.h"

#include "base/prng.h"
#include "engine/embedding.h"
#include "text/lexicon.h"

#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace core {

namespace {

// Feature block offsets (see the layout in the header).
constexpr int kBias = 0, kPos = 1, kNumber = 11, kAnimacy = 13, kClass = 16;
constexpr int kClassCount = 14;
constexpr int kCodeBits = 6;
// Chosen so that no two words of the demo sentences share a 6-bit same-word code.
constexpr std::uint64_t kIdentitySalt = 723;

int posDim(PartOfSpeech pos) {
    const int index = pos == PartOfSpeech::Unknown ? int(PartOfSpeech::Noun) : int(pos);
    return kPos + index; // Determiner .. Number: 10 dimensions
}

double frequency(int pair) {
    return std::pow(10000.0, -double(pair) / 8.0);
}

// 14 distinct even-weight 6-bit codes: any two differ in >= 2 bits, so the +-1 code of one
// class has a dot product <= 2 with another's and exactly 6 with its own.
const std::array<std::array<float, kCodeBits>, kClassCount>& classCodes() {
    static const auto codes = [] {
        std::array<std::array<float, kCodeBits>, kClassCount> table{};
        int next = 0;
        for (unsigned bits = 0; bits < 64 && next < kClassCount; ++bits) {
            if (std::popcount(bits) % 2 != 0) continue;
            for (int b = 0; b < kCodeBits; ++b)
                table[std::size_t(next)][std::size_t(b)] = (bits >> b) & 1 ? 1.0f : -1.0f;
            ++next;
        }
        return table;
    }();
    return codes;
}

// Builds one head's q/k columns: q_i . k_j = sum of the terms added, in logits (the engine's
// 1/sqrt(d_head) is undone by `gain`).
class HeadDesign {
  public:
    // Columns [column0, column0 + 8) of W_Q and [keyColumn0, keyColumn0 + 8) of W_K.
    HeadDesign(Weights& w, int column0, int keyColumn0, int d_model, float gain)
        : w_(w), column0_(column0), keyColumn0_(keyColumn0), positions_(d_model - kPositionDims),
          gain_(gain) {}

    // One query feature meeting a weighted set of key features, in one column.
    void featureMatch(int column, int queryDim,
                      std::initializer_list<std::pair<int, float>> keyDims, float weight) {
        w_.wQ(queryDim, column0_ + column) += gain_ * weight;
        for (const auto& [dim, keyWeight] : keyDims) w_.wK(dim, keyColumn0_ + column) += keyWeight;
    }

    // Position pair `pair` in two columns: q_i . k_j = weight * cos(w (i + shift - j) + phase).
    void rotation(int column, int pair, double shift, double phase, float weight) {
        const double phi = frequency(pair) * shift + phase;
        const int s = positions_ + 2 * pair, c = s + 1; // sin and cos of w * position
        const float g = gain_ * weight;
        w_.wQ(s, column0_ + column) += g * float(std::cos(phi));
        w_.wQ(s, column0_ + column + 1) += -g * float(std::sin(phi));
        w_.wQ(c, column0_ + column) += g * float(std::sin(phi));
        w_.wQ(c, column0_ + column + 1) += g * float(std::cos(phi));
        w_.wK(s, keyColumn0_ + column) += 1.0f;
        w_.wK(c, keyColumn0_ + column + 1) += 1.0f;
    }

    // "Earlier than me": weight * sin(w (i - j)), increasing with distance back (w d < pi/2).
    void earlier(int column, int pair, float weight) {
        rotation(column, pair, 0.0, -std::numbers::pi / 2, weight);
    }

    Weights& w_;
    int column0_, keyColumn0_, positions_;
    float gain_;
};

void design(int preset, HeadDesign& d) {
    const int noun = posDim(PartOfSpeech::Noun), verb = posDim(PartOfSpeech::Verb);
    const int adj = posDim(PartOfSpeech::Adjective), pron = posDim(PartOfSpeech::Pronoun);
    const int sg = kNumber, pl = kNumber + 1;
    const int person = kAnimacy, animate = kAnimacy + 1, inanimate = kAnimacy + 2;
    switch (preset) {
    case 0: // previous-token
        for (int k = 0; k < 4; ++k) d.rotation(2 * k, k, -1.0, 0.0, 8.0f);
        break;
    case 1: // same-word: 6 identity dimensions + earlier
        for (int c = 0; c < 6; ++c)
            d.featureMatch(c, kFeatureDims + c, {{kFeatureDims + c, 1.0f}}, 1.5f);
        d.earlier(6, 2, 4.0f);
        break;
    case 2: // noun-adjective
        d.featureMatch(0, noun, {{adj, 1.0f}}, 4.0f);
        for (int k = 0; k < 3; ++k) d.rotation(1 + 2 * k, k, -1.0, 0.0, 3.0f);
        break;
    case 3: // subject-verb
        d.featureMatch(0, noun, {{verb, 1.0f}}, 6.0f);
        for (int k = 0; k < 3; ++k) d.rotation(1 + 2 * k, k, +1.0, 0.0, 1.3f);
        break;
    case 4: // pronoun-antecedent
        d.featureMatch(0, pron, {{noun, 1.0f}}, 8.0f);
        d.featureMatch(1, sg, {{sg, 1.0f}}, 3.0f);
        d.featureMatch(2, pl, {{pl, 1.0f}}, 3.0f);
        d.featureMatch(3, person, {{person, 1.0f}, {animate, -0.5f}, {inanimate, -1.0f}}, 3.0f);
        d.featureMatch(4, inanimate, {{animate, 1.0f}, {inanimate, 0.4f}, {person, -1.5f}}, 3.0f);
        d.rotation(6, 3, -1.0, 0.0, 2.0f); // weak recency: the nearest agreeing noun
        break;
    case 5: // semantic-class
        for (int c = 0; c < kCodeBits; ++c)
            for (int cls = 0; cls < kClassCount; ++cls) {
                const float code = classCodes()[std::size_t(cls)][std::size_t(c)];
                d.w_.wQ(kClass + cls, d.column0_ + c) += d.gain_ * 1.2f * code;
                d.w_.wK(kClass + cls, d.keyColumn0_ + c) += code;
            }
        d.earlier(6, 2, 4.0f);
        break;
    case 6: // first-token: constant query, keys = sum of cos(w_k j)
        for (int k = 0; k < 4; ++k)
            d.featureMatch(0, kBias, {{d.positions_ + 2 * k + 1, 1.0f}}, 0.0f);
        d.w_.wQ(kBias, d.column0_) = d.gain_ * 8.0f;
        break;
    case 7: // self
        for (int k = 0; k < 4; ++k) d.rotation(2 * k, k, 0.0, 0.0, 8.0f);
        break;
    default:
        break;
    }
}

} // namespace

namespace {

// Query heads per K/V head: each needs its own kDesignedMinDHead columns of the shared keys.
int groupSize(int heads, int kvHeads) {
    return kvHeads > 0 && kvHeads <= heads && heads % kvHeads == 0 ? heads / kvHeads : 1;
}

} // namespace

bool designedHeadsFit(int d_model, int heads, int kvHeads) {
    return d_model >= kDesignedMinDModel && heads > 0 &&
           d_model / heads >= kDesignedMinDHead * groupSize(heads, kvHeads);
}

std::string designedHeadsMisfit(int d_model, int heads, int kvHeads) {
    if (designedHeadsFit(d_model, heads, kvHeads)) return {};
    if (d_model < kDesignedMinDModel)
        return "designed heads need d_model >= " + std::to_string(kDesignedMinDModel) + " (here " +
               std::to_string(d_model) + ")";
    const int group = groupSize(heads, kvHeads);
    const std::string sizes = " (here " + std::to_string(d_model) + " / " + std::to_string(heads) +
                              " = " + std::to_string(heads > 0 ? d_model / heads : 0) + ")";
    if (group == 1)
        return "designed heads need d_head >= " + std::to_string(kDesignedMinDHead) + sizes;
    return "designed heads with " + std::to_string(group) +
           " query heads per K/V head need d_head >= " + std::to_string(kDesignedMinDHead * group) +
           sizes;
}

std::vector<std::string> defaultHeadPresets(int heads) {
    std::vector<std::string> presets;
    for (int h = 0; h < heads; ++h)
        presets.push_back(h < kDesignedPresetCount ? kDesignedPresets[h].id : kRandomPreset);
    return presets;
}

int designedPresetIndex(std::string_view id) {
    for (int p = 0; p < kDesignedPresetCount; ++p)
        if (id == kDesignedPresets[p].id) return p;
    return -1;
}

Mat featureEmbedTokens(const std::vector<std::string>& tokens, int d_model, bool positional) {
    Mat x = Mat::Zero(Eigen::Index(tokens.size()), d_model); // N x d_model
    const int identityDims = d_model - kFeatureDims - kPositionDims;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const WordFeatures f = lookupWord(tokens[i]);
        auto row = x.row(Eigen::Index(i)); // 1 x d_model
        row[kBias] = 1;
        row[posDim(f.pos)] = 1;
        if (f.number != GrammaticalNumber::None) row[kNumber + int(f.number) - 1] = 1;
        if (f.animacy != Animacy::None) row[kAnimacy + int(f.animacy) - 1] = 1;
        if (f.semanticClass != SemanticClass::None) row[kClass + int(f.semanticClass) - 1] = 1;
        // +-1 per dimension: unit variance, and a word's code matches itself exactly. The sign
        // is the draw's top bit, computed rather than branched on: a branch on a random bit
        // mispredicts every other time, and this runs per identity dimension, token and recompute.
        SplitMix64 rng(fnv1a64(embeddingKey(tokens[i])) ^ kIdentitySalt);
        for (int c = 0; c < identityDims; ++c)
            row[kFeatureDims + c] = 2.0f * float(rng.next() >> 63) - 1.0f;
        if (positional)
            for (int k = 0; k < kPositionDims / 2; ++k) {
                const double angle = double(i) * frequency(k);
                row[d_model - kPositionDims + 2 * k] = Scalar(std::sin(angle));
                row[d_model - kPositionDims + 2 * k + 1] = Scalar(std::cos(angle));
            }
    }
    return x;
}

Weights designedWeights(std::uint64_t seed, int d_model, int heads,
                        const std::vector<std::string>& presets, int kvHeads) {
    if (!designedHeadsFit(d_model, heads, kvHeads))
        throw std::invalid_argument("designed heads need d_model >= 64 and d_head >= 8 per query "
                                    "head of a K/V head");
    const int d_head = d_model / heads, group = groupSize(heads, kvHeads);
    Weights w = randomWeights(seed, d_model, heads / group * d_head);
    // Undo the engine's 1/sqrt(d_head), so the designs are written directly in logits.
    const float gain = std::sqrt(float(d_head));
    auto designed = [&](int h) {
        return h < int(presets.size()) && designedPresetIndex(presets[std::size_t(h)]) >= 0;
    };
    for (int h = 0; h < heads; ++h) // first clear, then write: a group's designs share its keys
        if (designed(h)) {
            w.wQ.middleCols(h * d_head, d_head).setZero();
            w.wK.middleCols(h / group * d_head, d_head).setZero();
        }
    for (int h = 0; h < heads; ++h) {
        if (!designed(h)) continue;
        const int lane = h % group * kDesignedMinDHead; // its columns in q_h and the shared k_g
        HeadDesign d(w, h * d_head + lane, h / group * d_head + lane, d_model, gain);
        design(designedPresetIndex(presets[std::size_t(h)]), d);
    }
    return w;
}

} // namespace core
