// The engine's SIMD paths (core/engine/simd.h): every kernel this CPU can run is loaded, and the
// traces of every path agree with the scalar reference path within 1e-6, masked weights
// exactly 0 on each.
#include "build_facts.h"
#include "engine/simd.h"
#include "engine/trace.h"
#include "io/scene_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace {

using core::SimdLevel;

bool has(const std::vector<SimdLevel>& levels, SimdLevel level) {
    return std::find(levels.begin(), levels.end(), level) != levels.end();
}

// Runs `scene` on `level`, then switches back to the path active before.
core::Trace runOn(SimdLevel level, const core::Scene& scene) {
    const SimdLevel previous = core::activeSimdLevel();
    EXPECT_TRUE(core::useSimdLevel(level));
    core::Trace trace = core::run(scene);
    core::useSimdLevel(previous);
    return trace;
}

// max |a - b| relative to the tensor's own scale, max(1, max |b|): float sums in another order
// differ by a few ulps of the largest terms, not of each (possibly cancelled) result. For the
// attention weights, in [0, 1], this is the plain absolute difference.
double worstDifference(const core::Mat& a, const core::Mat& b) {
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    if (a.size() == 0) return 0.0;
    if (!a.allFinite() || !b.allFinite()) return INFINITY; // maxCoeff may skip a NaN
    return double((a - b).cwiseAbs().maxCoeff() / std::max(1.0f, b.cwiseAbs().maxCoeff()));
}

// Every intermediate of the trace on `level` against the scalar path's, and exact zeros.
void expectSameTrace(SimdLevel level, const core::Scene& scene, const std::string& what) {
    const core::Trace ref = runOn(SimdLevel::Scalar, scene), got = runOn(level, scene);
    const core::Attention &a = got.attention, &r = ref.attention;
    const std::pair<const char*, std::pair<const core::Mat*, const core::Mat*>> tensors[] = {
        {"q", {&a.q, &r.q}},
        {"k", {&a.k, &r.k}},
        {"v", {&a.v, &r.v}},
        {"scores", {&a.scores, &r.scores}},
        {"attention", {&a.attention, &r.attention}},
        {"head_outputs", {&a.headOutputs, &r.headOutputs}},
        {"concat", {&a.concat, &r.concat}},
        {"output", {&a.output, &r.output}}};
    for (const auto& [name, pair] : tensors)
        EXPECT_LE(worstDifference(*pair.first, *pair.second), 1e-6)
            << what << ": " << name << " on " << core::toString(level);
    for (int b = 0; b < a.batch; ++b)
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i)
                for (int j = 0; j < a.keyLen; ++j) {
                    if (!a.masked(b, i, j)) continue;
                    ASSERT_EQ(a.attention(a.headRow(b, h, i), j), 0.0f)
                        << what << " on " << core::toString(level) << ": masked (" << b << ", " << h
                        << ", " << i << ", " << j << ")";
                }
}

// A causal, padded batch big enough for the threaded per-head loop and long GEMM rows.
core::Scene largeCausalBatch() {
    core::Scene scene;
    std::ostringstream longText;
    for (int i = 0; i < 90; ++i) longText << "word" << i % 17 << ' ';
    scene.sentences = {longText.str(), "a short one", core::kDemoSentence};
    scene.d_model = 128;
    scene.heads = 8;
    scene.mask = core::MaskKind::Causal;
    return scene;
}

} // namespace

TEST(SimdPaths, ScalarReferenceAndAVectorisedPathAreBothHere) {
    const auto levels = core::availableSimdLevels();
    EXPECT_TRUE(has(levels, SimdLevel::Scalar)) << core::simdSummary();
    EXPECT_TRUE(has(levels, SimdLevel::Sse2) || has(levels, SimdLevel::Avx2) ||
                has(levels, SimdLevel::Avx512))
        << core::simdSummary();
}

TEST(SimdPaths, EveryKernelBuiltAndRunnableHereIsLoaded) {
    // The kernels this build made, comma-separated.
    std::istringstream built(build_facts::engineLevels());
    for (std::string name; std::getline(built, name, ',');) {
        const auto level = core::parseEnum<core::SimdLevel>(name);
        ASSERT_TRUE(level) << name;
        if (!core::cpuRuns(*level)) continue;
        EXPECT_TRUE(has(core::availableSimdLevels(), *level))
            << name
            << " was built and this CPU runs it, but it is not loaded: " << core::simdSummary();
    }
}

TEST(SimdPaths, TheBestPathIsActiveByDefault) {
    if (std::getenv("MHA_SIMD")) GTEST_SKIP() << "MHA_SIMD chooses the path";
    EXPECT_EQ(core::activeSimdLevel(), core::availableSimdLevels().back()) << core::simdSummary();
}

TEST(SimdPaths, UnavailableLevelIsRefusedAndChangesNothing) {
    const SimdLevel before = core::activeSimdLevel();
    for (SimdLevel level : {SimdLevel::Sse2, SimdLevel::Avx2, SimdLevel::Avx512})
        if (!has(core::availableSimdLevels(), level)) {
            EXPECT_FALSE(core::useSimdLevel(level));
        }
    EXPECT_EQ(core::activeSimdLevel(), before);
}

TEST(SimdPaths, LevelNamesRoundTrip) {
    for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx2, SimdLevel::Avx512})
        EXPECT_EQ(core::parseEnum<core::SimdLevel>(core::toString(level)), level);
    EXPECT_FALSE(core::parseEnum<core::SimdLevel>("avx9"));
}

TEST(SimdPaths, EveryDemoSceneGivesTheScalarTraceOnEveryPath) {
    for (const char* name : core::kDemoScenes)
        for (SimdLevel level : core::availableSimdLevels())
            expectSameTrace(level, core::demoScene(name), name);
}

TEST(SimdPaths, LargeCausalPaddedBatchGivesTheScalarTraceOnEveryPath) {
    for (SimdLevel level : core::availableSimdLevels())
        expectSameTrace(level, largeCausalBatch(), "large causal batch");
}
