// SceneRunner without a window: small scenes run in the same call, large ones on a worker,
// a newer edit wins over a running one, and bad input keeps the last good trace.
#include "explorer/scene_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

namespace {

using TracePtr = std::shared_ptr<const core::Trace>;

core::Scene smallScene(const std::string& sentence = "The cat sat.") {
    core::Scene scene;
    scene.d_model = 16, scene.heads = 4;
    scene.sentences = {sentence};
    return scene;
}

// Above the runner's inline bound (estimatedFlops > 1e7) but quick to run: ~20 tokens at 1024.
core::Scene largeScene(int heads = 8) {
    core::Scene scene;
    scene.d_model = 1024, scene.heads = heads;
    scene.sentences = {"the cat sat on the mat and the dog lay by the door as the rain fell "
                       "on the roof of the old house"};
    return scene;
}

// Calls update (as the frame loop does) until the worker is done; true when the trace changed.
bool finishWorker(app::SceneRunner& runner, const core::Scene& scene, TracePtr& trace) {
    bool replaced = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (double now = 1; runner.computing() && std::chrono::steady_clock::now() < deadline;
         now += 0.001) {
        replaced = runner.update(scene, trace, now, true) || replaced;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return replaced;
}

} // namespace

TEST(AppSceneRunner, SmallSceneRunsInTheSameCall) {
    ASSERT_LT(app::estimatedFlops(smallScene()), 1e7);
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    EXPECT_FALSE(runner.computing()); // idle
    const core::Scene scene = smallScene();
    EXPECT_TRUE(runner.update(scene, trace, 0.0, true));
    EXPECT_FALSE(runner.computing());
    EXPECT_FALSE(runner.status().computing);
    EXPECT_EQ(trace->scene, scene);
    EXPECT_EQ(trace->attention.heads, 4);
    EXPECT_TRUE(runner.status().sceneError.empty());
}

TEST(AppSceneRunner, AnUnchangedSceneIsNotRunAgain) {
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    ASSERT_TRUE(runner.update(smallScene(), trace, 0.0, true));
    const TracePtr first = trace;
    EXPECT_FALSE(runner.update(smallScene(), trace, 0.1, true));
    EXPECT_EQ(trace, first); // the same object: nothing to upload

    core::Scene edited = smallScene();
    edited.seed = 2;
    EXPECT_TRUE(runner.update(edited, trace, 0.2, true));
    EXPECT_NE(trace, first);
    EXPECT_EQ(trace->scene, edited);
    EXPECT_EQ(first->scene, smallScene()); // traces are never changed once made
}

TEST(AppSceneRunner, BadSceneKeepsTheLastTraceAndSaysWhy) {
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    ASSERT_TRUE(runner.update(smallScene(), trace, 0.0, true));
    const TracePtr good = trace;
    core::Scene bad = smallScene();
    bad.heads = 3; // does not divide 16
    EXPECT_FALSE(runner.update(bad, trace, 0.1, true));
    EXPECT_EQ(trace, good);
    EXPECT_NE(runner.status().sceneError.find("heads 3"), std::string::npos)
        << runner.status().sceneError;

    EXPECT_TRUE(runner.update(smallScene("Fixed again."), trace, 0.2, true));
    EXPECT_TRUE(runner.status().sceneError.empty()); // the next good run clears it
}

TEST(AppSceneRunner, BlankSentenceGivesAHintNotAnError) {
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    ASSERT_TRUE(runner.update(smallScene(), trace, 0.0, true));
    const TracePtr good = trace;
    EXPECT_FALSE(runner.update(smallScene("   "), trace, 0.1, true));
    EXPECT_EQ(trace, good);
    EXPECT_EQ(runner.status().sceneHint, "Type a sentence to see its attention maps.");
    EXPECT_TRUE(runner.status().sceneError.empty());
}

TEST(AppSceneRunner, LargeSceneRunsOnTheWorkerStampedWithNow) {
    ASSERT_GT(app::estimatedFlops(largeScene()), 1e7);
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    ASSERT_TRUE(runner.update(smallScene(), trace, 0.0, true));
    const TracePtr shown = trace;
    EXPECT_FALSE(runner.update(largeScene(), trace, 12.5, true));
    EXPECT_TRUE(runner.computing());
    EXPECT_TRUE(runner.status().computing);
    EXPECT_EQ(runner.status().computingSince, 12.5);
    EXPECT_EQ(trace, shown); // the last maps stay on screen meanwhile

    EXPECT_TRUE(finishWorker(runner, largeScene(), trace));
    EXPECT_FALSE(runner.computing());
    EXPECT_FALSE(runner.status().computing);
    EXPECT_EQ(trace->scene, largeScene());
}

TEST(AppSceneRunner, WithoutTheWorkerALargeSceneRunsInTheSameCall) {
    app::SceneRunner runner; // start-up and --bench-frames
    TracePtr trace = std::make_shared<const core::Trace>();
    EXPECT_TRUE(runner.update(largeScene(), trace, 0.0, false));
    EXPECT_FALSE(runner.computing());
    EXPECT_EQ(trace->scene, largeScene());
}

TEST(AppSceneRunner, ANewerEditWinsOverTheRunningOne) {
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    EXPECT_FALSE(runner.update(largeScene(), trace, 0.0, true));
    ASSERT_TRUE(runner.computing());
    const core::Scene newer = smallScene("Typed while it computed.");
    runner.update(newer, trace, 0.1, true); // usually still computing: remembered
    finishWorker(runner, newer, trace);
    EXPECT_FALSE(runner.computing());
    EXPECT_EQ(trace->scene, newer); // not the older edit's trace
    EXPECT_FALSE(runner.update(newer, trace, 9.0, true));
}

TEST(AppSceneRunner, AnErrorOnTheWorkerKeepsTheLastTrace) {
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    ASSERT_TRUE(runner.update(smallScene(), trace, 0.0, true));
    const TracePtr good = trace;
    const core::Scene bad = largeScene(3); // 3 does not divide 1024; large, so on the worker
    EXPECT_FALSE(runner.update(bad, trace, 0.1, true));
    EXPECT_TRUE(runner.computing());
    EXPECT_FALSE(finishWorker(runner, bad, trace));
    EXPECT_FALSE(runner.computing());
    EXPECT_EQ(trace, good);
    EXPECT_NE(runner.status().sceneError.find("heads 3"), std::string::npos)
        << runner.status().sceneError;
}

TEST(AppSceneRunner, DestroyingTheRunnerWaitsForItsWorker) {
    TracePtr trace = std::make_shared<const core::Trace>();
    {
        app::SceneRunner runner;
        runner.update(largeScene(), trace, 0.0, true);
        ASSERT_TRUE(runner.computing());
    } // ~SceneRunner waits; the worker holds its own copy of the scene and previous trace
    EXPECT_EQ(trace->attention.heads, 0); // never accepted: the runner is gone
}

TEST(AppSceneRunner, TheBenchmarkedExplorerSceneRunsOnTheWorker) {
    // N 128, d_model 512, H 16: about 1 ms of work, which in a frame fought the GL driver's
    // threads for 11 ms at p95. It goes to the worker; the demo scene stays in the frame.
    core::Scene scene;
    scene.d_model = 512, scene.heads = 16;
    scene.sentences = {"1"};
    for (int i = 2; i <= 128; ++i) scene.sentences.front() += " " + std::to_string(i);
    app::SceneRunner runner;
    TracePtr trace = std::make_shared<const core::Trace>();
    EXPECT_FALSE(runner.update(scene, trace, 0.0, true));
    EXPECT_TRUE(runner.computing());
    EXPECT_TRUE(finishWorker(runner, scene, trace));
    EXPECT_EQ(trace->attention.queryLen, 128);
    EXPECT_LT(app::estimatedFlops(core::Scene{}), 1e7) << "the demo scene runs in the frame";
}
