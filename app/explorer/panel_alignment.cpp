// Panel (an encoder-decoder): the alignment view, the figure of translation papers (Bahdanau et
// al. 2015) — the target's tokens down, the source's across, each cell how much the decoder's
// cross-attention read that source token while writing that target token — of one head, a
// layer's heads' mean or every layer's; rows appear as the decoder writes, and the scrubber
// steps back. Export writes the same figure as SVG and PNG for slides.
#include "explorer/panels.h"

#include "figures/colormap.h"
#include "models/analyses/seq2seq_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace {

using Alignment = ModelChoices::Alignment;

// Text turned a quarter to read upwards, its baseline left of x (a column's label).
void upwardText(ImDrawList* draw, ImVec2 bottom, ImU32 color, const char* text) {
    const int first = draw->VtxBuffer.Size;
    draw->AddText(bottom, color, text);
    for (int k = first; k < draw->VtxBuffer.Size; ++k) { // (x, y) -> (x0 + dy, y0 - dx)
        ImDrawVert& v = draw->VtxBuffer[k];
        const float dx = v.pos.x - bottom.x, dy = v.pos.y - bottom.y;
        v.pos = ImVec2(bottom.x + dy, bottom.y - dx);
    }
}

void alignmentChoice(ModelView& model, int head) {
    const std::string one = "head " + std::to_string(head + 1);
    const std::string mean = "layer " + std::to_string(model.layer + 1) + " mean";
    const char* labels[] = {one.c_str(), mean.c_str(), "every layer's mean"};
    for (int k = 0; k < 3; ++k) {
        if (k > 0) ImGui::SameLine();
        if (ImGui::RadioButton(labels[k], int(model.alignment) == k))
            model.alignment = Alignment(k);
    }
    itemTooltip("One head of the layer chosen (the head selected: click one in the model view), "
                "the mean of that layer's heads, or of every head of every layer.");
}

// The map: cells that fill the panel, the target's tokens left, the source's above.
void drawAlignmentMap(const core::Mat& map, const std::vector<std::string>& rows,
                      const std::vector<std::string>& cols, core::ColormapId colormap) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    float rowLabel = 0, colLabel = 0;
    for (const std::string& r : rows)
        rowLabel = std::max(rowLabel, ImGui::CalcTextSize(r.c_str()).x);
    for (const std::string& c : cols)
        colLabel = std::max(colLabel, ImGui::CalcTextSize(c.c_str()).x);
    const float line = ImGui::GetTextLineHeight(), pad = 6;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int n = int(map.rows()), m = int(map.cols());
    const float side = std::clamp(std::min((avail.x - rowLabel - pad) / float(std::max(m, 1)),
                                           (avail.y - colLabel - pad) / float(std::max(n, 1))),
                                  2.0f, 40.0f);
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const ImVec2 origin(start.x + rowLabel + pad, start.y + colLabel + pad);
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    const int colStep = std::max(1, int(std::ceil(line / side))); // labels that fit
    for (int j = 0; j < m; j += colStep)
        upwardText(draw, ImVec2(origin.x + side * (float(j) + 0.5f) - line / 2, origin.y - pad / 2),
                   ink, cols[std::size_t(j)].c_str());
    for (int i = 0; i < n; ++i) {
        const float y = origin.y + side * float(i);
        if (side >= line * 0.8f || i % colStep == 0)
            draw->AddText(
                ImVec2(origin.x - pad - ImGui::CalcTextSize(rows[std::size_t(i)].c_str()).x,
                       y + (side - line) / 2),
                ink, rows[std::size_t(i)].c_str());
        for (int j = 0; j < m; ++j) {
            const core::Rgb c = core::sampleColormap(colormap, float(map(i, j)));
            const ImVec2 min(origin.x + side * float(j), y);
            draw->AddRectFilled(min, ImVec2(min.x + side, min.y + side),
                                IM_COL32(c.r, c.g, c.b, 255));
        }
    }
    const ImVec2 end(origin.x + side * float(m), origin.y + side * float(n));
    ImGui::SetCursorScreenPos(start);
    ImGui::InvisibleButton("##alignment", ImVec2(end.x - start.x, std::max(end.y - start.y, 1.0f)));
    if (ImGui::IsItemHovered()) {
        const ImVec2 at = ImGui::GetIO().MousePos;
        const int i = int((at.y - origin.y) / side), j = int((at.x - origin.x) / side);
        if (at.x >= origin.x && at.y >= origin.y && i < n && j < m)
            ImGui::SetTooltip("writing \"%s\", reading source \"%s\": %.3f",
                              rows[std::size_t(i)].c_str(), cols[std::size_t(j)].c_str(),
                              double(map(i, j)));
    }
}

} // namespace

ExplorerRequest drawAlignmentView(const ModelRunner& runner, ModelView& model,
                                  const core::SceneView& saved) {
    ExplorerRequest request;
    const std::shared_ptr<const core::models::Seq2SeqTrace>& t = runner.seq2seqTrace();
    if (!runner.isSeq2Seq() || !t || t->run.cross.empty()) {
        ImGui::TextDisabled("The alignment shows once the decoder has read or written a target.");
        return request;
    }
    const int head = std::clamp(saved.selectedHead, 0, t->run.cross.front().heads - 1);
    alignmentChoice(model, head);
    ImGui::SameLine();
    if (ImGui::SmallButton("Export figure")) request.exportAlignment = true;
    const ImVec2 min = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
    model.alignmentExportAt[0] = min.x + size.x / 2,
    model.alignmentExportAt[1] = min.y + size.y / 2;
    itemTooltip("This alignment as SVG and PNG (twice the resolution, for slides) in the export "
                "folder, its caption naming the model, the source and the target.");
    const int layer = model.alignment == Alignment::EveryLayer ? -1 : model.layer;
    const core::Mat whole =
        core::models::alignmentMap(*t, layer, model.alignment == Alignment::Head ? head : -1);
    const int shown = model.writtenShown < 0 ? int(whole.rows())
                                             : std::min<int>(model.writtenShown, int(whole.rows()));
    std::vector<std::string> rows = core::models::alignmentRows(runner.seq2seqModel(), *t);
    rows.resize(std::size_t(shown));
    std::vector<std::string> cols;
    for (const core::Token& token : t->source.tokens.tokens) cols.push_back(token.text);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("Target down (each row: the token written there), source across; the "
                       "decoder's causal rows are the ones it computed then.");
    ImGui::PopStyleColor(); // wrapped: the panel is narrow beside the tabs
    drawAlignmentMap(whole.topRows(shown), rows, cols, saved.colormap);
    return request;
}

} // namespace app
