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

// The loss of a uniform guess among `vocabSize` tokens, ln V nats: what a model that has
// learnt nothing scores, the top of every loss curve's story.
double chanceLoss(int vocabSize);
// A flat grey dashed line at `loss` from x0 to x1, named "chance ln V = 4.16" (its label in the
// legend), marked as a level.
CurveSeries chanceSeries(double loss, double x0, double x1);

// train_loss and heldout_loss against step on a log axis (whichever of the two the table has),
// with the chance line of a `vocabSize`-token vocabulary across the steps when vocabSize > 1.
// Throws std::invalid_argument when it has neither, or no step column.
CurveFigure lossCurves(const CsvTable& metrics, int vocabSize = 0);

// One accuracy column (accuracy, agreement_accuracy) against step on a 0..1 axis, drawn like
// the loss figure. Throws std::invalid_argument when the table lacks it or the step column.
CurveFigure accuracyCurve(const CsvTable& metrics, std::string_view column);

// Every "L{l}H{h}.{score}" column against step, each head in headColor(l-1, h-1, H) (H the
// most heads of any layer in the table), named "L{l}H{h}", on a 0..1 axis. Throws
// std::invalid_argument when there is no such column, or no step column.
CurveFigure headScoreCurves(const CsvTable& metrics, std::string_view score);

} // namespace core
