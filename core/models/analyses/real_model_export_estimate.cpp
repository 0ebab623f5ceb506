// The size of a real model's export before it is written (real_model_export_estimate.h).
#include "models/analyses/real_model_export_estimate.h"

#include "figures/figure.h"
#include "io/trace_json.h"
#include "models/analyses/real_model_figures.h"
#include "models/analyses/real_trace_json.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <streambuf>

namespace core::models {
namespace {

// A stream that only counts what is written to it: a trace's JSON measured without memory.
class CountingBuffer : public std::streambuf {
  public:
    std::uint64_t count = 0;

  protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof())) ++count;
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char*, std::streamsize n) override {
        count += std::uint64_t(n);
        return n;
    }
};

template <class Write>
std::uint64_t countBytes(const Write& write) {
    CountingBuffer buffer;
    std::ostream out(&buffer);
    write(out);
    return buffer.count;
}

// One heatmap's SVG, PNG (and CSV) bytes; `perPixel` the PNG's bytes per device pixel.
struct FigureBytes {
    std::uint64_t svg = 0, png = 0, csv = 0;
    double perPixel = 0;
};

FigureBytes heatmapBytes(const HeatmapFigure& f, int scale) {
    FigureBytes b;
    b.svg = heatmapSvg(f).size();
    b.png = encodeHeatmapPng(f, scale).size();
    b.csv = heatmapCsv(f).size();
    const PixelSize size = heatmapPngSize(f, scale);
    b.perPixel = double(b.png) / (double(size.width) * double(size.height));
    return b;
}

// A grid's SVG bytes and its PNG's, at `perPixel`, fitted to a slide as the export fits it.
std::uint64_t gridBytes(GridFigure grid, const RealExportOptions& o, double perPixel) {
    if (!o.fullResolution) fitGridToPixels(grid, o.scale, kSlidePixels);
    const PixelSize size = gridPngSize(grid, fittingGridScale(grid, o.scale));
    return gridSvg(grid).size() + std::uint64_t(perPixel * double(size.width) * size.height);
}

// One layer's files as exportFigures writes them: each head, the grid, the mean, the
// statistics and (full traces) the layer's v1 trace.
std::uint64_t layerBytes(const Trace& layer, const RealExportOptions& o, const FigureBytes& head) {
    const int heads = layer.attention.heads;
    std::uint64_t bytes = std::uint64_t(heads) * (head.svg + head.png + head.csv);
    bytes += gridBytes(gridFigure(layer, 0, o.colormap), o, head.perPixel);
    const HeatmapFigure mean = meanFigure(layer, 0, o.colormap);
    bytes += heatmapSvg(mean).size() + head.png + heatmapCsv(mean).size();
    bytes += heatmapSvg(entropyFigure(layer, 0, o.colormap)).size() + head.png / 2 +
             statisticsCsv(layer, 0).size();
    if (o.traces == ExportTraces::Full)
        bytes += countBytes([&](std::ostream& out) { writeTraceJson(layer, out); });
    return bytes;
}

// The model grid of every layer: the first layer's panels repeated, as many as it has heads.
GridFigure modelGridLike(const Trace& first, int layers, ColormapId colormap) {
    GridFigure grid;
    const GridFigure layer = gridFigure(first, 0, colormap);
    for (int l = 0; l < layers; ++l)
        for (const HeatmapFigure& panel : layer.panels) grid.panels.push_back(panel);
    grid.columns = std::min(int(layer.panels.size()), 12); // as modelGridFigure, near enough
    return grid;
}

} // namespace

ExportEstimate estimateRealModelExport(const RealModel& model, const RealTrace& trace,
                                       const std::vector<HeadDetectorScores>& detectors,
                                       const RealExportOptions& o) {
    ExportEstimate e;
    e.files = realModelExportFileCount(trace, detectors, o);
    if (trace.layerCount() == 0) return e;
    const int layers = trace.layerCount();
    const std::shared_ptr<const Trace> first = trace.layer(0);
    HeatmapFigure head = headFigure(*first, 0, 0, o.colormap);
    if (o.caption) head.captionLines = realModelCaption(model, trace);
    const FigureBytes one = heatmapBytes(head, o.scale);
    e.bytes = std::uint64_t(layers) * layerBytes(*first, o, one);
    e.bytes += 2 * gridBytes(modelGridLike(*first, layers, o.colormap), o, one.perPixel);
    for (const HeadDetectorScores& d : detectors) {
        const FigureBytes b = heatmapBytes(detectorFigure(d, o.colormap), o.scale);
        e.bytes += b.svg + b.png;
    }
    if (!detectors.empty()) e.bytes += headScoresCsv(detectors).size();
    e.bytes += one.svg + one.png + one.csv;    // the rollout: a token map as a head's
    e.bytes += std::uint64_t(layers) * 5 * 40; // logit-lens.csv: 5 short rows a layer
    if (o.traces == ExportTraces::None) return e;
    RealTraceJsonOptions json;
    json.attentionOnly = true;
    const std::uint64_t attention =
        countBytes([&](std::ostream& out) { writeRealTraceJson(model, trace, json, out); });
    e.bytes += attention;
    if (o.traces == ExportTraces::Full) // and every layer's whole v1 object in it
        e.bytes += std::uint64_t(layers) *
                   countBytes([&](std::ostream& out) { writeTraceJson(*first, out); });
    return e;
}

std::string aboutBytes(std::uint64_t bytes) {
    const char* units[] = {"bytes", "kB", "MB", "GB", "TB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1000 && unit < 4) value /= 1000, ++unit;
    char text[48];
    std::snprintf(text, sizeof text, unit == 0 ? "about %.0f %s" : "about %.3g %s", value,
                  units[unit]);
    return text;
}

} // namespace core::models
