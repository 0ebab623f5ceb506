// SVG and CSV writers for attention-map figures: real vector output (one rect per cell,
// text elements for labels), readable in any editor and any spreadsheet.
#include "figures/figure.h"

#include "figures/attention_map.h"
#include "figures/svg_text.h"
#include "text/utf8.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <utility>

namespace core {

namespace {

using svg::hex;
using svg::xmlEscape;

std::string number(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", double(v));
    return buf;
}

struct Box {
    float width = 0, height = 0;
};

constexpr float kFont = 12, kTitleFont = 15, kMargin = 16;

// Rough text width for layout (DejaVu Sans averages ~0.6 em); SVG viewers measure for real.
float textWidth(const std::string& s, float font) {
    return 0.6f * font * float(countCodePoints(s));
}

float cellSize(const HeatmapFigure& f) {
    return std::clamp(640.0f / float(std::max(f.rows, f.cols)), 2.0f, 22.0f);
}

// Writes one heatmap with its top-left corner at (x0, y0); returns its size.
Box writeHeatmap(std::ostringstream& out, const HeatmapFigure& f, float x0, float y0,
                 bool caption) {
    const float cell = cellSize(f);
    float rowLabelWidth = 0, colLabelHeight = 0;
    for (const auto& l : f.rowLabels) rowLabelWidth = std::max(rowLabelWidth, textWidth(l, kFont));
    for (const auto& l : f.colLabels)
        colLabelHeight = std::max(colLabelHeight, textWidth(l, kFont));
    rowLabelWidth = std::min(rowLabelWidth, 140.0f) + 6,
    colLabelHeight = std::min(colLabelHeight, 140.0f) + 6;
    const bool labels = cell >= kFont * 0.8f;
    if (!labels) rowLabelWidth = colLabelHeight = 4;
    const float gridX = x0 + rowLabelWidth, gridY = y0 + kTitleFont + 8 + colLabelHeight;
    const float gridW = cell * float(f.cols), gridH = cell * float(f.rows);

    out << "<g>\n<text x=\"" << x0 << "\" y=\"" << y0 + kTitleFont << "\" font-size=\""
        << kTitleFont << "\" fill=\"#333\">" << xmlEscape(f.title) << "</text>\n";
    if (f.keyColor) // the head's colour, as the window frames its map; a line, as cells are rects
        out << "<line x1=\"" << x0 << "\" y1=\"" << y0 + kTitleFont + 4 << "\" x2=\""
            << x0 + std::max(textWidth(f.title, kTitleFont), 24.0f) << "\" y2=\""
            << y0 + kTitleFont + 4 << "\" stroke=\"" << hex(*f.keyColor)
            << "\" stroke-width=\"3\"/>\n";
    for (int i = 0; labels && i < f.rows; ++i)
        out << "<text x=\"" << gridX - 4 << "\" y=\""
            << gridY + cell * (float(i) + 0.5f) + kFont * 0.35f << "\" font-size=\"" << kFont
            << "\" text-anchor=\"end\">" << xmlEscape(f.rowLabels[std::size_t(i)]) << "</text>\n";
    for (int j = 0; labels && j < f.cols; ++j) {
        const float x = gridX + cell * (float(j) + 0.5f) + kFont * 0.35f, y = gridY - 4;
        out << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << kFont
            << "\" transform=\"rotate(-90 " << x << " " << y << ")\">"
            << xmlEscape(f.colLabels[std::size_t(j)]) << "</text>\n";
    }
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j) {
            const float v = f.values[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
            out << "<rect x=\"" << gridX + cell * float(j) << "\" y=\"" << gridY + cell * float(i)
                << "\" width=\"" << cell << "\" height=\"" << cell << "\" ";
            if (v == kMaskedCell)
                out << "fill=\"#cdcdd0\"><title>" << xmlEscape(f.rowLabels[std::size_t(i)])
                    << " \xE2\x86\x92 " << xmlEscape(f.colLabels[std::size_t(j)])
                    << ": masked</title></rect>\n";
            else
                out << "fill=\"" << hex(sampleColormap(f.colormap, colorPosition(f, v)))
                    << "\"><title>" << xmlEscape(f.rowLabels[std::size_t(i)]) << " \xE2\x86\x92 "
                    << xmlEscape(f.colLabels[std::size_t(j)]) << ": " << number(v)
                    << "</title></rect>\n";
            if (v == kMaskedCell &&
                cell >= 6) // a stroke, not a pattern: patterns are not rendered everywhere
                out << "<line x1=\"" << gridX + cell * float(j) << "\" y1=\""
                    << gridY + cell * float(i + 1) << "\" x2=\"" << gridX + cell * float(j + 1)
                    << "\" y2=\"" << gridY + cell * float(i)
                    << "\" stroke=\"#8c8c91\" stroke-width=\"1\"/>\n";
        }
    float y = gridY + gridH + 10;
    float width = rowLabelWidth + std::max(gridW, 200.0f);
    if (caption) {
        // Colour bar: 64 steps of the colormap, ticks at quarters.
        const float barW = std::max(std::min(gridW, 320.0f), 160.0f);
        for (int k = 0; k < 64; ++k)
            out << "<rect x=\"" << gridX + barW * float(k) / 64 << "\" y=\"" << y << "\" width=\""
                << barW / 64 + 0.3f << "\" height=\"10\" fill=\""
                << hex(sampleColormap(f.colormap, float(k) / 63)) << "\"/>\n";
        for (int k = 0; k <= 4; ++k)
            out << "<text x=\"" << gridX + barW * float(k) / 4 << "\" y=\"" << y + 24
                << "\" font-size=\"" << kFont - 2 << "\" text-anchor=\"middle\" fill=\"#555\">"
                << number(tickValue(f, k)) << "</text>\n";
        y += 40;
        for (const std::string& line : f.captionLines) {
            out << "<text x=\"" << x0 << "\" y=\"" << y << "\" font-size=\"" << kFont
                << "\" fill=\"#555\">" << xmlEscape(line) << "</text>\n";
            width = std::max(width, textWidth(line, kFont));
            y += kFont + 4;
        }
    }
    out << "</g>\n";
    return {width, y - y0};
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
    std::ostringstream body;
    const Box box = writeHeatmap(body, figure, kMargin, kMargin, true);
    return document(std::move(body), box.width + 2 * kMargin, box.height + 2 * kMargin);
}

std::string gridSvg(const GridFigure& grid) {
    std::ostringstream body;
    float x = kMargin, y = kMargin, rowHeight = 0, width = 0;
    for (std::size_t p = 0; p < grid.panels.size(); ++p) {
        if (p > 0 && p % std::size_t(std::max(grid.columns, 1)) == 0)
            x = kMargin, y += rowHeight + 12, rowHeight = 0;
        const Box box = writeHeatmap(body, grid.panels[p], x, y, false);
        x += box.width + 16;
        width = std::max(width, x);
        rowHeight = std::max(rowHeight, box.height);
    }
    y += rowHeight + 16;
    for (const std::string& line : grid.captionLines) {
        body << "<text x=\"" << kMargin << "\" y=\"" << y << "\" font-size=\"" << kFont
             << "\" fill=\"#555\">" << xmlEscape(line) << "</text>\n";
        width = std::max(width, textWidth(line, kFont) + 2 * kMargin);
        y += kFont + 4;
    }
    return document(std::move(body), width + kMargin, y + kMargin);
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
            const auto [end, ec] =
                std::to_chars(buf, buf + sizeof buf, v == kMaskedCell ? 0.0f : v);
            out << ',' << std::string_view(buf, std::size_t(end - buf));
        }
        out << '\n';
    }
    return out.str();
}

} // namespace core
