// Train mode, middle: the loss curves, the task's accuracy and every head's score, as they were
// at the step shown (the timeline cuts them there). A click or drag on a chart scrubs to it.
#include "train_view/train_panels.h"

#include "io/metrics_figures.h"
#include "widgets/curve_plot.h"

#include <algorithm>

namespace app {

namespace train = core::train;

namespace {

core::CurveFigure accuracyFigure(const core::CsvTable& rows, train::TaskKind task) {
    core::CurveFigure f;
    const char* column = train::accuracyColumn(task);
    f.yLabel = column;
    f.yRange = core::AxisRange{0, 1};
    f.series.push_back(core::columnSeries(rows, "step", column, column, core::seriesColor(2)));
    return f;
}

// Charts share the run's step axis, so the curves grow into a fixed frame.
void fixSteps(core::CurveFigure& f, int steps) {
    f.xRange = core::AxisRange{0, double(std::max(steps, 1))};
}

void scrubFromChart(TrainView& train, double x) {
    if (x < 0) return;
    train.playing = false;
    scrubTo(train, int(x + 0.5));
}

void scoreChart(TrainView& train, const core::CsvTable& rows, const CurvePlotStyle& style,
                ImVec2 size) {
    const std::vector<std::string> scores = train::headScoreNames(train.run->settings().task);
    train.scoreIndex = std::clamp(train.scoreIndex, 0, int(scores.size()) - 1);
    ImGui::TextUnformatted("head scores:");
    for (int i = 0; i < int(scores.size()); ++i) {
        ImGui::SameLine();
        if (ImGui::RadioButton(scores[std::size_t(i)].c_str(), train.scoreIndex == i))
            train.scoreIndex = i;
    }
    itemTooltip("Mean attention weight on the pattern's key: 1 = the head does exactly that.");
    core::CurveFigure f = core::headScoreCurves(rows, scores[std::size_t(train.scoreIndex)]);
    fixSteps(f, train.run->steps());
    scrubFromChart(train, drawCurvePlot("##scores", f, size, style));
}

} // namespace

void drawTrainCharts(const PanelRect& rect, TrainView& train, bool dark) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Curves", nullptr, kPanelFlags | ImGuiWindowFlags_NoScrollbar);
    if (!train.run) {
        ImGui::TextWrapped("Press Start (Space) to train. The loss curves, the task's accuracy "
                           "and every head's scores appear here as the model learns.");
        ImGui::End();
        return;
    }
    const core::CsvTable rows = rowsUpTo(train.run->metrics(), shownStep(train));
    CurvePlotStyle style;
    style.dark = dark;
    style.markerX = train.scrubStep >= 0 ? double(train.scrubStep) : -1;
    const float line = ImGui::GetFrameHeightWithSpacing();
    const float width = ImGui::GetContentRegionAvail().x;
    const float height = ImGui::GetContentRegionAvail().y - 3 * line;
    ImGui::TextUnformatted("loss (nats)");
    ImGui::SameLine();
    ImGui::Checkbox("log scale", &train.logLoss);
    core::CurveFigure loss = core::lossCurves(rows);
    loss.logY = train.logLoss;
    fixSteps(loss, train.run->steps());
    scrubFromChart(train, drawCurvePlot("##loss", loss, ImVec2(width, height * 0.42f), style));
    ImGui::TextUnformatted("accuracy");
    core::CurveFigure accuracy = accuracyFigure(rows, train.run->settings().task);
    fixSteps(accuracy, train.run->steps());
    style.legend = false;
    scrubFromChart(train,
                   drawCurvePlot("##accuracy", accuracy, ImVec2(width, height * 0.2f), style));
    style.legend = true;
    scoreChart(train, rows, style, ImVec2(width, height * 0.38f));
    ImGui::End();
}

} // namespace app
