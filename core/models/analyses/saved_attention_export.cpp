// An attention file's export and JSON (saved_attention_export.h).
#include "models/analyses/saved_attention_export.h"

#include "models/analyses/trace_json_parts.h"

#include "io/json_writer.h"
#include "io/trace_json.h"
#include "models/analyses/export_files.h"
#include "models/analyses/real_model_figures.h"

#include <filesystem>
#include <new>
#include <sstream>

namespace core::models {
namespace {

// One stack of the file as the export names it: its folders, its grid's file and title.
struct StackFiles {
    const std::vector<std::shared_ptr<const Trace>>& layers;
    const char* folder; // "layer", "encoder-layer", "cross-layer"
    const char* grid;   // "model-grid", "model-grid-encoder", "model-grid-cross"
    const char* title;  // "every head of every layer", ...
    const char* part;   // in each file's name after the file's: "", "-encoder", "-cross"
    SavedStack which;   // which of the file's attentions
};

// The file's stacks as the export names them, layers.* first.
std::vector<StackFiles> stacksOf(const SavedAttention& s) {
    std::vector<StackFiles> stacks{{s.self.layers, "layer", "model-grid",
                                    "every head of every layer", "", SavedStack::Layers}};
    if (!s.encoder.empty())
        stacks.push_back({s.encoder.layers, "encoder-layer", "model-grid-encoder",
                          "the encoder's self-attention", "-encoder", SavedStack::Encoder});
    if (!s.cross.empty())
        stacks.push_back({s.cross.layers, "cross-layer", "model-grid-cross", "cross-attention",
                          "-cross", SavedStack::Cross});
    return stacks;
}

// The file's caption, and which of its attentions a stack's figures show.
std::vector<std::string> stackCaption(const SavedAttention& s, const StackFiles& stack) {
    std::vector<std::string> lines = savedAttentionCaption(s);
    if (const std::string line = savedStackLine(stack.which); !line.empty()) lines.push_back(line);
    return lines;
}

// The file's name without its extension: what each figure's file name and title says.
std::string stemOf(const SavedAttention& s) {
    return std::filesystem::path(s.name).stem().string();
}

// Every stack's layer folders, then its grid of every head.
void exportStacks(const SavedAttention& s, const RealExportOptions& o, const ExportRequest& base,
                  ModelFiles& files) {
    for (const StackFiles& stack : stacksOf(s)) {
        const auto& layers = stack.layers;
        const LayerFolders folders{stack.folder, int(layers.size()),
                                   [&layers](int l) { return layers.at(std::size_t(l)); },
                                   stemOf(s) + stack.part, stackCaption(s, stack)};
        exportLayerFolders(folders, base, files);
    }
    for (const StackFiles& stack : stacksOf(s)) {
        GridFigure grid = modelGridFigure(
            stack.layers, o.caption ? stackCaption(s, stack) : std::vector<std::string>{},
            o.colormap);
        grid.title = stemOf(s) + " \xC2\xB7 " + stack.title;
        files.grid(stack.grid, std::move(grid), o.scale, o.fullResolution);
    }
}

// The detectors, the rollout and the v2 trace, after the layers.
void exportViews(const SavedAttention& s, const RealExportOptions& o, ModelFiles& files) {
    const std::vector<std::string> lines = savedAttentionCaption(s);
    const std::vector<HeadDetectorScores> detectors = savedDetectorsShown(s);
    for (const HeadDetectorScores& d : detectors) // every one scored on the file's sentence
        files.figure("detectors-" + fileNamePart(d.name),
                     captioned(detectorFigure(d, o.colormap), lines, o.caption), o.scale, false);
    if (!detectors.empty()) files.text("detectors", ".csv", headScoresCsv(detectors));
    files.figure("rollout",
                 captioned(rolloutFigure(s.self.meanAttention, *s.layers().front(), s.layerCount(),
                                         o.colormap),
                           lines, o.caption),
                 o.scale, true);
    if (o.traces == ExportTraces::None) return;
    std::ostringstream json;
    writeSavedAttentionJson(s, 0, json);
    files.text("model-trace", ".json", json.str());
}

} // namespace

std::vector<HeadDetectorScores> savedDetectorsShown(const SavedAttention& saved) {
    std::vector<HeadDetectorScores> shown = saved.self.detectors;
    if (saved.tokens.tokens.size() >= 2) shown.push_back(sinkDetectorScores(saved.self.sinkShares));
    return shown;
}

int savedAttentionExportFileCount(const SavedAttention& saved, const RealExportOptions& options) {
    const bool layerJson = options.traces == ExportTraces::Full;
    int files = 0;
    for (const StackFiles& stack : stacksOf(saved))
        files += int(stack.layers.size()) * layerFileCount(*stack.layers.front(), layerJson) + 2;
    const int detectors = int(savedDetectorsShown(saved).size());
    const int json = options.traces == ExportTraces::None ? 0 : 1;
    return files + (detectors > 0 ? 2 * detectors + 1 : 0) + 3 + json; // ...; rollout; JSON
}

std::vector<std::string> exportSavedAttention(const SavedAttention& saved, const std::string& dir,
                                              const RealExportOptions& options,
                                              const ExportProgress& progress) {
    if (options.scale < 1 || options.scale > 4)
        throw ExportError("export scale " + std::to_string(options.scale) + " must be 1 to 4", {});
    if (saved.layers().empty()) throw ExportError("nothing to export: the file has no layers", {});
    try {
        prepareExportFolder(dir);
    } catch (const std::runtime_error& e) {
        throw ExportError(e.what(), {});
    }
    ModelFiles files{dir, {}, progress, savedAttentionExportFileCount(saved, options)};
    const ExportRequest request = layerRequest(options);
    return writeExport(files, [&] {
        exportStacks(saved, options, request, files);
        exportViews(saved, options, files);
    });
}

namespace {

// "key": the tokens as saved.
void writeStrings(JsonWriter& w, const char* key, const Tokenized& tokens) {
    w.key(key);
    w.beginArray();
    for (const Token& token : tokens.tokens) w.value(token.text);
    w.endArray();
}

// [L] of {layer, ablate, attention}, as an attention-only trace's layers (none switched off).
void writeLayers(JsonWriter& w, const char* key,
                 const std::vector<std::shared_ptr<const Trace>>& layers, std::ostream& out) {
    w.key(key);
    w.beginArray();
    for (std::size_t l = 0; l < layers.size(); ++l) {
        w.beginObject();
        w.field("layer", int(l + 1));
        w.key("ablate");
        w.beginArray();
        w.endArray();
        w.key("attention");
        writeAttentionTensor(w, *layers[l]);
        w.endObject();
        out.flush(); // layer by layer: a reader sees each as it is written
    }
    w.endArray();
}

// "attention_file": where the maps come from and their sizes, in place of a model.
void writeSource(JsonWriter& w, const SavedAttention& s) {
    w.beginObject();
    w.field("file", s.path);
    w.field("title", savedAttentionTitle(s));
    w.field("tokens_from", s.tokensFrom);
    w.field("dtype", s.dtype);
    w.field("layers", s.layerCount());
    w.field("heads", s.heads());
    w.field("causal", s.causal());
    w.field("encoder_layers", s.encoder.layerCount());
    w.field("cross_layers", s.cross.layerCount());
    w.endObject();
}

} // namespace

void writeSavedAttentionJson(const SavedAttention& s, int precision, std::ostream& out) {
    JsonWriter w(out);
    beginTraceJson(w, precision, true);
    w.key("attention_file");
    writeSource(w, s);
    w.key("warnings");
    w.beginArray();
    for (const std::string& warning : s.warnings) w.value(warning);
    w.endArray();
    w.key("sentences");
    w.beginArray();
    w.beginObject();
    w.field("text", s.tokens.text);
    writeStrings(w, "tokens", s.tokens);
    w.endObject();
    w.endArray();
    writeLayers(w, "layers", s.layers(), out);
    if (!s.encoder.empty() || !s.cross.empty()) writeStrings(w, "source_tokens", s.sourceTokens);
    if (!s.encoder.empty()) writeLayers(w, "encoder_layers", s.encoder.layers, out);
    if (!s.cross.empty()) writeLayers(w, "cross_layers", s.cross.layers, out);
    w.endObject();
    out << '\n';
}

} // namespace core::models
