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

// The steps in order; Rotary only when q and k were turned (the list is made per trace).
enum class Step {
    Input,
    Query,
    Rotary,
    Keys,
    Scores,
    Scale,
    Mask,
    Softmax,
    Values,
    Concat,
    OutProjection
};

const char* stepTitle(Step step) {
    switch (step) {
    case Step::Input:
        return "x: the token's input row";
    case Step::Query:
        return "q = x W_Q, and this head's slice of it";
    case Step::Rotary:
        return "rotary positions: q and k turned by their positions";
    case Step::Keys:
        return "K: the keys this head reads";
    case Step::Scores:
        return "q \xC2\xB7 k for every key";
    case Step::Scale:
        return "\xC3\xB7 the scale";
    case Step::Mask:
        return "add the mask";
    case Step::Softmax:
        return "softmax: weights that sum to 1";
    case Step::Values:
        return "weights x V: this head's output";
    case Step::Concat:
        return "concat: all heads side by side";
    case Step::OutProjection:
        return "x W_O: the heads mixed into the output row";
    }
    return "";
}

// The rotary step needs the tables that turned q and k (core::rotaryDetail reads them), not
// only the fact that they were turned.
std::vector<Step> stepsOf(const core::Trace& trace) {
    const bool rotary = trace.attention.rotated && !trace.input.rotation.empty();
    std::vector<Step> steps;
    for (int k = 0; k <= int(Step::OutProjection); ++k)
        if (Step(k) != Step::Rotary || rotary) steps.push_back(Step(k));
    return steps;
}

// The numbers of every step (core::stepDetail) and the key tokens that label them.
struct StepData {
    core::StepDetail detail;
    std::vector<std::string> keyLabels; // M
    std::string layerInput;             // a real model's name for what x is; "" for the toy
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

void stepInput(const StepData& data, const StepStyles& styles) {
    if (data.layerInput.empty()) {
        explain("The token's embedding plus its position: d_model numbers (blue negative, red "
                "positive).");
    } else { // a real layer reads its normalised stream; rotary models add no position to it
        const std::string text = "What this layer's attention reads: " + data.layerInput +
                                 ", d_model numbers (blue negative, red positive)." +
                                 (data.detail.rotary.on() ? " No position is added to it: "
                                                            "rotary positions turn q and k."
                                                          : "");
        explain(text.c_str());
    }
    row("x", data.detail.x, styles.dims);
}

void stepQuery(const core::StepDetail& s, const StepStyles& styles) {
    explain(s.reshapeBug ? "q = x W_Q for every token. With the reshape bug, this head's 'slice' "
                           "is not a block of this "
                           "row: it is cut from the flat buffer, mixing other tokens' values."
                         : "q = x W_Q, then this head keeps only its d_head-wide slice (framed).");
    if (s.rotary.on()) explain("(Already turned by the rotary positions: the next step.)");
    slicedRow("q", s.q, s, styles);
    char line[200];
    std::snprintf(line, sizeof line, "q for head %d (%d numbers):", s.head + 1, s.d_head);
    ImGui::TextUnformatted(line);
    row("qh", s.qHead, styles.dims);
}

// The key the rotary step follows: a combo over the key tokens, "most attended" by default.
void rotaryKeyChooser(const StepData& data, int& chosenKey) {
    const core::RotaryDetail& r = data.detail.rotary;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    const std::string shown = data.keyLabels[std::size_t(r.key)];
    if (ImGui::BeginCombo("key token", shown.c_str())) {
        if (ImGui::Selectable("(the most attended)", chosenKey < 0)) chosenKey = -1;
        for (int j = 0; j < int(data.keyLabels.size()); ++j) {
            ImGui::PushID(j);
            if (ImGui::Selectable(data.keyLabels[std::size_t(j)].c_str(), j == chosenKey))
                chosenKey = j;
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    itemTooltip("The key whose k is shown turned; by default the one this query weighs most.");
}

// Pair p: its two dimensions, theta_p and the angles at the query's and the key's positions.
void rotaryAngles(const core::RotaryDetail& r) {
    const int pairs = r.dims / 2, shown = std::min(pairs, 16);
    if (!beginNumberTable("angles", {"pair", "dims", "theta_p (rad)", "query angle", "key angle"}))
        return;
    for (int p = 0; p < shown; ++p) {
        const int a = r.interleaved ? 2 * p : p, b = r.interleaved ? a + 1 : p + pairs;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", p);
        ImGui::TableNextColumn();
        ImGui::Text("%d, %d", a, b);
        ImGui::TableNextColumn();
        ImGui::Text("%.5g", double(r.frequencies[p]));
        ImGui::TableNextColumn();
        ImGui::Text("%d x %.4g = %.4g", r.queryPosition, double(r.frequencies[p]),
                    double(r.queryAngles[p]));
        ImGui::TableNextColumn();
        ImGui::Text("%d x %.4g = %.4g", r.keyPosition, double(r.frequencies[p]),
                    double(r.keyAngles[p]));
    }
    ImGui::EndTable();
    if (pairs > shown) ImGui::TextDisabled("... and %d more pairs", pairs - shown);
}

// The score at (i, j) beside the score with both positions moved alike, both computed.
void rotaryRelative(const core::RotaryDetail& r, const core::StepDetail& s) {
    ImGui::Text("q \xC2\xB7 k = %.4f at positions (%d, %d)", double(r.score), r.queryPosition,
                r.keyPosition);
    if (!s.reshapeBug)
        ImGui::TextDisabled("(the head's own q \xC2\xB7 k for this key, in the q \xC2\xB7 k step: "
                            "%.4f)",
                            double(s.rawScores[r.key]));
    if (r.shift == 0) {
        explain("The tables hold no other pair of positions this far apart to compare with.");
        return;
    }
    const double gap = std::abs(double(r.shiftedScore) - double(r.score));
    const bool equal = gap <= 1e-4 * std::max(1.0, std::abs(double(r.score)));
    ImGui::Text("both moved by %+d, to (%d, %d): q \xC2\xB7 k = %.4f   %s", r.shift,
                r.queryPosition + r.shift, r.keyPosition + r.shift, double(r.shiftedScore),
                equal ? "equal" : "DIFFERENT");
    char line[200];
    std::snprintf(line, sizeof line,
                  "Turning q by i x theta and k by j x theta leaves their dot product turned by "
                  "(i - j) x theta alone: the score depends only on i - j = %d, not on where the "
                  "pair sits.",
                  r.queryPosition - r.keyPosition);
    explain(line);
}

void stepRotary(const StepData& data, const StepStyles& styles, int& chosenKey) {
    const core::RotaryDetail& r = data.detail.rotary;
    explain("Rotary positions (RoPE) turn q and k of every head pair by pair: pair p by the "
            "angle position x theta_p, theta_p = base^(-2p/r), fast for the first pairs and slow "
            "for the last. V is not turned.");
    rotaryKeyChooser(data, chosenKey);
    ImGui::SameLine();
    ImGui::TextDisabled("query at position %d, key '%s' at position %d", r.queryPosition,
                        data.keyLabels[std::size_t(r.key)].c_str(), r.keyPosition);
    static const std::vector<std::string> labels{"q before", "q after", "k before", "k after"};
    MiniMatrixStyle style = styles.dims;
    style.rowLabels = &labels;
    const core::RowVec* rows[] = {&r.qBefore, &r.qAfter, &r.kBefore, &r.kAfter};
    drawMiniMatrix(
        "rotated", 4, int(r.qAfter.size()), [&](int row, int c) { return (*rows[row])[c]; }, style);
    rotaryAngles(r);
    rotaryRelative(r, data.detail);
    if (data.detail.reshapeBug)
        explain("With the reshape bug the head does not read these token rows: its 'q' and 'k' "
                "are cut from the flat buffer after they were turned.");
}

void stepKeys(const StepData& data, const StepStyles& styles) {
    const core::StepDetail& s = data.detail;
    if (s.kvHeads < s.heads) {
        const int per = s.heads / s.kvHeads;
        char line[300];
        std::snprintf(line, sizeof line,
                      "Head %d reads K/V head %d of %d (%s): query heads %d to %d share these "
                      "keys and values (h / (H / H_kv) = %d / %d). One slice of K for every key "
                      "token (rows), d_head columns.",
                      s.head + 1, s.kvHead + 1, s.kvHeads,
                      core::attentionKindName(s.heads, s.kvHeads), s.kvHead * per + 1,
                      s.kvHead * per + per, s.head, per);
        explain(line);
    } else {
        explain("This head's slice of K for every key token (rows), d_head columns.");
    }
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

void drawStep(Step step, const StepData& data, const core::Trace& t, core::ColormapId colormap,
              StepsTabState& steps) {
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
    case Step::Input:
        return stepInput(data, styles);
    case Step::Query:
        return stepQuery(s, styles);
    case Step::Rotary:
        return stepRotary(data, styles, steps.rotaryKey);
    case Step::Keys:
        return stepKeys(data, styles);
    case Step::Scores:
        return stepScores(data, styles);
    case Step::Scale:
        return stepScale(data, t, styles);
    case Step::Mask:
        return stepMask(data, styles);
    case Step::Softmax:
        return stepSoftmax(data, styles, colormap);
    case Step::Values:
        return stepValues(data, styles);
    case Step::Concat:
        return stepConcat(s, styles);
    case Step::OutProjection:
        return stepOutProjection(s, styles);
    }
}

// The head and the token to follow, then the step buttons.
void stepChoosers(const core::Trace& trace, const MapsView& maps, StepsTabState& steps,
                  int stepCount) {
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
    ImGui::BeginDisabled(steps.showAll || steps.step == stepCount - 1);
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
    const int keys = trace.keyLen();
    const StepsTabState::Key key{maps.gl.maps.generation, maps.selection.batchIndex,
                                 maps.saved.selectedHead, query,
                                 steps.rotaryKey < keys ? steps.rotaryKey : -1};
    if (!(steps.detailKey == key)) {
        steps.detail = core::stepDetail(trace, key.batch, key.head, key.query, key.key);
        steps.detailKey = key;
    }
    return steps.detail;
}

} // namespace

void drawStepsView(const core::Trace& trace, const MapsView& maps, StepsTabState& steps,
                   const std::string& layerInput) {
    const HeadMaps& shown = maps.gl.maps;
    if (shown.heads.empty()) return;
    const std::vector<Step> order = stepsOf(trace);
    const int count = int(order.size());
    stepChoosers(trace, maps, steps, count);
    steps.step = std::clamp(steps.step, 0, count - 1);
    if (!steps.showAll) {
        ImGui::SameLine();
        ImGui::TextDisabled("step %d of %d", steps.step + 1, count);
    }
    ImGui::Separator();

    // The pinned row (the combo may just have moved it), else the first token: following a
    // token does not pin it.
    const int rows = shown.heads.front().rows;
    const int followed = std::clamp(maps.selection.pinnedQuery, 0, rows - 1);
    const StepData data{followedDetail(trace, maps, steps, followed),
                        shown.heads[std::size_t(maps.saved.selectedHead)].keyLabels, layerInput};
    ImGui::BeginChild("steps");
    for (int k = 0; k < count; ++k) {
        if (!steps.showAll && k != steps.step) continue;
        ImGui::TextWrapped("%d. %s", k + 1, stepTitle(order[std::size_t(k)])); // never cut off
        drawStep(order[std::size_t(k)], data, trace, maps.saved.colormap, steps);
        ImGui::Spacing();
    }
    ImGui::EndChild();
}

} // namespace app
