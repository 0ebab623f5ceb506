// Writing figures to a folder, without a display and without overwriting anything: one view
// (the window's export panel) or everything (`mha-viz --export DIR`).
#pragma once

#include "engine/trace.h"
#include "figures/colormap.h"
#include "figures/curve_figure.h"
#include "figures/figure.h"

#include <atomic>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace core {

// Why an export stopped (one line naming the problem), and the files it wrote before: they
// stay, nothing is lost.
class ExportError : public std::runtime_error {
  public:
    ExportError(const std::string& what, std::vector<std::string> written);
    std::vector<std::string> written; // in order
};

enum class ExportWhat {
    Head,       // the selected head: PNG, SVG, CSV
    Grid,       // all heads side by side: PNG, SVG
    EachHead,   // every head, one file each: PNG, SVG, CSV
    Mean,       // the mean over heads: PNG, SVG, CSV
    Difference, // head - headB: PNG, SVG, CSV
    Lines,      // the selected head as a line view: PNG, SVG (CSV = its weights)
    Statistics, // row entropy per head and query: PNG, SVG; CSV with entropy and argmax
};

struct ExportFormats {
    bool png = true, svg = true, csv = true;
    bool json = false; // the trace JSON beside the figures
};

// The formats `what` can be written as: every view as PNG and SVG; CSV too, except the grid
// (one CSV per head: EachHead); the trace JSON beside any of them. The export panel offers
// these, exportView writes no other.
ExportFormats offeredFormats(ExportWhat what);

struct ExportRequest {
    ExportWhat what = ExportWhat::Head;
    ExportFormats formats;
    int scale = 1; // PNG resolution multiplier, 1..4
    std::string dir;
    int batchIndex = 0; // which sentence; -1 = every sentence
    int head = 0, headB = 1;
    ColormapId colormap = ColormapId::Viridis;
    int workers = 0; // threads writing files; 0: one per core, at most 4
    // The caption under each figure (the sentence, the settings, the head); off: the title
    // alone, for a slide that says the rest itself.
    bool caption = true;
    // With the caption on: these lines instead of the scene's, then the figure's own title. A
    // real model's layer needs them: its scene names no checkpoint (a seed and random weights).
    std::vector<std::string> captionLines;
    // A sentence pair's cells outside the block shown left blank (not hatched as masked), the
    // view named in each title.
    PairView pairView = PairView::All;
    // A model's layer (trace.layer): its name ("openai-community/gpt2"; the part after the last
    // '/' is used) names each file and title, "mha-viz-gpt2-L10-H11.png" titled "gpt2 · L10-H11",
    // so heads of different layers and models never share a name. Empty: a scene's names.
    std::string modelName;
    // Grids larger than kSlidePixels at this scale keep their cells; else cells shrink to fit.
    bool fullResolution = false;
    bool traceJson = true; // exportFigures: the layer's trace JSON beside the figures
};

// Called after each file with (files done, files in all); may run on a worker thread, never
// on two at once, `done` rising by one each call.
using ExportProgress = std::function<void(int done, int total)>;

// The files written, in order (the same names and contents whatever the number of workers,
// though they are written in parallel). Throws ExportError when a file cannot be made: no
// file is started after that, and the files written stay (also any later in the order that
// another worker finished meanwhile).
std::vector<std::string> exportView(const Trace& trace, const ExportRequest& request,
                                    const ExportProgress& progress = {});

// How many files exportView will write (for a progress bar).
int exportFileCount(const Trace& trace, const ExportRequest& request);

// `mha-viz --export DIR`: every head (SVG, PNG, CSV), the grid, the mean over heads and the
// statistics of every sentence, and the trace JSON. `scale` (1..4) multiplies PNG resolution.
// Written like exportView (`workers` and `caption` as in ExportRequest); throws ExportError.
std::vector<std::string> exportFigures(const Trace& trace, const std::string& dir, int scale,
                                       ColormapId colormap = ColormapId::Viridis, int workers = 0,
                                       bool caption = true);

// exportFigures with a request's dir, scale, colormap, workers, caption and captionLines (its
// what, formats and batchIndex are exportFigures' own), calling `progress` like exportView.
std::vector<std::string> exportFigures(const Trace& trace, const ExportRequest& request,
                                       const ExportProgress& progress);

// Single figures to files, for the commands and views that write one at a time (mha-viz plot,
// the Train view); each throws std::runtime_error naming the file it could not write.
// A curve figure as <stem>.svg and <stem>.png (scale 1..4); `done`, when given, counts the two.
void writeCurveFigure(const CurveFigure& figure, const std::string& stem, int scale,
                      std::atomic<int>* done = nullptr);
// A curve figure into `path`, SVG or PNG by its extension.
void writeCurveFile(const std::string& path, const CurveFigure& figure, int scale);
// A grid figure as PNG: drawn a band at a time (memory stays bounded whatever its size), at the
// largest scale up to `scale` that keeps it openable (kMaxPngSide).
void writeGridPng(const std::string& path, const GridFigure& grid, int scale);

// Creates `dir` if missing; else throws std::runtime_error naming the folder and why.
void prepareExportFolder(const std::string& dir);

// "<dir>/<stem>", or "<dir>/<stem>-2", -3, ... : the first for which no "<that><ext>" exists
// for any of `exts` (a PNG and its JSON get the same free name).
std::string freeStem(const std::string& dir, const std::string& stem,
                     std::initializer_list<std::string> exts);

// freeStem for one extension, with the extension: "<dir>/<stem>[-k]<ext>".
std::string freePath(const std::string& dir, const std::string& stem, const std::string& ext);

} // namespace core
