// app::parseCli in-process: every flag lands in CliOptions; bad values give exit 2 and one
// line naming the value (the real binary's side is cli_test.cpp).
#include "build_facts.h"
#include "cli/cli.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace {

const std::string kScene = std::string(build_facts::sceneDir()) + "/causal-mask.json";
const std::string kAttention =
    std::string(build_facts::fixtureDir()) + "/attention/f32.safetensors";

struct Parsed {
    std::optional<app::CliOptions> options;
    int exitCode = -1;
    std::string out, err;
};

// Runs parseCli on `args` (after the program name), capturing what it prints.
Parsed parse(std::vector<std::string> args) {
    args.insert(args.begin(), "mha-viz");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    Parsed parsed;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    parsed.options = app::parseCli(int(argv.size()), argv.data(), parsed.exitCode);
    parsed.err = testing::internal::GetCapturedStderr();
    parsed.out = testing::internal::GetCapturedStdout();
    return parsed;
}

struct GoodCase {
    std::vector<std::string> args;
    std::function<bool(const app::CliOptions&)> landed; // the value is where it belongs
};

struct BadCase {
    std::vector<std::string> args;
    std::string mustMention; // the bad value, as the message names it
};

std::string describe(const std::vector<std::string>& args) {
    std::string text;
    for (const std::string& arg : args) text += "'" + arg + "' ";
    return text;
}

} // namespace

TEST(AppCli, EveryFlagWithAGoodValueLandsInTheOptions) {
    using app::CliOptions;
    const std::vector<GoodCase> cases = {
        {{"--sentence", "one two", "--sentence", "three"},
         [](const CliOptions& o) {
             return o.scene.sentences == std::vector<std::string>{"one two", "three"};
         }},
        {{"--source", "la source"},
         [](const CliOptions& o) {
             return o.scene.sources == std::vector<std::string>{"la source"};
         }},
        {{"--d-model", "128"}, [](const CliOptions& o) { return o.scene.d_model == 128; }},
        {{"--heads", "4"}, [](const CliOptions& o) { return o.scene.heads == 4; }},
        {{"--mask", "causal"},
         [](const CliOptions& o) { return o.scene.mask == core::MaskKind::Causal; }},
        {{"--seed", "18446744073709551615"},
         [](const CliOptions& o) { return o.scene.seed == 18446744073709551615ull; }},
        {{"--weights", "random"},
         [](const CliOptions& o) {
             return o.scene.weights == core::WeightsKind::Random && o.weightsGiven;
         }},
        {{"--scale", "sqrt_d_model"},
         [](const CliOptions& o) { return o.scene.scale == core::ScaleKind::SqrtDModel; }},
        {{"--scale", "none"},
         [](const CliOptions& o) { return o.scene.scale == core::ScaleKind::None; }},
        {{"--no-positional"},
         [](const CliOptions& o) { return o.scene.positional == core::PositionalKind::None; }},
        {{"--positional", "rotary"},
         [](const CliOptions& o) {
             return o.scene.positional == core::PositionalKind::Rotary &&
                    o.scene.ropeTheta == core::kDefaultRopeTheta;
         }},
        {{"--positional", "rotary", "--rope-theta", "500000"},
         [](const CliOptions& o) { return o.scene.ropeTheta == 500000; }},
        {{"--positional", "none"},
         [](const CliOptions& o) { return o.scene.positional == core::PositionalKind::None; }},
        {{"--kv-heads", "2"},
         [](const CliOptions& o) { return o.scene.kvHeads == 2 && o.scene.heads == 8; }},
        {{"--kv-heads", "8"}, [](const CliOptions& o) { return o.scene.kvHeads == 0; }},
        {{"--heads", "4", "--kv-heads", "1"},
         [](const CliOptions& o) { return o.scene.kvHeadCount() == 1; }},
        {{"--no-out-proj"}, [](const CliOptions& o) { return !o.scene.outProjection; }},
        {{"--ablate", "5, 2,2"},
         [](const CliOptions& o) {
             return o.scene.ablatedHeads == std::vector<int>{1, 4};
         }},
        {{"--ablate", "3", "--ablate", "1"},
         [](const CliOptions& o) {
             return o.scene.ablatedHeads == std::vector<int>{0, 2};
         }},
        {{"--reshape-bug"}, [](const CliOptions& o) { return o.scene.reshapeBug; }},
        {{"--json", "-"}, [](const CliOptions& o) { return o.jsonPath == "-" && o.headless(); }},
        {{"--export", "figures"},
         [](const CliOptions& o) { return o.exportPath == "figures" && o.headless(); }},
        {{"--export", "figures", "--export-scale", "4"},
         [](const CliOptions& o) { return o.exportScale == 4; }},
        {{"--export", "figures"}, [](const CliOptions& o) { return o.exportCaption; }},
        {{"--export", "figures", "--export-caption", "off"},
         [](const CliOptions& o) { return !o.exportCaption; }},
        {{"--export", "figures", "--export-caption", "on"},
         [](const CliOptions& o) { return o.exportCaption; }},
        {{"--export", "figures", "--colormap", "magma"},
         [](const CliOptions& o) { return o.view.colormap == core::ColormapId::Magma; }},
        {{"--save-scene", "s.json"},
         [](const CliOptions& o) { return o.saveScenePath == "s.json" && o.headless(); }},
        {{"--export-dir", "pictures"},
         [](const CliOptions& o) { return o.exportDir == "pictures" && !o.headless(); }},
        {{"--screenshot", "window.png"},
         [](const CliOptions& o) { return o.screenshotPath == "window.png"; }},
        {{"--bench-frames", "30"}, [](const CliOptions& o) { return o.benchFrames == 30; }},
        {{"--state-file", "state.jsonl"},
         [](const CliOptions& o) { return o.stateFile == "state.jsonl"; }},
        {{"--ui-scale", "2"}, [](const CliOptions& o) { return o.uiScale == 2.0f; }},
        {{"--ui-scale", "0.5"}, [](const CliOptions& o) { return o.uiScale == 0.5f; }},
        {{"--view", "pipeline"},
         [](const CliOptions& o) { return o.view.tab == core::ViewTab::Pipeline; }},
    };
    for (const GoodCase& c : cases) {
        const Parsed parsed = parse(c.args);
        ASSERT_TRUE(parsed.options) << describe(c.args) << parsed.err;
        EXPECT_EQ(parsed.exitCode, 0) << describe(c.args);
        EXPECT_TRUE(parsed.err.empty()) << describe(c.args) << parsed.err;
        EXPECT_TRUE(c.landed(*parsed.options)) << describe(c.args);
    }
}

TEST(AppCli, NoFlagsOpenTheWindowWithTheDefaults) {
    const Parsed parsed = parse({});
    ASSERT_TRUE(parsed.options);
    EXPECT_EQ(parsed.exitCode, 0);
    EXPECT_FALSE(parsed.options->headless());
    EXPECT_FALSE(parsed.options->weightsGiven); // the window then shows designed heads
    EXPECT_EQ(parsed.options->scene, core::Scene{});
    EXPECT_EQ(parsed.options->view.tab, core::ViewTab::Head);
}

TEST(AppCli, EveryBadValueIsRefusedWithOneLineNamingIt) {
    const std::vector<BadCase> cases = {
        {{"--heads", "3"}, "heads 3"},
        {{"--heads", "0"}, "heads 0"},
        {{"--kv-heads", "3"}, "kv heads 3 must divide heads 8"},
        {{"--kv-heads", "0"}, "kv heads 0 must divide heads 8"},
        {{"--kv-heads", "-2"}, "-2"},
        {{"--kv-heads", "16"}, "kv heads 16 must divide heads 8"},
        {{"--heads", "4", "--kv-heads", "8"}, "kv heads 8 must divide heads 4"},
        {{"--kv-heads", "two"}, "two"},
        {{"--positional", "spiral"}, "spiral"},
        {{"--rope-theta", "500000"}, "--rope-theta is for rotary positions"},
        {{"--positional", "rotary", "--rope-theta", "0.5"}, "rope theta 0.5 must be from 1"},
        {{"--positional", "rotary", "--rope-theta", "nan"}, "nan"},
        {{"--positional", "rotary", "--no-positional"}, "give one"},
        {{"--scene", kScene, "--kv-heads", "2"}, "leave out --kv-heads"},
        {{"--d-model", "0"}, "d_model 0"},
        {{"--d-model", "63"}, "d_model 63"},
        {{"--d-model", "abc"}, "abc"},
        {{"--mask", "diagonal"}, "diagonal"},
        {{"--scale", "half"}, "half"},
        {{"--seed", "-1"}, "seed -1 must be a whole number >= 0"},
        {{"--seed", "18446744073709551616"}, "seed 18446744073709551616 is too large"},
        {{"--weights", "clever"}, "clever"},
        {{"--ablate", "0"}, "head 0 does not exist"},
        {{"--ablate", "9"}, "ablated head 9 does not exist (heads = 8)"},
        {{"--ablate", "2,x"}, "'x' is not a head number"},
        {{"--ablate", "2,,3"}, "empty head number"},
        {{"--export", "figures", "--export-scale", "5"}, "5"},
        {{"--export", "figures", "--export-caption", "no"}, "--export-caption"},
        {{"--export", "figures", "--export-caption", "OFF"}, "OFF"},
        {{"--export", "figures", "--colormap", "jet"}, "jet"},
        {{"--scene", kScene, "--colormap", "magma"}, "leave out --colormap"},
        {{"--bench-frames", "0"}, "--bench-frames"},
        {{"--bench-typing", "0"}, "--bench-typing"},
        {{"--bench-typing", "10"}, "--bench-typing needs --model DIR|NAME"},
        {{"--bench-typing", "10", "--bench-frames", "5"}, "two benchmarks: give one"},
        {{"--json", "-", "--bench-typing", "5"}, "--screenshot and --bench-frames need"},
        {{"--ui-scale", "8"}, "8 is not a number from 0.5 to 4"},
        {{"--ui-scale", "nan"}, "nan is not a number from 0.5 to 4"},
        {{"--view", "sideways"}, "sideways"},
        {{"--sentence", ""}, "sentence 1 is empty"},
        {{"--sentence", "ok", "--sentence", "  "}, "sentence 2 is empty"},
        {{"--sentence", "the", "black", "cat"}, "black"},
        {{"--source", ""}, "source sentence 1 is empty"},
        {{"--no-such-flag"}, "--no-such-flag"},
        {{"--json", ""}, "--json needs a file name, or - for stdout"},
        {{"--export", ""}, "--export needs a folder name"},
        {{"--json", "-", "--screenshot", "w.png"}, "--screenshot and --bench-frames need"},
        {{"--scene", kScene, "--heads", "4"}, "--scene sets every setting; leave out --heads"},
        {{"--scene", "/no/such/scene.json"}, "/no/such/scene.json"},
    };
    for (const BadCase& c : cases) {
        const Parsed parsed = parse(c.args);
        EXPECT_FALSE(parsed.options) << describe(c.args);
        EXPECT_EQ(parsed.exitCode, app::kExitBadInput) << describe(c.args);
        EXPECT_EQ(parsed.err.rfind("mha-viz: error: ", 0), 0u) << describe(c.args) << parsed.err;
        EXPECT_EQ(std::count(parsed.err.begin(), parsed.err.end(), '\n'), 1) << parsed.err;
        EXPECT_NE(parsed.err.find(c.mustMention), std::string::npos)
            << describe(c.args) << parsed.err;
        EXPECT_TRUE(parsed.out.empty()) << describe(c.args) << parsed.out;
    }
}

TEST(AppCli, MessagesAreTheContractsWordForWord) {
    EXPECT_EQ(parse({"--json", ""}).err,
              "mha-viz: error: --json needs a file name, or - for stdout\n");
    EXPECT_EQ(parse({"--export", "out", "--bench-frames", "5"}).err,
              "mha-viz: error: --json and --export run headless; --screenshot and --bench-frames "
              "need the window\n");
    EXPECT_EQ(parse({"--scene", kScene, "--sentence", "x"}).err,
              "mha-viz: error: --scene sets every setting; leave out --sentence\n");
    EXPECT_EQ(parse({"--heads", "3"}).err,
              "mha-viz: error: heads 3 does not divide d_model 64 (d_head = d_model / heads must "
              "be whole)\n");
}

TEST(AppCli, SceneFileSetsEverySettingAndViewFlagPicksTheTab) {
    const Parsed loaded = parse({"--scene", kScene});
    ASSERT_TRUE(loaded.options) << loaded.err;
    EXPECT_EQ(loaded.options->scenePath, kScene);
    EXPECT_EQ(loaded.options->scene.mask, core::MaskKind::Causal);
    EXPECT_EQ(loaded.options->scene.weights, core::WeightsKind::Designed);
    EXPECT_TRUE(loaded.options->weightsGiven);
    EXPECT_EQ(loaded.options->view.compareHead, 1); // the file numbers heads from 1

    const Parsed withView = parse({"--scene", kScene, "--view", "lines"});
    ASSERT_TRUE(withView.options) << withView.err;
    EXPECT_EQ(withView.options->view.tab, core::ViewTab::Lines); // the flag beats the file
    EXPECT_EQ(withView.options->scene, loaded.options->scene);
}

TEST(AppCli, HelpAndVersionExitZero) {
    const Parsed help = parse({"--help"});
    EXPECT_FALSE(help.options);
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_NE(help.out.find("--sentence"), std::string::npos) << help.out;
    EXPECT_LT(help.out.find("--save-scene"), help.out.find("--view")); // --help's order

    const Parsed version = parse({"--version"});
    EXPECT_FALSE(version.options);
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_EQ(version.out.rfind("mha-viz ", 0), 0u) << version.out;
    EXPECT_NE(version.out.find("engine: "), std::string::npos) << version.out;
}

TEST(AppCli, AnAttentionFileIsReadAndCheckedBeforeTheWindowOpens) {
    const Parsed window = parse({"--attention", kAttention, "--layer", "3", "--view", "lines"});
    ASSERT_TRUE(window.options) << window.err;
    ASSERT_TRUE(window.options->savedAttention);
    EXPECT_FALSE(window.options->headless());
    EXPECT_EQ(window.options->savedAttention->layerCount(), 3);
    EXPECT_EQ(window.options->scene.sentences,
              std::vector<std::string>{"The cat sat on the mat because it"}); // the file's own
    EXPECT_EQ(window.options->modelLayer, 3);
    const Parsed json = parse({"--attention", kAttention, "--json", "-", "--json-precision", "4"});
    ASSERT_TRUE(json.options) << json.err;
    EXPECT_TRUE(json.options->headless());

    const std::vector<BadCase> cases = {
        {{"--attention", "/no/such/attention.safetensors"}, "/no/such/attention.safetensors"},
        {{"--attention", kScene}, "causal-mask.json"},
        {{"--attention", kAttention, "--layer", "4"}, "--layer 4: the file has 3 layers"},
        {{"--attention", kAttention, "--model", "gpt2"}, "--model with --attention"},
        {{"--attention", kAttention, "--sentence", "hi"}, "the sentence is the file's own"},
        {{"--attention", kAttention, "--heads", "4"}, "--heads does not apply to --attention"},
        {{"--attention", kAttention, "--top-k", "3"},
         "--top-k with --attention: needs the model: this file holds attention only"},
        {{"--attention", kAttention, "--export", "d", "--export-traces", "full"},
         "--export-traces full needs the model"},
    };
    for (const BadCase& c : cases) {
        const Parsed parsed = parse(c.args);
        EXPECT_FALSE(parsed.options) << describe(c.args);
        EXPECT_EQ(parsed.exitCode, app::kExitBadInput) << describe(c.args);
        EXPECT_EQ(std::count(parsed.err.begin(), parsed.err.end(), '\n'), 1) << parsed.err;
        EXPECT_NE(parsed.err.find(c.mustMention), std::string::npos)
            << describe(c.args) << parsed.err;
    }
}
