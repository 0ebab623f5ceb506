// The optimizers (core/train/optimizer.h): SGD exactly, Adam against the formula in double.
#include "train/optimizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using core::train::ModelConfig;
using core::train::Optimizer;
using core::train::OptimizerKind;
using core::train::Params;

const ModelConfig kConfig{7, 8, 2, 2, 5};

// Arbitrary gradients of the model's shapes; pos's are scaled to ~1e-8, where sqrt(v_hat) is of
// the order of eps, so Adam's eps term changes the step and is checked too.
Params someGradients(std::uint64_t seed) {
    Params g = core::train::initParams(kConfig, seed);
    g.pos *= 1e-7f;
    return g;
}

TEST(TrainOptimizer, SgdStepIsExactlyWeightMinusLrTimesGradient) {
    Params params = core::train::initParams(kConfig, 1);
    const Params before = params;
    const Params grads = someGradients(2);
    Optimizer sgd(OptimizerKind::Sgd, 0.05, kConfig);
    sgd.step(params, grads);
    const auto w = core::train::namedTensors(params);
    const auto w0 = core::train::namedTensors(before);
    const auto g = core::train::namedTensors(grads);
    const float lr = 0.05f;
    for (std::size_t i = 0; i < w.size(); ++i)
        for (Eigen::Index r = 0; r < w[i].tensor->rows(); ++r)
            for (Eigen::Index c = 0; c < w[i].tensor->cols(); ++c)
                ASSERT_EQ((*w[i].tensor)(r, c), (*w0[i].tensor)(r, c) - lr * (*g[i].tensor)(r, c))
                    << w[i].name << "(" << r << ", " << c << ")";
    EXPECT_EQ(sgd.stepsTaken(), 1);
}

// torch.optim.Adam's formula, in double: m and v from 0, bias-corrected, t from 1.
struct ReferenceAdam {
    double lr = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    std::vector<Eigen::MatrixXd> m, v;
    int t = 0;

    void step(std::vector<Eigen::MatrixXd>& w, const std::vector<Eigen::MatrixXd>& g) {
        if (m.empty())
            for (const auto& gi : g) {
                m.push_back(Eigen::MatrixXd::Zero(gi.rows(), gi.cols()));
                v.push_back(Eigen::MatrixXd::Zero(gi.rows(), gi.cols()));
            }
        ++t;
        for (std::size_t i = 0; i < w.size(); ++i) {
            m[i] = beta1 * m[i] + (1 - beta1) * g[i];
            v[i] = beta2 * v[i] + (1 - beta2) * g[i].cwiseProduct(g[i]);
            const Eigen::MatrixXd mHat = m[i] / (1 - std::pow(beta1, t));
            const Eigen::MatrixXd vHat = v[i] / (1 - std::pow(beta2, t));
            w[i].array() -= lr * mHat.array() / (vHat.array().sqrt() + eps);
        }
    }
};

std::vector<Eigen::MatrixXd> toDouble(const Params& params) {
    std::vector<Eigen::MatrixXd> tensors;
    for (const auto& t : core::train::namedTensors(params))
        tensors.push_back(t.tensor->cast<double>());
    return tensors;
}

// Three steps with different gradients. lr 0.01 moves a weight (~0.3) by ~3% over the steps.
// Float keeps w to half an ulp at each step (~6e-8 of the larger of its start and end values)
// and the update to a few 1e-8 of lr, so the bound is 1e-6 of max(|w start|, |w end|, lr)
// (measured: at most 2e-7 of it); a wrong bias correction, moment or eps is far outside it.
TEST(TrainOptimizer, ThreeAdamStepsMatchTheFormulaInDouble) {
    constexpr double lr = 0.01;
    Params params = core::train::initParams(kConfig, 1);
    std::vector<Eigen::MatrixXd> expected = toDouble(params);
    Optimizer adam(OptimizerKind::Adam, lr, kConfig);
    ReferenceAdam reference;
    reference.lr = lr;
    for (std::uint64_t s = 0; s < 3; ++s) {
        const Params grads = someGradients(10 + s);
        adam.step(params, grads);
        reference.step(expected, toDouble(grads));
    }
    EXPECT_EQ(adam.stepsTaken(), 3);
    const auto w = core::train::namedTensors(params);
    const std::vector<Eigen::MatrixXd> start = toDouble(core::train::initParams(kConfig, 1));
    for (std::size_t i = 0; i < w.size(); ++i) {
        EXPECT_GT((expected[i] - start[i]).cwiseAbs().mean(), 5e-3) << w[i].name;
        for (Eigen::Index r = 0; r < w[i].tensor->rows(); ++r)
            for (Eigen::Index c = 0; c < w[i].tensor->cols(); ++c) {
                const double e = expected[i](r, c);
                const double scale = std::max({std::abs(e), std::abs(start[i](r, c)), lr});
                ASSERT_NEAR((*w[i].tensor)(r, c), e, 1e-6 * scale)
                    << w[i].name << "(" << r << ", " << c << ")";
            }
    }
}

TEST(TrainOptimizer, ZeroGradientLeavesAdamWeightsUnchanged) {
    Params params = core::train::initParams(kConfig, 1);
    const Params before = params;
    Optimizer adam(OptimizerKind::Adam, 0.1, kConfig);
    adam.step(params, core::train::zeroParams(kConfig));
    EXPECT_TRUE(params.embed == before.embed);
    EXPECT_TRUE(params.layers[1].wO == before.layers[1].wO);
}

TEST(TrainOptimizer, KindNamesRoundTrip) {
    EXPECT_EQ(core::toString(OptimizerKind::Adam), "adam");
    EXPECT_EQ(core::toString(OptimizerKind::Sgd), "sgd");
    EXPECT_EQ(core::parseEnum<core::train::OptimizerKind>("adam"), OptimizerKind::Adam);
    EXPECT_EQ(core::parseEnum<core::train::OptimizerKind>("sgd"), OptimizerKind::Sgd);
    EXPECT_EQ(core::parseEnum<core::train::OptimizerKind>("Adam"), std::nullopt);
    EXPECT_EQ(core::parseEnum<core::train::OptimizerKind>(""), std::nullopt);
}

TEST(TrainOptimizer, BadLearningRateAndShapesThrow) {
    for (double lr : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
        try {
            Optimizer(OptimizerKind::Adam, lr, kConfig);
            ADD_FAILURE() << "learning rate " << lr << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("learning rate"), std::string::npos);
        }
    }
    Params params = core::train::initParams(kConfig, 1);
    Params grads = core::train::zeroParams(kConfig);
    grads.unembed.resize(8, 3);
    Optimizer sgd(OptimizerKind::Sgd, 0.1, kConfig);
    EXPECT_THROW(sgd.step(params, grads), std::invalid_argument);
    EXPECT_EQ(sgd.stepsTaken(), 0);
    // Adam's moments have the optimizer's config: params of another config are refused.
    const ModelConfig bigger{7, 8, 2, 3, 5};
    Params other = core::train::initParams(bigger, 1);
    Optimizer adam(OptimizerKind::Adam, 0.1, kConfig);
    EXPECT_THROW(adam.step(other, core::train::zeroParams(bigger)), std::invalid_argument);
    EXPECT_EQ(adam.stepsTaken(), 0);
}

} // namespace
