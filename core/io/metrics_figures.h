// Curve figures from a metrics table (core::parseCsv of mha-viz train's metrics.csv): the
// losses and the per-head scores against the step, as the README shows them and the Train
// view exports them. Here, not in figures/, because they read an io type.
#pragma once

#include "figures/curve_figure.h"
#include "io/csv_table.h"

#include <optional>
#include <string>
#include <string_view>

namespace core {

// A head score column "L{l}H{h}.{score}" (core::train::headScoreColumn's names).
struct HeadColumn {
    int layer = 0, head = 0; // from 1, as the column names them
    std::string name;        // the whole column name
    std::string score;       // what follows the dot
};
// The column's layer, head and score, or nothing when it is not a head score column.
std::optional<HeadColumn> parseHeadColumn(const std::string& name);

// Column y against column x, named `name`; a row where either is missing breaks the line.
// Throws std::invalid_argument when a column is not in the table.
CurveSeries columnSeries(const CsvTable& table, std::string_view x, std::string_view y,
                         std::string name, Rgb color);

// train_loss and heldout_loss against step on a log axis (whichever of the two the table has).
// Throws std::invalid_argument when it has neither, or no step column.
CurveFigure lossCurves(const CsvTable& metrics);

// Every "L{l}H{h}.{score}" column against step, each head in headColor(l-1, h-1, H) (H the
// most heads of any layer in the table), named "L{l}H{h}", on a 0..1 axis. Throws
// std::invalid_argument when there is no such column, or no step column.
CurveFigure headScoreCurves(const CsvTable& metrics, std::string_view score);

} // namespace core
