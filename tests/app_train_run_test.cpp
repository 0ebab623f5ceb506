// The Train view's state (app/train_view/train_run.h) driven as the window drives it, one frame()
// at a time: start, pause, step, the steps-per-frame speed, a reset (a new run of the same
// settings), the bounded timeline, and a run folder read back. The numbers are the Trainer's own: a
// row of the Train view equals the one `mha-viz train` writes for the same settings.
#include "cli/train_command.h"
#include "train_view/train_run.h"

#include "io/run_folder.h"

#include "tiny_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace {

namespace train = core::train;

train::TrainSettings tinySettings(int steps = 60) {
    return testing_support::tinyWindowSettings(steps, 20);
}

// Frames (1 ms apart, as fast as a window) until `done` holds; false after a minute, which only
// a hung worker needs: the condition is what the test waits for, never a fixed time.
bool framesUntil(app::TrainRun& run, const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        run.frame();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

std::vector<int> historySteps(const app::TrainRun& run) {
    std::vector<int> steps;
    for (const core::train::TrainSnapshot& s : run.history().all()) steps.push_back(s.step);
    return steps;
}

TEST(TrainRun, StartsReadyWithTheInitialMaps) {
    app::TrainRun run(tinySettings());
    EXPECT_EQ(run.state(), app::TrainState::Ready);
    EXPECT_EQ(run.step(), 0);
    const core::train::ProbeMaps& maps = run.latest().maps;
    ASSERT_EQ(maps.layers, 2);
    ASSERT_EQ(maps.heads, 2);
    ASSERT_EQ(maps.length, 8); // the repeated probe sequence: 4 tokens, then the same 4
    EXPECT_EQ(maps.labels[0], maps.labels[4]);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < maps.length; ++i) { // causal rows of weights: sum 1, future 0
                double sum = 0;
                for (int j = 0; j < maps.length; ++j) {
                    const float w = maps.map(l, h)[i * maps.length + j];
                    if (j > i) {
                        EXPECT_EQ(w, 0.0f);
                    }
                    sum += w;
                }
                EXPECT_NEAR(sum, 1.0, 1e-5);
            }
    EXPECT_EQ(historySteps(run), std::vector<int>{0});
}

TEST(TrainRun, RunsToTheEndWithTheTrainersRows) {
    app::TrainRun run(tinySettings());
    run.start();
    EXPECT_EQ(run.state(), app::TrainState::Running);
    ASSERT_TRUE(framesUntil(run, [&] { return run.state() == app::TrainState::Done; }));
    EXPECT_EQ(run.step(), 60);
    EXPECT_EQ(run.metrics().column("step"), (std::vector<double>{0, 20, 40, 60}));
    EXPECT_EQ(historySteps(run), (std::vector<int>{0, 20, 40, 60}));

    // The same settings stepped here, as `mha-viz train` steps them.
    train::Trainer trainer(tinySettings());
    std::vector<double> heldout = {trainer.probeMetrics().front().value};
    while (!trainer.done()) {
        trainer.update();
        if (trainer.isEvalStep(trainer.step()))
            heldout.push_back(trainer.probeMetrics().front().value);
    }
    const std::vector<double>& shown = run.metrics().column("heldout_loss");
    ASSERT_EQ(shown.size(), heldout.size());
    for (std::size_t i = 0; i < heldout.size(); ++i)
        EXPECT_NEAR(shown[i], heldout[i], 1e-6 * std::abs(heldout[i])) << "row " << i;
    EXPECT_LT(shown.back(), shown.front()); // it learned something
    EXPECT_EQ(run.metrics().names, run.setup().columns);
}

TEST(TrainRun, StepDoesOneUpdateAndPauses) {
    app::TrainRun run(tinySettings());
    run.stepOnce();
    EXPECT_EQ(run.state(), app::TrainState::Paused);
    ASSERT_TRUE(framesUntil(run, [&] { return !run.busy(); })); // done, its maps taken
    EXPECT_EQ(run.step(), 1);
    EXPECT_EQ(run.workerStep(), 1);
    EXPECT_NE(run.latest().maps.weights, run.history().all().front().maps.weights);
    run.stepOnce();
    ASSERT_TRUE(framesUntil(run, [&] { return run.step() == 2; }));
    EXPECT_EQ(run.state(), app::TrainState::Paused);
}

TEST(TrainRun, PauseStopsAndStartGoesOn) {
    app::TrainRun run(tinySettings(100000));
    run.start();
    ASSERT_TRUE(framesUntil(run, [&] { return run.workerStep() >= 30; }));
    run.pause();
    EXPECT_EQ(run.state(), app::TrainState::Paused);
    // After the update under way, the worker stops and shows where it stopped.
    ASSERT_TRUE(framesUntil(run, [&] { return run.step() == run.workerStep(); }));
    const int stopped = run.workerStep();
    for (int i = 0; i < 20; ++i) run.frame();
    EXPECT_EQ(run.workerStep(), stopped);
    run.start();
    ASSERT_TRUE(framesUntil(run, [&] { return run.workerStep() > stopped; }));
}

// A pause that finds the worker between updates (here: slow motion, this frame's update spent)
// still shows the step the run stopped at, not the last row's: Step then goes one on from it.
TEST(TrainRun, APauseBetweenUpdatesShowsTheStepItStoppedAt) {
    app::TrainRun run(tinySettings(100000)); // a row every 20 steps
    run.setStepsPerFrame(1);
    run.start(); // grants one update; no frame() grants another
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (run.workerStep() < 1 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(run.workerStep(), 1);
    run.pause();
    ASSERT_TRUE(framesUntil(run, [&] { return !run.busy(); }));
    EXPECT_EQ(run.step(), 1);
    EXPECT_EQ(run.workerStep(), 1);
    EXPECT_NE(run.latest().maps.weights, run.history().all().front().maps.weights);
    run.stepOnce();
    ASSERT_TRUE(framesUntil(run, [&] { return !run.busy(); }));
    EXPECT_EQ(run.step(), 2);
}

TEST(TrainRun, StepsPerFrameLimitTheSpeed) {
    app::TrainRun run(tinySettings(100000));
    run.setStepsPerFrame(2);
    run.start();
    for (int frame = 1; frame <= 10; ++frame) {
        run.frame();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        EXPECT_LE(run.workerStep(), 2 * frame + 2); // this frame's grant and the start's
    }
    ASSERT_TRUE(framesUntil(run, [&] { return run.workerStep() >= 20; }));
}

TEST(TrainRun, NoUpdateStartsWhileAFrameIsDrawn) {
    app::TrainRun run(tinySettings(100000));
    run.start();
    ASSERT_TRUE(framesUntil(run, [&] { return run.workerStep() >= 5; }));
    run.beginFrame();
    const int atBegin = run.workerStep();
    std::this_thread::sleep_for(std::chrono::milliseconds(100)); // dozens of updates' time
    EXPECT_LE(run.workerStep(), atBegin + 1);                    // the one under way may finish
    run.endFrame();
    ASSERT_TRUE(framesUntil(run, [&] { return run.workerStep() > atBegin + 1; }));
}

TEST(TrainRun, BackToBackFramesDoNotStarveTheWorker) {
    app::TrainRun run(tinySettings(100000));
    run.start();
    // A slow machine: each frame begins the moment the last one ended, no time between them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (run.workerStep() < 20 && std::chrono::steady_clock::now() < deadline) {
        run.beginFrame();
        run.frame();
        run.endFrame();
    }
    EXPECT_GE(run.workerStep(), 20);
    run.pause();
    ASSERT_TRUE(framesUntil(run, [&] { return run.step() == run.workerStep(); }));
    const int paused = run.workerStep();
    run.stepOnce(); // a Step between back-to-back frames happens too
    while (run.workerStep() == paused && std::chrono::steady_clock::now() < deadline) {
        run.beginFrame();
        run.frame();
        run.endFrame();
    }
    EXPECT_EQ(run.workerStep(), paused + 1);
}

TEST(TrainRun, AResetRunRepeatsItsNumbers) {
    std::vector<double> first;
    for (int attempt = 0; attempt < 2; ++attempt) {
        app::TrainRun run(tinySettings(40));
        run.start();
        ASSERT_TRUE(framesUntil(run, [&] { return run.state() == app::TrainState::Done; }));
        const std::vector<double> loss = run.metrics().column("train_loss");
        if (attempt == 0) {
            first = loss;
        } else {
            EXPECT_EQ(loss, first);
        }
    }
}

TEST(TrainRun, BadSettingsAreNamedLikeTheCli) {
    train::TrainSettings s = tinySettings();
    s.model.heads = 3; // does not divide 16
    try {
        app::TrainRun run(s);
        FAIL() << "accepted 3 heads of d_model 16";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("--heads"), std::string::npos) << e.what();
    }
}

TEST(TrainRun, ReadsARunFolderBack) {
    const std::string dir = testing::TempDir() + "train_run_folder_" + std::to_string(getpid());
    std::filesystem::remove_all(dir);
    app::TrainOptions options;
    options.settings = tinySettings();
    options.settings.checkpointEvery = 20;
    options.outDir = dir;
    std::ostringstream log;
    ASSERT_EQ(app::runTraining(options, std::atomic<bool>{false}, log, false), 0) << log.str();
    const std::unique_ptr<app::TrainRun> run = app::TrainRun::fromFolder(dir);
    EXPECT_EQ(run->state(), app::TrainState::Done);
    EXPECT_EQ(historySteps(*run), (std::vector<int>{0, 20, 40, 60}));
    EXPECT_EQ(run->metrics().column("heldout_loss"), core::readMetrics(dir).column("heldout_loss"));
    EXPECT_EQ(run->step(), 60);
    std::filesystem::remove_all(dir);
    EXPECT_THROW(app::TrainRun::fromFolder(dir), std::exception);
}

} // namespace
