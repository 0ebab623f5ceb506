// The engine against PyTorch's nn.MultiheadAttention(batch_first=True, bias=False).
// Fixtures come from make_torch_fixtures.py (float64 torch on float32 inputs) and are
// committed, so this test needs no torch.
#include "engine/attention.h"

#include "build_facts.h"
#include "engine/simd.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace {

using nlohmann::json;

json loadFixture(const std::string& name) {
    const std::filesystem::path path =
        std::filesystem::path(build_facts::fixtureDir()) / ("torch_" + name + ".json");
    std::ifstream in(path);
    if (!in) throw std::runtime_error("missing fixture " + path.string());
    return json::parse(in);
}

// [A][R][C] -> (A*R) x C
core::Mat stack3(const json& t) {
    const auto a = t.size(), r = t[0].size(), c = t[0][0].size();
    core::Mat m(a * r, c);
    for (std::size_t i = 0; i < a; ++i)
        for (std::size_t j = 0; j < r; ++j)
            for (std::size_t k = 0; k < c; ++k) m(i * r + j, k) = t[i][j][k].get<float>();
    return m;
}

core::Mat matrix(const json& t) {
    core::Mat m(t.size(), t[0].size());
    for (std::size_t i = 0; i < t.size(); ++i)
        for (std::size_t j = 0; j < t[0].size(); ++j) m(i, j) = t[i][j].get<float>();
    return m;
}

// (fixture name, SIMD path): PyTorch's numbers on every path this machine has.
class TorchReference : public ::testing::TestWithParam<std::tuple<std::string, core::SimdLevel>> {
  protected:
    void SetUp() override {
        previous_ = core::activeSimdLevel();
        ASSERT_TRUE(core::useSimdLevel(std::get<1>(GetParam())));
    }
    void TearDown() override { core::useSimdLevel(previous_); }

  private:
    core::SimdLevel previous_ = core::SimdLevel::Scalar;
};

TEST_P(TorchReference, AttentionAndOutputMatchTo1e5) {
    const std::string name = std::get<0>(GetParam());
    const json f = loadFixture(name);
    core::AttentionInput in;
    in.batch = f["batch"], in.queryLen = f["query_len"], in.keyLen = f["key_len"];
    in.heads = f["heads"];
    in.causal = f["causal"];
    in.x = stack3(f["x"]);
    if (f["cross"].get<bool>()) in.xSource = stack3(f["x_source"]);
    in.keyPadding.resize(in.batch, in.keyLen);
    for (int b = 0; b < in.batch; ++b)
        for (int j = 0; j < in.keyLen; ++j)
            in.keyPadding(b, j) = f["key_padding"][b][j].get<bool>();
    core::Weights w; // no biases, as nn.MultiheadAttention(bias=False)
    w.wQ = matrix(f["w_q"]);
    w.wK = matrix(f["w_k"]);
    w.wV = matrix(f["w_v"]);
    w.wO = matrix(f["w_o"]);

    core::Attention a;
    core::forward(in, w, a);

    const auto worst = testing_support::worstError(
        a, [&](int b, int h, int i, int j) { return f["attention"][b][h][i][j].get<double>(); },
        [&](int b, int i, int c) { return f["output"][b][i][c].get<double>(); });
    EXPECT_LE(worst.weight, 1e-5) << name;
    EXPECT_LE(worst.output, 1e-5) << name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TorchReference,
                         ::testing::Combine(::testing::Values("self", "causal", "padded_batch",
                                                              "padded_batch_causal", "cross",
                                                              "cross_causal", "single_head",
                                                              "head_per_dim", "wide"),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" +
                                    std::string(core::toString(std::get<1>(info.param)));
                         });

} // namespace
