// The attention-file part of the command line (attention_file_cli.h).
#include "cli/attention_file_cli.h"

#include "cli/cli.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "models/analyses/saved_attention_export.h"

#include <iostream>
#include <new>

namespace app {
namespace {

// What a file of attention cannot do: each flag with the reason it is refused.
struct Refused {
    const char* flag;
    const char* why;
};
constexpr Refused kNotWithAttention[] = {
    {"--model", "gives a model; --attention views attention saved without one: give one of them"},
    {"--sentence", "the sentence is the file's own tokens"},
    {"--source", "the file says its own source tokens"},
    {"--step", "is for run folders of mha-viz train"},
    {"--top-k", core::models::kNeedsTheModel},
    {"--json-logits", core::models::kNeedsTheModel},
    {"--pair", core::models::kNeedsTheModel},
    {"--bench-forward", core::models::kNeedsTheModel},
    {"--bench-typing", core::models::kNeedsTheModel},
    {"--scene", "the file fixes what is shown"},
    {"--save-scene", "the file fixes what is shown"}};

// The scene flags a model fixes: the file fixes them as much (its heads, its mask).
constexpr const char* kSceneFlags[] = {
    "--d-model",     "--heads",  "--kv-heads",   "--mask",       "--seed",
    "--weights",     "--scale",  "--positional", "--rope-theta", "--no-positional",
    "--no-out-proj", "--ablate", "--reshape-bug"};

} // namespace

std::string loadAttentionFileOptions(const CLI::App& cli, CliOptions& options) {
    if (options.attentionPath.empty()) return "--attention needs a file (a .safetensors of maps)";
    for (const Refused& r : kNotWithAttention)
        if (cli.count(r.flag) > 0) return std::string(r.flag) + " with --attention: " + r.why;
    for (const char* flag : kSceneFlags)
        if (cli.count(flag) > 0)
            return std::string(flag) + " does not apply to --attention (the file fixes the " +
                   "heads and the mask; no weights are in it)";
    if (options.real.exportTraces == core::models::ExportTraces::Full)
        return std::string("--export-traces full ") + core::models::kNeedsTheModel +
               " (attention: the file's maps as JSON)";
    try {
        options.savedAttention = core::models::openSavedAttention(options.attentionPath);
    } catch (const std::bad_alloc&) {
        return options.attentionPath + ": not enough memory for this attention file";
    } catch (const std::exception& e) {
        return e.what();
    }
    const int layers = options.savedAttention->layerCount();
    if (options.modelLayer > layers)
        return "--layer " + std::to_string(options.modelLayer) + ": the file has " +
               std::to_string(layers) + " layers";
    options.scene.sentences = {options.savedAttention->tokens.text};
    options.weightsGiven = true;
    return {};
}

namespace {

// --json FILE|-: the file's v2 trace.
void writeAttentionJson(const CliOptions& options, const core::models::SavedAttention& saved) {
    const int precision = options.real.jsonPrecision;
    writeJsonOutput(options.jsonPath, [&](std::ostream& out) {
        core::models::writeSavedAttentionJson(saved, precision, out);
    });
}

// --export DIR: every view of the file (saved_attention_export.h), a line when it starts and
// when it is done.
void exportAttentionFigures(const CliOptions& options, const core::models::SavedAttention& saved) {
    core::prepareExportFolder(options.exportPath); // before any progress line
    std::cerr << "mha-viz: exporting figures of " << saved.path << " to " << options.exportPath
              << " ...\n";
    core::models::RealExportOptions exportOptions;
    exportOptions.scale = options.exportScale, exportOptions.colormap = options.view.colormap;
    exportOptions.caption = options.exportCaption;
    exportOptions.traces = options.real.exportTraces;
    exportOptions.fullResolution = options.exportFullSize;
    const std::vector<std::string> files =
        core::models::exportSavedAttention(saved, options.exportPath, exportOptions);
    std::cerr << "mha-viz: wrote " << files.size() << " files to " << options.exportPath << '\n';
}

} // namespace

int runAttentionFileHeadless(const CliOptions& options) {
    const core::models::SavedAttention& saved = *options.savedAttention;
    for (const std::string& w : saved.warnings) std::cerr << "mha-viz: warning: " << w << '\n';
    try {
        if (!options.jsonPath.empty()) writeAttentionJson(options, saved);
        if (!options.exportPath.empty()) exportAttentionFigures(options, saved);
    } catch (const std::bad_alloc&) {
        printError("mha-viz", "not enough memory for this export; try a smaller --export-scale");
        return kExitBadInput;
    } catch (const std::exception& e) {
        printError("mha-viz", e.what());
        return kExitBadInput;
    }
    return 0;
}

} // namespace app
