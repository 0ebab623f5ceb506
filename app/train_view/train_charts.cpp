// The Train view's loss chart and the numbers beside it: one metrics row per step shown, the
// chance level, and an axis fitted to the whole run so far (train_view.h).
#include "train_view/train_view.h"

#include "io/metrics_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace app {

int shownRow(const TrainView& view) {
    if (!view.run) return -1;
    const std::vector<double>* steps = view.run->metrics().find("step");
    if (!steps) return -1;
    const auto past = std::upper_bound(steps->begin(), steps->end(), double(shownStep(view)));
    return int(past - steps->begin()) - 1;
}

double heldoutAt(const TrainView& view, int step, double measured) {
    if (!view.run) return measured;
    const core::CsvTable& m = view.run->metrics();
    const std::vector<double>* steps = m.find("step");
    const std::vector<double>* heldout = m.find("heldout_loss");
    if (!steps || !heldout) return measured;
    const auto at = std::lower_bound(steps->begin(), steps->end(), double(step));
    if (at == steps->end() || *at != double(step)) return measured;
    const double value = (*heldout)[std::size_t(at - steps->begin())];
    return std::isfinite(value) ? value : measured;
}

double runChanceLoss(const TrainView& view) {
    return view.run ? core::chanceLoss(view.run->setup().task.vocabSize()) : 0;
}

core::AxisRange lossAxis(const TrainView& view) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    const double chance = runChanceLoss(view);
    if (chance > 0) lo = hi = chance;
    if (view.run)
        for (const char* column : {"train_loss", "heldout_loss"})
            if (const std::vector<double>* values = view.run->metrics().find(column))
                for (double v : *values)
                    if (std::isfinite(v) && (!view.logLoss || v > 0))
                        lo = std::min(lo, v), hi = std::max(hi, v);
    if (!(lo <= hi)) lo = 0.1, hi = 10; // no run, no rows: any range
    const core::AxisTicks t = view.logLoss ? core::logTicks(lo, hi, true)
                                           : core::linearTicks(std::min(lo, 0.0), hi, 5, true);
    return core::AxisRange{t.min, t.max};
}

core::CurveFigure lossChart(const TrainView& view) {
    core::CurveFigure f = core::lossCurves(view.run->metrics());
    f.logY = view.logLoss;
    f.yRange = lossAxis(view);
    const double steps = double(std::max(view.run->steps(), 1));
    f.xRange = core::AxisRange{0, steps};
    if (const double chance = runChanceLoss(view); chance > 0)
        f.series.push_back(core::chanceSeries(chance, 0, steps));
    return f;
}

} // namespace app
