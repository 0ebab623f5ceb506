// Train view, the left column: the model and task settings, the run's buttons (Start, Step,
// Reset, the speed) and its status; then the heads to switch off and the files
// (panel_train_tools.cpp).
#include "platform/appearance.h" // errorColor
#include "platform/page_keys.h"
#include "train_view/train_panels.h"
#include "widgets/enum_controls.h"

#include <GLFW/glfw3.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace train = core::train;

namespace {

bool editable(const TrainView& train) { // settings apply to a run not yet started
    return !train.run || (train.run->state() == TrainState::Ready && train.run->folder().empty());
}

// `chosenHeads`: the heads slider's last choice (0: none yet), which d_model comes back to where
// it divides, as in the explorer (core::headsFor).
void taskAndSizes(train::TrainSettings& s, int& chosenHeads) {
    enumCombo("task", s.task);
    itemTooltip("induction: a repeated segment to continue (needs 2 layers); agreement: the verb "
                "agrees with its subject; previous-token: copy the token one back.");
    ImGui::SliderInt("layers", &s.model.layers, 1, 4, "%d", ImGuiSliderFlags_AlwaysClamp);
    static const int widths[] = {16, 32, 64, 128, 256};
    int w = int(std::find(std::begin(widths), std::end(widths), s.model.d_model) - widths);
    if (ImGui::SliderInt("d_model", &w, 0, 4, std::to_string(widths[std::min(w, 4)]).c_str())) {
        s.model.d_model = widths[w];
        if (chosenHeads <= 0) chosenHeads = s.model.heads;
        s.model.heads = core::headsFor(s.model.d_model, chosenHeads);
    }
    const std::vector<int> counts = core::validHeadCounts(s.model.d_model);
    int h = int(std::find(counts.begin(), counts.end(), s.model.heads) - counts.begin());
    h = std::min(h, int(counts.size()) - 1);
    if (ImGui::SliderInt("heads", &h, 0, int(counts.size()) - 1,
                         std::to_string(counts[std::size_t(h)]).c_str()))
        chosenHeads = s.model.heads = counts[std::size_t(h)];
    itemTooltip("Only divisors of d_model: every head gets d_model / heads dimensions.");
    ImGui::SliderInt("seq", &s.model.seq, 8, 128, "%d", ImGuiSliderFlags_AlwaysClamp);
    ImGui::SliderInt("batch", &s.batch, 1, 128, "%d", ImGuiSliderFlags_AlwaysClamp);
}

void optimizerControls(train::TrainSettings& s) {
    float lr = float(s.learningRate);
    if (ImGui::SliderFloat("learning rate", &lr, 1e-4f, 1e-1f, "%.4g",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        s.learningRate = lr;
    enumRadios("optimizer", s.optimizer);
    ImGui::SliderInt("steps", &s.steps, 10, 20000, "%d",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    const std::uint64_t one = 1, ten = 10;
    ImGui::InputScalar("seed", ImGuiDataType_U64, &s.seed, &one, &ten);
    itemTooltip("Weights, batches and the probe set all follow from it: same seed, same run.");
}

void settingsSection(TrainView& train) {
    sectionTitle("Model and task");
    ImGui::BeginDisabled(!editable(train));
    ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    taskAndSizes(train.settings, train.chosenHeads);
    optimizerControls(train.settings);
    ImGui::PopItemWidth();
    ImGui::EndDisabled();
    if (!editable(train)) ImGui::TextDisabled("Reset to change the settings.");
    if (!train.settingsError.empty())
        ImGui::TextColored(errorColor(), "%s", train.settingsError.c_str());
}

// Start / Pause, Step, Reset, the speed; the step, rate and losses of the run.
void runButtons(TrainView& train) {
    sectionTitle("Run");
    const TrainState state = train.run ? train.run->state() : TrainState::Ready;
    const bool running = state == TrainState::Running;
    const bool canRun = state == TrainState::Ready || state == TrainState::Paused;
    ImGui::BeginDisabled(!running && !canRun);
    if (ImGui::Button(running ? "Pause (Space)" : "Start (Space)")) toggleRunning(train);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!canRun);
    if (ImGui::Button("Step (S)")) stepRun(train);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) resetRun(train);
    itemTooltip("Back to step 0: new initial weights from the settings above. The run it "
                "replaces is kept: Ctrl+Z brings it back.");
    if (train.replaced) {
        ImGui::SameLine();
        const char* label = "Undo (Ctrl+Z)"; // the key named when the row has room for it
        const float wide = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
        if (ImGui::GetContentRegionAvail().x < wide) label = "Undo";
        // The tip is written before the click: undoing may leave nothing in train.replaced.
        const std::string tip = "Ctrl+Z: back to the run this one replaced, paused at step " +
                                std::to_string(train.replaced->step()) +
                                "; this one is kept in its place.";
        if (ImGui::Button(label)) undoReplacedRun(train);
        itemTooltip(tip.c_str());
    }
    static const char* speeds[] = {"free running", "1 step / frame", "5 steps / frame",
                                   "20 steps / frame"};
    static const int perFrame[] = {0, 1, 5, 20};
    int speed = 0;
    if (train.run)
        for (int i = 0; i < 4; ++i)
            if (perFrame[i] == train.run->stepsPerFrame()) speed = i;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    if (ImGui::Combo("speed", &speed, speeds, 4) && train.run)
        train.run->setStepsPerFrame(perFrame[speed]);
}

void runStatus(const TrainView& train) {
    if (!train.run) return;
    const TrainRun& run = *train.run;
    ImGui::Text("step %d / %d   %s", run.step(), run.steps(),
                std::string(core::toString(run.state())).c_str());
    if (run.state() == TrainState::Running) {
        ImGui::SameLine();
        ImGui::TextDisabled("%.0f steps/s", run.stepsPerSecond());
    }
    if (!run.folder().empty()) ImGui::TextDisabled("from %s", run.folder().c_str());
    // The row of the step shown (not the newest): the numbers the curves' cursor and the
    // switch-off line show for the same step.
    const core::CsvTable& m = run.metrics();
    if (const int row = shownRow(train); row >= 0) {
        const std::size_t r = std::size_t(row);
        ImGui::Text("at step %d: loss %.3f   held-out %.3f", int(m.column("step")[r]),
                    m.column("train_loss")[r], m.column("heldout_loss")[r]);
        itemTooltip("loss: the training batches' mean since the row before (each measured before "
                    "its update); held-out: the fixed probe set of 64 sequences, at this step.");
        const char* accuracy = train::accuracyColumn(run.settings().task);
        if (const auto* a = m.find(accuracy)) ImGui::Text("%s %.2f", accuracy, (*a)[r]);
    }
    ImGui::ProgressBar(float(run.step()) / float(std::max(run.steps(), 1)), ImVec2(-1, 0), "");
    if (!run.error().empty()) ImGui::TextColored(errorColor(), "%s", run.error().c_str());
}

} // namespace

void toggleRunning(TrainView& train) {
    if (!train.run && !resetRun(train)) return;
    if (train.run->state() == TrainState::Running)
        train.run->pause();
    else
        train.run->start();
}

void stepRun(TrainView& train) {
    if (!train.run && !resetRun(train)) return;
    train.run->stepOnce();
}

std::optional<OpenInExplorer> drawTrainControls(const PanelRect& rect, TrainView& train,
                                                const TrainViewLook& look, Notice& notice) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Train", nullptr, kPanelFlags);
    if (ImGui::Button((std::string("< Explorer (") + kTrainKeyName + ")").c_str()))
        train.active = false;
    ImGui::SameLine();
    ImGui::TextDisabled("watch heads learn");
    settingsSection(train);
    runButtons(train);
    runStatus(train);
    drawTrainAblation(train, look.dark);
    std::optional<OpenInExplorer> open = drawTrainFiles(train, notice, look.exportDir);
    ImGui::End();
    return open;
}

} // namespace app
