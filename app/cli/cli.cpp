#include "cli/cli.h"

#include "cli/attention_file_cli.h"
#include "cli/command_line.h"
#include "cli/seq2seq_cli.h"

#include "io/train_scene.h"

#include "engine/simd.h"
#include "engine/trace.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "io/scene_json.h"
#include "io/trace_json.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <new>
#include <stdexcept>

namespace app {

void printError(std::string_view program, std::string message) {
    for (char& c : message) // CLI11 messages may span lines; the contract is one line
        if (c == '\n') c = ' ';
    while (!message.empty() && message.back() == ' ') message.pop_back();
    std::cerr << program << ": error: " << message << '\n';
}

void writeJsonOutput(const std::string& path, const std::function<void(std::ostream&)>& write) {
    if (path == "-") {
        write(std::cout);
        std::cout.flush();
        if (!std::cout) // e.g. a full disk behind a redirection
            throw std::runtime_error("cannot write the trace to stdout");
    } else {
        core::writeFileAtomically(path, write);
    }
}

namespace {

void printError(const std::string& message) {
    app::printError("mha-viz", message);
}

bool isSpace(char c) {
    return c == ' ' || c == '\t';
}

// "2,5" -> heads {1, 4}: numbered from 1 on the command line, added to `out` as Scene keeps
// them (core::headSet: duplicates are harmless). Returns an error naming the bad value, or "".
std::string parseHeadList(const std::string& list, int heads, std::vector<int>& out) {
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        std::size_t first = start, last = comma;
        while (first < last && isSpace(list[first])) ++first;
        while (last > first && isSpace(list[last - 1])) --last;
        const std::string item = list.substr(first, last - first);
        const std::string where = "--ablate '" + list + "': ";
        if (item.empty()) return where + "empty head number (give heads from 1, e.g. 2,5)";
        if (!std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return where + "'" + item + "' is not a head number (give heads from 1, e.g. 2,5)";
        long long head = 0;
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), head);
        if (error != std::errc() || end != item.data() + item.size() || head > heads)
            return "ablated head " + item + " does not exist (heads = " + std::to_string(heads) +
                   ")";
        if (head == 0) return where + "head 0 does not exist (heads are numbered from 1)";
        out.push_back(int(head - 1));
        if (comma == list.size()) break;
        start = comma + 1;
    }
    out = core::headSet(std::move(out));
    return {};
}

// What the scene flags are read into before they become a Scene.
struct SceneFlags {
    std::vector<std::string> sentences;
    bool noPositional = false, noOutProjection = false;
    std::vector<std::string> ablate; // one list per --ablate, e.g. "2,5"
    int kvHeads = 0;                 // --kv-heads, checked against --heads once both are read
    std::optional<core::PositionalKind> positional; // --positional
    double ropeTheta = core::kDefaultRopeTheta;     // --rope-theta
    bool kvHeadsGiven = false, ropeThetaGiven = false;
};

// The flags a scene file sets (what is computed, and the colormap); --scene sets all at once.
constexpr const char* kSceneFlags[] = {
    "--sentence",    "--source",     "--d-model",     "--heads",
    "--kv-heads",    "--mask",       "--seed",        "--weights",
    "--scale",       "--positional", "--rope-theta",  "--no-positional",
    "--no-out-proj", "--ablate",     "--reshape-bug", "--colormap"};

} // namespace

std::string seedError(const std::string& text) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
        return "seed " + text + " is too large (at most 18446744073709551615)";
    if (ec != std::errc() || end != text.data() + text.size())
        return "seed " + text + " must be a whole number >= 0";
    return std::string();
}

namespace {

// CLI::Range lets nan through (every comparison is false).
std::string uiScaleError(const std::string& text) {
    const float value = std::strtof(text.c_str(), nullptr);
    return std::isfinite(value) && value >= 0.5f && value <= 4.0f
               ? std::string()
               : text + " is not a number from 0.5 to 4";
}

// What is computed: sentences, sizes, mask, seed, weights, scale and the teaching switches.
void addSceneOptions(CLI::App& cli, core::Scene& scene, SceneFlags& flags) {
    cli.add_option("--sentence", flags.sentences,
                   "Query sentence; repeat for a batch, padded to the longest with a "
                   "key-padding mask (default: the demo sentence)")
        ->allow_extra_args(false); // one sentence per flag: unquoted words are an error
    cli.add_option("--source", scene.sources,
                   "Cross-attention: keys and values come from this sentence (one, or one per "
                   "--sentence)")
        ->allow_extra_args(false);
    cli.add_option("--d-model", scene.d_model, "Model width, an even number 2..1024")
        ->capture_default_str();
    cli.add_option("--heads", scene.heads, "Number of heads H; must divide d_model")
        ->capture_default_str();
    cli.add_option("--kv-heads", flags.kvHeads,
                   "K/V heads H_kv, a divisor of H: query head h reads K/V head h / (H / H_kv) "
                   "(grouped-query attention; 1 = multi-query; default H, plain MHA)");
    addEnumOption(cli, "--mask", scene.mask,
                  core::describeEnumNames<core::MaskKind>() +
                      " (padding masking is automatic for batches)");
    cli.add_option("--seed", scene.seed, "Weights are a pure function of the seed")
        ->check(CLI::Validator(seedError, "UINT"))
        ->capture_default_str();
    addEnumOption(cli, "--weights", scene.weights,
                  "random (seeded) or designed (heads built to specialise: previous-token, "
                  "same-word, ...)");
    addEnumOption(cli, "--scale", scene.scale,
                  "Score scale: " + core::describeEnumNames<core::ScaleKind>());
    cli.add_option_function<std::string>(
           "--positional",
           [&flags](const std::string& text) {
               flags.positional = *core::parseEnum<core::PositionalKind>(text);
           },
           "Token positions: sinusoidal (added to x), rotary (RoPE: q and k turned per "
           "position, rotate_half) or none")
        ->check(CLI::IsMember(core::enumNameList<core::PositionalKind>()))
        ->default_str("sinusoidal");
    cli.add_option("--rope-theta", flags.ropeTheta,
                   "With --positional rotary: the base theta; pair j of a head turns by "
                   "position x theta^(-2j/d_head) (1 to 1e9)")
        ->capture_default_str();
    cli.add_flag("--no-positional", flags.noPositional,
                 "Leave out the positional encoding (as --positional none)");
    cli.add_flag("--no-out-proj", flags.noOutProjection,
                 "Skip the output projection W_O: the output is the concatenated heads");
    cli.add_option("--ablate", flags.ablate,
                   "Switch off these heads (numbered from 1, e.g. 2,5) by zeroing their outputs "
                   "before W_O")
        ->type_name("LIST")
        ->expected(1) // one list per --ablate; repeating it adds heads
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cli.add_flag("--reshape-bug", scene.reshapeBug,
                 "Split heads with a plain reshape of (N, d_model) to (H, N, d_head), without "
                 "the transpose");
}

// What the headless run writes, and scene files.
void addOutputOptions(CLI::App& cli, CliOptions& options) {
    cli.add_option("--json", options.jsonPath, "Write the trace as JSON to FILE ('-' = stdout)");
    cli.add_option(
        "--export", options.exportPath,
        "Write every head as SVG, PNG and CSV, the all-heads grid and the trace into DIR "
        "(no display needed; never overwrites)");
    cli.add_option("--export-scale", options.exportScale,
                   "PNG resolution multiplier for --export, 1 to 4")
        ->check(CLI::Range(1, 4))
        ->capture_default_str();
    cli.add_option_function<std::string>(
           "--export-caption",
           [&options](const std::string& value) { options.exportCaption = value == "on"; },
           "The caption under each --export figure (sentence, settings, head): on, or off for "
           "the title alone")
        ->check(CLI::IsMember({"on", "off"}))
        ->default_str("on");
    cli.add_flag("--export-full-resolution", options.exportFullSize,
                 "Grids of --export keep their cells however large (else a grid shrinks its "
                 "cells to at most 25 megapixels at --export-scale, what a slide takes)");
    addEnumOption(cli, "--colormap", options.view.colormap,
                  "The colormap of the --export figures and the window's maps: " +
                      core::describeEnumNames<core::ColormapId>());
    cli.add_option("--scene", options.scenePath, "Load every setting from a scene file (JSON)");
    cli.add_option("--save-scene", options.saveScenePath,
                   "Save every setting as a scene file (JSON) and exit");
}

// The window's options (and --version), in the order --help lists them.
void addWindowOptions(CLI::App& cli, CliOptions& options) {
    cli.add_option("--export-dir", options.exportDir,
                   "Where the window's exports go (Ctrl+E); default $XDG_PICTURES_DIR/mha-viz");
    cli.add_option("--screenshot", options.screenshotPath,
                   "Open the window, render until settled, save a PNG of it to FILE, exit");
    cli.add_option("--bench-frames", options.benchFrames,
                   "Open the window, recompute every frame for N frames, print frame times, exit")
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--state-file", options.stateFile,
                   "Window: after every frame write a JSON line of what it shows to FILE, for "
                   "scripts and tests that wait for the app");
    cli.add_option("--ui-scale", options.uiScale,
                   "Scale text and maps by K, 0.5 to 4, for HiDPI screens and projectors "
                   "(default: the monitor's content scale)")
        ->check(CLI::Validator(uiScaleError, "0.5..4"));
    cli.set_version_flag(
        "--version", [] { return "mha-viz " MHA_VERSION "\nengine: " + core::simdSummary(); },
        "Print the version and the engine's SIMD path, then exit");
    addEnumOption(cli, "--view", options.view.tab,
                  "The window's right-hand tab at start: " +
                      core::describeEnumNames<core::ViewTab>());
}

// A trained model instead of a scene.
void addModelOptions(CLI::App& cli, CliOptions& options) {
    cli.add_option("--model", options.modelDir,
                   "Open a model: a Hugging Face folder (GPT-2, BERT, RoBERTa, DistilBERT, Llama, "
                   "Mistral, Qwen 2/3, Gemma 1/2/3, Phi-3, OLMo 2), a GGUF file of the Llama "
                   "family (llama.cpp, Ollama, LM Studio) or a folder holding one, a name in the "
                   "local Hugging Face cache (gpt2, meta-llama/Llama-3.2-1B), or a run folder of "
                   "mha-viz train; with --json write its trace of every layer");
    cli.add_option("--attention", options.attentionPath,
                   "Open attention another framework saved (a .safetensors of layers.<l> maps "
                   "[H][N][N] and its tokens; docs/attention-files.md) without the model: every "
                   "view of the weights, --json its trace, --export its figures");
    cli.add_option("--step", options.modelStep,
                   "With --model: the checkpoint at this step (default: the last one)")
        ->check(CLI::Range(0, 999999));
    cli.add_option("--layer", options.modelLayer,
                   "With --model: the layer the window shows first, from 1 (L / Shift+L step)")
        ->check(CLI::Range(1, 256));
    cli.add_option("--top-k", options.real.topK,
                   "With a Hugging Face model: the K most likely tokens per position (next "
                   "token for GPT-2, the MLM head's for an encoder)")
        ->check(CLI::Range(1, 100));
    cli.add_option("--pair", options.real.pair,
                   "With an encoder (BERT, RoBERTa, DistilBERT): sentence B of a pair, read as "
                   "[CLS] A [SEP] B [SEP]");
    cli.add_flag("--json-logits", options.real.jsonLogits,
                 "With a Hugging Face model and --json: the full logits [B][N][V] (large)");
    cli.add_flag("--json-attention-only", options.real.jsonAttentionOnly,
                 "With a Hugging Face model and --json: per layer only the attention weights "
                 "(no weights, activations or scores): kilobytes instead of megabytes a layer");
    cli.add_option("--json-precision", options.real.jsonPrecision,
                   "With a Hugging Face model and --json: D significant digits per float (1 to 9; "
                   "default: the shortest text that reads back exactly)")
        ->check(CLI::Range(1, 9));
    addEnumOption(cli, "--export-traces", options.real.exportTraces,
                  "With a Hugging Face model and --export: the traces beside the figures: none, "
                  "attention (model-trace.json with the attention alone) or full (every layer's "
                  "weights and activations too: hundreds of MB for GPT-2 small)");
    cli.add_option("--target", options.real.target,
                   "With an encoder-decoder (T5, BART, Marian): the target the decoder reads "
                   "after its start token (teacher-forced); the source is --sentence");
    cli.add_option("--generate", options.real.generate,
                   "With an encoder-decoder: the decoder writes up to N tokens greedily from its "
                   "start token, stopping at its end token")
        ->check(CLI::Range(1, 4096));
    cli.add_option("--compare", options.real.compare,
                   "With a Hugging Face model: run a second one (a folder, a name) on the same "
                   "text and print the heads whose attention moved most (a checkpoint against "
                   "its quantized copy); --export DIR writes the comparison's CSV and figure");
    cli.add_option("--bench-forward", options.real.benchForward,
                   "With a Hugging Face model: time loading and the forward on N tokens, print "
                   "load and forward milliseconds, exit; an encoder-decoder reads N source "
                   "tokens and a target of --generate M (32), teacher-forced and greedy")
        ->check(CLI::Range(1, 100000));
    cli.add_option("--bench-typing", options.benchTyping,
                   "With a Hugging Face model: open the window, paste a text of N tokens, type 20 "
                   "characters at its end, print the milliseconds to each one's maps, exit")
        ->check(CLI::Range(1, 100000));
}

// Output flags given without a value, or headless output mixed with window-only flags.
std::string outputError(const CLI::App& cli, const CliOptions& options) {
    if (cli.count("--json") > 0 && options.jsonPath.empty())
        return "--json needs a file name, or - for stdout";
    if (cli.count("--export") > 0 && options.exportPath.empty())
        return "--export needs a folder name";
    const bool windowOnly =
        !options.screenshotPath.empty() || options.benchFrames > 0 || options.benchTyping > 0;
    if (options.headless() && windowOnly)
        return "--json and --export run headless; --screenshot and --bench-frames need the window";
    if (options.benchFrames > 0 && options.benchTyping > 0)
        return "--bench-frames and --bench-typing are two benchmarks: give one";
    return {};
}

// --scene: every setting from the file; --view still picks the tab.
std::string loadSceneOptions(const CLI::App& cli, CliOptions& options) {
    // A scene is every setting at once: mixing it with single settings would be ambiguous.
    for (const char* flag : kSceneFlags)
        if (cli.count(flag) > 0)
            return std::string("--scene sets every setting; leave out ") + flag;
    const core::ViewTab tabGiven = options.view.tab;
    try {
        options.scene = core::loadSceneFile(options.scenePath, &options.view);
        options.train = core::sceneFileTrainSettings(options.scenePath);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (cli.count("--view") > 0) options.view.tab = tabGiven; // the flag beats the file
    options.weightsGiven = true;
    return {};
}

// --positional, --no-positional and --rope-theta into `scene`, or the line naming the clash.
std::string applyPositionalFlags(const SceneFlags& flags, core::Scene& scene) {
    if (flags.noPositional && flags.positional)
        return "--no-positional and --positional both set the positions: give one";
    scene.positional = flags.noPositional ? core::PositionalKind::None
                                          : flags.positional.value_or(scene.positional);
    if (flags.ropeThetaGiven && scene.positional != core::PositionalKind::Rotary)
        return "--rope-theta is for rotary positions: add --positional rotary";
    scene.ropeTheta = flags.ropeTheta;
    return {};
}

// The scene flags into `scene`, then the scene's own validation.
std::string applySceneFlags(const SceneFlags& flags, core::Scene& scene) {
    if (!flags.sentences.empty()) scene.sentences = flags.sentences;
    if (std::string error = applyPositionalFlags(flags, scene); !error.empty()) return error;
    if (flags.kvHeadsGiven) { // checked here: 0 would read as "H_kv = H" in a Scene
        if (std::string error = core::kvHeadsError(scene.heads, flags.kvHeads); !error.empty())
            return "--kv-heads: " + error;
        core::setKvHeads(scene, flags.kvHeads);
    }
    scene.outProjection = !flags.noOutProjection;
    for (const std::string& list : flags.ablate)
        if (std::string error = parseHeadList(list, scene.heads, scene.ablatedHeads);
            !error.empty())
            return error;
    return core::validationError(scene);
}

// What a model fixes, or cannot do: refused with --model.
constexpr const char* kNotWithModel[] = {
    "--source",     "--d-model",     "--heads",         "--kv-heads",
    "--mask",       "--seed",        "--weights",       "--scale",
    "--positional", "--rope-theta",  "--no-positional", "--no-out-proj",
    "--ablate",     "--reshape-bug", "--scene",         "--save-scene"};

// What a Hugging Face model can export and a run folder of mha-viz train cannot (yet).
constexpr const char* kExportFlags[] = {"--export", "--export-scale", "--export-caption",
                                        "--export-full-resolution"};

// Flags only a Hugging Face model takes.
constexpr const char* kRealModelOnly[] = {
    "--top-k",          "--json-logits",   "--json-attention-only",
    "--json-precision", "--export-traces", "--bench-forward",
    "--pair",           "--bench-typing",  "--compare",
    "--target",         "--generate"};

// --model DIR [--step S]: the run read, its sentences (or the task's default) checked; or a
// Hugging Face model (the folder, or the cache, says which).
std::string loadModelOptions(const CLI::App& cli, const SceneFlags& flags, CliOptions& options) {
    if (options.modelDir.empty())
        return "--model needs a model folder, a model name or a run folder of mha-viz train";
    for (const char* flag : kNotWithModel)
        if (cli.count(flag) > 0)
            return std::string(flag) + " does not apply to a model (--model fixes the " +
                   "architecture and weights; --json writes its trace)";
    core::models::ModelLocation where;
    try {
        where = core::models::locateModel(options.modelDir);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (where.kind != core::models::ModelFolderKind::TrainRun) { // a folder or a GGUF file
        if (cli.count("--step") > 0) return "--step is for run folders of mha-viz train";
        options.real.pairGiven = cli.count("--pair") > 0;
        options.real.targetGiven = cli.count("--target") > 0;
        const auto given = [&cli](const char* flag) { return cli.count(flag) > 0; };
        if (const auto error = loadSeq2SeqIfOne(where, given, options, flags.sentences))
            return *error;
        return loadRealModel(options, flags.sentences);
    }
    for (const char* flag : kRealModelOnly)
        if (cli.count(flag) > 0)
            return std::string(flag) + " needs a Hugging Face model, not a run folder";
    for (const char* flag : kExportFlags)
        if (cli.count(flag) > 0)
            return std::string(flag) + " does not apply to a run folder of mha-viz train " +
                   "(--json writes its trace)";
    try {
        auto run = std::make_shared<core::TrainedRun>(
            core::loadTrainedRun(options.modelDir, options.modelStep));
        options.scene.sentences =
            flags.sentences.empty()
                ? std::vector<std::string>{core::train::defaultModelSentence(run->task)}
                : flags.sentences;
        core::train::traceModel(run->model, options.scene.sentences); // throws for bad sentences
        if (options.modelLayer > run->model.config.layers)
            return "--layer " + std::to_string(options.modelLayer) + ": the model has " +
                   std::to_string(run->model.config.layers) + " layers";
        options.model = std::move(run);
    } catch (const std::bad_alloc&) {
        return "not enough memory for this model and these sentences";
    } catch (const std::exception& e) {
        return e.what();
    }
    options.weightsGiven = true; // the window keeps the model's weights
    return {};
}

} // namespace

std::optional<CliOptions> parseCli(int argc, char** argv, int& exitCode) {
    CliOptions options;
    SceneFlags flags;
    CLI::App cli{"mha-viz: see multi-head attention, head by head.\n"
                 "Without --json it opens the window; with it, it runs headless."};
    cli.footer("Train a tiny transformer and watch its heads specialise: mha-viz train --help\n"
               "Draw its curves: mha-viz plot --help");
    addSceneOptions(cli, options.scene, flags);
    addOutputOptions(cli, options);
    addWindowOptions(cli, options);
    addModelOptions(cli, options);
    const auto check = [&]() -> std::string {
        options.weightsGiven = cli.count("--weights") > 0;
        flags.kvHeadsGiven = cli.count("--kv-heads") > 0;
        flags.ropeThetaGiven = cli.count("--rope-theta") > 0;
        if (std::string error = outputError(cli, options); !error.empty()) return error;
        if (cli.count("--attention") > 0) return loadAttentionFileOptions(cli, options);
        if (cli.count("--model") > 0) return loadModelOptions(cli, flags, options);
        if (cli.count("--step") > 0 || cli.count("--layer") > 0)
            return std::string(cli.count("--step") > 0 ? "--step" : "--layer") +
                   " needs --model DIR or --attention FILE";
        for (const char* flag : kRealModelOnly)
            if (cli.count(flag) > 0) return std::string(flag) + " needs --model DIR|NAME";
        return options.scenePath.empty() ? applySceneFlags(flags, options.scene)
                                         : loadSceneOptions(cli, options);
    };
    if (!parseCommandLine(cli, argc, argv, "mha-viz", check, exitCode)) return std::nullopt;
    return options;
}

namespace {

// --json, --save-scene, --export: each throws with one line naming what failed.
void writeHeadlessOutputs(const core::Trace& trace, const CliOptions& options) {
    if (!options.jsonPath.empty())
        writeJsonOutput(options.jsonPath,
                        [&](std::ostream& out) { core::writeTraceJson(trace, out); });
    if (!options.saveScenePath.empty())
        core::saveSceneFile(options.saveScenePath, options.scene, &options.view);
    if (!options.exportPath.empty()) {
        core::prepareExportFolder(options.exportPath); // before any progress line: bad input
                                                       // gives exactly one line
        std::cerr << "mha-viz: exporting figures to " << options.exportPath << " ...\n";
        core::ExportRequest request;
        request.dir = options.exportPath, request.scale = options.exportScale;
        request.colormap = options.view.colormap, request.caption = options.exportCaption;
        request.fullResolution = options.exportFullSize;
        const std::vector<std::string> files = core::exportFigures(trace, request, {});
        std::cerr << "mha-viz: wrote " << files.size() << " files to " << options.exportPath
                  << '\n';
    }
}

} // namespace

namespace {

// --model DIR --json FILE: the v2 trace of every layer.
int runModelHeadless(const CliOptions& options) {
    core::ModelTrace trace;
    try {
        trace = core::train::traceModel(options.model->model, options.scene.sentences,
                                        options.model->warnings); // e.g. NaN in the checkpoint
    } catch (const std::exception& e) {
        printError(e.what());
        return kExitBadInput;
    }
    for (const std::string& warning : trace.warnings)
        std::cerr << "mha-viz: warning: " << warning << '\n';
    try {
        writeJsonOutput(options.jsonPath, [&](std::ostream& out) {
            core::writeModelTraceJson(trace, *options.model, out);
        });
    } catch (const std::exception& e) {
        printError(e.what());
        return kExitBadInput;
    }
    return 0;
}

} // namespace

int runHeadless(const CliOptions& options) {
    if (options.savedAttention) return runAttentionFileHeadless(options);
    if (options.seq2seqModel) return runSeq2SeqHeadless(options);
    if (options.realModel) return runRealModelHeadless(options);
    if (options.model) return runModelHeadless(options);
    core::Trace trace;
    try {
        trace = core::run(options.scene);
    } catch (const std::bad_alloc&) {
        printError("not enough memory for this scene; use fewer sentences, tokens or heads");
        return kExitBadInput;
    } catch (const std::exception& e) { // invalid_argument: the scene's own one-line message
        printError(e.what());
        return kExitBadInput;
    }
    for (const std::string& warning : trace.warnings)
        std::cerr << "mha-viz: warning: " << warning << '\n';
    try {
        writeHeadlessOutputs(trace, options);
    } catch (const std::exception& e) {
        printError(e.what());
        return kExitBadInput;
    }
    return 0;
}

} // namespace app
