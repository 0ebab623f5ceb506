// Tab: follow one query token through the selected head, every number on screen.
#include "widgets/heatmap_widget.h"
#include "widgets/mini_matrix.h"
#include "panels/panels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace app {

namespace {

constexpr int kStepCount = 10;
const char* const kStepTitles[kStepCount] = {
    "1. x: the token's input row",
    "2. q = x W_Q, and this head's slice of it",
    "3. K: this head's keys",
    "4. q . k for every key",
    "5. divide by the scale",
    "6. add the mask",
    "7. softmax: weights that sum to 1",
    "8. weights x V: this head's output",
    "9. concat: all heads side by side",
    "10. x W_O: the heads mixed into the output row",
};

// Everything the steps show, for head h, sentence b, query i (read from the trace).
struct StepData {
    int b = 0, h = 0, i = 0, N = 0, M = 0, d_model = 0, d_head = 0, H = 0;
    bool bug = false;
    std::vector<float> x, q, qHead, raw, scaled, weights, headOut, concat, output;
    std::vector<float> kHead, vHead;  // M x d_head, row-major
    std::vector<float> contributions; // H x d_model: head h' slice times W_O's rows
    std::vector<bool> masked;         // M
    std::vector<std::string> keyLabels;
};

StepData collect(const core::Trace& t, const ViewState& view) {
    const core::Attention& a = t.attention;
    StepData s;
    // The pinned row, else the first token (following a token does not pin it).
    s.b = view.batchIndex, s.h = view.selectedHead,
    s.i = std::clamp(view.pinnedQuery, 0, a.queryLen - 1);
    s.N = a.queryLen, s.M = a.keyLen, s.d_model = a.d_model, s.d_head = a.d_head, s.H = a.heads;
    s.bug = a.reshapeBug;
    const Eigen::Index qRow = Eigen::Index(s.b) * s.N + s.i;
    const Eigen::Index hRow = a.headRow(s.b, s.h, s.i);
    for (int c = 0; c < s.d_model; ++c) {
        s.x.push_back(t.input.x(qRow, c));
        s.q.push_back(a.q(qRow, c));
        s.concat.push_back(a.concat(qRow, c));
        s.output.push_back(a.output(qRow, c));
    }
    // Through splitSource, so the reshape bug shows what the head really reads.
    for (int c = 0; c < s.d_head; ++c) {
        const core::SplitSource src = core::splitSource(s.h, s.i, c, s.N, s.d_model, s.H, s.bug);
        s.qHead.push_back(a.q(Eigen::Index(s.b) * s.N + src.token, src.dim));
        s.headOut.push_back(a.headOutputs(hRow, c));
    }
    for (int j = 0; j < s.M; ++j) {
        float dot = 0;
        for (int c = 0; c < s.d_head; ++c) {
            const core::SplitSource src = core::splitSource(s.h, j, c, s.M, s.d_model, s.H, s.bug);
            const float k = a.k(Eigen::Index(s.b) * s.M + src.token, src.dim);
            s.kHead.push_back(k);
            s.vHead.push_back(a.v(Eigen::Index(s.b) * s.M + src.token, src.dim));
            dot += s.qHead[std::size_t(c)] * k;
        }
        s.raw.push_back(dot);
        s.scaled.push_back(a.scores(hRow, j));
        s.weights.push_back(a.attention(hRow, j));
        s.masked.push_back(a.masked(s.b, s.i, j));
    }
    const core::Mat& wO = t.weights->wO; // d_model x d_model
    for (int g = 0; g < s.H; ++g)
        for (int c = 0; c < s.d_model; ++c) {
            float sum = 0;
            if (a.outProjection)
                for (int k = g * s.d_head; k < (g + 1) * s.d_head; ++k)
                    sum += s.concat[std::size_t(k)] * wO(k, c);
            else if (c >= g * s.d_head && c < (g + 1) * s.d_head)
                sum = s.concat[std::size_t(c)];
            s.contributions.push_back(sum);
        }
    s.keyLabels =
        view.maps.empty() ? std::vector<std::string>{} : view.maps[std::size_t(s.h)].keyLabels;
    return s;
}

void explain(const char* text) {
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX());
    ImGui::TextDisabled("%s", text);
    ImGui::PopTextWrapPos();
}

void row(const char* id, const std::vector<float>& values, MiniMatrixStyle style,
         const std::vector<bool>* masked = nullptr) {
    drawMiniMatrix(
        id, 1, int(values.size()), [&](int, int c) { return values[std::size_t(c)]; }, style,
        masked ? std::function<bool(int, int)>(
                     [&](int, int c) { return bool((*masked)[std::size_t(c)]); })
               : std::function<bool(int, int)>());
}

void drawStep(int step, const StepData& s, const core::Trace& t, const ViewState& view) {
    MiniMatrixStyle style;
    style.maxWidth = ImGui::GetContentRegionAvail().x - 8.0f;
    style.colLabels = &s.keyLabels;
    const ImU32 headCol = headColor(s.h, s.H);
    MiniMatrixStyle dims = style;
    dims.colLabels = nullptr;
    char line[200];
    switch (step) {
    case 0:
        explain("The token's embedding plus its position: d_model numbers (blue negative, red "
                "positive).");
        row("x", s.x, dims);
        break;
    case 1: {
        explain(s.bug ? "q = x W_Q for every token. With the reshape bug, this head's 'slice' is "
                        "not a block of this "
                        "row: it is cut from the flat buffer, mixing other tokens' values."
                      : "q = x W_Q, then this head keeps only its d_head-wide slice (framed).");
        MiniMatrixStyle framed = dims;
        if (!s.bug)
            framed.highlightFromCol = s.h * s.d_head, framed.highlightToCol = (s.h + 1) * s.d_head;
        framed.highlightColor = headCol;
        row("q", s.q, framed);
        std::snprintf(line, sizeof line, "q for head %d (%d numbers):", s.h + 1, s.d_head);
        ImGui::TextUnformatted(line);
        row("qh", s.qHead, dims);
        break;
    }
    case 2:
        explain("This head's slice of K for every key token (rows), d_head columns.");
        dims.rowLabels = &s.keyLabels;
        drawMiniMatrix(
            "K", s.M, s.d_head,
            [&](int j, int c) { return s.kHead[std::size_t(j * s.d_head + c)]; }, dims);
        break;
    case 3:
        explain("The dot product of q with each key: how well they match, before any scaling.");
        row("raw", s.raw, style);
        break;
    case 4:
        std::snprintf(
            line, sizeof line,
            "Multiplied by %.4f (%s). Without it, large d_head makes the softmax saturate.",
            double(t.attention.scale),
            t.scene.scale == core::ScaleKind::SqrtDHead    ? "1/sqrt(d_head)"
            : t.scene.scale == core::ScaleKind::SqrtDModel ? "1/sqrt(d_model): over-shrunk"
                                                           : "no scaling");
        explain(line);
        row("scaled", s.scaled, style);
        break;
    case 5: {
        const int maskedCount = int(std::count(s.masked.begin(), s.masked.end(), true));
        std::snprintf(line, sizeof line,
                      "Keys this query may not see get -inf (%d of %d here: %s).", maskedCount, s.M,
                      maskedCount == 0 ? "nothing masked" : "hatched");
        explain(line);
        row("masked", s.scaled, style, &s.masked);
        break;
    }
    case 6: {
        float sum = 0;
        for (float w : s.weights) sum += w;
        std::snprintf(line, sizeof line,
                      "exp(score - max) / sum: masked keys get exactly 0.   sum = %.4f",
                      double(sum));
        explain(line);
        MiniMatrixStyle probs = style;
        probs.signedValues = false;
        probs.colormap = view.colormap;
        row("weights", s.weights, probs);
        break;
    }
    case 7:
        explain("V's rows for this head (one per key), weighted by the softmax row and summed: the "
                "head's output.");
        dims.rowLabels = &s.keyLabels;
        drawMiniMatrix(
            "V", s.M, s.d_head,
            [&](int j, int c) { return s.vHead[std::size_t(j * s.d_head + c)]; }, dims);
        dims.rowLabels = nullptr;
        ImGui::TextUnformatted("head output:");
        row("out", s.headOut, dims);
        break;
    case 8: {
        explain(s.bug ? "The buggy merge writes the heads' outputs back flat, so this row holds "
                        "pieces of several "
                        "tokens' results."
                      : "Every head's output side by side; this head's slice is framed. "
                        "Switched-off heads are 0.");
        MiniMatrixStyle framed = dims;
        if (!s.bug)
            framed.highlightFromCol = s.h * s.d_head, framed.highlightToCol = (s.h + 1) * s.d_head;
        framed.highlightColor = headCol;
        row("concat", s.concat, framed);
        break;
    }
    case 9: {
        explain(
            t.attention.outProjection
                ? "Row g: what head g's slice contributes to each output dimension through W_O. "
                  "The output row "
                  "(last) is their sum: W_O is where the heads are mixed."
                : "W_O is switched off: each head only fills its own columns, nothing is mixed.");
        std::vector<std::string> headLabels;
        for (int g = 0; g < s.H; ++g) headLabels.push_back("head " + std::to_string(g + 1));
        dims.rowLabels = &headLabels;
        dims.maxRows = 32;
        drawMiniMatrix(
            "mix", s.H, s.d_model,
            [&](int g, int c) { return s.contributions[std::size_t(g * s.d_model + c)]; }, dims);
        dims.rowLabels = nullptr;
        ImGui::TextUnformatted("output:");
        row("output", s.output, dims);
        break;
    }
    default:
        break;
    }
}

} // namespace

void drawStepsView(const core::Trace& trace, ViewState& view) {
    if (view.maps.empty()) return;
    const int heads = int(view.maps.size()), rows = view.maps.front().rows;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    if (ImGui::BeginCombo("head", trace.headNames[std::size_t(view.selectedHead)].c_str())) {
        for (int h = 0; h < heads; ++h)
            if (ImGui::Selectable(trace.headNames[std::size_t(h)].c_str(), h == view.selectedHead))
                view.selectedHead = h;
        ImGui::EndCombo();
    }
    itemTooltip("The head to follow (left/right arrows step through heads).");
    ImGui::SameLine();
    const int query = std::clamp(view.pinnedQuery, 0, rows - 1);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::BeginCombo("query token",
                          view.maps.front().queryLabels[std::size_t(query)].c_str())) {
        for (int i = 0; i < rows; ++i) {
            ImGui::PushID(i);
            if (ImGui::Selectable(view.maps.front().queryLabels[std::size_t(i)].c_str(),
                                  i == query))
                view.pinnedQuery = i;
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    itemTooltip(
        "The token to follow; clicking a row in a heatmap pins it too (up/down arrows move it).");

    ImGui::BeginDisabled(view.showAllSteps || view.step == 0);
    if (ImGui::ArrowButton("prev", ImGuiDir_Left)) --view.step;
    ImGui::EndDisabled();
    itemTooltip("Previous step (P).");
    ImGui::SameLine();
    ImGui::BeginDisabled(view.showAllSteps || view.step == kStepCount - 1);
    if (ImGui::ArrowButton("next", ImGuiDir_Right)) ++view.step;
    ImGui::EndDisabled();
    itemTooltip("Next step (N).");
    ImGui::SameLine();
    ImGui::Checkbox("all steps", &view.showAllSteps);
    itemTooltip("Show every step at once instead of one at a time.");
    view.step = std::clamp(view.step, 0, kStepCount - 1);
    if (!view.showAllSteps) {
        ImGui::SameLine();
        ImGui::TextDisabled("step %d of %d", view.step + 1, kStepCount);
    }
    ImGui::Separator();

    const StepData data = collect(trace, view);
    ImGui::BeginChild("steps");
    for (int step = 0; step < kStepCount; ++step) {
        if (!view.showAllSteps && step != view.step) continue;
        ImGui::TextUnformatted(kStepTitles[step]);
        drawStep(step, data, trace, view);
        ImGui::Spacing();
    }
    ImGui::EndChild();
}

} // namespace app
