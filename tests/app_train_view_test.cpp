// The Train view's state without a window (app/train_view/train_view.h): reset with good and bad
// settings, scrubbing the timeline and playing it back, the curves cut at the step shown, heads
// switched off (the maps of later layers change, the held-out loss is measured on a worker), the
// demo scenes' training settings.
#include "train_view/train_view.h"

#include "io/scene_json.h"
#include "io/train_scene.h"

#include "tiny_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

namespace {

namespace train = core::train;

train::TrainSettings tinySettings(int steps = 100) {
    return testing_support::tinyWindowSettings(steps, 10);
}

bool until(const std::function<bool()>& done, app::TrainView* view = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        if (view && view->run) view->run->frame();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// A view whose run has finished: snapshots at 0, 10, ..., 100.
app::TrainView trainedView() {
    app::TrainView view;
    view.settings = tinySettings();
    EXPECT_TRUE(app::resetRun(view));
    view.run->start();
    EXPECT_TRUE(until([&] { return view.run->state() == app::TrainState::Done; }, &view));
    return view;
}

TEST(TrainView, BadSettingsKeepTheRunShown) {
    app::TrainView view;
    view.settings = tinySettings();
    ASSERT_TRUE(app::resetRun(view));
    const app::TrainRun* before = view.run.get();
    view.settings.model.seq = 1;
    EXPECT_FALSE(app::resetRun(view));
    EXPECT_EQ(view.run.get(), before);
    EXPECT_NE(view.settingsError.find("--seq"), std::string::npos) << view.settingsError;
    view.settings.model.seq = 8;
    EXPECT_TRUE(app::resetRun(view));
    EXPECT_TRUE(view.settingsError.empty());
    EXPECT_EQ(view.run->state(), app::TrainState::Ready);
}

TEST(TrainView, ScrubsThroughTheTimeline) {
    app::TrainView view = trainedView();
    EXPECT_EQ(app::shownStep(view), 100); // live
    app::scrubTo(view, 45);
    EXPECT_EQ(view.scrubStep, 40); // the snapshot at or before
    EXPECT_EQ(app::shownStep(view), 40);
    EXPECT_EQ(app::shownSnapshot(view)->step, 40);
    app::scrubBy(view, -1);
    EXPECT_EQ(app::shownStep(view), 30);
    app::scrubBy(view, 100);
    EXPECT_EQ(view.scrubStep, -1); // past the newest: live again
    app::scrubBy(view, -1);
    EXPECT_EQ(app::shownStep(view), 90);
    app::scrubTo(view, 0);
    EXPECT_EQ(app::shownStep(view), 0);

    // The curves as they were: rows up to the step shown.
    const core::CsvTable rows = app::rowsUpTo(view.run->metrics(), 40);
    EXPECT_EQ(rows.column("step"), (std::vector<double>{0, 10, 20, 30, 40}));
    EXPECT_EQ(rows.names, view.run->metrics().names);
}

TEST(TrainView, PlaysBackToTheNewest) {
    app::TrainView view = trainedView();
    app::scrubTo(view, 0);
    view.playing = true;
    double now = 0;
    for (int frame = 0; frame < 100 && view.playing; ++frame)
        app::advancePlayback(view, now += 0.1, 0.08);
    EXPECT_FALSE(view.playing);
    EXPECT_EQ(view.scrubStep, -1);
}

TEST(TrainView, SwitchedOffHeadsChangeLaterLayersAndTheLoss) {
    app::TrainView view = trainedView();
    const core::train::ProbeMaps before = app::shownMaps(view);
    const std::uint64_t keyBefore = app::mapsKeyOf(view);
    app::toggleAblated(view, 0, 1);
    EXPECT_TRUE(app::isAblated(view, 0, 1));
    EXPECT_NE(app::mapsKeyOf(view), keyBefore);
    const core::train::ProbeMaps after = app::shownMaps(view);
    const std::size_t layer = std::size_t(before.heads) * before.length * before.length;
    // Layer 1's maps do not depend on its own heads' outputs; layer 2 reads them.
    EXPECT_TRUE(
        std::equal(before.weights.begin(), before.weights.begin() + layer, after.weights.begin()));
    EXPECT_FALSE(std::equal(before.weights.begin() + layer, before.weights.end(),
                            after.weights.begin() + layer));
    ASSERT_TRUE(until([&] {
        app::updateAblation(view);
        return view.ablationShown.ablated == view.ablated;
    }));
    const app::AblationResult& r = view.ablationShown;
    EXPECT_EQ(r.step, 100);
    EXPECT_NE(r.with.heldoutLoss, r.without.heldoutLoss);
    EXPECT_DOUBLE_EQ(r.without.heldoutLoss, view.run->metrics().column("heldout_loss").back());
    app::toggleAblated(view, 0, 1);
    EXPECT_FALSE(app::isAblated(view, 0, 1));
    EXPECT_EQ(app::mapsKeyOf(view), keyBefore);
}

TEST(TrainView, PruningCurveOfTheShownModel) {
    app::TrainView view = trainedView();
    app::scrubTo(view, 50);
    app::startPruning(view);
    ASSERT_TRUE(until([&] {
        app::updatePruning(view);
        return !view.pruning;
    }));
    EXPECT_EQ(view.pruningStep, 50);
    EXPECT_EQ(view.pruningShown.pruning.size(), 4u); // 2 layers x 2 heads
}

TEST(TrainScene, DemoScenesCarryTheirRuns) {
    const auto induction =
        core::sceneTrainSettings(core::sceneAsset("scenes/induction-heads-form.json"));
    ASSERT_TRUE(induction);
    EXPECT_EQ(induction->task, train::TaskKind::Induction);
    EXPECT_EQ(induction->model.layers, 2);
    const auto agreement =
        core::sceneTrainSettings(core::sceneAsset("scenes/subject-verb-agreement.json"));
    ASSERT_TRUE(agreement);
    EXPECT_EQ(agreement->task, train::TaskKind::Agreement);
    EXPECT_EQ(agreement->model.layers, 1);
    EXPECT_FALSE(core::sceneTrainSettings(core::sceneAsset("scenes/causal-mask.json")));
    // What trainSettingsJson writes reads back the same.
    const auto again =
        core::sceneTrainSettings("{\"train\": " + core::trainSettingsJson(*induction) + "}");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->steps, induction->steps);
    EXPECT_EQ(again->evalEvery, induction->evalEvery);
}

TEST(TrainScene, BadTrainValuesAreNamed) {
    const auto message = [](const std::string& train) {
        try {
            core::sceneTrainSettings("{\"train\": " + train + "}");
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("{\"layers\": 0}").find("--layers"), std::string::npos);
    EXPECT_NE(message("{\"heads\": 5}").find("--heads"), std::string::npos);
    EXPECT_NE(message("{\"task\": \"poetry\"}").find("\"task\""), std::string::npos);
    EXPECT_NE(message("{\"lr\": \"fast\"}").find("\"lr\""), std::string::npos);
    EXPECT_NE(message("{\"seed\": -1}").find("\"seed\""), std::string::npos);
    EXPECT_NE(message("[1]").find("object"), std::string::npos);
}

} // namespace

// R (or a demo, or a load) after a finished run: the run is kept, and Ctrl+Z brings it back as
// it was, its curves and timeline whole; Ctrl+Z again returns to the run that replaced it.
TEST(TrainView, AResetRunComesBackWithUndo) {
    app::TrainView view = trainedView();
    const app::TrainRun* finished = view.run.get();
    const std::size_t rows = view.run->metrics().rows();
    view.settings.seed += 1;
    ASSERT_TRUE(app::resetRun(view));
    EXPECT_EQ(view.replaced.get(), finished);
    EXPECT_EQ(view.run->step(), 0);

    ASSERT_TRUE(app::undoReplacedRun(view));
    EXPECT_EQ(view.run.get(), finished);
    EXPECT_EQ(view.run->step(), 100);
    EXPECT_EQ(view.run->metrics().rows(), rows);
    EXPECT_EQ(view.settings.seed, finished->settings().seed); // the controls follow the run
    EXPECT_EQ(view.replaced, nullptr); // the fresh run had not trained: nothing to keep

    view.run->start(); // nothing to do: it is done; a new reset keeps it again
    ASSERT_TRUE(app::resetRun(view));
    view.run->stepOnce();
    ASSERT_TRUE(until([&] { return view.run->workerStep() == 1; }, &view));
    ASSERT_TRUE(app::undoReplacedRun(view));
    EXPECT_EQ(view.run.get(), finished);
    ASSERT_NE(view.replaced, nullptr); // the one-step run: Ctrl+Z again brings it back
    EXPECT_EQ(view.replaced->workerStep(), 1);
    app::TrainView fresh;
    EXPECT_FALSE(app::undoReplacedRun(fresh)); // nothing replaced yet
}
