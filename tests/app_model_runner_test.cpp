// app::ModelRunner: a trained model in the window, without a window: traces per layer on
// the sentences typed, hints and errors that keep the last maps, and what the panels show of it.
#include "explorer/model_runner.h"
#include "session/shortcuts.h"

#include "build_facts.h"
#include "tiny_run.h"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace {

namespace train = core::train;

class AppTrainedModelRunner : public testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = testing_support::freshRunDir("explorer");
        testing_support::writeTinyRun(dir_,
                                      testing_support::tinyRunSettings(train::TaskKind::Agreement));
        run_ = std::make_shared<const core::TrainedRun>(core::loadTrainedRun(dir_));
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
    static std::string dir_;
    static std::shared_ptr<const core::TrainedRun> run_;
};
std::string AppTrainedModelRunner::dir_;
std::shared_ptr<const core::TrainedRun> AppTrainedModelRunner::run_;

} // namespace

TEST_F(AppTrainedModelRunner, RetypingRecomputesEveryLayerAndBadInputKeepsTheLastMaps) {
    app::ModelRunner model;
    EXPECT_FALSE(model.update({"the cat runs ."})); // nothing open
    model.open(run_);
    ASSERT_TRUE(model.update({"the dog near the cats runs ."}));
    EXPECT_FALSE(model.update({"the dog near the cats runs ."})); // unchanged: no work
    ASSERT_EQ(model.trace().layers.size(), 2u);
    EXPECT_EQ(model.trace().layers[1]->queryLen(), 7);
    EXPECT_TRUE(model.update({"the big dog runs quickly ."}));
    EXPECT_EQ(model.trace().sentences[0].unknown, std::vector<std::string>({"quickly"}));
    EXPECT_FALSE(model.update({"xyzzy"})); // no known word: an error, the last traces stay
    EXPECT_EQ(model.status().sceneError.rfind("sentence 1 has no word in the model's", 0), 0u);
    EXPECT_EQ(model.trace().layers[0]->queryLen(), 5);
    EXPECT_FALSE(model.update({"  "}));
    EXPECT_FALSE(model.status().sceneHint.empty());
    EXPECT_TRUE(model.status().sceneError.empty());
    const core::Scene scene = model.scene({"the cat"});
    EXPECT_EQ(scene.d_model, 16);
    EXPECT_EQ(scene.heads, 4);
    EXPECT_EQ(scene.mask, core::MaskKind::Causal);
    EXPECT_EQ(scene.sentences, std::vector<std::string>({"the cat"}));
    model.close();
    EXPECT_FALSE(model.isOpen());
}

TEST_F(AppTrainedModelRunner, ThePanelsSeeTheRunTheLayersAndTheUnknownWords) {
    app::ModelRunner model;
    model.open(run_);
    model.update({"the happy dog sings loudly ."});
    app::ModelView view;
    view.layer = 7; // more than the model has: clamped
    app::describeModel(model, view);
    EXPECT_TRUE(view.open);
    EXPECT_EQ(view.title, "agreement, step 6 (" + dir_ + ")");
    EXPECT_EQ(view.layers, 2);
    EXPECT_EQ(view.layer, 1);
    EXPECT_EQ(view.steps, std::vector<int>({0, 6}));
    ASSERT_EQ(view.unknownWords.size(), 1u);
    EXPECT_EQ(view.unknownWords[0], std::vector<std::string>({"loudly"}));
    EXPECT_EQ(view.predictions[0].size(), 5u); // one per token fed
    EXPECT_NE(view.vocabulary.find("cats"), std::string::npos);
    EXPECT_NE(app::trainedModelWindowTitle(*run_).find("agreement, step 6"), std::string::npos);
}

TEST_F(AppTrainedModelRunner, LKeysWalkTheLayersAndWrapAround) {
    app::ExplorerState view;
    app::WindowState window;
    core::Scene scene;
    app::HeadMaps shown;
    shown.heads.resize(4);
    app::ShortcutActions actions;
    const auto press = [&](int mods) {
        app::applyShortcut(app::shortcutFor({GLFW_KEY_L, mods}, false, true), {scene, view, window},
                           shown, actions);
    };
    press(0); // no model: nothing to walk
    EXPECT_EQ(view.model.layer, 0);
    view.model.layers = 3;
    press(0);
    press(0);
    EXPECT_EQ(view.model.layer, 2);
    press(0);
    EXPECT_EQ(view.model.layer, 0);
    press(GLFW_MOD_SHIFT);
    EXPECT_EQ(view.model.layer, 2);
    EXPECT_EQ(app::shortcutFor({GLFW_KEY_L, 0}, true, true), app::ShortcutAction::None); // typing
}

// An attention file (docs/attention-files.md) in the runner: shown at once, nothing to run, and
// described as the file it is, with what needs the model off.
TEST(AppSavedAttentionRunner, TheFileIsShownAtOnceAndNeedsNoModel) {
    const auto saved = core::models::openSavedAttention(std::string(build_facts::fixtureDir()) +
                                                        "/attention/f32.safetensors");
    app::ModelRunner runner;
    runner.openSaved(saved);
    EXPECT_TRUE(runner.isOpen() && runner.isSaved() && runner.showsWholeModel());
    EXPECT_FALSE(runner.isReal() || runner.isTrained());
    EXPECT_FALSE(runner.update({"another sentence"})); // there is nothing to run
    EXPECT_FALSE(runner.computing() || runner.working());
    ASSERT_TRUE(runner.hasTrace());
    EXPECT_EQ(runner.heads(), 4);
    EXPECT_EQ(runner.tokenCount(), 8);
    EXPECT_EQ(runner.thumbnails().size(), 12u);
    for (int l = 0; l < 3; ++l) EXPECT_EQ(runner.layerTrace(l), saved->layers()[std::size_t(l)]);
    EXPECT_TRUE(runner.rolloutReady() && runner.analysesReady());
    EXPECT_EQ(runner.analyses().rollout, saved->self.rollout);
    const auto shown = runner.detectorsShown();
    ASSERT_EQ(shown.size(), 3u); // previous_token, self, and the sink on the sentence
    EXPECT_EQ(shown.back().name, "first_token_on_sentence");
    EXPECT_EQ(runner.scene({"typed"}).sentences,
              std::vector<std::string>{"The cat sat on the mat because it"}); // the file's own

    app::ModelView view;
    view.grid = app::ModelGridMode::LogitLens; // asked before: the file has no lens
    view.valueWeighted = true;
    app::describeModel(runner, view);
    EXPECT_TRUE(view.open && view.real && view.attentionOnly);
    EXPECT_EQ(view.title, "attention from f32.safetensors (saved elsewhere)");
    EXPECT_EQ(view.layers, 3);
    EXPECT_FALSE(view.valueWeighted);
    EXPECT_EQ(view.grid, app::ModelGridMode::EveryLayer);
    EXPECT_TRUE(view.detectorsReady);
    EXPECT_NE(view.fixedText.find(core::models::kNeedsTheModel), std::string::npos);
    ASSERT_EQ(view.tokens.size(), 1u);
    EXPECT_EQ(view.tokens[0].tokens.size(), 8u);

    runner.close();
    EXPECT_FALSE(runner.isOpen() || runner.hasTrace());
}

// An encoder-decoder's file: each of its attentions shown in turn, the analyses that read
// self-attention only where they can.
TEST(AppSavedAttentionRunner, AnEncoderDecoderShowsEachOfItsAttentions) {
    const auto saved = core::models::openSavedAttention(std::string(build_facts::fixtureDir()) +
                                                        "/attention/encoder_decoder.safetensors");
    app::ModelRunner runner;
    runner.openSaved(saved);
    app::ModelView view;
    app::describeModel(runner, view);
    EXPECT_EQ(view.savedStacks, (std::vector<std::string>{"decoder", "encoder", "cross"}));
    EXPECT_FALSE(runner.showSavedStack(core::models::SavedStack::Layers)); // shown already

    const int before = runner.generation();
    ASSERT_TRUE(runner.showSavedStack(core::models::SavedStack::Cross));
    EXPECT_GT(runner.generation(), before); // the model view uploads its maps again
    EXPECT_EQ(runner.tokenCount(), 5);
    EXPECT_EQ(runner.layerTrace(1), saved->cross.layers[1]);
    EXPECT_TRUE(runner.layerTrace(0)->attention.cross);
    EXPECT_EQ(runner.layerTrace(0)->keyLen(), 4);
    EXPECT_FALSE(runner.rolloutReady()); // two sentences: no stream to roll out
    EXPECT_TRUE(runner.detectorsShown().empty());
    EXPECT_EQ(runner.scene({}).sources, std::vector<std::string>{"Le chat dort </s>"});
    app::describeModel(runner, view);
    EXPECT_EQ(view.savedStack, int(core::models::SavedStack::Cross));
    EXPECT_TRUE(view.encoder); // nothing masked
    EXPECT_NE(view.detectorsInput.find("cross-attention"), std::string::npos);

    ASSERT_TRUE(runner.showSavedStack(core::models::SavedStack::Encoder));
    EXPECT_EQ(runner.tokenCount(), 4);
    EXPECT_EQ(runner.trace().sentences[0].tokens.text, "Le chat dort </s>");
    EXPECT_TRUE(runner.rolloutReady());
    EXPECT_FALSE(runner.detectorsShown().empty());
}
