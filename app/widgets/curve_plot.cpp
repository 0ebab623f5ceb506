#include "widgets/curve_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

namespace app {

namespace {

ImU32 colorOf(core::Rgb c, float alpha = 1.0f) {
    return IM_COL32(c.r, c.g, c.b, int(alpha * 255));
}

struct Axes {
    ImVec2 min, max; // the plot box on screen
    core::AxisTicks x, y;
    bool logY = false;

    float screenX(double v) const {
        const double t = (v - x.min) / std::max(x.max - x.min, 1e-300);
        return min.x + float(t) * (max.x - min.x);
    }
    float screenY(double v) const {
        const double lo = logY ? std::log10(y.min) : y.min, hi = logY ? std::log10(y.max) : y.max;
        const double t = ((logY ? std::log10(v) : v) - lo) / std::max(hi - lo, 1e-300);
        return max.y - float(t) * (max.y - min.y);
    }
    double valueX(float sx) const {
        return x.min + double(sx - min.x) / std::max(max.x - min.x, 1.0f) * (x.max - x.min);
    }
};

bool usable(const core::CurvePoint& p, bool logY) {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!logY || p.y > 0);
}

// The data's extent (or the figure's fixed ranges); a flat or empty range is widened.
void dataRange(const core::CurveFigure& figure, double& x0, double& x1, double& y0, double& y1) {
    x0 = y0 = std::numeric_limits<double>::infinity();
    x1 = y1 = -x0;
    for (const core::CurveSeries& s : figure.series)
        for (const core::CurvePoint& p : s.points)
            if (usable(p, figure.logY)) {
                x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
                y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
            }
    if (figure.xRange) x0 = figure.xRange->min, x1 = figure.xRange->max;
    if (figure.yRange) y0 = figure.yRange->min, y1 = figure.yRange->max;
    if (!(x0 <= x1)) x0 = 0, x1 = 1;
    if (!(y0 <= y1)) y0 = figure.logY ? 0.1 : 0, y1 = 1;
    if (x1 == x0) x1 = x0 + 1;
    if (y1 == y0) y0 = figure.logY ? y0 / 2 : y0 - 0.5, y1 = figure.logY ? y1 * 2 : y1 + 0.5;
}

Axes makeAxes(const core::CurveFigure& figure, ImVec2 min, ImVec2 max) {
    double x0, x1, y0, y1;
    dataRange(figure, x0, x1, y0, y1);
    Axes a;
    a.logY = figure.logY;
    a.x = core::linearTicks(x0, x1, 6, !figure.xRange.has_value());
    a.y = figure.logY ? core::logTicks(y0, y1) : core::linearTicks(y0, y1, 5, !figure.yRange);
    const float labelWidth = ImGui::CalcTextSize("0.000").x + 8;
    a.min = ImVec2(min.x + labelWidth, min.y + 4);
    a.max = ImVec2(max.x - 8, max.y - ImGui::GetTextLineHeight() - 6);
    return a;
}

void drawAxes(ImDrawList* draw, const Axes& a, bool dark) {
    const ImU32 grid = dark ? IM_COL32(255, 255, 255, 28) : IM_COL32(0, 0, 0, 24);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (std::size_t i = 0; i < a.y.values.size(); ++i) {
        const float y = a.screenY(a.y.values[i]);
        draw->AddLine(ImVec2(a.min.x, y), ImVec2(a.max.x, y), grid);
        const std::string& label = a.y.labels[i];
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        draw->AddText(ImVec2(a.min.x - size.x - 4, y - size.y / 2), text, label.c_str());
    }
    for (std::size_t i = 0; i < a.x.values.size(); ++i) {
        const float x = a.screenX(a.x.values[i]);
        draw->AddLine(ImVec2(x, a.min.y), ImVec2(x, a.max.y), grid);
        const std::string& label = a.x.labels[i];
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        const float left = std::clamp(x - size.x / 2, a.min.x - 4, a.max.x - size.x + 6);
        draw->AddText(ImVec2(left, a.max.y + 3), text, label.c_str());
    }
    draw->AddRect(a.min, a.max, dark ? IM_COL32(255, 255, 255, 70) : IM_COL32(0, 0, 0, 70));
}

// One polyline per unbroken run; with dimAfter >= 0 the part past it (from the last point
// at or before it, so the two parts join) is drawn faint.
void drawSeries(ImDrawList* draw, const Axes& a, const core::CurveSeries& s, double dimAfter) {
    std::vector<ImVec2> line;
    bool faint = false;
    const auto flush = [&] {
        const float alpha = (s.level ? 0.85f : s.dashed ? 0.55f : 1.0f) * (faint ? 0.28f : 1.0f);
        if (line.size() > 1)
            draw->AddPolyline(line.data(), int(line.size()), colorOf(s.color, alpha), 0,
                              s.dashed ? 1.25f : 2.0f);
        else if (line.size() == 1 && !faint)
            draw->AddCircleFilled(line.front(), 2.5f, colorOf(s.color, alpha));
        line.clear();
    };
    for (const core::CurvePoint& p : s.points) {
        if (!usable(p, a.logY) || p.x < a.x.min || p.x > a.x.max) {
            flush();
            continue;
        }
        const ImVec2 at(a.screenX(p.x), std::clamp(a.screenY(p.y), a.min.y, a.max.y));
        if (!faint && dimAfter >= 0 && !s.level && p.x > dimAfter) {
            const std::optional<ImVec2> joint =
                line.empty() ? std::nullopt : std::optional<ImVec2>(line.back());
            flush();
            faint = true;
            if (joint) line.push_back(*joint);
        }
        line.push_back(at);
    }
    flush();
}

// A level's name on its line, at the right end, so the line says what it is without the legend.
void labelLevel(ImDrawList* draw, const Axes& a, const core::CurveSeries& s) {
    if (!s.level || s.points.empty() || !usable(s.points.back(), a.logY)) return;
    const float y = a.screenY(s.points.back().y);
    const ImVec2 size = ImGui::CalcTextSize(s.name.c_str());
    if (y < a.min.y || y > a.max.y) return;
    const float top = y - size.y - 1 >= a.min.y ? y - size.y - 1 : y + 2; // above, else below
    draw->AddText(ImVec2(a.max.x - size.x - 4, top), colorOf(s.color), s.name.c_str());
}

// The names in their colours on one or more lines above the axes; returns the height used.
float drawLegend(ImDrawList* draw, const core::CurveFigure& figure, ImVec2 at, float width) {
    float x = at.x, y = at.y;
    const float line = ImGui::GetTextLineHeight();
    for (const core::CurveSeries& s : figure.series) {
        const float w = ImGui::CalcTextSize(s.name.c_str()).x + 22;
        if (x + w > at.x + width && x > at.x) x = at.x, y += line + 2;
        draw->AddLine(ImVec2(x, y + line / 2), ImVec2(x + 14, y + line / 2), colorOf(s.color),
                      s.dashed ? 1.25f : 2.5f);
        draw->AddText(ImVec2(x + 18, y), ImGui::GetColorU32(ImGuiCol_Text), s.name.c_str());
        x += w + 8;
    }
    return y + line + 4 - at.y;
}

// Every series' value at the row nearest to x, in a tooltip.
void hoverTooltip(const core::CurveFigure& figure, double x) {
    ImGui::BeginTooltip();
    bool first = true;
    for (const core::CurveSeries& s : figure.series) {
        const core::CurvePoint* best = nullptr;
        for (const core::CurvePoint& p : s.points)
            if (std::isfinite(p.y) && (!best || std::abs(p.x - x) < std::abs(best->x - x)))
                best = &p;
        if (!best) continue;
        if (first) ImGui::Text("%s %g", figure.xLabel.c_str(), best->x), first = false;
        ImGui::TextColored(ImColor(colorOf(s.color)), "%s  %.4g", s.name.c_str(), best->y);
    }
    ImGui::EndTooltip();
}

} // namespace

double drawCurvePlot(const char* id, const core::CurveFigure& figure, ImVec2 size,
                     const CurvePlotStyle& style) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered(), clicked = ImGui::IsItemActive();
    float top = origin.y;
    if (style.legend) top += drawLegend(draw, figure, origin, size.x);
    const Axes axes =
        makeAxes(figure, ImVec2(origin.x, top), ImVec2(origin.x + size.x, origin.y + size.y));
    if (axes.max.y - axes.min.y < 20) return -1; // too small to read
    drawAxes(draw, axes, style.dark);
    draw->PushClipRect(axes.min, axes.max, true);
    for (const core::CurveSeries& s : figure.series) {
        drawSeries(draw, axes, s, style.dimAfterX);
        labelLevel(draw, axes, s);
    }
    if (style.markerX >= 0) {
        const float x = axes.screenX(style.markerX);
        draw->AddLine(ImVec2(x, axes.min.y), ImVec2(x, axes.max.y), IM_COL32(255, 190, 60, 220),
                      1.5f);
    }
    draw->PopClipRect();
    if (!hovered && !clicked) return -1;
    const float mouseX = std::clamp(ImGui::GetIO().MousePos.x, axes.min.x, axes.max.x);
    const double x = axes.valueX(mouseX);
    if (hovered) {
        draw->AddLine(ImVec2(mouseX, axes.min.y), ImVec2(mouseX, axes.max.y),
                      ImGui::GetColorU32(ImGuiCol_TextDisabled));
        hoverTooltip(figure, x);
    }
    return clicked ? std::max(x, 0.0) : -1;
}

} // namespace app
