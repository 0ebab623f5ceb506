// The Train view's state without a window (app/train_view/train_view.h): reset with good and bad
// settings, scrubbing the timeline and playing it back, the curves cut at the step shown, heads
// switched off (the maps of later layers change, the held-out loss is measured on a worker), the
// loss axis that scrubbing does not move, one held-out loss per step, the induction notes, the
// demo scenes' training settings.
#include "train_view/train_view.h"

#include "io/csv_table.h"
#include "io/scene_json.h"
#include "io/train_scene.h"

#include "tiny_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <thread>
#include <tuple>

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

TEST(TrainView, LossAxisIsTheWholeRunsAndStaysPutWhileScrubbing) {
    app::TrainView view = trainedView();
    const core::AxisRange live = app::lossAxis(view);
    const core::CurveFigure liveChart = app::lossChart(view);
    const std::vector<double>& heldout = view.run->metrics().column("heldout_loss");
    for (int step : {0, 30, 60, 90}) {
        app::scrubTo(view, step);
        const core::AxisRange scrubbed = app::lossAxis(view);
        EXPECT_EQ(scrubbed.min, live.min) << step;
        EXPECT_EQ(scrubbed.max, live.max) << step;
        const core::CurveFigure chart = app::lossChart(view);
        ASSERT_TRUE(chart.yRange);
        EXPECT_EQ(chart.yRange->min, live.min);
        // Every row is drawn (the view dims the future), not the rows up to the cursor.
        ASSERT_EQ(chart.series[1].name, "held-out");
        EXPECT_EQ(chart.series[1].points.size(), heldout.size()) << step;
        EXPECT_EQ(chart.series.size(), liveChart.series.size());
    }
    // The axis holds every loss of the run and the chance level.
    const double chance = std::log(64.0); // t0 .. t63
    EXPECT_DOUBLE_EQ(app::runChanceLoss(view), chance);
    for (double v : heldout) EXPECT_TRUE(v >= live.min && v <= live.max) << v;
    EXPECT_LE(live.min, chance);
    EXPECT_GE(live.max, chance);
    const core::CurveSeries& level = liveChart.series.back();
    EXPECT_TRUE(level.level);
    EXPECT_EQ(level.name, "chance ln V = 4.16");
    EXPECT_EQ(level.points.front().y, chance);
    EXPECT_EQ(level.points.back().x, 100); // across the run's steps
    // On the linear scale the axis starts at 0 and also ignores the cursor.
    view.logLoss = false;
    const core::AxisRange linear = app::lossAxis(view);
    app::scrubTo(view, 20);
    EXPECT_EQ(linear.min, 0);
    EXPECT_EQ(app::lossAxis(view).max, linear.max);
    EXPECT_GE(linear.max, chance);
}

TEST(TrainView, OneHeldOutLossPerStep) {
    app::TrainView view = trainedView();
    app::scrubTo(view, 40);
    const int row = app::shownRow(view);
    ASSERT_GE(row, 0);
    const core::CsvTable& m = view.run->metrics();
    EXPECT_EQ(m.column("step")[std::size_t(row)], 40); // the step shown, not the newest (100)
    const double fromRow = m.column("heldout_loss")[std::size_t(row)];
    // The switch-off line measures the shown model; its baseline is the same row's number.
    app::toggleAblated(view, 1, 0);
    ASSERT_TRUE(until([&] {
        app::updateAblation(view);
        return view.ablationShown.ablated == view.ablated;
    }));
    const app::AblationResult& r = view.ablationShown;
    EXPECT_EQ(r.step, 40);
    EXPECT_EQ(app::heldoutAt(view, r.step, r.without.heldoutLoss), fromRow);
    EXPECT_NEAR(r.without.heldoutLoss, fromRow, 1e-6); // same probe set, same forward pass
    // A step with no row (between rows) keeps the measured number.
    EXPECT_EQ(app::heldoutAt(view, 45, 1.25), 1.25);
    app::scrubTo(view, 0);
    EXPECT_EQ(app::shownRow(view), 0);
}

TEST(TrainNotes, TheDropIsMeasuredOnTheAccuracy) {
    const core::CsvTable m =
        core::parseCsv("step,accuracy\n0,0.05\n100,0.12\n200,0.31\n300,0.6\n400,0.86\n500,0.9\n");
    const app::MeasuredDrop drop = app::measureDrop(m);
    EXPECT_EQ(drop.start, 200);
    EXPECT_EQ(drop.end, 400);
    const app::MeasuredDrop none =
        app::measureDrop(core::parseCsv("step,accuracy\n0,0.1\n1,0.2\n"));
    EXPECT_EQ(none.start, -1);
    EXPECT_EQ(none.end, -1);
    EXPECT_EQ(app::measureDrop(core::parseCsv("step,agreement_accuracy\n0,0.9\n")).start, -1);
}

// A loaded induction run whose metrics say: plateau at step 0, drop from step 2 to 4, the
// circuit formed at step 6 (L1H2 previous-token, L2H1 induction).
TEST(TrainNotes, SaidOnlyWhereTheRunShowsThem) {
    const std::string dir = testing_support::freshRunDir("notes");
    testing_support::writeTinyRun(dir, testing_support::tinyRunSettings());
    std::string csv = "step,train_loss,heldout_loss,accuracy";
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) // appended: GCC 12 warns (-Wrestrict) on "L" + std::string
            csv.append(",")
                .append(train::headScoreColumn(l, h, "previous_token"))
                .append(",")
                .append(train::headScoreColumn(l, h, "induction"));
    csv += "\n";
    const std::vector<std::tuple<int, double, double>> rows = {
        {0, 0.05, 0.05}, {2, 0.35, 0.2}, {4, 0.86, 0.6}, {6, 0.9, 0.7}};
    for (const auto& [step, accuracy, score] : rows) {
        csv.append(std::to_string(step)).append(",3,3,").append(std::to_string(accuracy));
        for (int k = 0; k < 16; ++k) // L1H2's previous-token, L2H1's induction scores
            csv.append(",").append(std::to_string(k == 2 || k == 9 ? score : 0.01));
        csv += "\n";
    }
    core::writeFileAtomically(dir + "/metrics.csv", csv);
    app::TrainView view;
    app::adoptRun(view, app::TrainRun::fromFolder(dir));
    view.largeLayer = 1, view.largeHead = 0;
    EXPECT_EQ(app::inductionPhase(view), app::InductionPhase::After); // live: step 6
    app::TrainNotes notes = app::trainNotes(view);
    EXPECT_NE(notes.curves.find("After the drop (steps 2-4)"), std::string::npos) << notes.curves;
    EXPECT_NE(notes.curves.find("L1H2, score 0.70"), std::string::npos) << notes.curves;
    EXPECT_NE(notes.curves.find("layer 2 (L2H1, 0.70)"), std::string::npos) << notes.curves;
    EXPECT_NE(notes.map.find("the token after its earlier copy"), std::string::npos);
    view.largeHead = 1; // a head that did not become an induction head: no stripe to point at
    EXPECT_TRUE(app::trainNotes(view).map.empty());
    view.largeHead = 0;
    app::scrubTo(view, 0);
    EXPECT_EQ(app::inductionPhase(view), app::InductionPhase::Plateau);
    notes = app::trainNotes(view);
    EXPECT_NE(notes.curves.find("Plateau"), std::string::npos);
    EXPECT_NE(notes.curves.find("chance ln V = 4.16"), std::string::npos) << notes.curves;
    EXPECT_TRUE(notes.map.empty());
    // Another task, or one layer: none of it holds.
    core::train::TrainSettings oneLayer = testing_support::tinyRunSettings();
    oneLayer.model.layers = 1;
    view.settings = oneLayer;
    ASSERT_TRUE(app::resetRun(view));
    EXPECT_EQ(app::inductionPhase(view), app::InductionPhase::None);
    EXPECT_TRUE(app::trainNotes(view).curves.empty());
    std::filesystem::remove_all(dir);
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
