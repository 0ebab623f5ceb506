#include "cli.h"

#include "atomic_file.h"
#include "trace.h"
#include "trace_json.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <stdexcept>

namespace app {

namespace {

void printError(const std::string& message) {
    std::cerr << "mha-viz: error: " << message << '\n';
}

// CLI11 messages may span lines; the contract is one line.
std::string oneLine(std::string text) {
    for (char& c : text)
        if (c == '\n') c = ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

} // namespace

std::optional<CliOptions> parseCli(int argc, char** argv, int& exitCode) {
    CliOptions options;
    core::Scene& scene = options.scene;
    std::vector<std::string> sentences;
    std::string mask = "none", scale = "sqrt_d_head";
    bool noPositional = false;

    CLI::App cli{"mha-viz: see multi-head attention, head by head.\n"
                 "Without --json it opens the window; with it, it runs headless."};
    cli.add_option("--sentence", sentences,
                   "Query sentence; repeat for a batch, padded to the longest with a "
                   "key-padding mask (default: the demo sentence)");
    cli.add_option("--source", scene.sources,
                   "Cross-attention: keys and values come from this sentence (one, or one per "
                   "--sentence)");
    cli.add_option("--d-model", scene.d_model, "Model width, an even number 2..1024")
        ->capture_default_str();
    cli.add_option("--heads", scene.heads, "Number of heads H; must divide d_model")
        ->capture_default_str();
    cli.add_option("--mask", mask, "none or causal (padding masking is automatic for batches)")
        ->check(CLI::IsMember({"none", "causal"}))
        ->capture_default_str();
    cli.add_option("--seed", scene.seed, "Weights are a pure function of the seed")
        ->check(CLI::Validator(
            [](std::string& text) {
                // CLI11 would wrap -1 to 2^64 - 1.
                return text.find('-') == std::string::npos
                           ? std::string()
                           : "seed " + text + " must be a whole number >= 0";
            },
            "UINT"))
        ->capture_default_str();
    cli.add_option("--weights", scene.weights, "Weight mode: random")->capture_default_str();
    cli.add_option("--scale", scale, "Score scale: sqrt_d_head, sqrt_d_model or none")
        ->check(CLI::IsMember({"sqrt_d_head", "sqrt_d_model", "none"}))
        ->capture_default_str();
    cli.add_flag("--no-positional", noPositional, "Leave out the sinusoidal positional encoding");
    cli.add_option("--json", options.jsonPath, "Write the trace as JSON to FILE ('-' = stdout)");
    cli.add_option("--export-dir", options.exportDir,
                   "Where the window's exports go (Ctrl+E); default $XDG_PICTURES_DIR/mha-viz");
    cli.add_option("--screenshot", options.screenshotPath,
                   "Open the window, render until settled, save a PNG of it to FILE, exit");
    cli.add_option("--bench-frames", options.benchFrames,
                   "Open the window, recompute every frame for N frames, print frame times, exit")
        ->check(CLI::Range(1, 1000000));

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        exitCode = cli.exit(e);
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        printError(oneLine(e.what()));
        exitCode = kExitBadInput;
        return std::nullopt;
    }
    if (!sentences.empty()) scene.sentences = sentences;
    scene.mask = *core::parseMaskKind(mask);
    scene.scale = *core::parseScaleKind(scale);
    scene.positional = !noPositional;
    if (std::string error = core::validationError(scene); !error.empty()) {
        printError(error);
        exitCode = kExitBadInput;
        return std::nullopt;
    }
    exitCode = 0;
    return options;
}

int runHeadless(const CliOptions& options) {
    core::Trace trace;
    try {
        trace = core::run(options.scene);
    } catch (const std::invalid_argument& e) {
        printError(e.what());
        return kExitBadInput;
    }
    for (const std::string& warning : trace.warnings)
        std::cerr << "mha-viz: warning: " << warning << '\n';
    if (!options.jsonPath.empty()) {
        if (options.jsonPath == "-") {
            core::writeTraceJson(trace, std::cout);
            std::cout.flush();
        } else if (std::string error =
                       core::writeFileAtomically(options.jsonPath, core::traceJson(trace));
                   !error.empty()) {
            printError(error);
            return kExitBadInput;
        }
    }
    return 0;
}

} // namespace app
