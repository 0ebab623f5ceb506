// app::ComparisonRunner, the A-B tab's model B, without a window: the random GPT-2 fixture in F32
// (A, shown by a ModelRunner as the window shows it) against its BF16 copy (B). The comparison
// on the worker is core's compareTraces of the two whole forwards; B follows the text shown;
// B's layers are those of its trace; a B of another shape is refused and the B before kept.
#include "build_facts.h"
#include "explorer/comparison_runner.h"
#include "explorer/model_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;

const fs::path kFixtures = fs::path(build_facts::fixtureDir()) / "gpt2";

// Polls like the frame loop until `done`.
template <class Done>
void pollUntil(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool finished = false; // done() is asked once per poll: it may take what it waits for
    while (!(finished = done()) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_TRUE(finished) << "not within 120 s";
}

// A's trace of `text` as the window shows it (predictions made).
std::shared_ptr<const models::RealTrace> shownTrace(app::ModelRunner& a, const std::string& text) {
    pollUntil([&] {
        a.update({text});
        return !a.working() && a.realTrace() && a.realTrace()->text == text &&
               !a.realTrace()->predictionsPending;
    });
    return a.realTrace();
}

std::shared_ptr<const app::ModelComparison>
comparedOn(app::ComparisonRunner& runner, const std::shared_ptr<const models::RealModel>& modelA,
           const std::shared_ptr<const models::RealTrace>& traceA) {
    pollUntil([&] {
        runner.update(modelA, traceA);
        return runner.result() && app::sameRun(*traceA, *runner.result()->traceA);
    });
    return runner.result();
}

void loadB(app::ComparisonRunner& runner, const fs::path& dir, const models::RealModel& a,
           std::string& outcome) {
    runner.open(dir.string());
    pollUntil([&] {
        const auto loaded = runner.takeLoaded(&a);
        if (loaded) outcome = *loaded;
        return loaded.has_value();
    });
}

TEST(AppComparisonRunner, ComparesTheShownTraceWithModelBAsCoreDoes) {
    std::shared_ptr<const models::RealModel> modelA =
        models::openRealModel((kFixtures / "f32").string());
    app::ModelRunner a;
    a.openReal(modelA);
    app::ComparisonRunner runner;
    std::string outcome = "not loaded";
    loadB(runner, kFixtures / "bf16_shards", *modelA, outcome);
    ASSERT_EQ(outcome, "") << "B read";
    ASSERT_TRUE(runner.hasModel());

    const std::string text = "The cat sat on the mat because it was warm";
    const auto traceA = shownTrace(a, text);
    const auto result = comparedOn(runner, modelA, traceA);
    EXPECT_TRUE(runner.error().empty()) << runner.error();
    const models::RealTrace wholeA = models::traceRealModel(*modelA, text);
    const models::RealTrace wholeB = models::traceRealModel(runner.model(), text);
    const models::TraceComparison expected = models::compareTraces(wholeA, wholeB);
    ASSERT_EQ(result->heads.ranked.size(), expected.ranked.size());
    EXPECT_TRUE(result->heads.totalVariation.isApprox(expected.totalVariation, 1e-6f));
    EXPECT_GT(expected.ranked.front().meanTotalVariation, 0.0) << "BF16 moves the heads a little";
    EXPECT_EQ(result->heads.positions, int(wholeA.ids.size())) << "A's predictions compared";

    for (int l = 0; l < modelA->config().layers; ++l) { // B's layers: its trace's
        std::shared_ptr<const core::Trace> layer;
        pollUntil([&] { return (layer = runner.layerOfB(l)) != nullptr; });
        EXPECT_TRUE(
            layer->attention.attention.isApprox(wholeB.layer(l)->attention.attention, 1e-6f))
            << "layer " << l;
    }

    const std::string longer = text + " and the dog slept";
    const auto next = comparedOn(runner, modelA, shownTrace(a, longer)); // B follows the text
    EXPECT_EQ(next->traceB->text, longer);
    EXPECT_EQ(next->heads.tokens, int(a.realTrace()->ids.size()));
}

TEST(AppComparisonRunner, ABOfAnotherShapeIsRefusedAndTheOneBeforeKept) {
    std::shared_ptr<const models::RealModel> modelA =
        models::openRealModel((kFixtures / "f32").string());
    app::ComparisonRunner runner;
    std::string outcome;
    loadB(runner, kFixtures / "f16", *modelA, outcome);
    ASSERT_EQ(outcome, "");
    const fs::path oneLayer = fs::temp_directory_path() / "mha-viz-compare-one-layer";
    fs::remove_all(oneLayer);
    fs::copy(kFixtures / "f32", oneLayer);
    std::string config;
    {
        std::ifstream in(oneLayer / "config.json");
        config.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t at = config.find("\"n_layer\": 2");
    ASSERT_NE(at, std::string::npos) << config;
    config.replace(at, 12, "\"n_layer\": 1"); // its second layer's tensors are left unread
    std::ofstream(oneLayer / "config.json") << config;
    loadB(runner, oneLayer, *modelA, outcome);
    EXPECT_NE(outcome.find("1 layer x 4 heads, the open model 2 x 4"), std::string::npos)
        << outcome;
    ASSERT_TRUE(runner.hasModel());
    EXPECT_EQ(runner.model().location.source, (kFixtures / "f16").string()) << "the B before stays";
    loadB(runner, "/no/such/model", *modelA, outcome);
    EXPECT_NE(outcome.find("/no/such/model"), std::string::npos) << outcome;
    EXPECT_TRUE(runner.hasModel());
    fs::remove_all(oneLayer);
}

} // namespace
