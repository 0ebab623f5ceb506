// `mha-viz plot`: curves of one or more training runs (their metrics.csv) as an SVG or PNG
// figure, drawn by the project's figure code (core/figures/curve_figure.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace app {

struct PlotOptions {
    std::vector<std::string> runs; // run folders, as mha-viz train wrote them
    std::string out;               // FILE.svg or FILE.png
    std::vector<std::string> columns{
        "heldout_loss"}; // names or patterns with *, e.g. L2*.induction
    bool logY = false;
    std::string title;
    int scale = 2; // PNG resolution multiplier, 1..4
};

// Parses the arguments after `mha-viz` (argv[0] is "plot"), like parseTrainCli.
std::optional<PlotOptions> parsePlotCli(int argc, char** argv, int& exitCode);

// Reads the runs, draws the figure, writes it; returns the exit code (2 with one line naming the
// problem: a folder that is not a run, a column no run has, an unknown extension).
int runPlot(const PlotOptions& options);

int runPlotCommand(int argc, char** argv);

} // namespace app
