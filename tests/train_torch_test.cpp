// The training engine (core/train) against PyTorch: the loss and every gradient entry against
// float64 autograd, one SGD step and three Adam steps against torch.optim's float32 weights.
// Fixtures come from make_train_fixtures.py (the model of the Training contract written in
// torch) and are committed, so this test needs no torch.
#include "train/model.h"
#include "train/optimizer.h"

#include "build_facts.h"
#include "engine/simd.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using core::train::Batch;
using core::train::ModelConfig;
using core::train::Optimizer;
using core::train::OptimizerKind;
using core::train::Params;
using nlohmann::json;
using MatD = Eigen::MatrixXd;

constexpr double kFloatEps = std::numeric_limits<float>::epsilon(); // 2^-23, an ulp at 1

json loadFixture(const std::string& name) {
    const std::filesystem::path path =
        std::filesystem::path(build_facts::fixtureDir()) / ("train_" + name + ".json");
    std::ifstream in(path);
    if (!in) throw std::runtime_error("missing fixture " + path.string());
    return json::parse(in);
}

ModelConfig configOf(const json& f) {
    const json& c = f["config"];
    return ModelConfig{c["vocab"], c["d_model"], c["heads"], c["layers"], c["seq"]};
}

// A [rows][cols] JSON array. float32 tensors are written as the shortest decimal that gives
// their float back, which as a double is not the float: those go through float.
MatD matrixOf(const json& t, bool float32) {
    MatD m(t.size(), t[0].size()); // rows x cols
    for (std::size_t r = 0; r < t.size(); ++r)
        for (std::size_t c = 0; c < t[0].size(); ++c)
            m(r, c) = float32 ? double(t[r][c].get<float>()) : t[r][c].get<double>();
    return m;
}

// Params of the config's shapes from {name: [rows][cols]}, by the checkpoint names.
Params paramsOf(const ModelConfig& config, const json& tensors) {
    Params p = core::train::zeroParams(config);
    for (const auto& t : core::train::namedTensors(p)) {
        const MatD m = matrixOf(tensors.at(t.name), true);
        if (m.rows() != t.tensor->rows() || m.cols() != t.tensor->cols())
            throw std::runtime_error("fixture tensor " + t.name + " has the wrong shape");
        *t.tensor = m.cast<float>(); // exact
    }
    return p;
}

Batch batchOf(const json& b) {
    Batch batch;
    batch.tokens = b["tokens"].get<std::vector<std::vector<int>>>();
    batch.lossMask = b["loss_mask"].get<std::vector<std::vector<bool>>>();
    return batch;
}

// How far a tensor lands from its reference: the largest |a - r| over its entries, that
// divided by the tensor's largest |r| (the scale its rounding errors are made at), and the
// largest |a - r| / |r| over the entries where r is at least 1% of that scale.
// Also how many entries are bit-identical (meaningful for float32 references only).
struct Deviation {
    double maxAbs = 0, scale = 0, relToScale = 0, relToEntry = 0;
    Eigen::Index identical = 0, entries = 0;
};

Deviation deviation(const core::Mat& actual, const MatD& reference) {
    Deviation d;
    d.scale = reference.cwiseAbs().maxCoeff();
    for (Eigen::Index r = 0; r < reference.rows(); ++r)
        for (Eigen::Index c = 0; c < reference.cols(); ++c) {
            const double ref = reference(r, c), diff = std::abs(double(actual(r, c)) - ref);
            d.maxAbs = std::max(d.maxAbs, diff);
            d.identical += diff == 0;
            if (std::abs(ref) >= 0.01 * d.scale)
                d.relToEntry = std::max(d.relToEntry, diff / std::abs(ref));
        }
    d.relToScale = d.scale > 0 ? d.maxAbs / d.scale : d.maxAbs;
    d.entries = reference.size();
    return d;
}

// Every entry within atol * max|r| of the reference: ggml's test-backend-ops style
// atol * max|r| + rtol * |r| with rtol = 0 (see the tolerances below). A bound at the tensor's
// scale does not hold entries that cancel to ~0 to a relative bound they cannot meet.
void expectClose(const std::string& what, const core::Mat& actual, const MatD& reference,
                 double atol) {
    ASSERT_EQ(actual.rows(), reference.rows()) << what;
    ASSERT_EQ(actual.cols(), reference.cols()) << what;
    const double scale = reference.cwiseAbs().maxCoeff();
    int failures = 0;
    for (Eigen::Index r = 0; r < reference.rows(); ++r)
        for (Eigen::Index c = 0; c < reference.cols(); ++c) {
            const double ref = reference(r, c), got = actual(r, c);
            if (std::abs(got - ref) <= atol * scale) continue;
            if (++failures <= 5)
                ADD_FAILURE() << what << "(" << r << ", " << c << "): " << got << " vs torch "
                              << ref << " (tensor scale " << scale << ")";
        }
    EXPECT_EQ(failures, 0) << what << ": " << failures << " entries outside the tolerance";
}

// Prints the worst deviation over all tensors, so the margins below stay visible in the log.
void report(const std::string& what, const std::vector<std::pair<std::string, Deviation>>& all) {
    auto worst = std::max_element(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.second.relToScale < b.second.relToScale;
    });
    double worstEntry = 0;
    Eigen::Index identical = 0, entries = 0;
    for (const auto& [name, d] : all) {
        worstEntry = std::max(worstEntry, d.relToEntry);
        identical += d.identical, entries += d.entries;
    }
    std::printf("%s: worst |a - r| / max|r| %.3g (%.2f float eps) in %s; worst |a - r| / |r| "
                "%.3g; %ld of %ld entries identical\n",
                what.c_str(), worst->second.relToScale, worst->second.relToScale / kFloatEps,
                worst->first.c_str(), worstEntry, long(identical), long(entries));
}

// Tolerances, from what the fixtures measure (the log prints the worst of each test; the
// figures are the worst over the fixtures and the scalar, SSE2, AVX2 and AVX-512 paths):
//   loss       relative 1e-6. Measured <= 7e-8; torch's own float32 loss is as far off.
//   gradients  |a - r| <= 1e-5 * max|r| of the tensor. Measured <= 8.5e-7 (7 float eps), and
//              torch's own float32 autograd lands up to 7e-7 from its float64. Each entry is a
//              sum of products at the tensor's scale, so its rounding error is too: no relative
//              term (rtol) is needed, and a bound at the scale also holds entries that cancel to
//              ~0. A convention error (a transposed weight, the scale, the mask, the mean) moves
//              gradients by O(1) of the scale.
//   SGD        |a - r| <= 6 float eps * max|r|. Most entries are bit-identical; the others differ
//              by w's rounding (<= 1 eps) plus lr * (C++ - torch float32 gradient), each side
//              <= 1e-6 of max|g| from float64, and lr * max|g| <= 0.27 * max|w| here: <= 5.5 eps.
//              Measured <= 1.3 eps.
//   Adam       16 float eps * max|r| after three steps. Measured <= 6.7 eps (SSE2; <= 2.8 on
//              AVX2 and AVX-512): the first step is lr * g / (|g| + eps), so a gradient entry
//              of ~2e-6 whose float sum carries 0.4% rounding error moves by ~3 eps of its
//              tensor; steps 2 and 3 add their own. A wrong beta, eps or bias correction moves
//              such entries by far more (checked by breaking each).
constexpr double kLossRelative = 1e-6;
constexpr double kGradientAtScale = 1e-5;
constexpr double kSgdAtScale = 6 * kFloatEps;
constexpr double kAdamAtScale = 16 * kFloatEps;

// (fixture, SIMD path): the forward pass runs the explorer's engine, so every path this machine
// has is checked.
class TrainTorch : public ::testing::TestWithParam<std::tuple<std::string, core::SimdLevel>> {
  protected:
    void SetUp() override {
        previous_ = core::activeSimdLevel();
        ASSERT_TRUE(core::useSimdLevel(std::get<1>(GetParam())));
        name_ =
            std::get<0>(GetParam()) + "/" + std::string(core::toString(std::get<1>(GetParam())));
        fixture_ = loadFixture(std::get<0>(GetParam()));
        config_ = configOf(fixture_);
        params_ = paramsOf(config_, fixture_["params"]);
        for (const json& b : fixture_["batches"]) batches_.push_back(batchOf(b));
    }
    void TearDown() override { core::useSimdLevel(previous_); }

    Params gradients(const Params& params, int batch) const {
        return core::train::lossAndGradients(config_, params, batches_[batch]).gradients;
    }

    // Each tensor of `actual` against the fixture's {name: [rows][cols]}.
    void compare(const std::string& what, const Params& actual, const json& reference,
                 bool float32Reference, double atol) {
        std::vector<std::pair<std::string, Deviation>> all;
        for (const auto& t : core::train::namedTensors(actual)) {
            const MatD ref = matrixOf(reference.at(t.name), float32Reference);
            expectClose(name_ + " " + what + " " + t.name, *t.tensor, ref, atol);
            all.emplace_back(t.name, deviation(*t.tensor, ref));
        }
        report(name_ + " " + what, all);
    }

    std::string name_;
    json fixture_;
    ModelConfig config_;
    Params params_;
    std::vector<Batch> batches_;

  private:
    core::SimdLevel previous_ = core::SimdLevel::Scalar;
};

TEST_P(TrainTorch, LossMatchesFloat64Autograd) {
    const double loss = core::train::lossAndGradients(config_, params_, batches_[0]).loss;
    const double reference = fixture_["loss_float64"];
    std::printf("%s loss: %.9g vs torch float64 %.9g (relative %.3g), torch float32 %.9g\n",
                name_.c_str(), loss, reference, std::abs(loss - reference) / reference,
                fixture_["loss_float32"].get<double>());
    EXPECT_NEAR(loss, reference, kLossRelative * reference);
}

TEST_P(TrainTorch, EveryGradientMatchesFloat64Autograd) {
    compare("gradients", gradients(params_, 0), fixture_["gradients"], false, kGradientAtScale);
}

TEST_P(TrainTorch, OneSgdStepGivesTorchWeights) {
    const json& sgd = fixture_["sgd"];
    Optimizer optimizer(OptimizerKind::Sgd, sgd["lr"].get<double>(), config_);
    optimizer.step(params_, gradients(params_, 0));
    compare("sgd", params_, sgd["params"], true, kSgdAtScale);
}

// Step s on batches[s], each gradient at the weights the step before left, as torch did.
TEST_P(TrainTorch, ThreeAdamStepsGiveTorchWeights) {
    const json& adam = fixture_["adam"];
    Optimizer optimizer(OptimizerKind::Adam, adam["lr"].get<double>(), config_);
    ASSERT_EQ(adam["steps"].get<int>(), int(batches_.size()));
    for (int s = 0; s < int(batches_.size()); ++s) optimizer.step(params_, gradients(params_, s));
    compare("adam", params_, adam["params"], true, kAdamAtScale);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TrainTorch,
                         ::testing::Combine(::testing::Values("one_layer", "masked_short",
                                                              "three_layers"),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" +
                                    std::string(core::toString(std::get<1>(info.param)));
                         });

} // namespace
