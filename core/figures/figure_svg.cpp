// SVG and CSV writers for attention-map figures: real vector output (one rect per cell,
// text elements for labels), readable in any editor and any spreadsheet. Heatmaps are drawn
// from heatmap_layout, the PNG's layout: the same cells, gaps, hatching and tick labels.
#include "base/float_text.h"
#include "figures/figure.h"

#include "figures/attention_map.h"
#include "figures/figure_raster.h"
#include "figures/heatmap_layout.h"
#include "figures/svg_text.h"
#include "text/utf8.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <utility>

namespace core {

namespace {

using namespace heatmaps;
using svg::hex;
using svg::num;
using svg::text;
using svg::xmlEscape;

std::string number(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", double(v));
    return buf;
}

// The line view's sizes (its layout is its own); kMargin is the heatmaps'.
constexpr float kFont = 12, kTitleFont = 15;

// Rough text width for the line view's layout (DejaVu Sans averages ~0.6 em); SVG viewers
// measure for real.
float textWidth(const std::string& s, float font) {
    return 0.6f * font * float(countCodePoints(s));
}

void rect(std::ostringstream& out, double x, double y, double w, double h,
          const std::string& fill) {
    out << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
        << "\" height=\"" << num(h) << "\" fill=\"" << fill << "\"/>\n";
}

// Title, the head's colour under it, axis titles and token labels.
void writeLabels(std::ostringstream& out, const HeatmapFigure& f, const PanelLayout& L,
                 const TextMetrics& m) {
    text(out, L.title, kTitlePx, kTitleColor, nullptr, m);
    if (f.keyColor) // the head's colour, as the window frames its map; a stroke, as cells are rects
        out << "<line x1=\"" << kMargin << "\" y1=\"" << num(L.keyTop + kKeyHeight / 2.0)
            << "\" x2=\"" << kMargin + L.keyW << "\" y2=\"" << num(L.keyTop + kKeyHeight / 2.0)
            << "\" stroke=\"" << hex(*f.keyColor) << "\" stroke-width=\"" << kKeyHeight << "\"/>\n";
    text(out, L.colAxis, kAxisTitlePx, kAxisTitleColor, nullptr, m);
    text(out, L.rowAxis, kAxisTitlePx, kAxisTitleColor, "end", m);
    for (const PlacedText& t : L.rowLabels) text(out, t, kLabelPx, kLabelColor, "end", m);
    for (const PlacedText& t : L.colLabels) { // turned about the start of its baseline
        if (t.text.empty()) continue;
        const std::string x = num(t.x + m.ascent(kLabelPx)), y = num(t.y);
        out << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\""
            << num(kLabelPx * kSvgEmPerPx) << "\" fill=\"" << hex(kLabelColor)
            << "\" transform=\"rotate(-90 " << x << " " << y << ")\">" << xmlEscape(t.text)
            << "</text>\n";
    }
}

// A rect per cell (the white gaps are the background showing between them), a title on each
// for viewers that show it on hover; then the masked cells' hatching as one path.
void writeCells(std::ostringstream& out, const HeatmapFigure& f, const PanelLayout& L,
                Origin origin) {
    if (L.seam) rect(out, L.gridLeft, L.gridTop, L.gridW, L.gridH, hex(kSeamColor));
    std::string hatch;
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j) {
            const float v = f.values[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
            const CellBox box = cellBox(L, i, j);
            const bool masked = v == kMaskedCell, hidden = v == kHiddenCell;
            out << "<rect x=\"" << box.x0 << "\" y=\"" << box.y0 << "\" width=\"" << box.x1 - box.x0
                << "\" height=\"" << box.y1 - box.y0 << "\" fill=\""
                << (masked   ? hex(kMaskedColor)
                    : hidden ? hex(kHiddenColor)
                             : hex(sampleColormap(f.colormap, colorPosition(f, v))))
                << "\"><title>" << xmlEscape(f.rowLabels[std::size_t(i)]) << " \xE2\x86\x92 "
                << xmlEscape(f.colLabels[std::size_t(j)]) << ": "
                << (masked   ? std::string("masked")
                    : hidden ? std::string("not in this pair view")
                             : number(v))
                << "</title></rect>\n";
            if (!masked) continue;
            // Strokes, not a pattern: patterns are not rendered everywhere. Appended, not
            // "M" + ...: GCC 12's -Wrestrict.
            for (const Segment& s : hatchSegments(box, origin.x, origin.y)) {
                hatch.append("M").append(num(s.x1)).append(" ").append(num(s.y1));
                hatch.append("L").append(num(s.x2)).append(" ").append(num(s.y2));
            }
        }
    if (!hatch.empty())
        out << "<path d=\"" << hatch << "\" stroke=\"" << hex(kHatchColor) << "\" stroke-width=\""
            << num(kHatchWidth) << "\" fill=\"none\"/>\n";
    for (const DividerBox& d : pairDividers(L, f.pairStart)) // over the cells, as the window's
        rect(out, d.x0, d.y0, d.x1 - d.x0, d.y1 - d.y0, hex(kDividerColor));
}

// The colour bar (a gradient through the colormap's samples, as the PNG samples it per pixel)
// in a thin border, its ticks, their labels and what the colours mean.
void writeColorBar(std::ostringstream& out, const HeatmapFigure& f, const PanelLayout& L,
                   const TextMetrics& m, int& gradients) {
    if (L.barW == 0) return; // a grid's panel under the shared bar
    const std::string id = "colorbar-" + std::to_string(++gradients);
    out << "<defs><linearGradient id=\"" << id << "\">";
    for (int k = 0; k <= 64; ++k)
        out << "<stop offset=\"" << num(k / 64.0) << "\" stop-color=\""
            << hex(sampleColormap(f.colormap, float(k) / 64)) << "\"/>";
    out << "</linearGradient></defs>\n";
    rect(out, L.barLeft - 1, L.barTop - 1, L.barW + 2, kBarHeight + 2, hex(kBarBorder));
    rect(out, L.barLeft, L.barTop, L.barW, kBarHeight, "url(#" + id + ")");
    for (float x : L.tickX)
        rect(out, x - 0.5, L.barTop + kBarHeight + 1, 1, kTickLength, hex(kTickColor));
    for (const PlacedText& t : L.tickLabels) text(out, t, kTickPx, kTickColor, "middle", m);
    text(out, L.barLabel, kBarLabelPx, kLabelColor, "middle", m);
}

// One heatmap panel with its top-left corner at `origin`.
void writePanel(std::ostringstream& out, const HeatmapFigure& f, const PanelLayout& L,
                Origin origin, const TextMetrics& m, int& gradients) {
    out << "<g";
    if (origin.x != 0 || origin.y != 0)
        out << " transform=\"translate(" << origin.x << " " << origin.y << ")\"";
    out << ">\n";
    writeLabels(out, f, L, m);
    writeCells(out, f, L, origin);
    writeColorBar(out, f, L, m, gradients);
    out << "</g>\n";
}

void writeCaption(std::ostringstream& out, const std::vector<PlacedText>& caption,
                  const TextMetrics& m) {
    for (const PlacedText& t : caption) text(out, t, kCaptionPx, kCaptionColor, nullptr, m);
}

// The body's buffer becomes the document, the head inserted in front (in place when the
// buffer has room, as it mostly has): a grid of 16 heads of 120 tokens is a 27 MB SVG, and
// each copy of it would be that much more memory.
std::string document(std::ostringstream&& body, float width, float height) {
    std::ostringstream head;
    head << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
         << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
         << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
         << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    std::string out = std::move(body).str();
    out.insert(0, std::move(head).str());
    return out.append("</svg>\n");
}

} // namespace

std::string heatmapSvg(const HeatmapFigure& figure) {
    const TextMetrics m = raster::figureFontMetricsOrEstimate();
    const HeatmapLayout L = layoutHeatmap(figure, m);
    std::ostringstream body;
    int gradients = 0;
    writePanel(body, figure, L.panel, {}, m, gradients);
    writeCaption(body, L.caption, m);
    return document(std::move(body), float(L.width), float(L.height));
}

std::string gridSvg(const GridFigure& grid) {
    const TextMetrics m = raster::figureFontMetricsOrEstimate();
    const GridLayout L = layoutGrid(grid, m);
    std::ostringstream body;
    int gradients = 0;
    text(body, L.title, kTitlePx, kTitleColor, nullptr, m);
    for (const GroupFrame& g : groupFrames(L, grid.panelGroups)) // under the panels they frame
        body << "<rect x=\"" << g.x0 + 0.5 << "\" y=\"" << g.y0 + 0.5 << "\" width=\""
             << g.x1 - g.x0 - 1 << "\" height=\"" << g.y1 - g.y0 - 1 << "\" fill=\""
             << (g.tinted ? hex(kGroupTint) : "none") << "\" stroke=\"" << hex(kGroupFrameColor)
             << "\" stroke-width=\"" << kGroupFrameWidth << "\"/>\n";
    for (std::size_t p = 0; p < grid.panels.size(); ++p)
        writePanel(body, grid.panels[p], L.panels[p], panelOrigin(L, p), m, gradients);
    writeColorBar(body, grid.panels.front(), L.bar, m, gradients);
    writeCaption(body, L.caption, m);
    return document(std::move(body), float(L.width), float(L.height));
}

std::string lineSvg(const LineFigure& f) {
    std::ostringstream body;
    const float rowH = std::clamp(600.0f / float(std::max({f.rows, f.cols, 1})), 3.0f, 20.0f);
    const bool labels = rowH >= kFont * 0.9f;
    float leftW = 0, rightW = 0;
    for (const auto& l : f.queryLabels) leftW = std::max(leftW, textWidth(l, kFont));
    for (const auto& l : f.keyLabels) rightW = std::max(rightW, textWidth(l, kFont));
    leftW = labels ? std::min(leftW, 160.0f) : 0, rightW = labels ? std::min(rightW, 160.0f) : 0;
    const float top = kMargin + kTitleFont + 14, gap = 220;
    const float xLeft = kMargin + leftW + 8, xRight = xLeft + gap; // line ends
    body << "<text x=\"" << kMargin << "\" y=\"" << kMargin + kTitleFont << "\" font-size=\""
         << kTitleFont << "\" fill=\"#333\">" << xmlEscape(f.title) << "</text>\n";
    const std::string color = hex(f.color);
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j) {
            const float w = f.weights[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
            if (!(w >= f.minWeight)) continue;
            body << "<line x1=\"" << xLeft << "\" y1=\"" << top + rowH * (float(i) + 0.5f)
                 << "\" x2=\"" << xRight << "\" y2=\"" << top + rowH * (float(j) + 0.5f)
                 << "\" stroke=\"" << color << "\" stroke-width=\"2\" stroke-opacity=\""
                 << number(std::min(w, 1.0f)) << "\"><title>"
                 << xmlEscape(f.queryLabels[std::size_t(i)]) << " \xE2\x86\x92 "
                 << xmlEscape(f.keyLabels[std::size_t(j)]) << ": " << number(w)
                 << "</title></line>\n";
        }
    for (int i = 0; labels && i < f.rows; ++i)
        body << "<text x=\"" << xLeft - 6 << "\" y=\""
             << top + rowH * (float(i) + 0.5f) + kFont * 0.35f << "\" font-size=\"" << kFont
             << "\" text-anchor=\"end\">" << xmlEscape(f.queryLabels[std::size_t(i)])
             << "</text>\n";
    for (int j = 0; labels && j < f.cols; ++j)
        body << "<text x=\"" << xRight + 6 << "\" y=\""
             << top + rowH * (float(j) + 0.5f) + kFont * 0.35f << "\" font-size=\"" << kFont
             << "\">" << xmlEscape(f.keyLabels[std::size_t(j)]) << "</text>\n";
    float y = top + rowH * float(std::max(f.rows, f.cols)) + 24;
    float width = xRight + 6 + rightW + kMargin;
    for (const std::string& line : f.captionLines) {
        body << "<text x=\"" << kMargin << "\" y=\"" << y << "\" font-size=\"" << kFont
             << "\" fill=\"#555\">" << xmlEscape(line) << "</text>\n";
        width = std::max(width, textWidth(line, kFont) + 2 * kMargin);
        y += kFont + 4;
    }
    return document(std::move(body), width, y + kMargin);
}

std::string heatmapCsv(const HeatmapFigure& f) {
    const auto field = csvField;
    std::ostringstream out;
    out << "query";
    for (const auto& key : f.colLabels) out << ',' << field(key);
    out << '\n';
    for (int i = 0; i < f.rows; ++i) {
        out << field(f.rowLabels[std::size_t(i)]);
        for (int j = 0; j < f.cols; ++j) {
            const float v = f.values[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
            char buf[32]; // shortest text that reads back as the same float: rows sum to 1
            const char* end =
                writeShortest(buf, sizeof buf, v == kMaskedCell || v == kHiddenCell ? 0.0f : v);
            out << ',' << std::string_view(buf, std::size_t(end - buf));
        }
        out << '\n';
    }
    return out.str();
}

} // namespace core
