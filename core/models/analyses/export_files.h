// What the exports of a whole model share (real_model_export.h for a checkpoint,
// saved_attention_export.h for an attention file): the files after the layers' folders, each
// named free just before it is written and counted for the progress; each layer's folder through
// exportFigures with the caption that says where its maps come from.
#pragma once

#include "figures/figure.h"
#include "io/figure_export.h"
#include "models/analyses/real_model_export.h"

#include <new>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core::models {

// The files of one export, in the order written: `progress` hears of each.
struct ModelFiles {
    std::string dir;
    std::vector<std::string> written;
    const ExportProgress& progress;
    int total = 0;

    void done(const std::string& path);
    // `contents` into the free "<dir>/<stem>[-k]<ext>".
    void text(const std::string& stem, const std::string& ext, const std::string& contents);
    // SVG, PNG (and CSV) under one free stem, so they stay together.
    void figure(const std::string& stem, const HeatmapFigure& figure, int scale, bool csv);
    // SVG and PNG of a grid, shrunk to a slide unless `fullResolution`.
    void grid(const std::string& stem, GridFigure grid, int scale, bool fullResolution);
};

// The files exportFigures writes for one layer (each head, the grid, the mean, the statistics,
// and with `traceJson` the layer's trace).
int layerFileCount(const Trace& layer, bool traceJson);

// The figure with `lines` before its own caption, or no caption at all.
HeatmapFigure captioned(HeatmapFigure figure, const std::vector<std::string>& lines, bool caption);

// A name as a file name part: letters, digits, '_' and '-' only.
std::string fileNamePart(const std::string& name);

// How the layers of one stack go into their folders.
struct LayerFolders {
    std::string stem; // "layer": folders layer-01, layer-02, ...
    int layers = 0;   // L
    std::function<std::shared_ptr<const Trace>(int)> layerAt; // layer l (from 0), kept or made
    std::string modelName;                 // names each file ("mha-viz-gpt2-L1-H3.png")
    std::vector<std::string> captionLines; // then "layer l of L"
};

// Every layer into its own free folder <stem>-NN through exportFigures, with `base`'s scale,
// colormap and switches. Throws ExportError with every file written so far.
void exportLayerFolders(const LayerFolders& folders, const ExportRequest& base, ModelFiles& files);

// The request every layer's folder is written with: the export's scale, colours, caption and
// size, and the layer's trace JSON only for ExportTraces::Full.
ExportRequest layerRequest(const RealExportOptions& options);

// Runs `write` (every file of the export, into `files`) and returns the files written. A failure
// other than memory becomes an ExportError that keeps them: what was written stays.
template <class Write>
std::vector<std::string> writeExport(ModelFiles& files, const Write& write) {
    try {
        write();
    } catch (const ExportError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;                          // the caller says how to need less memory
    } catch (const std::exception& e) { // a file, the font, a figure
        throw ExportError(e.what(), files.written);
    }
    return files.written;
}

} // namespace core::models
