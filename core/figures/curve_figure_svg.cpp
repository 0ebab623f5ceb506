// The SVG writer for curve figures: real vector output (a polyline per unbroken run of a
// series, clipped to the plot box; text elements for every label), laid out by curve_layout.
#include "figures/curve_figure.h"

#include "figures/curve_layout.h"
#include "figures/svg_text.h"

#include <sstream>

namespace core {

namespace {

using namespace curves;
using svg::hex;
using svg::num;
using svg::text;
using svg::xmlEscape;

void line(std::ostringstream& out, double x1, double y1, double x2, double y2, Rgb color,
          const char* extra = "") {
    out << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\""
        << num(y2) << "\" stroke=\"" << hex(color) << "\"" << extra << "/>\n";
}

void writeGrid(std::ostringstream& out, const CurveLayout& L) {
    const float left = float(L.plotLeft), right = float(L.plotLeft + L.plotW);
    const float top = float(L.plotTop), bottom = float(L.plotTop + L.plotH);
    out << "<g stroke-width=\"1\" shape-rendering=\"crispEdges\">\n";
    for (double v : L.y.values) line(out, left, plotY(L, v), right, plotY(L, v), kGridColor);
    for (double v : L.x.values) line(out, plotX(L, v), top, plotX(L, v), bottom, kGridColor);
    out << "</g>\n";
}

// The left and bottom axes with their ticks and labels, the axis titles; over the curves, so
// a curve at the axis' value does not hide it.
void writeAxes(std::ostringstream& out, const CurveLayout& L, const TextMetrics& m) {
    const float left = float(L.plotLeft), right = float(L.plotLeft + L.plotW);
    const float top = float(L.plotTop), bottom = float(L.plotTop + L.plotH);
    out << "<g stroke-width=\"1\" shape-rendering=\"crispEdges\">\n";
    line(out, left, top, left, bottom, kAxisColor);
    line(out, left, bottom, right, bottom, kAxisColor);
    for (double v : L.y.values)
        line(out, left - kTickLength, plotY(L, v), left, plotY(L, v), kAxisColor);
    for (double v : L.y.minor)
        line(out, left - kMinorTickLength, plotY(L, v), left, plotY(L, v), kAxisColor);
    for (double v : L.x.values)
        line(out, plotX(L, v), bottom, plotX(L, v), bottom + kTickLength, kAxisColor);
    out << "</g>\n";
    for (const PlacedText& t : L.yTickLabels) text(out, t, kTickPx, kTickColor, "end", m);
    for (const PlacedText& t : L.xTickLabels) text(out, t, kTickPx, kTickColor, "middle", m);
    text(out, L.xLabel, kAxisLabelPx, kLabelColor, "middle", m);
    if (!L.yLabel.text.empty()) { // rotated about its own anchor, reading bottom to top
        const float x = L.yLabel.x + m.ascent(kAxisLabelPx), y = L.yLabel.y;
        out << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\""
            << num(kAxisLabelPx * kSvgEmPerPx) << "\" fill=\"" << hex(kLabelColor)
            << "\" text-anchor=\"middle\" transform=\"rotate(-90 " << num(x) << " " << num(y)
            << ")\">" << xmlEscape(L.yLabel.text) << "</text>\n";
    }
}

void writeSeries(std::ostringstream& out, const CurveLayout& L, const CurveSeries& s) {
    out << "<g>";
    if (!s.name.empty()) out << "<title>" << xmlEscape(s.name) << "</title>";
    out << "\n";
    for (const std::vector<PlotPoint>& run : seriesRuns(L, s)) {
        if (run.size() == 1) { // a lone point would be an invisible zero-length line
            out << "<circle cx=\"" << num(run[0].x) << "\" cy=\"" << num(run[0].y) << "\" r=\""
                << num(kDotRadius) << "\" fill=\"" << hex(s.color) << "\"/>\n";
            continue;
        }
        out << "<polyline fill=\"none\" stroke=\"" << hex(s.color) << "\" stroke-width=\""
            << num(kLineWidth) << "\" stroke-linejoin=\"round\" stroke-linecap=\"round\"";
        if (s.dashed) out << " stroke-dasharray=\"" << num(kDash) << " " << num(kDashGap) << "\"";
        out << " points=\"";
        for (std::size_t k = 0; k < run.size(); ++k)
            out << (k ? " " : "") << num(run[k].x) << "," << num(run[k].y);
        out << "\"/>\n";
    }
    out << "</g>\n";
}

// Dashed lines behind the curves; their labels go on top (writeMarkerLabels).
void writeMarkerLines(std::ostringstream& out, const CurveLayout& L) {
    for (const MarkerLayout& marker : L.markers)
        line(out, marker.x, L.plotTop, marker.x, L.plotTop + L.plotH, kMarkerColor,
             " stroke-width=\"1\" stroke-dasharray=\"4 3\"");
}

void writeMarkerLabels(std::ostringstream& out, const CurveLayout& L, const TextMetrics& m) {
    for (const MarkerLayout& marker : L.markers) {
        if (marker.label.text.empty()) continue;
        // A white backing keeps the label readable where curves pass behind it.
        out << "<rect x=\"" << num(marker.label.x - 2) << "\" y=\"" << num(marker.label.y)
            << "\" width=\"" << num(marker.label.width + 4) << "\" height=\""
            << num(m.lineHeight(kTickPx)) << "\" fill=\"white\" fill-opacity=\"0.85\"/>\n";
        text(out, marker.label, kTickPx, kTickColor, nullptr, m);
    }
}

void writeLegend(std::ostringstream& out, const CurveLayout& L, const CurveFigure& f,
                 const TextMetrics& m) {
    for (const LegendEntry& e : L.legend) {
        const CurveSeries& s = f.series[std::size_t(e.series)];
        std::string style = " stroke-width=\"" + num(kLineWidth + 0.5f) + "\"";
        if (s.dashed) style += " stroke-dasharray=\"" + num(kDash) + " " + num(kDashGap) + "\"";
        line(out, e.swatchX, e.swatchY, e.swatchX + kSwatch, e.swatchY, s.color, style.c_str());
        text(out, e.name, kLegendPx, kLabelColor, nullptr, m);
    }
}

} // namespace

std::string curveSvg(const CurveFigure& f) {
    const TextMetrics m = estimatedMetrics();
    const CurveLayout L = layoutCurves(f, m);
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << L.width
        << "\" height=\"" << L.height << "\" viewBox=\"0 0 " << L.width << " " << L.height
        << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    // Lines may reach a little past the box, so one at the top of a 0..1 axis keeps its width.
    out << "<defs><clipPath id=\"curves-plot\"><rect x=\"" << L.plotLeft - 2 << "\" y=\""
        << L.plotTop - 2 << "\" width=\"" << L.plotW + 4 << "\" height=\"" << L.plotH + 4
        << "\"/></clipPath></defs>\n";
    text(out, L.title, kTitlePx, kTitleColor, nullptr, m);
    writeGrid(out, L);
    writeMarkerLines(out, L);
    out << "<g clip-path=\"url(#curves-plot)\">\n";
    for (const CurveSeries& s : f.series) writeSeries(out, L, s);
    out << "</g>\n";
    writeAxes(out, L, m);
    writeMarkerLabels(out, L, m);
    writeLegend(out, L, f, m);
    for (const PlacedText& t : L.caption) text(out, t, kCaptionPx, kCaptionColor, nullptr, m);
    out << "</svg>\n";
    return out.str();
}

} // namespace core
