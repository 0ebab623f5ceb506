// The Train view's notes on the induction task: the plateau, the drop and the stripe, each
// said only where the run's numbers show it (train_view.h).
#include "train_view/train_view.h"

#include "io/metrics_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace train = core::train;

namespace {

// The metrics value of `column` at `row`, NaN when the table lacks it.
double valueAt(const core::CsvTable& m, const std::string& column, int row) {
    const std::vector<double>* values = m.find(column);
    return values && row >= 0 && row < int(values->size()) ? (*values)[std::size_t(row)] : NAN;
}

struct BestHead {
    int layer = -1, head = -1; // 0-based
    double score = NAN;
};

// The head of `layers` [first, last) with the highest `score` at `row`.
BestHead bestHead(const TrainView& view, int first, int last, const char* score, int row) {
    BestHead best;
    const train::ModelConfig& c = view.run->settings().model;
    for (int l = first; l < last; ++l)
        for (int h = 0; h < c.heads; ++h) {
            const double v = valueAt(view.run->metrics(), train::headScoreColumn(l, h, score), row);
            if (std::isfinite(v) && !(v <= best.score)) best = {l, h, v};
        }
    return best;
}

std::string format(const char* pattern, auto... values) {
    char text[320];
    std::snprintf(text, sizeof text, pattern, values...);
    return text;
}

std::string plateauNote(const TrainView& view, int row) {
    const core::CsvTable& m = view.run->metrics();
    return format("Plateau: the model cannot yet use the repeated segment: on its second copy it "
                  "at best guesses among the tokens it has seen, so the loss stays high (held-out "
                  "%.2f, chance ln V = %.2f) and the accuracy low (%.2f).",
                  valueAt(m, "heldout_loss", row), runChanceLoss(view),
                  valueAt(m, "accuracy", row));
}

std::string dropNote(const TrainView& view, int row, InductionPhase phase) {
    const MeasuredDrop drop = measureDrop(view.run->metrics());
    const int layers = view.run->settings().model.layers;
    const BestHead previous = bestHead(view, 0, 1, "previous_token", row);
    const BestHead induction = bestHead(view, 1, layers, "induction", row);
    const std::string when = phase == InductionPhase::After
                                 ? format("After the drop (steps %d-%d)", drop.start, drop.end)
                                 : format("The drop (from step %d)", drop.start);
    return when +
           format(": a previous-token head in layer 1 (L1H%d, score %.2f) and an induction head "
                  "in layer %d (L%dH%d, %.2f) %s together.",
                  previous.head + 1, previous.score, induction.layer + 1, induction.layer + 1,
                  induction.head + 1, induction.score,
                  phase == InductionPhase::After ? "formed" : "form");
}

} // namespace

MeasuredDrop measureDrop(const core::CsvTable& metrics) {
    MeasuredDrop drop;
    const std::vector<double>* steps = metrics.find("step");
    const std::vector<double>* accuracy = metrics.find("accuracy");
    if (!steps || !accuracy) return drop;
    for (std::size_t r = 0; r < std::min(steps->size(), accuracy->size()); ++r) {
        const double a = (*accuracy)[r];
        if (drop.start < 0 && a >= kDropStartAccuracy) drop.start = int((*steps)[r]);
        if (drop.end < 0 && a >= kDropEndAccuracy) drop.end = int((*steps)[r]);
    }
    return drop;
}

InductionPhase inductionPhase(const TrainView& view) {
    if (!view.run || view.run->settings().task != train::TaskKind::Induction ||
        view.run->settings().model.layers < 2 || shownRow(view) < 0)
        return InductionPhase::None;
    const MeasuredDrop drop = measureDrop(view.run->metrics());
    const int step = shownStep(view);
    if (drop.start < 0 || step < drop.start) return InductionPhase::Plateau;
    return drop.end < 0 || step < drop.end ? InductionPhase::Drop : InductionPhase::After;
}

TrainNotes trainNotes(const TrainView& view) {
    TrainNotes notes;
    const InductionPhase phase = inductionPhase(view);
    if (phase == InductionPhase::None) return notes;
    const int row = shownRow(view);
    notes.curves =
        phase == InductionPhase::Plateau ? plateauNote(view, row) : dropNote(view, row, phase);
    const int layer = view.largeLayer, head = view.largeHead;
    const double score =
        valueAt(view.run->metrics(), train::headScoreColumn(layer, head, "induction"), row);
    // Switched-off heads change the map but not the metrics' score: then say nothing.
    if (layer >= 1 && phase != InductionPhase::Plateau && score >= kStripeScore &&
        !anyAblated(view.ablated))
        notes.map = format("The stripe: each token of the second copy attends to the token "
                           "after its earlier copy (L%dH%d's induction score %.2f).",
                           layer + 1, head + 1, score);
    return notes;
}

} // namespace app
