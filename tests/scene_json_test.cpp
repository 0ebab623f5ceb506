// Scenes as JSON: save -> load gives the same scene and the same trace; bad files give
// one-line errors and never crash.
#include "build_facts.h"
#include "engine/trace.h"
#include "io/scene_json.h"
#include "io/trace_json.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

using testing_support::thrownMessage;

namespace {

core::Scene richScene() {
    core::Scene s;
    s.sentences = {"The black cat sat on the mat because it was tired.", "A dog \"barked\"."};
    s.sources = {"Le chat s'est assis.", "Un chien a aboyé."};
    s.d_model = 128;
    s.heads = 8;
    s.mask = core::MaskKind::Causal;
    s.scale = core::ScaleKind::SqrtDModel;
    s.seed = 18446744073709551615ull;
    s.weights = core::WeightsKind::Designed;
    s.headPresets = {"self",   "random", "first-token", "random",
                     "random", "random", "random",      "same-word"};
    s.positional = core::PositionalKind::None;
    s.outProjection = false;
    s.ablatedHeads = {1, 6};
    s.reshapeBug = true;
    return s;
}

std::string errorOf(const std::string& text) {
    try {
        core::sceneFromJson(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

const std::string kMinimal =
    R"({"format":"mha-scene","version":1,"sentences":["a b"],"d_model":16,"heads":4)";

} // namespace

TEST(SceneJson, SaveThenLoadGivesTheSameSceneAndTrace) {
    const core::Scene s = richScene();
    const core::Scene back = core::sceneFromJson(core::sceneToJson(s));
    EXPECT_EQ(back, s);
    EXPECT_EQ(core::traceJson(core::run(back)), core::traceJson(core::run(s)));
}

// The head count chosen in the window survives a save while it does not divide d_model.
TEST(SceneJson, ChosenHeadCountRoundTripsAndIsWrittenOnlyWhenItDiffers) {
    core::Scene s = richScene();
    core::setHeads(s, 16);
    core::setDModel(s, 108); // 18 heads, 16 chosen
    const std::string text = core::sceneToJson(s);
    EXPECT_NE(text.find("\"chosen_heads\": 16"), std::string::npos) << text;
    const core::Scene back = core::sceneFromJson(text);
    EXPECT_EQ(back, s);
    core::Scene returned = back;
    core::setDModel(returned, 64);
    EXPECT_EQ(returned.heads, 16);
    EXPECT_EQ(core::sceneToJson(returned).find("chosen_heads"), std::string::npos);
    // Equal to heads: nothing to remember. Out of range: named in one line.
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"chosen_heads":4})").chosenHeads, 0);
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"chosen_heads":5})").chosenHeads, 5);
    EXPECT_NE(errorOf(kMinimal + R"(,"chosen_heads":0})").find("chosen_heads"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"chosen_heads":"x"})").find("chosen_heads"),
              std::string::npos);
}

// K/V heads and rotary positions round-trip; older files (positional true / false, no
// kv_heads) read as before, and sinusoidal and none are still written as those booleans.
TEST(SceneJson, KvHeadsAndRotaryPositionsRoundTrip) {
    core::Scene s = richScene();
    core::setKvHeads(s, 2);
    s.positional = core::PositionalKind::Rotary;
    s.ropeTheta = 500000;
    const std::string text = core::sceneToJson(s);
    EXPECT_NE(text.find("\"kv_heads\": 2"), std::string::npos) << text;
    EXPECT_NE(text.find("\"positional\": \"rotary\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"rope_theta\": 500000"), std::string::npos) << text;
    const core::Scene back = core::sceneFromJson(text);
    EXPECT_EQ(back, s);
    EXPECT_EQ(core::traceJson(core::run(back)), core::traceJson(core::run(s)));
    const std::string plain = core::sceneToJson(core::Scene{});
    EXPECT_NE(plain.find("\"positional\": true"), std::string::npos) << plain;
    EXPECT_NE(plain.find("\"kv_heads\": 8"), std::string::npos) << plain;
    EXPECT_EQ(plain.find("rope_theta"), std::string::npos) << plain;
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"positional":false})").positional,
              core::PositionalKind::None);
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"positional":"none"})").positional,
              core::PositionalKind::None);
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"positional":"sinusoidal"})").positional,
              core::PositionalKind::Sinusoidal);
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"kv_heads":4})").kvHeads, 0); // = heads
    EXPECT_EQ(core::sceneFromJson(kMinimal + R"(,"kv_heads":1})").kvHeadCount(), 1);
}

TEST(SceneJson, BadKvHeadsAndPositionsAreNamed) {
    EXPECT_NE(errorOf(kMinimal + R"(,"kv_heads":3})").find("kv heads 3 must divide heads 4"),
              std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"kv_heads":0})").find("kv_heads"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"kv_heads":"two"})").find("kv_heads"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"positional":"spiral"})").find("positional"),
              std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"positional":1})").find("positional"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"positional":"rotary","rope_theta":0})").find("rope theta 0"),
              std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"rope_theta":"big"})").find("rope_theta"), std::string::npos);
}

TEST(SceneJson, FileRoundTrip) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mha-scene-" + std::to_string(::getpid()) + ".json");
    ASSERT_EQ(thrownMessage([&] { core::saveSceneFile(path.string(), richScene()); }), "");
    core::Scene loaded;
    ASSERT_EQ(thrownMessage([&] { loaded = core::loadSceneFile(path.string()); }), "");
    EXPECT_EQ(loaded, richScene());
    std::filesystem::remove(path);
}

TEST(SceneJson, MinimalSceneUsesDefaults) {
    const core::Scene s = core::sceneFromJson(kMinimal + "}");
    EXPECT_EQ(s.mask, core::MaskKind::None);
    EXPECT_EQ(s.weights, core::WeightsKind::Random);
    EXPECT_EQ(s.positional, core::PositionalKind::Sinusoidal);
    EXPECT_EQ(s.kvHeads, 0); // H_kv = H
    EXPECT_EQ(s.ropeTheta, core::kDefaultRopeTheta);
}

TEST(SceneJson, BadFilesGiveOneLineErrors) {
    EXPECT_NE(errorOf(kMinimal).find("not valid JSON"), std::string::npos); // truncated
    EXPECT_NE(errorOf("\x89PNG\r\n\x1a\n").find("not valid JSON"), std::string::npos);
    EXPECT_NE(errorOf("[1,2]").find("JSON object"), std::string::npos);
    EXPECT_NE(errorOf(R"({"format":"other","version":1})").find("mha-scene"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"mask":"diagonal"})").find("mask"), std::string::npos);
    EXPECT_NE(
        errorOf(R"({"format":"mha-scene","version":1,"sentences":"a b","d_model":16,"heads":4})")
            .find("list of strings"),
        std::string::npos);
    EXPECT_NE(
        errorOf(R"({"format":"mha-scene","version":1,"sentences":["a"],"d_model":1e308,"heads":4})")
            .find("d_model"),
        std::string::npos);
    EXPECT_NE(
        errorOf(R"({"format":"mha-scene","version":1,"sentences":["a"],"d_model":-64,"heads":4})")
            .find("out of range"),
        std::string::npos);
    EXPECT_NE(errorOf(R"({"format":"mha-scene","version":1,"sentences":["a"],"heads":4})")
                  .find("missing \"d_model\""),
              std::string::npos);
    EXPECT_NE(
        errorOf(R"({"format":"mha-scene","version":1,"sentences":["a"],"d_model":16,"heads":3})")
            .find("does not divide"),
        std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"ablate":[9]})").find("ablate"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"seed":-1})").find("seed"), std::string::npos);
    EXPECT_NE(errorOf(std::string(100000, '[')).find("deeper than 32"), std::string::npos);
    for (const std::string& e : {errorOf(kMinimal), errorOf(std::string(100000, '['))})
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

// Found by fuzz_scene_json: a number past double's range escaped as nlohmann's out_of_range.
TEST(SceneJson, NumberPastDoubleRangeIsABadFile) {
    EXPECT_NE(
        errorOf(R"({"format":"mha-scene","version":1,"sentences":["a"],"d_model":2e308,"heads":4})")
            .find("too large"),
        std::string::npos);
}

// Found by fuzz_scene_json: --sentence with broken UTF-8, then --save-scene, aborted in dump().
TEST(SceneJson, BrokenUtf8IsSavedAsReplacementCharsAndComputesTheSame) {
    core::Scene s;
    s.sentences = {"caf\xC3 \xFF\xFE"
                   "dog \xE2\x82"}; // E2 82: a cut-off sequence, one U+FFFD
    s.sources = {"le \xC0\xAF chat"};
    std::string saved;
    ASSERT_NO_THROW(saved = core::sceneToJson(s));
    const core::Scene back = core::sceneFromJson(saved);
    EXPECT_EQ(back.sentences.front(), "caf\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD"
                                      "dog \xEF\xBF\xBD");
    const core::Trace original = core::run(s), reloaded = core::run(back);
    EXPECT_EQ(reloaded.attention.output, original.attention.output);
    for (std::size_t i = 0; i < original.sentences[0].tokens.size(); ++i)
        EXPECT_EQ(reloaded.sentences[0].tokens[i].text, original.sentences[0].tokens[i].text);
}

TEST(SceneJson, MissingFileIsNamed) {
    EXPECT_NE(thrownMessage([] {
                  core::loadSceneFile("/nonexistent/scene.json");
              }).find("/nonexistent/scene.json"),
              std::string::npos);
}

TEST(SceneJson, ShippedDemoScenesLoadAndRun) {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(build_facts::sceneDir())) {
        core::Scene s;
        ASSERT_EQ(thrownMessage([&] { s = core::loadSceneFile(entry.path().string()); }), "")
            << entry.path();
        EXPECT_NO_THROW(core::run(s)) << entry.path();
        ++count;
    }
    EXPECT_GE(count, 5);
}

TEST(SceneJson, EmbeddedDemoScenesMatchTheFiles) {
    for (const char* name : core::kDemoScenes) {
        core::Scene fromFile;
        const std::string path = std::string(build_facts::sceneDir()) + "/" + name + ".json";
        ASSERT_EQ(thrownMessage([&] { fromFile = core::loadSceneFile(path); }), "") << name;
        EXPECT_EQ(core::demoScene(name), fromFile) << name;
    }
    EXPECT_THROW(core::demoScene("nope"), std::invalid_argument);
}

TEST(SceneJson, ViewSettingsRoundTripAndStayOptional) {
    core::SceneView view;
    view.tab = core::ViewTab::Difference;
    view.colormap = core::ColormapId::Magma;
    view.theme = core::Theme::HighContrast;
    view.selectedHead = 2;
    view.compareHead = 6;
    view.perHeadScale = true;
    const std::string text = core::sceneToJson(richScene(), &view);
    core::SceneView loaded;
    EXPECT_EQ(core::sceneFromJson(text, &loaded), richScene());
    EXPECT_EQ(loaded, view);
    // The file numbers heads from 1, as the window does.
    EXPECT_NE(text.find("\"head\": 3"), std::string::npos);

    core::SceneView defaults;
    defaults.tab = core::ViewTab::Lines; // overwritten by the file's (absent) view: defaults
    core::sceneFromJson(kMinimal + "}", &defaults);
    EXPECT_EQ(defaults, core::SceneView{});
}

TEST(SceneJson, BadViewSettingsAreNamed) {
    EXPECT_NE(errorOf(kMinimal + R"(,"view":{"tab":"sideways"}})").find("\"tab\" must be one of"),
              std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"view":{"colormap":"jet"}})").find("colormap"),
              std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"view":{"theme":3}})").find("theme"), std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"view":[]})").find("\"view\" must be an object"),
              std::string::npos);
    EXPECT_NE(errorOf(kMinimal + R"(,"view":{"head":0}})").find("out of range"), std::string::npos);
    // A head past H only changes what is shown: clamped, not refused.
    core::SceneView view;
    core::sceneFromJson(kMinimal + R"(,"view":{"head":99,"compare_head":99}})", &view);
    EXPECT_EQ(view.selectedHead, 3);
    EXPECT_EQ(view.compareHead, 3);
}
