// The command line as users and scripts meet it: exit codes, one-line errors, JSON.
#include "build_facts.h"
#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::ProcessResult;
using testing_support::runMhaViz;
using testing_support::runMhaVizShell;

namespace {

json traceFor(std::vector<std::string> args) {
    args.insert(args.end(), {"--json", "-"});
    const ProcessResult r = runMhaViz(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return json::parse(r.out);
}

} // namespace

TEST(Cli, HeadsThatDoNotDivideDModel) {
    expectBadInput({"--heads", "3", "--json", "-"}, "heads 3");
}
TEST(Cli, ZeroDModel) {
    expectBadInput({"--d-model", "0", "--json", "-"}, "d_model 0");
}
TEST(Cli, NegativeDModel) {
    expectBadInput({"--d-model", "-8", "--json", "-"}, "-8");
}
TEST(Cli, OddDModel) {
    expectBadInput({"--d-model", "63", "--json", "-"}, "d_model 63");
}
TEST(Cli, NonNumberDModel) {
    expectBadInput({"--d-model", "abc", "--json", "-"}, "abc");
}
TEST(Cli, KvHeadsThatDoNotDivideHeads) {
    expectBadInput({"--kv-heads", "3", "--json", "-"}, "kv heads 3 must divide heads 8");
}
TEST(Cli, KvHeadsZeroOrNegativeOrNotANumber) {
    expectBadInput({"--kv-heads", "0", "--json", "-"}, "kv heads 0");
    expectBadInput({"--kv-heads", "-4", "--json", "-"}, "-4");
    expectBadInput({"--kv-heads", "many", "--json", "-"}, "many");
}
TEST(Cli, KvHeadsAboveHeads) {
    expectBadInput({"--heads", "2", "--kv-heads", "4", "--json", "-"}, "kv heads 4");
}
TEST(Cli, UnknownPositional) {
    expectBadInput({"--positional", "learned", "--json", "-"}, "learned");
}
TEST(Cli, RopeThetaWithoutRotaryOrOutOfRange) {
    expectBadInput({"--rope-theta", "10", "--json", "-"}, "--rope-theta is for rotary positions");
    expectBadInput({"--positional", "rotary", "--rope-theta", "1e12", "--json", "-"},
                   "rope theta 1e+12 must be from 1 to 1e9");
}
TEST(Cli, ZeroHeads) {
    expectBadInput({"--heads", "0", "--json", "-"}, "heads 0");
}
TEST(Cli, UnknownMask) {
    expectBadInput({"--mask", "diagonal", "--json", "-"}, "diagonal");
}
TEST(Cli, UnknownScale) {
    expectBadInput({"--scale", "half", "--json", "-"}, "half");
}
TEST(Cli, NegativeSeed) {
    expectBadInput({"--seed", "-1", "--json", "-"}, "-1");
}
TEST(Cli, EmptySentence) {
    expectBadInput({"--sentence", "", "--json", "-"}, "sentence 1 is empty");
}
TEST(Cli, BlankSecondSentence) {
    expectBadInput({"--sentence", "ok", "--sentence", "   ", "--json", "-"}, "sentence 2 is empty");
}
TEST(Cli, ZeroBenchFrames) {
    expectBadInput({"--bench-frames", "0"}, "--bench-frames");
}
TEST(Cli, SeedTooLarge) {
    expectBadInput({"--seed", "18446744073709551616", "--json", "-"}, "18446744073709551616");
}
TEST(Cli, UnquotedWordsAfterSentence) {
    // Without quotes the shell passes three arguments: not silently a batch of three.
    expectBadInput({"--sentence", "the", "black", "cat", "--json", "-"}, "black");
}
TEST(Cli, EmptyJsonPath) {
    expectBadInput({"--json", ""}, "--json");
}
TEST(Cli, JsonWithScreenshot) {
    expectBadInput({"--json", "-", "--screenshot", "/tmp/x.png"}, "--screenshot");
}
TEST(Cli, TooManySentences) {
    std::vector<std::string> args;
    for (int i = 0; i < 65; ++i) args.insert(args.end(), {"--sentence", "a b"});
    args.insert(args.end(), {"--json", "-"});
    expectBadInput(args, "65 sentences");
}
TEST(Cli, SceneTooLargeForMemory) {
    std::string words;
    for (int i = 0; i < 512; ++i) words += "w ";
    std::vector<std::string> args{"--d-model", "1024", "--heads", "1024", "--json", "-"};
    for (int i = 0; i < 2; ++i) args.insert(args.end(), {"--sentence", words});
    expectBadInput(args, "scene too large");
}
TEST(Cli, FullDiskOnStdout) {
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    const ProcessResult r = runMhaVizShell("--json - > /dev/full");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}
TEST(Cli, JsonThroughASymlinkWritesItsTarget) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("mha-cli-link-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path target = dir / "real.json", link = dir / "link.json";
    { std::ofstream(target) << "old"; }
    fs::create_symlink(target, link);
    const ProcessResult r = runMhaViz({"--sentence", "a b", "--json", link.string()});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced";
    EXPECT_EQ(json::parse(testing_support::readFile(target))["sentences"][0]["tokens"],
              json({"a", "b"}));
    fs::remove_all(dir);
}
TEST(Cli, SceneSaveThenLoadGivesTheSameTrace) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mha-cli-scene-" + std::to_string(::getpid()) + ".json");
    const std::vector<std::string> settings{"--sentence", "the cat sat", "--mask",   "causal",
                                            "--weights",  "designed",    "--ablate", "2"};
    std::vector<std::string> save = settings;
    save.insert(save.end(), {"--save-scene", path.string()});
    ASSERT_EQ(runMhaViz(save).exitCode, 0);
    EXPECT_EQ(traceFor({"--scene", path.string()}), traceFor(settings));
    expectBadInput({"--scene", path.string(), "--heads", "4", "--json", "-"}, "--heads");
    std::filesystem::remove(path);
}
// Found by fuzzing: broken UTF-8 from the shell aborted --save-scene (JSON holds only UTF-8).
TEST(Cli, SceneWithBrokenUtf8SavesAndGivesTheSameTrace) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mha-cli-broken-" + std::to_string(::getpid()) + ".json");
    const std::vector<std::string> settings{"--sentence", "bad \xC3\x28 bytes \xFF"};
    std::vector<std::string> save = settings;
    save.insert(save.end(), {"--save-scene", path.string()});
    ASSERT_EQ(runMhaViz(save).exitCode, 0);
    EXPECT_EQ(traceFor({"--scene", path.string()}), traceFor(settings));
    std::filesystem::remove(path);
}
TEST(Cli, SceneKeepsTheViewAndExportsInItsColormap) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("mha-cli-view-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string scene = (dir / "s.json").string();
    ASSERT_EQ(
        runMhaViz({"--sentence", "the cat sat", "--view", "lines", "--save-scene", scene}).exitCode,
        0);
    const json saved = json::parse(testing_support::readFile(scene));
    EXPECT_EQ(saved["view"]["tab"], "lines");
    EXPECT_EQ(saved["view"]["colormap"], "viridis");

    json greys = saved;
    greys["view"]["colormap"] = "greys";
    { std::ofstream(scene) << greys.dump(); }
    const std::string out = (dir / "figures").string();
    ASSERT_EQ(runMhaViz({"--scene", scene, "--export", out}).exitCode, 0);
    const std::string svg = testing_support::readFile(out + "/mha-viz-head-01.svg");
    // The cells (a rect with a title) and the colour bar's gradient stops.
    std::size_t cells = 0, stops = 0, grey = 0;
    const auto isGrey = [](const std::string& hex) {
        return hex.substr(0, 2) == hex.substr(2, 2) && hex.substr(2, 2) == hex.substr(4, 2);
    };
    for (std::size_t at = 0; (at = svg.find("fill=\"#", at)) != std::string::npos; ++at) {
        if (svg.compare(at + 14, 8, "><title>") != 0) continue; // text, gaps, ticks: no cell
        ++cells;
        grey += isGrey(svg.substr(at + 7, 6));
    }
    for (std::size_t at = 0; (at = svg.find("stop-color=\"#", at)) != std::string::npos; ++at) {
        ++stops;
        grey += isGrey(svg.substr(at + 13, 6));
    }
    EXPECT_EQ(cells, 9u) << "3 x 3 tokens";
    EXPECT_GT(stops, 9u);
    EXPECT_EQ(grey, cells + stops) << "every cell and the bar grey, the scene's greys colormap";
    std::filesystem::remove_all(dir);
}
// --export-caption off: every figure keeps its title, loses the caption; bad values exit 2.
TEST(Cli, ExportCaptionOffLeavesTheTitleAlone) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("mha-cli-caption-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const std::vector<std::string> scene = {"--sentence", "the cat sat", "--heads", "2"};
    auto args = [&](const std::string& out, std::vector<std::string> extra) {
        std::vector<std::string> all = scene;
        all.insert(all.end(), {"--export", (dir / out).string()});
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    };
    ASSERT_EQ(runMhaViz(args("on", {})).exitCode, 0);
    ASSERT_EQ(runMhaViz(args("off", {"--export-caption", "off"})).exitCode, 0);
    ASSERT_EQ(runMhaViz(args("on-again", {"--export-caption", "on"})).exitCode, 0);
    for (const char* name : {"mha-viz-head-01.svg", "mha-viz-grid.svg", "mha-viz-mean.svg",
                             "mha-viz-statistics.svg"}) {
        const std::string on = testing_support::readFile(dir / "on" / name);
        const std::string off = testing_support::readFile(dir / "off" / name);
        EXPECT_NE(on.find("&quot;the cat sat&quot;"), std::string::npos) << name;
        EXPECT_EQ(off.find("the cat sat"), std::string::npos) << name;
        EXPECT_EQ(off.find("d_model"), std::string::npos) << name;
        EXPECT_EQ(testing_support::readFile(dir / "on-again" / name), on) << name;
    }
    EXPECT_NE(testing_support::readFile(dir / "off" / "mha-viz-head-01.svg").find(">head 1</text>"),
              std::string::npos);
    expectBadInput(args("bad", {"--export-caption", "maybe"}), "maybe");
    expectBadInput(args("bad", {"--export-caption", ""}), "--export-caption");
    expectBadInput(args("bad", {"--export-caption"}), "--export-caption");
    EXPECT_FALSE(fs::exists(dir / "bad")) << "nothing written for a bad value";
    fs::remove_all(dir);
}
TEST(Cli, FullDiskDuringExportIsNamedAndLeavesNoHalfFile) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("mha-cli-full-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const fs::path err = dir.string() + ".err";
    std::string words;
    for (int i = 0; i < 60; ++i) words += "word" + std::to_string(i) + " ";
    // A 1 MB file-size limit stands in for a full disk: the heads fit, the grid does not.
    const std::string cmd = "ulimit -f 2048 && env -u DISPLAY '" +
                            std::string(build_facts::vizExe()) + "' --sentence '" + words +
                            "' --export '" + dir.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(("sh -c \"" + cmd + "\"").c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 2);
    const std::string message = testing_support::readFile(err.string());
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 2) << message; // progress + error
    EXPECT_NE(message.find("File too large"), std::string::npos) << message;
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) { // every file there is whole
        const std::string name = entry.path().filename().string();
        const std::string text = testing_support::readFile(entry.path().string());
        EXPECT_EQ(name.find(".tmp"), std::string::npos) << "a temp file was left: " << name;
        if (name.ends_with(".svg")) {
            EXPECT_TRUE(text.ends_with("</svg>\n")) << name;
        }
        if (name.ends_with(".png")) {
            EXPECT_EQ(text.substr(text.size() - 8, 4), "IEND") << name;
        }
        ++files;
    }
    EXPECT_GT(files, 0) << "the files that fit were written";
    fs::remove_all(dir);
    fs::remove(err);
}
TEST(Cli, ExportFolderThatCannotBeMade) {
    expectBadInput({"--sentence", "a b", "--export", "/proc/mha-viz-no-such-folder"},
                   "cannot create the export folder '/proc/mha-viz-no-such-folder'");
    EXPECT_FALSE(std::filesystem::exists("/proc/mha-viz-no-such-folder"));
}
TEST(Cli, BadSceneFile) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mha-cli-bad-" + std::to_string(::getpid()) + ".json");
    {
        std::ofstream(path) << "{\"format\": \"mha-scene\", \"version\": 1, \"sentences\": "
                               "[\"a\"], \"d_model\": 1e308}";
    }
    expectBadInput({"--scene", path.string(), "--json", "-"}, "d_model");
    expectBadInput({"--scene", "/nonexistent/s.json", "--json", "-"}, "/nonexistent/s.json");
    std::filesystem::remove(path);
}
TEST(Cli, UnknownFlag) {
    expectBadInput({"--frobnicate", "--json", "-"}, "--frobnicate");
}
TEST(Cli, UnwritableJsonPath) {
    expectBadInput({"--json", "/nonexistent-dir/trace.json"}, "/nonexistent-dir/trace.json");
}

TEST(Cli, AblateThatIsNotAHeadList) {
    expectBadInput({"--ablate", "abc", "--json", "-"}, "'abc'");
    expectBadInput({"--ablate", "2,x", "--json", "-"}, "'x'");
}
TEST(Cli, AblateWithAnEmptyItem) {
    expectBadInput({"--ablate", "2,,5", "--json", "-"}, "2,,5");
    expectBadInput({"--ablate", "3,", "--json", "-"}, "3,");
}
TEST(Cli, AblateHeadZero) {
    expectBadInput({"--ablate", "0", "--json", "-"}, "head 0");
}
TEST(Cli, AblateNegativeHead) {
    expectBadInput({"--ablate", "-1", "--json", "-"}, "-1");
}
TEST(Cli, AblateHeadBeyondTheHeadCount) {
    expectBadInput({"--ablate", "9", "--json", "-"}, "ablated head 9 does not exist (heads = 8)");
    expectBadInput({"--heads", "4", "--ablate", "2,5", "--json", "-"}, "ablated head 5");
    expectBadInput({"--ablate", "99999999999999999999", "--json", "-"}, "99999999999999999999");
}

TEST(Cli, HelpListsTheFlagsAndExitsZero) {
    const ProcessResult r = runMhaViz({"--help"});
    EXPECT_EQ(r.exitCode, 0);
    for (const char* flag : {"--sentence", "--source", "--d-model", "--heads", "--kv-heads",
                             "--mask", "--seed", "--scale", "--positional", "--rope-theta",
                             "--json", "--no-out-proj", "--ablate", "--reshape-bug"})
        EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

TEST(Cli, JsonToStdoutFollowsTheContract) {
    const json j = traceFor({"--sentence", "The cat sat on the mat .", "--d-model", "32", "--heads",
                             "4", "--mask", "causal", "--seed", "7", "--scale", "sqrt_d_model"});
    EXPECT_EQ(j["format"], "mha-trace");
    EXPECT_EQ(j["config"]["d_model"], 32);
    EXPECT_EQ(j["config"]["heads"], 4);
    EXPECT_EQ(j["config"]["d_head"], 8);
    EXPECT_EQ(j["config"]["mask"], "causal");
    EXPECT_EQ(j["config"]["scale"], "sqrt_d_model");
    EXPECT_EQ(j["config"]["seed"], 7);
    EXPECT_EQ(j["sentences"][0]["tokens"], json({"The", "cat", "sat", "on", "the", "mat", "."}));
    EXPECT_EQ(j["attention"][0].size(), 4u);
    EXPECT_EQ(j["attention"][0][3][0][6], 0.0); // causal: first token sees only itself
    EXPECT_EQ(j["attention"][0][3][0][0], 1.0);
}

TEST(Cli, JsonFileEqualsJsonOnStdout) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("mha-cli-test-trace-" + std::to_string(::getpid()) + ".json");
    const ProcessResult r = runMhaViz({"--sentence", "a b c", "--json", path.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(json::parse(testing_support::readFile(path)), traceFor({"--sentence", "a b c"}));
    std::filesystem::remove(path);
}

TEST(Cli, SameSeedSameTraceAcrossRuns) {
    EXPECT_EQ(traceFor({"--seed", "5"}), traceFor({"--seed", "5"}));
    EXPECT_NE(traceFor({"--seed", "5"})["w_q"], traceFor({"--seed", "6"})["w_q"]);
}

TEST(Cli, BatchAndCrossAttention) {
    const json j = traceFor(
        {"--sentence", "le chat dort", "--sentence", "un chien", "--source", "the cat sleeps now"});
    EXPECT_EQ(j["config"]["cross"], true);
    EXPECT_EQ(j["sources"].size(), 2u);
    EXPECT_EQ(j["attention"][1][0].size(), 3u);    // N = 3 queries
    EXPECT_EQ(j["attention"][1][0][0].size(), 4u); // M = 4 keys
}

TEST(Cli, OddButValidInputWorks) {
    EXPECT_EQ(traceFor({"--sentence", "?!..."})["sentences"][0]["tokens"], json({"?", "!", "..."}));
    EXPECT_GE(traceFor({"--sentence", "I \xF0\x9F\x98\x80 cats"})["sentences"][0]["tokens"].size(),
              3u);
    const json broken = traceFor({"--sentence", "bad \xC3\x28 bytes \xFF"});
    EXPECT_NE(broken["sentences"][0]["text"].get<std::string>().find("\xEF\xBF\xBD"),
              std::string::npos);
}

TEST(Cli, FiveThousandWordsAreCutWithAWarning) {
    std::string text;
    for (int i = 0; i < 5000; ++i) text += "word ";
    const ProcessResult r =
        runMhaViz({"--sentence", text, "--d-model", "16", "--heads", "2", "--json", "-"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("warning: sentence 1 has 5000 tokens; kept the first 512"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(json::parse(r.out)["sentences"][0]["tokens"].size(), 512u);
}

TEST(Cli, NoPositionalIsRecorded) {
    EXPECT_EQ(traceFor({"--no-positional"})["config"]["positional"], false);
    EXPECT_EQ(traceFor({"--positional", "none"}), traceFor({"--no-positional"}));
    EXPECT_TRUE(traceFor({})["config"]["rope"].is_null());
}

// --kv-heads: config.kv_heads, and K, V, W_K, W_V H_kv*d_head wide; the query side as MHA's.
TEST(Cli, KvHeadsShapeKAndVAndAreRecorded) {
    const json mha = traceFor({"--sentence", "The cat sat on the mat ."});
    const json gqa = traceFor({"--sentence", "The cat sat on the mat .", "--kv-heads", "2"});
    EXPECT_EQ(mha["config"]["kv_heads"], 8);
    EXPECT_EQ(gqa["config"]["kv_heads"], 2);
    EXPECT_EQ(gqa["config"]["heads"], 8);
    ASSERT_EQ(gqa["k"][0].size(), 7u);
    EXPECT_EQ(gqa["k"][0][0].size(), 16u); // H_kv * d_head = 2 * 8
    EXPECT_EQ(gqa["v"][0][0].size(), 16u);
    EXPECT_EQ(gqa["w_k"].size(), 64u);
    EXPECT_EQ(gqa["w_k"][0].size(), 16u);
    EXPECT_EQ(gqa["w_q"], mha["w_q"]);         // the same draw
    EXPECT_EQ(gqa["attention"][0].size(), 8u); // still one map per query head
    // The K/V heads are MHA's first two, from the same seed (to float rounding: the products are
    // cut into chunks by their width).
    for (int c = 0; c < 16; ++c) {
        EXPECT_EQ(gqa["w_k"][5][c], mha["w_k"][5][c]);
        EXPECT_NEAR(gqa["k"][0][3][c].get<double>(), mha["k"][0][3][c].get<double>(), 1e-5);
    }
    EXPECT_EQ(traceFor({"--sentence", "a b", "--kv-heads", "1"})["k"][0][0].size(), 8u); // MQA
    EXPECT_EQ(traceFor({"--kv-heads", "8"}), traceFor({})); // H_kv = H is plain MHA
}

TEST(Cli, RotaryPositionsAreRecordedAndTurnQAndK) {
    const json plain = traceFor({"--sentence", "a b a b", "--positional", "none"});
    const json rotary = traceFor({"--sentence", "a b a b", "--positional", "rotary"});
    EXPECT_EQ(rotary["config"]["positional"], false); // nothing added to x
    EXPECT_EQ(rotary["config"]["rope"],
              json({{"theta", 10000}, {"dims", 8}, {"layout", "rotate_half"}}));
    EXPECT_EQ(rotary["x"], plain["x"]);
    EXPECT_EQ(rotary["v"], plain["v"]);             // V is never turned
    EXPECT_EQ(rotary["q"][0][0], plain["q"][0][0]); // position 0: angle 0
    EXPECT_NE(rotary["q"][0][2], plain["q"][0][2]); // "a" again, turned by 2 positions
    EXPECT_EQ(plain["q"][0][0], plain["q"][0][2]);  // without positions, the same q
    const json theta =
        traceFor({"--sentence", "a b", "--positional", "rotary", "--rope-theta", "500000"});
    EXPECT_EQ(theta["config"]["rope"]["theta"], 500000);
}

TEST(Cli, RotaryWithCrossAttentionRunsWithoutPositionsAndSaysSo) {
    const ProcessResult r = runMhaViz(
        {"--sentence", "le chat", "--source", "the cat", "--positional", "rotary", "--json", "-"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("warning: rotary positions"), std::string::npos) << r.err;
    EXPECT_TRUE(json::parse(r.out)["config"]["rope"].is_null());
}

TEST(Cli, PitfallSwitchesAreOffByDefault) {
    const json j = traceFor({});
    EXPECT_EQ(j["config"]["out_proj"], true);
    EXPECT_EQ(j["config"]["ablate"], json::array());
    EXPECT_EQ(j["config"]["reshape_bug"], false);
    EXPECT_FALSE(j.contains("output_shift"));
}

TEST(Cli, NoOutProjGivesTheConcatAsOutput) {
    const json j = traceFor({"--no-out-proj"});
    EXPECT_EQ(j["config"]["out_proj"], false);
    EXPECT_EQ(j["output"], j["concat"]);
}

TEST(Cli, AblateTakesHeadsFromOneSortedAndUnique) {
    const json j = traceFor({"--ablate", "5,2,5", "--sentence", "a b c"});
    EXPECT_EQ(j["config"]["ablate"], json({2, 5}));
    ASSERT_EQ(j["output_shift"].size(), 1u);
    EXPECT_EQ(j["output_shift"][0].size(), 3u);
    for (int i = 0; i < 3; ++i) // head 2's columns [8, 16) of the concat are zeroed
        for (int c = 8; c < 16; ++c) EXPECT_EQ(j["concat"][0][i][c], 0.0);
    // The head outputs keep their values: the UI shows what was removed.
    EXPECT_EQ(j["head_outputs"], traceFor({"--sentence", "a b c"})["head_outputs"]);
}

TEST(Cli, AblateCanBeRepeatedButTakesOneListEachTime) {
    EXPECT_EQ(traceFor({"--ablate", "2", "--ablate", "5"})["config"]["ablate"], json({2, 5}));
    expectBadInput({"--ablate", "2", "5", "--json", "-"}, "5");
}

TEST(Cli, ReshapeBugIsRecordedAndChangesTheMaps) {
    const json bug = traceFor({"--reshape-bug", "--sentence", "a b c d"});
    EXPECT_EQ(bug["config"]["reshape_bug"], true);
    const json good = traceFor({"--sentence", "a b c d"});
    EXPECT_EQ(bug["q"], good["q"]);
    EXPECT_NE(bug["attention"], good["attention"]);
}

TEST(Cli, UiScaleOutsideItsRangeOrNotANumber) {
    for (const char* bad : {"0.2", "5", "nan", "big"})
        expectBadInput({"--ui-scale", bad, "--screenshot", "/tmp/never-written.png"},
                       std::string("--ui-scale"));
}

TEST(Cli, VersionNamesTheReleaseAndTheEnginePath) {
    const ProcessResult r = runMhaViz({"--version"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.rfind(std::string("mha-viz ") + build_facts::version() + "\nengine: ", 0), 0u)
        << r.out;
    EXPECT_NE(r.out.find("(available: scalar"), std::string::npos) << r.out;
}
