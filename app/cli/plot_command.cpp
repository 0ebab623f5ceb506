#include "cli/plot_command.h"

#include "cli/cli.h"
#include "cli/command_line.h"

#include "figures/curve_figure.h"
#include "io/figure_export.h"
#include "io/metrics_figures.h"
#include "io/run_folder.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string_view>

namespace app {

namespace {

namespace train = core::train;

void printError(const std::string& message) {
    app::printError("mha-viz plot", message);
}

struct Run {
    std::string dir, label;
    core::ModelInfo model;
    core::CsvTable metrics;
};

Run readRun(const std::string& dir) {
    Run run{dir, "", {}, {}};
    try {
        run.model = core::readModelInfo(dir);
        run.metrics = core::readMetrics(dir);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(dir + ": " + e.what());
    }
    const int layers = run.model.config.layers;
    run.label = std::string(core::toString(run.model.task)) + ", " + std::to_string(layers) +
                (layers == 1 ? " layer" : " layers");
    return run;
}

// Whether `text` matches `pattern`, where '*' stands for any run of characters.
bool globMatch(std::string_view pattern, std::string_view text) {
    std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++, resume = t; // try the star as empty first
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p, ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1, t = ++resume; // let the star take one more character
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

core::CurveSeries seriesOf(const Run& run, const std::string& column, int runIndex, int seriesIndex,
                           bool manyRuns) {
    const std::optional<core::HeadColumn> head = core::parseHeadColumn(column);
    core::CurveSeries series = core::columnSeries(
        run.metrics, "step", column, manyRuns ? run.label + ": " + column : column,
        head ? core::headColor(head->layer - 1, head->head - 1, run.model.config.heads)
             : core::seriesColor(seriesIndex));
    series.dashed = head && runIndex % 2 == 1; // the same head of another run
    return series;
}

std::string captionOf(const Run& run) {
    const train::ModelConfig& c = run.model.config;
    return run.dir + ": " + run.label + ", d_model " + std::to_string(c.d_model) + ", " +
           std::to_string(c.heads) + " heads, seq " + std::to_string(c.seq) + ", seed " +
           std::to_string(run.model.seed);
}

// The series of every run for every column pattern, in the order asked.
std::vector<core::CurveSeries> seriesOfRuns(const std::vector<Run>& runs,
                                            const std::vector<std::string>& patterns) {
    std::vector<core::CurveSeries> all;
    for (const std::string& pattern : patterns) {
        bool any = false;
        for (std::size_t r = 0; r < runs.size(); ++r)
            for (const std::string& column : runs[r].metrics.names) {
                if (column == "step" || !globMatch(pattern, column)) continue;
                all.push_back(seriesOf(runs[r], column, int(r), int(all.size()), runs.size() > 1));
                any = true;
            }
        if (!any) throw std::invalid_argument("no run has a column '" + pattern + "'");
    }
    return all;
}

// Losses in nats; head scores (mean attention weights) and accuracies on 0..1.
void labelAxes(core::CurveFigure& figure, const std::vector<std::string>& patterns) {
    int losses = 0, accuracies = 0;
    for (const std::string& p : patterns) {
        losses += p.find("loss") != std::string::npos;
        accuracies += p.find("accuracy") != std::string::npos;
    }
    const int n = int(patterns.size());
    figure.yLabel = losses == n                ? "loss (nats)"
                    : accuracies == n          ? "accuracy"
                    : losses + accuracies == 0 ? "mean attention weight"
                                               : "value";
    if (losses == 0 && !figure.logY) figure.yRange = core::AxisRange{0, 1};
}

// Loss figures get the chance line ln V when every run has the same vocabulary size (else
// one line would be wrong for some of them), across the steps of all runs.
void addChance(core::CurveFigure& figure, const std::vector<Run>& runs) {
    const std::size_t vocab = runs.front().model.vocab.size();
    double first = 0, last = 0;
    for (const Run& run : runs) {
        const std::vector<double>& steps = run.metrics.column("step");
        if (run.model.vocab.size() != vocab || steps.empty()) return;
        first = std::min(first, steps.front()), last = std::max(last, steps.back());
    }
    if (vocab > 1)
        figure.series.push_back(core::chanceSeries(core::chanceLoss(int(vocab)), first, last));
}

core::CurveFigure figureOf(const PlotOptions& options, const std::vector<Run>& runs) {
    core::CurveFigure figure;
    figure.logY = options.logY;
    figure.series = seriesOfRuns(runs, options.columns);
    for (const Run& run : runs) figure.captionLines.push_back(captionOf(run));
    std::string columns;
    for (const std::string& c : options.columns) columns += (columns.empty() ? "" : ", ") + c;
    figure.title = options.title.empty() ? columns : options.title;
    labelAxes(figure, options.columns);
    if (figure.yLabel == "loss (nats)") addChance(figure, runs);
    if (figure.series.size() > 10) figure.legend = core::LegendPlacement::Below;
    return figure;
}

bool endsWith(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

std::optional<PlotOptions> parsePlotCli(int argc, char** argv, int& exitCode) {
    PlotOptions options;
    CLI::App cli{"mha-viz plot: curves of training runs (metrics.csv) as an SVG or PNG figure.",
                 "mha-viz plot"};
    cli.add_option("runs", options.runs, "Run folders written by mha-viz train")->required();
    cli.add_option("--out", options.out, "FILE.svg or FILE.png")->required();
    cli.add_option("--columns", options.columns,
                   "Columns of metrics.csv, comma-separated; * matches any text, e.g. "
                   "heldout_loss,train_loss or L2*.induction")
        ->delimiter(',')
        ->capture_default_str();
    cli.add_flag("--log-y", options.logY, "Logarithmic y axis");
    cli.add_option("--title", options.title, "Title (default: the columns)");
    cli.add_option("--scale", options.scale, "PNG resolution multiplier")
        ->check(CLI::Range(1, 4))
        ->capture_default_str();
    const auto check = [&] {
        return endsWith(options.out, ".svg") || endsWith(options.out, ".png")
                   ? std::string()
                   : "--out " + options.out + " must end in .svg or .png";
    };
    if (!parseCommandLine(cli, argc, argv, "mha-viz plot", check, exitCode)) return std::nullopt;
    return options;
}

int runPlot(const PlotOptions& options) {
    try {
        std::vector<Run> runs;
        for (const std::string& dir : options.runs) runs.push_back(readRun(dir));
        const core::CurveFigure figure = figureOf(options, runs);
        core::writeCurveFile(options.out, figure, options.scale);
    } catch (const std::exception& e) {
        printError(e.what());
        return kExitBadInput;
    }
    std::cerr << "mha-viz plot: wrote " << options.out << '\n';
    return 0;
}

int runPlotCommand(int argc, char** argv) {
    int exitCode = 0;
    const std::optional<PlotOptions> options = parsePlotCli(argc, argv, exitCode);
    return options ? runPlot(*options) : exitCode;
}

} // namespace app
