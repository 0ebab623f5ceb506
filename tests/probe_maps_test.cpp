// A model's maps on its probe sequence (train/probe_maps.h): the forward's own attention, causal
// rows that sum to 1, labelled in the task's vocabulary; and a snapshot made from them.
#include "train/probe_maps.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

namespace train = core::train;

train::TrainSettings tinySettings(train::TaskKind task) {
    train::TrainSettings s;
    s.task = task;
    s.model.d_model = 16, s.model.heads = 2, s.model.layers = 2;
    s.model.seq = task == train::TaskKind::Agreement ? 24 : 12;
    return s;
}

TEST(ProbeMaps, AreTheForwardsAttentionOnTheMapSequence) {
    for (const train::TaskKind task : {train::TaskKind::Induction, train::TaskKind::Agreement}) {
        const auto setup = train::makeRunSetup(tinySettings(task));
        const train::Params params = train::initParams(setup->settings.model, 3);
        const train::ProbeMaps maps = train::probeMaps(setup->settings.model, params,
                                                       setup->mapSequence, setup->task.vocab());
        ASSERT_EQ(maps.length, setup->settings.model.seq);
        ASSERT_EQ(int(maps.labels.size()), maps.length);
        const train::ForwardPass pass =
            train::forwardPass(setup->settings.model, params, setup->mapSequence);
        for (int l = 0; l < maps.layers; ++l)
            for (int h = 0; h < maps.heads; ++h)
                for (int i = 0; i < maps.length; ++i) {
                    double sum = 0;
                    for (int j = 0; j < maps.length; ++j) {
                        const float w = maps.map(l, h)[i * maps.length + j];
                        EXPECT_EQ(w, pass.heads[std::size_t(l)].attention(
                                         pass.heads[std::size_t(l)].headRow(0, h, i), j));
                        if (j > i) {
                            EXPECT_EQ(w, 0.0f); // causal
                        }
                        sum += w;
                    }
                    EXPECT_NEAR(sum, 1.0, 1e-5);
                }
        EXPECT_EQ(maps.labels.front(),
                  setup->task.vocab()[std::size_t(setup->mapSequence.tokens[0][0])]);
    }
}

TEST(ProbeMaps, SwitchedOffHeadsChangeTheLaterLayersOnly) {
    const auto setup = train::makeRunSetup(tinySettings(train::TaskKind::Induction));
    const train::Params params = train::initParams(setup->settings.model, 5);
    const auto& vocab = setup->task.vocab();
    const train::ProbeMaps all =
        train::probeMaps(setup->settings.model, params, setup->mapSequence, vocab);
    const train::ProbeMaps off =
        train::probeMaps(setup->settings.model, params, setup->mapSequence, vocab, {{0}, {}});
    const std::size_t layer = std::size_t(all.heads) * all.length * all.length;
    EXPECT_TRUE(std::equal(all.weights.begin(), all.weights.begin() + long(layer),
                           off.weights.begin())); // layer 1 computes as before
    EXPECT_FALSE(std::equal(all.weights.begin() + long(layer), all.weights.end(),
                            off.weights.begin() + long(layer)));
}

TEST(ProbeMaps, ASnapshotHoldsItsStepParamsAndMaps) {
    const auto setup = train::makeRunSetup(tinySettings(train::TaskKind::Induction));
    auto params = std::make_shared<const train::Params>(
        train::initParams(setup->settings.model, setup->settings.seed));
    const train::TrainSnapshot s = train::snapshotOf(7, params, *setup);
    EXPECT_EQ(s.step, 7);
    EXPECT_EQ(s.params, params);
    EXPECT_EQ(s.maps.weights, train::probeMaps(setup->settings.model, *params, setup->mapSequence,
                                               setup->task.vocab())
                                  .weights);
    EXPECT_EQ(setup->columns.front(), "step");
    EXPECT_THROW(train::makeRunSetup([] {
                     train::TrainSettings bad = tinySettings(train::TaskKind::Induction);
                     bad.model.heads = 3;
                     return bad;
                 }()),
                 std::invalid_argument);
}

} // namespace
