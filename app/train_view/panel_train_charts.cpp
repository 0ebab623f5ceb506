// Train mode, middle: the loss curves, the task's accuracy and every head's score over the run
// so far, on axes that stay put; the steps after the one shown are faint. A click or drag on a
// chart scrubs to it. Above them, on the induction task, what the curves are showing.
#include "train_view/train_panels.h"

#include "io/metrics_figures.h"
#include "widgets/curve_plot.h"

#include <algorithm>

namespace app {

namespace train = core::train;

namespace {

// `text` with a line break at the last space before each line would pass `width`.
std::string wrapAtSpaces(const std::string& text, float width) {
    std::string out, line;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        const std::string longer = line.empty() ? word : line + " " + word;
        if (!line.empty() && ImGui::CalcTextSize(longer.c_str()).x > width) {
            out += line + "\n";
            line = word;
        } else {
            line = longer;
        }
        start = end + 1;
    }
    return out + line;
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

void noteText(const std::string& note) {
    const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    const bool dark = bg.x + bg.y + bg.z < 1.5f;
    ImGui::PushStyleColor(ImGuiCol_Text,
                          dark ? ImVec4(1.0f, 0.8f, 0.45f, 1) : ImVec4(0.55f, 0.32f, 0.0f, 1));
    const std::string wrapped = wrapAtSpaces(note, ImGui::GetContentRegionAvail().x);
    ImGui::TextUnformatted(wrapped.c_str());
    ImGui::PopStyleColor();
}

float noteHeight(const std::string& note, float width) {
    return note.empty() ? 0 : ImGui::CalcTextSize(wrapAtSpaces(note, width).c_str()).y;
}

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
    const core::CsvTable& rows = train.run->metrics();
    CurvePlotStyle style;
    style.dark = dark;
    style.markerX = train.scrubStep >= 0 ? double(train.scrubStep) : -1;
    style.dimAfterX = style.markerX; // the future of a scrubbed cursor, faint, on the same axes
    const std::string note = trainNotes(train).curves;
    const float line = ImGui::GetFrameHeightWithSpacing();
    const float width = ImGui::GetContentRegionAvail().x;
    const float noteRoom = note.empty() ? 0 : noteHeight(note, width) + 4;
    const float height = ImGui::GetContentRegionAvail().y - 3 * line - noteRoom;
    if (!note.empty()) noteText(note);
    ImGui::TextUnformatted("loss (nats)");
    ImGui::SameLine();
    ImGui::Checkbox("log scale", &train.logLoss);
    scrubFromChart(train,
                   drawCurvePlot("##loss", lossChart(train), ImVec2(width, height * 0.42f), style));
    ImGui::TextUnformatted("accuracy");
    core::CurveFigure accuracy =
        core::accuracyCurve(rows, train::accuracyColumn(train.run->settings().task));
    fixSteps(accuracy, train.run->steps());
    style.legend = false;
    scrubFromChart(train,
                   drawCurvePlot("##accuracy", accuracy, ImVec2(width, height * 0.2f), style));
    style.legend = true;
    scoreChart(train, rows, style, ImVec2(width, height * 0.38f));
    ImGui::End();
}

} // namespace app
