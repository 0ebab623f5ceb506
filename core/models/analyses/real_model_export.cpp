// A real model's export (real_model_export.h).
#include "models/analyses/real_model_export.h"

#include "io/atomic_file.h"
#include "models/analyses/export_files.h"
#include "models/analyses/real_model_figures.h"
#include "models/analyses/real_trace_json.h"
#include "models/formats/model_folder.h"

#include <new>
#include <sstream>

namespace core::models {
namespace {

constexpr int kLensTop = 5; // tokens per layer in logit-lens.csv

// Every layer into its own free folder layer-NN through exportFigures, captioned with the
// model (the layer's scene would claim a seed and random weights).
void exportLayers(const RealModel& model, const RealTrace& trace, const ExportRequest& base,
                  ModelFiles& files) {
    LayerFolders folders{"layer", trace.layerCount(),
                         [&trace](int l) { return trace.layer(l); }, // kept or recomputed
                         modelDisplayName(model.location), realModelCaption(model, trace)};
    exportLayerFolders(folders, base, files);
}

// model-grid.png/svg and its value-weighted twin: every head of every layer, titled with the
// model, one colour bar, shrunk to a slide unless asked for full resolution.
void exportModelGrids(const RealModel& model, const RealTrace& trace, const RealExportOptions& o,
                      const std::vector<std::string>& modelLines, ModelFiles& files) {
    const std::string name = modelDisplayName(model.location);
    for (const bool weighted : {false, true}) { // the weights, then value-weighted
        std::vector<std::string> lines = o.caption ? modelLines : std::vector<std::string>{};
        if (weighted && o.caption)
            lines.push_back("value-weighted: |alpha_ij f(x_j)| per head, rows normalised "
                            "(Kobayashi et al. 2020)");
        GridFigure grid = modelGridFigure(trace, lines, o.colormap, weighted);
        grid.title = name.substr(name.rfind('/') + 1) + " \xC2\xB7 every head of every layer" +
                     (weighted ? ", value-weighted" : "");
        files.grid(weighted ? "model-grid-value-weighted" : "model-grid", std::move(grid), o.scale,
                   o.fullResolution);
    }
}

// The model grids, the detectors, rollout, logit lens and the v2 trace, after the layers.
void exportModelViews(const RealModel& model, const RealTrace& trace,
                      const std::vector<HeadDetectorScores>& detectors, const RealExportOptions& o,
                      ModelFiles& files) {
    const std::vector<std::string> modelLines = realModelCaption(model, trace);
    exportModelGrids(model, trace, o, modelLines, files);
    // A decoder's detectors ran on their own sequence, not on the text: its line is left out.
    std::vector<std::string> detectorLines = modelLines;
    if (!model.isEncoder()) {
        detectorLines.erase(detectorLines.begin());
        detectorLines.push_back("scored on repeated random tokens (TransformerLens's test), not "
                                "on a text");
    }
    for (const HeadDetectorScores& d : detectors) // the sink's of the text: its line stays
        files.figure("detectors-" + fileNamePart(d.name),
                     captioned(detectorFigure(d, o.colormap),
                               d.onSentence ? modelLines : detectorLines, o.caption),
                     o.scale, false);
    if (!detectors.empty()) files.text("detectors", ".csv", headScoresCsv(detectors));
    const int layers = trace.layerCount();
    files.figure("rollout",
                 captioned(rolloutFigure(trace, layers, o.colormap), modelLines, o.caption),
                 o.scale, true);
    if (model.net->hasHead()) // an encoder without its MLM head has nothing to read through
        files.text("logit-lens", ".csv", logitLensCsv(model, trace, lensPosition(trace), kLensTop));
    if (o.traces == ExportTraces::None) return;
    std::ostringstream json;
    RealTraceJsonOptions jsonOptions;
    jsonOptions.attentionOnly = o.traces == ExportTraces::Attention;
    writeRealTraceJson(model, trace, jsonOptions, json);
    files.text("model-trace", ".json", json.str());
}

} // namespace

int lensPosition(const RealTrace& trace) {
    const std::vector<int> masks = trace.maskPositions();
    return masks.empty() ? int(trace.ids.size()) - 1 : masks.front();
}

int realModelExportFileCount(const RealTrace& trace,
                             const std::vector<HeadDetectorScores>& detectors,
                             const RealExportOptions& options) {
    // Every layer writes what the first does: the same heads and views.
    const bool layerJson = options.traces == ExportTraces::Full;
    const int files =
        trace.layerCount() * (trace.layerCount() ? layerFileCount(*trace.layer(0), layerJson) : 0);
    const int detectorFiles = detectors.empty() ? 0 : 2 * int(detectors.size()) + 1;
    const int lens = trace.model && trace.model->net->hasHead() ? 1 : 0;
    const int json = options.traces == ExportTraces::None ? 0 : 1;
    return files + 4 + detectorFiles + 3 + lens + json; // grids; detectors; rollout; lens; JSON
}

std::vector<std::string> exportRealModel(const RealModel& model, const RealTrace& trace,
                                         const std::vector<HeadDetectorScores>& detectors,
                                         const std::string& dir, const RealExportOptions& options,
                                         const ExportProgress& progress) {
    if (options.scale < 1 || options.scale > 4)
        throw ExportError("export scale " + std::to_string(options.scale) + " must be 1 to 4", {});
    if (trace.layerCount() == 0 || trace.ids.empty())
        throw ExportError("nothing to export: the trace has no layers", {});
    try {
        prepareExportFolder(dir);
    } catch (const std::runtime_error& e) {
        throw ExportError(e.what(), {});
    }
    ModelFiles files{dir, {}, progress, realModelExportFileCount(trace, detectors, options)};
    const ExportRequest request = layerRequest(options);
    return writeExport(files, [&] {
        exportLayers(model, trace, request, files);
        exportModelViews(model, trace, detectors, options, files);
    });
}

} // namespace core::models
