#include "io/metrics_figures.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace core {

namespace {

// Reads a number of one or more digits at pos; advances pos past it.
std::optional<int> digits(std::string_view s, std::size_t& pos) {
    const std::size_t start = pos;
    int value = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) && value < 100000)
        value = value * 10 + (s[pos++] - '0');
    return pos > start ? std::optional<int>(value) : std::nullopt;
}

// "L{l}H{h}"; appends, as GCC 12 warns (-Wrestrict, a false positive) on "L" + std::string.
std::string headName(int layer, int head) {
    return std::string("L").append(std::to_string(layer)).append("H").append(std::to_string(head));
}

} // namespace

std::optional<HeadColumn> parseHeadColumn(const std::string& name) {
    std::size_t pos = 1;
    if (name.empty() || name[0] != 'L') return std::nullopt;
    const std::optional<int> layer = digits(name, pos);
    if (!layer || pos >= name.size() || name[pos++] != 'H') return std::nullopt;
    const std::optional<int> head = digits(name, pos);
    if (!head || *layer < 1 || *head < 1 || pos >= name.size() || name[pos] != '.')
        return std::nullopt;
    return HeadColumn{*layer, *head, name, name.substr(pos + 1)};
}

CurveSeries columnSeries(const CsvTable& table, std::string_view x, std::string_view y,
                         std::string name, Rgb color) {
    const std::vector<double>& xs = table.column(x);
    const std::vector<double>& ys = table.column(y);
    CurveSeries series{std::move(name), color, {}, false};
    for (std::size_t row = 0; row < std::min(xs.size(), ys.size()); ++row)
        series.points.push_back({xs[row], ys[row]}); // NaN (an empty field) breaks the line
    return series;
}

double chanceLoss(int vocabSize) {
    return std::log(double(std::max(vocabSize, 1)));
}

CurveSeries chanceSeries(double loss, double x0, double x1) {
    char name[48];
    std::snprintf(name, sizeof name, "chance ln V = %.2f", loss);
    CurveSeries s{name, Rgb{128, 128, 134}, {{x0, loss}, {x1, loss}}, true};
    s.level = true;
    return s;
}

CurveFigure lossCurves(const CsvTable& metrics, int vocabSize) {
    CurveFigure figure;
    figure.title = "loss";
    figure.yLabel = "cross-entropy loss";
    figure.logY = true; // the late, small improvements stay visible next to the first drop
    const std::pair<const char*, const char*> columns[] = {{"train_loss", "train"},
                                                           {"heldout_loss", "held-out"}};
    for (const auto& [column, name] : columns)
        if (metrics.find(column))
            figure.series.push_back(columnSeries(metrics, "step", column, name,
                                                 seriesColor(int(figure.series.size()))));
    if (figure.series.empty())
        throw std::invalid_argument("metrics have no train_loss or heldout_loss column");
    const std::vector<double>& steps = metrics.column("step");
    if (vocabSize > 1 && !steps.empty())
        figure.series.push_back(chanceSeries(chanceLoss(vocabSize), steps.front(), steps.back()));
    return figure;
}

CurveFigure accuracyCurve(const CsvTable& metrics, std::string_view column) {
    CurveFigure figure;
    figure.title = std::string(column);
    std::replace(figure.title.begin(), figure.title.end(), '_', ' ');
    figure.yLabel = "accuracy (share of predictions right)";
    figure.yRange = AxisRange{0, 1};
    figure.series.push_back(
        columnSeries(metrics, "step", column, std::string(column), seriesColor(2)));
    return figure;
}

CurveFigure headScoreCurves(const CsvTable& metrics, std::string_view score) {
    std::vector<HeadColumn> heads;
    for (const std::string& name : metrics.names)
        if (std::optional<HeadColumn> head = parseHeadColumn(name); head && head->score == score)
            heads.push_back(*head);
    if (heads.empty())
        throw std::invalid_argument("metrics have no L{l}H{h}." + std::string(score) + " column");
    int headCount = 0;
    for (const HeadColumn& h : heads) headCount = std::max(headCount, h.head);
    CurveFigure figure;
    figure.title = std::string(score) + " score";
    std::replace(figure.title.begin(), figure.title.end(), '_', ' ');
    figure.yLabel = "score (mean attention weight)";
    figure.yRange = AxisRange{0, 1};
    for (const HeadColumn& h : heads)
        figure.series.push_back(columnSeries(metrics, "step", h.name, headName(h.layer, h.head),
                                             headColor(h.layer - 1, h.head - 1, headCount)));
    return figure;
}

} // namespace core
