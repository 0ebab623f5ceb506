// The engine against PyTorch's nn.MultiheadAttention(batch_first=True, bias=False), and against
// float64 torch written from the definitions for what that module cannot do: grouped-query and
// multi-query attention, a head size of its own, biases, rotary positions (rotate_half,
// interleaved, partial) and a score bias. Fixtures come from make_torch_fixtures.py and
// make_torch_gqa_fixtures.py (float64 torch on float32 inputs) and are committed, so this test
// needs no torch.
#include "engine/attention.h"

#include "build_facts.h"
#include "engine/reference.h"
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

// A bias vector, or empty when the fixture has none.
core::RowVec rowOrEmpty(const json& f, const char* key) {
    if (!f.contains(key)) return {};
    core::RowVec b(f[key].size()); // 1 x n
    for (std::size_t i = 0; i < f[key].size(); ++i) b[Eigen::Index(i)] = f[key][i].get<float>();
    return b;
}

// The parts of today's models (make_torch_gqa_fixtures.py), absent from the older fixtures.
void readModernParts(const json& f, core::AttentionInput& in, core::Weights& w) {
    w.bQ = rowOrEmpty(f, "b_q");
    w.bK = rowOrEmpty(f, "b_k");
    w.bV = rowOrEmpty(f, "b_v");
    w.bO = rowOrEmpty(f, "b_o");
    if (f.contains("rotary_cos")) {
        in.rotation.cos = matrix(f["rotary_cos"]); // N x r/2
        in.rotation.sin = matrix(f["rotary_sin"]); // N x r/2
        in.rotation.interleaved = f["rotary_interleaved"];
    }
    if (f.contains("score_bias")) in.scoreBias = matrix(f["score_bias"]); // (H*N) x M
    if (f.contains("scale")) in.scaleValue = f["scale"].get<float>();
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

struct Case {
    core::AttentionInput in;
    core::Weights w;
};

Case loadCase(const json& f) {
    Case c;
    core::AttentionInput& in = c.in;
    in.batch = f["batch"], in.queryLen = f["query_len"], in.keyLen = f["key_len"];
    in.heads = f["heads"];
    in.causal = f["causal"];
    in.x = stack3(f["x"]);
    if (f["cross"].get<bool>()) in.xSource = stack3(f["x_source"]);
    in.keyPadding.resize(in.batch, in.keyLen);
    for (int b = 0; b < in.batch; ++b)
        for (int j = 0; j < in.keyLen; ++j)
            in.keyPadding(b, j) = f["key_padding"][b][j].get<bool>();
    c.w.wQ = matrix(f["w_q"]); // no biases unless the fixture has them
    c.w.wK = matrix(f["w_k"]);
    c.w.wV = matrix(f["w_v"]);
    c.w.wO = matrix(f["w_o"]);
    readModernParts(f, in, c.w);
    return c;
}

TEST_P(TorchReference, AttentionAndOutputMatchTo1e5) {
    const std::string name = std::get<0>(GetParam());
    const json f = loadFixture(name);
    const Case c = loadCase(f);
    core::Attention a;
    core::forward(c.in, c.w, a);
    EXPECT_EQ(a.kvHeads, f.value("kv_heads", c.in.heads)) << name;
    EXPECT_EQ(a.d_head, f.value("d_head", int(f["d_model"]) / c.in.heads)) << name;

    const auto worst = testing_support::worstError(
        a, [&](int b, int h, int i, int j) { return f["attention"][b][h][i][j].get<double>(); },
        [&](int b, int i, int c) { return f["output"][b][i][c].get<double>(); });
    EXPECT_LE(worst.weight, 1e-5) << name;
    EXPECT_LE(worst.output, 1e-5) << name;
}

// The readable reference (engine/reference.h) computes in double from the same definitions: it
// agrees with torch far closer than the engine's float.
TEST(TorchReferenceReadable, GroupedQueryRotaryAndBiasFixturesTo1e9) {
    for (const char* name : {"gqa_biases", "mqa", "head_size", "rotary",
                             "rotary_interleaved_partial", "score_bias", "gqa_rotary_long"}) {
        const json f = loadFixture(name);
        const Case c = loadCase(f);
        const core::reference::Forward r = core::reference::forward(c.in, c.w);
        double weight = 0, output = 0;
        for (int b = 0; b < r.batch; ++b)
            for (int h = 0; h < r.heads; ++h)
                for (int i = 0; i < r.queryLen; ++i) {
                    for (int j = 0; j < r.keyLen; ++j)
                        weight =
                            std::max(weight, std::abs(r.attention(r.headRow(b, h, i), j) -
                                                      f["attention"][b][h][i][j].get<double>()));
                    if (h == 0)
                        for (int k = 0; k < r.d_model; ++k)
                            output = std::max(
                                output, std::abs(r.output(Eigen::Index(b) * r.queryLen + i, k) -
                                                 f["output"][b][i][k].get<double>()));
                }
        EXPECT_LE(weight, 1e-9) << name;
        EXPECT_LE(output, 1e-9) << name;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, TorchReference,
    ::testing::Combine(::testing::Values("self", "causal", "padded_batch", "padded_batch_causal",
                                         "cross", "cross_causal", "single_head", "head_per_dim",
                                         "wide", "gqa_biases", "mqa", "head_size", "rotary",
                                         "rotary_interleaved_partial", "score_bias",
                                         "gqa_rotary_long"),
                       ::testing::ValuesIn(core::availableSimdLevels())),
    [](const auto& info) {
        return std::get<0>(info.param) + "_" + std::string(core::toString(std::get<1>(info.param)));
    });

} // namespace
