// Tab: follow one query token through the selected head, every number on screen.
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"
#include "widgets/mini_matrix.h"

#include "engine/step_detail.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace app {

namespace {

constexpr int kStepCount = 10;
const char* const kStepTitles[kStepCount] = {
    "1. x: the token's input row",
    "2. q = x W_Q, and this head's slice of it",
    "3. K: this head's keys",
    "4. q \xC2\xB7 k for every key",
    "5. \xC3\xB7 the scale",
    "6. add the mask",
    "7. softmax: weights that sum to 1",
    "8. weights x V: this head's output",
    "9. concat: all heads side by side",
    "10. x W_O: the heads mixed into the output row",
};

// The numbers of every step (core::stepDetail) and the key tokens that label them.
struct StepData {
    core::StepDetail detail;
    std::vector<std::string> keyLabels; // M
};

void explain(const char* text) {
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX());
    ImGui::TextDisabled("%s", text);
    ImGui::PopTextWrapPos();
}

void row(const char* id, const core::RowVec& values, MiniMatrixStyle style,
         const std::vector<bool>* masked = nullptr) {
    drawMiniMatrix(
        id, 1, int(values.size()), [&](int, int c) { return values[c]; }, style,
        masked ? std::function<bool(int, int)>(
                     [&](int, int c) { return bool((*masked)[std::size_t(c)]); })
               : std::function<bool(int, int)>());
}

// A value per key token (steps 4 to 7): labelled by the key, the value printed in its cell.
void keyRow(const char* id, const core::RowVec& values, const std::vector<std::string>& keyLabels,
            const MiniMatrixStyle& style, const std::vector<bool>* masked = nullptr) {
    drawLabelledRow(
        id, int(values.size()), [&](int c) { return values[c]; }, keyLabels, style,
        masked ? std::function<bool(int)>([&](int c) { return bool((*masked)[std::size_t(c)]); })
               : std::function<bool(int)>());
}

void matrix(const char* id, const core::Mat& values, const MiniMatrixStyle& style) {
    drawMiniMatrix(
        id, int(values.rows()), int(values.cols()), [&](int r, int c) { return values(r, c); },
        style);
}

// The styles every step starts from: values labelled by key, or by dimension. The score rows
// (q.k, scaled, masked) share one colour scale, q.k's, so scaling visibly pales them.
struct StepStyles {
    MiniMatrixStyle keys, dims, scores;
    ImU32 headColor = 0;
};

// d_model-wide row with this head's slice framed (unless the reshape bug scatters it).
void slicedRow(const char* id, const core::RowVec& values, const core::StepDetail& s,
               const StepStyles& styles) {
    MiniMatrixStyle framed = styles.dims;
    if (!s.reshapeBug)
        framed.highlightFromCol = s.head * s.d_head,
        framed.highlightToCol = (s.head + 1) * s.d_head;
    framed.highlightColor = styles.headColor;
    row(id, values, framed);
}

void stepInput(const core::StepDetail& s, const StepStyles& styles) {
    explain("The token's embedding plus its position: d_model numbers (blue negative, red "
            "positive).");
    row("x", s.x, styles.dims);
}

void stepQuery(const core::StepDetail& s, const StepStyles& styles) {
    explain(s.reshapeBug ? "q = x W_Q for every token. With the reshape bug, this head's 'slice' "
                           "is not a block of this "
                           "row: it is cut from the flat buffer, mixing other tokens' values."
                         : "q = x W_Q, then this head keeps only its d_head-wide slice (framed).");
    slicedRow("q", s.q, s, styles);
    char line[200];
    std::snprintf(line, sizeof line, "q for head %d (%d numbers):", s.head + 1, s.d_head);
    ImGui::TextUnformatted(line);
    row("qh", s.qHead, styles.dims);
}

void stepKeys(const StepData& data, const StepStyles& styles) {
    explain("This head's slice of K for every key token (rows), d_head columns.");
    MiniMatrixStyle style = styles.dims;
    style.rowLabels = &data.keyLabels;
    matrix("K", data.detail.kHead, style);
}

void stepScores(const StepData& data, const StepStyles& styles) {
    explain("The dot product of q with each key: how well they match, before any scaling.");
    keyRow("raw", data.detail.rawScores, data.keyLabels, styles.scores);
}

void stepScale(const StepData& data, const core::Trace& t, const StepStyles& styles) {
    const core::StepDetail& s = data.detail;
    char line[200];
    std::snprintf(line, sizeof line,
                  "Multiplied by %.4f (%s): the same colour scale as step 4, so the cells pale. "
                  "Without it, large d_head makes the softmax saturate.",
                  double(s.scale),
                  t.scene.scale == core::ScaleKind::SqrtDHead    ? "1/sqrt(d_head)"
                  : t.scene.scale == core::ScaleKind::SqrtDModel ? "1/sqrt(d_model): over-shrunk"
                                                                 : "no scaling");
    explain(line);
    keyRow("scaled", s.scaledScores, data.keyLabels, styles.scores);
}

void stepMask(const StepData& data, const StepStyles& styles) {
    const core::StepDetail& s = data.detail;
    char line[200];
    std::snprintf(line, sizeof line, "Keys this query may not see get -inf (%d of %d here: %s).",
                  s.maskedCount, s.keyLen, s.maskedCount == 0 ? "nothing masked" : "hatched");
    explain(line);
    keyRow("masked", s.scaledScores, data.keyLabels, styles.scores, &s.masked);
}

void stepSoftmax(const StepData& data, const StepStyles& styles, core::ColormapId colormap) {
    const core::StepDetail& s = data.detail;
    char line[200];
    std::snprintf(line, sizeof line,
                  "exp(score - max) / sum: masked keys get exactly 0.   sum = %.4f",
                  double(s.weightSum));
    explain(line);
    MiniMatrixStyle probs = styles.keys;
    probs.signedValues = false;
    probs.colormap = colormap;
    probs.decimals = 3;
    keyRow("weights", s.weights, data.keyLabels, probs);
}

void stepValues(const StepData& data, const StepStyles& styles) {
    explain("V's rows for this head (one per key), weighted by the softmax row and summed: the "
            "head's output.");
    MiniMatrixStyle style = styles.dims;
    style.rowLabels = &data.keyLabels;
    matrix("V", data.detail.vHead, style);
    ImGui::TextUnformatted("head output:");
    row("out", data.detail.headOutput, styles.dims);
}

void stepConcat(const core::StepDetail& s, const StepStyles& styles) {
    explain(s.reshapeBug ? "The buggy merge writes the heads' outputs back flat, so this row holds "
                           "pieces of several "
                           "tokens' results."
                         : "Every head's output side by side; this head's slice is framed. "
                           "Switched-off heads are 0.");
    slicedRow("concat", s.concat, s, styles);
}

void stepOutProjection(const core::StepDetail& s, const StepStyles& styles) {
    explain(s.outProjection
                ? "Row g: what head g's slice contributes to each output dimension through W_O. "
                  "The output row "
                  "(last) is their sum: W_O is where the heads are mixed."
                : "W_O is switched off: each head only fills its own columns, nothing is mixed.");
    std::vector<std::string> headLabels;
    for (int g = 0; g < s.heads; ++g) headLabels.push_back("head " + std::to_string(g + 1));
    MiniMatrixStyle style = styles.dims;
    style.rowLabels = &headLabels;
    style.maxRows = 32;
    matrix("mix", s.contributions, style);
    ImGui::TextUnformatted("output:");
    row("output", s.output, styles.dims);
}

void drawStep(int step, const StepData& data, const core::Trace& t, core::ColormapId colormap) {
    const core::StepDetail& s = data.detail;
    StepStyles styles;
    styles.keys.maxWidth = ImGui::GetContentRegionAvail().x - 8.0f;
    styles.keys.colLabels = &data.keyLabels;
    styles.dims = styles.keys;
    styles.dims.colLabels = nullptr;
    styles.headColor = headColorU32(t, s.head);
    styles.scores = styles.keys;
    styles.scores.fixedScale =
        std::max(s.rawScores.size() > 0 ? s.rawScores.cwiseAbs().maxCoeff() : 0.0f, 1e-6f);
    switch (step) {
    case 0:
        stepInput(s, styles);
        break;
    case 1:
        stepQuery(s, styles);
        break;
    case 2:
        stepKeys(data, styles);
        break;
    case 3:
        stepScores(data, styles);
        break;
    case 4:
        stepScale(data, t, styles);
        break;
    case 5:
        stepMask(data, styles);
        break;
    case 6:
        stepSoftmax(data, styles, colormap);
        break;
    case 7:
        stepValues(data, styles);
        break;
    case 8:
        stepConcat(s, styles);
        break;
    case 9:
        stepOutProjection(s, styles);
        break;
    default:
        break;
    }
}

// The head and the token to follow, then the step buttons.
void stepChoosers(const core::Trace& trace, const MapsView& maps, StepsTabState& steps) {
    const HeadMaps& shown = maps.gl.maps;
    const int heads = int(shown.heads.size()), rows = shown.heads.front().rows;
    int& selectedHead = maps.saved.selectedHead;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::BeginCombo("head", trace.headNames[std::size_t(selectedHead)].c_str())) {
        for (int h = 0; h < heads; ++h)
            if (ImGui::Selectable(trace.headNames[std::size_t(h)].c_str(), h == selectedHead))
                selectedHead = h;
        ImGui::EndCombo();
    }
    itemTooltip("The head to follow (left/right arrows step through heads).");
    ImGui::SameLine();
    const int query = std::clamp(maps.selection.pinnedQuery, 0, rows - 1);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::BeginCombo("query token",
                          shown.heads.front().queryLabels[std::size_t(query)].c_str())) {
        for (int i = 0; i < rows; ++i) {
            ImGui::PushID(i);
            if (ImGui::Selectable(shown.heads.front().queryLabels[std::size_t(i)].c_str(),
                                  i == query))
                maps.selection.pinnedQuery = i;
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    itemTooltip(
        "The token to follow; clicking a row in a heatmap pins it too (up/down arrows move it).");

    ImGui::BeginDisabled(steps.showAll || steps.step == 0);
    if (ImGui::ArrowButton("prev", ImGuiDir_Left)) --steps.step;
    ImGui::EndDisabled();
    itemTooltip("Previous step (P).");
    ImGui::SameLine();
    ImGui::BeginDisabled(steps.showAll || steps.step == kStepCount - 1);
    if (ImGui::ArrowButton("next", ImGuiDir_Right)) ++steps.step;
    ImGui::EndDisabled();
    itemTooltip("Next step (N).");
    ImGui::SameLine();
    ImGui::Checkbox("all steps", &steps.showAll);
    itemTooltip("Show every step at once instead of one at a time.");
}

// The numbers of the followed token, computed again only when what they follow changed.
const core::StepDetail& followedDetail(const core::Trace& trace, const MapsView& maps,
                                       StepsTabState& steps, int query) {
    const StepsTabState::Key key{maps.gl.maps.generation, maps.selection.batchIndex,
                                 maps.saved.selectedHead, query};
    if (!(steps.detailKey == key)) {
        steps.detail = core::stepDetail(trace, key.batch, key.head, key.query);
        steps.detailKey = key;
    }
    return steps.detail;
}

} // namespace

void drawStepsView(const core::Trace& trace, const MapsView& maps, StepsTabState& steps) {
    const HeadMaps& shown = maps.gl.maps;
    if (shown.heads.empty()) return;
    stepChoosers(trace, maps, steps);
    steps.step = std::clamp(steps.step, 0, kStepCount - 1);
    if (!steps.showAll) {
        ImGui::SameLine();
        ImGui::TextDisabled("step %d of %d", steps.step + 1, kStepCount);
    }
    ImGui::Separator();

    // The pinned row (the combo may just have moved it), else the first token: following a
    // token does not pin it.
    const int rows = shown.heads.front().rows;
    const int followed = std::clamp(maps.selection.pinnedQuery, 0, rows - 1);
    const StepData data{followedDetail(trace, maps, steps, followed),
                        shown.heads[std::size_t(maps.saved.selectedHead)].keyLabels};
    ImGui::BeginChild("steps");
    for (int step = 0; step < kStepCount; ++step) {
        if (!steps.showAll && step != steps.step) continue;
        ImGui::TextWrapped("%s", kStepTitles[step]); // narrow windows: never cut off
        drawStep(step, data, trace, maps.saved.colormap);
        ImGui::Spacing();
    }
    ImGui::EndChild();
}

} // namespace app
