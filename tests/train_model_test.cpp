// The training model (core/train/model.h) against a naive double-precision reference written
// here from the Training contract alone (plain loops, no engine code): the loss, and every
// gradient entry against central finite differences of that reference.
#include "train/model.h"

#include "base/prng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using core::train::Batch;
using core::train::ModelConfig;
using core::train::Params;
using MatD = Eigen::MatrixXd;

// The parameters in double, in the order of core::train::namedTensors.
struct ReferenceParams {
    std::vector<MatD> tensors; // embed, pos, per layer w_q w_k w_v w_o, unembed

    const MatD& embed() const { return tensors.front(); }
    const MatD& pos() const { return tensors[1]; }
    const MatD& layer(int l, int matrix) const { return tensors[2 + 4 * l + matrix]; }
    const MatD& unembed() const { return tensors.back(); }
};

ReferenceParams toDouble(const Params& params) {
    ReferenceParams ref;
    for (const auto& t : core::train::namedTensors(params))
        ref.tensors.push_back(t.tensor->cast<double>());
    return ref;
}

// One causal multi-head self-attention of one sequence, from the formulas: per head h,
// weights(i, j) = softmax over j <= i of q_i[h] . k_j[h] / sqrt(d_head); out = concat * W_O,
// with the heads in `off` left out of concat (ablated).
MatD referenceAttention(const MatD& x /* n x D */, const ReferenceParams& p, int layer, int heads,
                        const std::vector<int>& off = {}) {
    const MatD q = x * p.layer(layer, 0), k = x * p.layer(layer, 1), v = x * p.layer(layer, 2);
    const int n = int(x.rows()), D = int(x.cols()), d_head = D / heads;
    MatD concat = MatD::Zero(n, D);
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < n && std::count(off.begin(), off.end(), h) == 0; ++i) {
            std::vector<double> score(i + 1);
            double maxScore = -1e300, sum = 0;
            for (int j = 0; j <= i; ++j) {
                double dot = 0;
                for (int c = 0; c < d_head; ++c) dot += q(i, h * d_head + c) * k(j, h * d_head + c);
                score[j] = dot / std::sqrt(double(d_head));
                maxScore = std::max(maxScore, score[j]);
            }
            for (int j = 0; j <= i; ++j) sum += score[j] = std::exp(score[j] - maxScore);
            for (int j = 0; j <= i; ++j)
                for (int c = 0; c < d_head; ++c)
                    concat(i, h * d_head + c) += score[j] / sum * v(j, h * d_head + c);
        }
    return concat * p.layer(layer, 3);
}

// Mean next-token cross-entropy of the whole batch, in double.
double referenceLoss(const ModelConfig& config, const ReferenceParams& p, const Batch& batch,
                     const core::train::HeadLists& ablated = {}) {
    double total = 0;
    int positions = 0;
    const int n = batch.length();
    for (int b = 0; b < batch.size(); ++b) {
        MatD x(n, config.d_model); // n x D
        for (int t = 0; t < n; ++t) x.row(t) = p.embed().row(batch.tokens[b][t]) + p.pos().row(t);
        for (int l = 0; l < config.layers; ++l)
            x += referenceAttention(x, p, l, config.heads,
                                    ablated.empty() ? std::vector<int>{} : ablated[l]);
        const MatD logits = x * p.unembed(); // n x V
        for (int t = 0; t + 1 < n; ++t) {
            if (!batch.lossMask[b][t]) continue;
            double sum = 0;
            for (int c = 0; c < config.vocab; ++c) sum += std::exp(logits(t, c));
            total += std::log(sum) - logits(t, batch.tokens[b][t + 1]);
            ++positions;
        }
    }
    return total / positions;
}

// B sequences of n random tokens, with a fixed loss mask that leaves some positions out.
Batch makeBatch(const ModelConfig& config, int B, int n, std::uint64_t seed) {
    core::SplitMix64 rng(seed);
    Batch batch;
    for (int b = 0; b < B; ++b) {
        std::vector<int> tokens(n);
        std::vector<bool> mask(n);
        for (int t = 0; t < n; ++t) {
            tokens[t] = int(rng.next() % std::uint64_t(config.vocab));
            mask[t] = t + 1 < n && (t + b) % 3 != 1; // every third position out, shifted by b
        }
        batch.tokens.push_back(tokens);
        batch.lossMask.push_back(mask);
    }
    return batch;
}

ModelConfig tinyConfig(int layers) {
    return ModelConfig{7, 8, 2, layers, 5}; // V 7, D 8, H 2, L, N 5
}

TEST(TrainModel, LossMatchesDoubleReference) {
    for (const ModelConfig& config :
         {tinyConfig(1), tinyConfig(2), ModelConfig{11, 16, 4, 3, 9}, ModelConfig{5, 6, 1, 2, 4}}) {
        const Params params = core::train::initParams(config, 3);
        const Batch batch = makeBatch(config, 3, config.seq, 17);
        const double model = core::train::forwardPass(config, params, batch).loss;
        const double reference = referenceLoss(config, toDouble(params), batch);
        EXPECT_NEAR(model, reference, 1e-5 * std::abs(reference)) << "layers " << config.layers;
    }
}

TEST(TrainModel, AblatedHeadsAreLeftOutOfTheirLayer) {
    const ModelConfig config{11, 16, 4, 2, 9};
    const Params params = core::train::initParams(config, 5);
    const Batch batch = makeBatch(config, 3, config.seq, 19);
    const core::train::HeadLists ablated = {{1, 3}, {0}};
    const double model = core::train::forwardPass(config, params, batch, ablated).loss;
    const double reference = referenceLoss(config, toDouble(params), batch, ablated);
    EXPECT_NEAR(model, reference, 1e-5 * std::abs(reference));
    EXPECT_GT(std::abs(reference - referenceLoss(config, toDouble(params), batch)), 1e-3);
}

TEST(TrainModel, ShorterSequencesUseTheFirstPositions) {
    const ModelConfig config{7, 8, 2, 2, 9};
    const Params params = core::train::initParams(config, 4);
    const Batch batch = makeBatch(config, 2, 5, 23); // n 5 < seq 9
    const double reference = referenceLoss(config, toDouble(params), batch);
    EXPECT_NEAR(core::train::forwardPass(config, params, batch).loss, reference, 1e-5 * reference);
}

// Central differences of the double reference, one per entry of every tensor (in the order of
// namedTensors).
std::vector<MatD> finiteDifferences(const ModelConfig& config, ReferenceParams ref,
                                    const Batch& batch) {
    constexpr double step = 1e-6;
    std::vector<MatD> numeric;
    for (MatD& w : ref.tensors) {
        numeric.emplace_back(w.rows(), w.cols());
        for (Eigen::Index r = 0; r < w.rows(); ++r)
            for (Eigen::Index c = 0; c < w.cols(); ++c) {
                const double saved = w(r, c);
                w(r, c) = saved + step;
                const double up = referenceLoss(config, ref, batch);
                w(r, c) = saved - step;
                const double down = referenceLoss(config, ref, batch);
                w(r, c) = saved;
                numeric.back()(r, c) = (up - down) / (2 * step);
            }
    }
    return numeric;
}

// Every entry of every gradient tensor against a central difference of the double reference.
// The reference is exact to ~1e-9 (step 1e-6, loss ~2: rounding 2e-16 * 2 / 1e-6, truncation
// of order step^2), so what is left is the float model's own rounding: an entry is a sum of
// products of float intermediates of the size of the model's largest gradients G, so its
// error is absolute, ~1e-7 * G (measured: at most 3e-7 with G 0.3 to 2.8, on every tensor,
// and 1e-7 * G even for the small Q/K gradients of deep layers). The bound, 2e-6 * G plus
// 1e-4 of the entry, leaves a margin of 10x or more over that and is still 0.02-0.2% of the
// smallest tensor's largest gradient: a missing transpose, scale, mask or softmax term, or a
// swapped sign, is off by a sizable fraction of it.
void expectGradientsMatchFiniteDifferences(const ModelConfig& config, const Batch& batch) {
    const Params params = core::train::initParams(config, 5);
    const core::train::LossAndGradients analytic =
        core::train::lossAndGradients(config, params, batch);
    const std::vector<MatD> numeric = finiteDifferences(config, toDouble(params), batch);
    const auto grads = core::train::namedTensors(analytic.gradients);
    ASSERT_EQ(grads.size(), numeric.size());
    double largest = 0; // G
    for (const MatD& n : numeric) largest = std::max(largest, n.cwiseAbs().maxCoeff());
    for (std::size_t i = 0; i < grads.size(); ++i) {
        EXPECT_GT(numeric[i].cwiseAbs().maxCoeff(), 1e-3) << grads[i].name << ": nothing to check";
        for (Eigen::Index r = 0; r < numeric[i].rows(); ++r)
            for (Eigen::Index c = 0; c < numeric[i].cols(); ++c) {
                const double a = (*grads[i].tensor)(r, c), n = numeric[i](r, c);
                ASSERT_LE(std::abs(a - n), 2e-6 * largest + 1e-4 * std::abs(n))
                    << grads[i].name << "(" << r << ", " << c << "): analytic " << a
                    << ", finite difference " << n << ", largest gradient " << largest;
            }
    }
}

TEST(TrainModel, GradientsOfOneLayerMatchFiniteDifferences) {
    const ModelConfig config = tinyConfig(1);
    expectGradientsMatchFiniteDifferences(config, makeBatch(config, 2, 5, 31));
}

TEST(TrainModel, GradientsOfTwoLayersMatchFiniteDifferences) {
    const ModelConfig config = tinyConfig(2);
    expectGradientsMatchFiniteDifferences(config, makeBatch(config, 2, 5, 37));
}

TEST(TrainModel, GradientsOfThreeLayersOneHeadShortBatchMatchFiniteDifferences) {
    const ModelConfig config{6, 4, 1, 3, 6}; // n 4 < seq 6: pos rows 4 and 5 get no gradient
    expectGradientsMatchFiniteDifferences(config, makeBatch(config, 3, 4, 41));
}

TEST(TrainModel, PositionsBeyondTheBatchAndAbsentTokensGetZeroGradient) {
    const ModelConfig config{9, 8, 2, 2, 7};
    Batch batch = makeBatch(config, 2, 4, 43);
    for (auto& row : batch.tokens)
        for (int& token : row) token %= 4; // tokens 4 .. 8 never occur
    const Params grads =
        core::train::lossAndGradients(config, core::train::initParams(config, 6), batch).gradients;
    EXPECT_TRUE(grads.pos.bottomRows(3).isZero(0));
    EXPECT_TRUE(grads.embed.bottomRows(5).isZero(0));
    EXPECT_FALSE(grads.embed.topRows(4).isZero(0));
}

TEST(TrainModel, EachLayerRunsTheCausalEngine) {
    const ModelConfig config = tinyConfig(2);
    const Batch batch = makeBatch(config, 2, 5, 47);
    const auto pass = core::train::forwardPass(config, core::train::initParams(config, 7), batch);
    ASSERT_EQ(pass.heads.size(), 2u);
    ASSERT_EQ(pass.residual.size(), 3u);
    for (const core::Attention& a : pass.heads) {
        EXPECT_TRUE(a.causal);
        EXPECT_FLOAT_EQ(a.scale, 1 / std::sqrt(4.0f));
        for (int b = 0; b < 2; ++b)
            for (int h = 0; h < 2; ++h)
                for (int i = 0; i < 5; ++i) {
                    const auto row = a.attention.row(a.headRow(b, h, i)); // 1 x n
                    EXPECT_NEAR(row.sum(), 1.0f, 1e-6f);
                    for (int j = i + 1; j < 5; ++j) EXPECT_EQ(row[j], 0.0f); // exactly 0
                }
    }
    EXPECT_EQ(pass.lossPositions, 5); // makeBatch's mask: 3 of 4 in row 0, 2 of 4 in row 1
}

TEST(TrainModel, InitialLossIsCloseToUniformGuess) {
    const ModelConfig config{20, 64, 4, 2, 32};
    const Batch batch = makeBatch(config, 8, 32, 53);
    const double loss =
        core::train::forwardPass(config, core::train::initParams(config, 1), batch).loss;
    EXPECT_NEAR(loss, std::log(20.0), 0.5); // small initial logits: close to ln V
}

TEST(TrainModel, SameSeedGivesIdenticalParamsAndLoss) {
    const ModelConfig config{10, 16, 4, 2, 8};
    const Batch batch = makeBatch(config, 2, 8, 59);
    const Params a = core::train::initParams(config, 42), b = core::train::initParams(config, 42);
    const Params other = core::train::initParams(config, 43);
    const auto ta = core::train::namedTensors(a), tb = core::train::namedTensors(b);
    const auto tOther = core::train::namedTensors(other);
    for (std::size_t i = 0; i < ta.size(); ++i) {
        EXPECT_TRUE(*ta[i].tensor == *tb[i].tensor) << ta[i].name;
        EXPECT_FALSE(*ta[i].tensor == *tOther[i].tensor) << ta[i].name;
    }
    EXPECT_EQ(core::train::forwardPass(config, a, batch).loss,
              core::train::forwardPass(config, b, batch).loss);
}

// The documented scheme, re-derived: tensor `name` from SplitMix64(seed ^ fnv1a64(name)).
TEST(TrainModel, InitFollowsTheDocumentedScheme) {
    const ModelConfig config{10, 16, 4, 2, 8};
    const Params p = core::train::initParams(config, 42);
    auto firstValues = [](const std::string& name, float limit) {
        core::SplitMix64 rng(42 ^ core::fnv1a64(name));
        return std::vector<float>{rng.symmetric(limit), rng.symmetric(limit)};
    };
    const float unit = std::sqrt(3.0f / 16), unembed = std::sqrt(6.0f / 26);
    EXPECT_EQ(firstValues("embed", unit), (std::vector<float>{p.embed(0, 0), p.embed(0, 1)}));
    EXPECT_EQ(firstValues("pos", unit), (std::vector<float>{p.pos(0, 0), p.pos(0, 1)}));
    EXPECT_EQ(firstValues("layers.1.w_v", unit),
              (std::vector<float>{p.layers[1].wV(0, 0), p.layers[1].wV(0, 1)}));
    EXPECT_EQ(firstValues("unembed", unembed),
              (std::vector<float>{p.unembed(0, 0), p.unembed(0, 1)}));
    EXPECT_LE(p.embed.cwiseAbs().maxCoeff(), unit);
    EXPECT_LE(p.unembed.cwiseAbs().maxCoeff(), unembed);
}

TEST(TrainModel, TensorNamesShapesAndCount) {
    const ModelConfig config{7, 8, 2, 2, 5};
    Params p = core::train::initParams(config, 1);
    std::vector<std::string> names;
    for (const auto& t : core::train::namedTensors(p)) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"embed", "pos", "layers.0.w_q", "layers.0.w_k",
                                               "layers.0.w_v", "layers.0.w_o", "layers.1.w_q",
                                               "layers.1.w_k", "layers.1.w_v", "layers.1.w_o",
                                               "unembed"}));
    EXPECT_EQ(p.parameterCount(), 7 * 8 + 5 * 8 + 2 * 4 * 8 * 8 + 8 * 7);
    EXPECT_EQ(p.embed.rows(), 7);
    EXPECT_EQ(p.pos.rows(), 5);
    EXPECT_EQ(p.unembed.cols(), 7);
}

// The message of what `call` throws as std::invalid_argument ("" when it does not throw).
template <class Call>
std::string refusal(Call call) {
    try {
        call();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(TrainModel, BadConfigsThrowNamingTheValue) {
    using core::train::validate;
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{7, 8, 3, 2, 5});
              }).find("heads 3"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{7, 8, 3, 2, 5});
              }).find("d_model 8"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{1, 8, 2, 2, 5});
              }).find("vocab 1"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{7, 0, 2, 2, 5});
              }).find("d_model 0"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{7, 8, 0, 2, 5});
              }).find("heads 0"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{7, 8, 2, 0, 5});
              }).find("layers 0"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  validate(ModelConfig{7, 8, 2, 2, 1});
              }).find("seq 1"),
              std::string::npos);
    EXPECT_THROW(core::train::initParams(ModelConfig{7, 8, 3, 2, 5}, 1), std::invalid_argument);
    EXPECT_EQ(refusal([] { validate(ModelConfig{7, 8, 2, 2, 5}); }), "");
}

TEST(TrainModel, BadBatchesAndParamsThrowNamingTheValue) {
    const ModelConfig config = tinyConfig(1);
    const Params params = core::train::initParams(config, 1);
    auto refusalOf = [&](Batch batch) {
        return refusal([&] { core::train::forwardPass(config, params, batch); });
    };
    Batch batch = makeBatch(config, 2, 5, 61);
    Batch bad = batch;
    bad.tokens[1][2] = 7;
    EXPECT_NE(refusalOf(bad).find("token 7"), std::string::npos);
    bad = batch;
    bad.lossMask[0][4] = true;
    EXPECT_NE(refusalOf(bad).find("last position 4"), std::string::npos);
    bad = batch;
    for (auto& row : bad.lossMask) row.assign(5, false);
    EXPECT_NE(refusalOf(bad).find("no position"), std::string::npos);
    bad = makeBatch(config, 2, 6, 61); // longer than seq 5
    EXPECT_NE(refusalOf(bad).find("length 6"), std::string::npos);
    bad = batch;
    bad.tokens[1].pop_back();
    EXPECT_NE(refusalOf(bad).find("sequence 1"), std::string::npos);
    Params wrong = params;
    wrong.layers[0].wK.resize(8, 4);
    EXPECT_NE(refusal([&] {
                  core::train::forwardPass(config, wrong, batch);
              }).find("layers.0.w_k is 8 x 4"),
              std::string::npos);
    EXPECT_NE(refusal([&] {
                  core::train::forwardPass(config, params, batch, {{2}});
              }).find("ablated head 3"),
              std::string::npos);
    EXPECT_NE(refusal([&] {
                  core::train::forwardPass(config, params, batch, {{0}, {1}});
              }).find("2 layers"),
              std::string::npos);
}

} // namespace
