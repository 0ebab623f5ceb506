// core::loadTrainedRun: a run folder's model.json and one checkpoint, and the one-line errors
// for a folder that is not one (what `mha-viz --model DIR` and "Open in explorer" report).
#include "io/trained_run.h"

#include "thrown_message.h"
#include "tiny_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

namespace train = core::train;
using testing_support::thrownMessage;

std::string loadError(const std::string& dir, int step = core::kLastCheckpoint) {
    return thrownMessage([&] { core::loadTrainedRun(dir, step); });
}

} // namespace

TEST(TrainedRun, ReadsTheLastCheckpointOrTheStepAsked) {
    const std::string dir = testing_support::freshRunDir("load");
    const train::Trainer trainer =
        testing_support::writeTinyRun(dir, testing_support::tinyRunSettings());
    const core::TrainedRun last = core::loadTrainedRun(dir);
    EXPECT_EQ(last.step, 6);
    EXPECT_EQ(last.dir, dir);
    EXPECT_EQ(last.task, train::TaskKind::Induction);
    EXPECT_EQ(last.model.vocab, trainer.task().vocab());
    EXPECT_EQ(last.model.config.layers, 2);
    EXPECT_EQ(last.model.seed, 1u);
    EXPECT_EQ(last.model.embed, trainer.params().embed);
    EXPECT_EQ(last.model.layers[1]->wV, trainer.params().layers[1].wV);
    EXPECT_EQ(last.model.unembed, trainer.params().unembed);
    const core::TrainedRun first = core::loadTrainedRun(dir, 0);
    EXPECT_EQ(first.step, 0);
    EXPECT_EQ(first.model.pos, train::initParams(trainer.config(), 1).pos);
    EXPECT_EQ(core::checkpointSteps(dir), std::vector<int>({0, 6}));
    std::filesystem::remove_all(dir);
}

TEST(TrainedRun, BadFoldersAreNamedInOneLine) {
    const std::string dir = testing_support::freshRunDir("bad");
    EXPECT_EQ(loadError(dir), "model folder '" + dir + "' does not exist");
    std::filesystem::create_directories(dir);
    EXPECT_EQ(loadError(dir),
              "cannot read '" + dir + "/model.json'; is it a run folder of mha-viz train?");
    testing_support::writeTinyRun(dir + "/run", testing_support::tinyRunSettings());
    const std::string run = dir + "/run";
    EXPECT_EQ(loadError(run, 3), "'" + run + "' has no checkpoint at step 3; it has steps 0, 6");
    { // a checkpoint cut short
        std::ofstream(run + "/" + core::checkpointFileName(6), std::ios::trunc) << "12345";
    }
    EXPECT_NE(loadError(run).find("checkpoint-000006.safetensors"), std::string::npos)
        << loadError(run);
    std::filesystem::remove(run + "/" + core::checkpointFileName(6));
    std::filesystem::remove(run + "/" + core::checkpointFileName(0));
    EXPECT_EQ(loadError(run), "'" + run + "' has no checkpoint-SSSSSS.safetensors");
    { std::ofstream(run + "/model.json", std::ios::trunc) << "{\"format\": \"other\"}"; }
    EXPECT_EQ(loadError(run), "'" + run + "': model.json: not an mha-model version 1 file");
    std::filesystem::remove_all(dir);
}
