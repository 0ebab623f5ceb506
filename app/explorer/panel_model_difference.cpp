// The A-B tab across two models: the shown head of the open model (A) minus the same head of
// model B on the same text, and the heads that moved most (docs/real-models.md, "Comparing two
// models"). The session runs B and the comparison on workers (ComparisonRunner) and fills
// ComparisonTabState each frame.
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace {

// "B: NAME (its weights) [Change...] [Stop comparing]", or the button that picks one.
void modelBLine(ComparisonTabState& across, ExplorerRequest& request) {
    if (!across.loading.empty()) {
        ImGui::Text("%s Opening %s as model B ...", spinner(), across.loading.c_str());
        return;
    }
    const bool none = across.nameB.empty();
    if (none) {
        ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x);
        ImGui::TextDisabled("Choose model B: another version of %s (its quantized GGUF from "
                            "Ollama or LM Studio, BF16 against F32, a fine-tune of it), with the "
                            "same tokenizer, layers and heads.",
                            across.nameA.c_str());
        ImGui::PopTextWrapPos();
    } else {
        fittedText("A: " + across.nameA);
        fittedText("B: " + across.nameB);
        itemTooltip(across.summaryB.c_str());
    }
    if (ImGui::Button(none ? "Choose model B\xE2\x80\xA6" : "Change\xE2\x80\xA6"))
        request.chooseModelB = true;
    const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
    across.chooseAt = {min.x, min.y, max.x, max.y};
    if (none) return;
    ImGui::SameLine();
    if (ImGui::Button("Stop comparing")) request.stopComparing = true;
}

// The value of query i, key j in head h of `trace` (sentence b).
float weightAt(const core::Trace& trace, int b, int h, int i, int j) {
    const core::Attention& a = trace.attention;
    return a.attention(a.headRow(b, h, i), j);
}

void differenceTooltip(const core::Trace& trace, const core::Trace& other, int b, int head,
                       const core::AttentionMap& diff, const MapHit& hit) {
    const std::size_t c = std::size_t(hit.row) * std::size_t(diff.cols) + std::size_t(hit.col);
    ImGui::BeginTooltip();
    ImGui::Text("%s \xE2\x86\x92 %s", diff.queryLabels[std::size_t(hit.row)].c_str(),
                diff.keyLabels[std::size_t(hit.col)].c_str());
    if (diff.values[c] == core::kMaskedCell || diff.values[c] == core::kHiddenCell) {
        ImGui::TextUnformatted("masked");
    } else {
        ImGui::Text("A  %.4f", weightAt(trace, b, head, hit.row, hit.col));
        ImGui::Text("B  %.4f", weightAt(other, b, head, hit.row, hit.col));
        ImGui::Text("A \xE2\x88\x92 B  %+.4f", diff.values[c]);
    }
    ImGui::EndTooltip();
}

// The shown head's A - B map and its colour bar, `side` pixels square.
void differenceMap(const core::Trace& trace, const MapsView& maps, ComparisonTabState& across,
                   float side) {
    GlHeatmaps& gl = maps.gl;
    const int head = maps.saved.selectedHead, b = maps.selection.batchIndex;
    uploadModelDifferenceMap(trace, across.layerB, b, gl, head);
    const core::AttentionMap& diff = gl.maps.difference;
    across.shownMaxAbs = diff.maxWeight;
    const float extent = core::differenceExtent(diff.maxWeight);
    MapStyle style;
    style.gl = &gl;
    style.slot = derivedSlot(gl.maps, DerivedMap::Difference);
    style.valueMin = -extent, style.valueMax = extent;
    style.colormap = core::ColormapId::RdBu;
    const MapHit hit = drawMap(diff, style, &maps.selection, ImVec2(side, side), LabelMode::Full);
    if (hit.row >= 0) differenceTooltip(trace, *across.layerB, b, head, diff, hit);
    ImGui::Spacing();
    drawColorBar(gl, core::ColormapId::RdBu, -extent, extent, std::min(side, 360.0f));
    ImGui::SameLine();
    ImGui::TextDisabled("A \xE2\x88\x92 B");
}

// The most moved heads listed: a dozen at most.
int rankedRows(const ComparisonTabState& across) {
    return across.result ? std::min<int>(12, int(across.result->heads.ranked.size())) : 0;
}

// How far the predictions agree, then the heads ranked, the shown one highlighted; a click
// shows that head (its layer too).
void rankedHeads(ComparisonTabState& across, ModelView& model, core::SceneView& saved) {
    const core::models::TraceComparison& c = across.result->heads;
    if (c.positions > 0) {
        ImGui::Text("Top token agrees: %d of %d", c.topAgree, c.positions);
        if (std::isfinite(c.lossA) && std::isfinite(c.lossB))
            ImGui::Text("Loss %.3f (A), %.3f (B)", c.lossA, c.lossB);
    }
    ImGui::TextUnformatted("Moved most");
    itemTooltip("Each head's mean total variation over its rows: half the summed |A - B| of a "
                "row, 0 (the same) to 1 (no overlap). Max: the largest single change.");
    const int shown = rankedRows(across);
    across.rankedAt.assign(std::size_t(shown), {0, 0, 0, 0});
    for (int i = 0; i < shown; ++i) {
        const core::models::HeadShift& s = c.ranked[std::size_t(i)];
        char label[96];
        std::snprintf(label, sizeof label, "L%d H%d  %.4f  (max %.3f)##ranked%d", s.layer + 1,
                      s.head + 1, s.meanTotalVariation, s.maxAbs, i);
        const bool current = s.layer == model.layer && s.head == saved.selectedHead;
        if (ImGui::Selectable(label, current)) model.layer = s.layer, saved.selectedHead = s.head;
        const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
        across.rankedAt[std::size_t(i)] = {min.x, min.y, max.x, max.y};
    }
}

// One line in place of the map: B missing, being made, or why it cannot be.
bool waitingLine(const ComparisonTabState& across) {
    if (across.nameB.empty()) return true;
    if (!across.error.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x);
        ImGui::TextColored(ImVec4(0.9f, 0.35f, 0.3f, 1.0f), "Not compared: %s",
                           across.error.c_str());
        ImGui::PopTextWrapPos();
        return true;
    }
    if (across.result && across.layerB) return false;
    ImGui::Text("%s Running %s on this text ...", spinner(), across.nameB.c_str());
    return true;
}

} // namespace

ExplorerRequest drawModelDifference(const core::Trace& trace, const MapsView& maps,
                                    ModelView& model, ComparisonTabState& across) {
    ExplorerRequest request;
    across.shownMaxAbs = -1, across.rankedAt.clear(), across.chooseAt = {}, across.exportAt = {};
    const float em = ImGui::GetFontSize();
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x - 12 * em);
    ImGui::TextDisabled("This head in model A minus the same head in model B, on the same text: "
                        "red where A attends more, blue where B does. White: they agree.");
    ImGui::PopTextWrapPos();
    if (across.result) {
        ImGui::SameLine(ImGui::GetContentRegionMax().x - 11 * em);
        if (ImGui::Button("Export comparison")) request.exportComparison = true;
        const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
        across.exportAt = {min.x, min.y, max.x, max.y};
        itemTooltip("compare-heads.csv (every head ranked), compare-heads.svg/.png (layers x "
                    "heads) and this head's A - B, into the export folder.");
    }
    drawDifferenceSource(across);
    modelBLine(across, request);
    ImGui::Separator();
    if (waitingLine(across)) return request;
    // Beside the map where the panel is wide, else under it (the list's rows, then the map's).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float listWidth = 17 * em, line = ImGui::GetTextLineHeightWithSpacing();
    const bool beside = avail.x >= listWidth + 18 * em;
    const float listHeight = beside ? 0.0f : float(rankedRows(across) + 4) * line;
    const float side = std::max(32.0f, std::min(avail.x - (beside ? listWidth + em : 0.0f),
                                                avail.y - listHeight - 2.8f * em - line));
    ImGui::BeginGroup();
    uploadModelDifferenceMap(trace, across.layerB, maps.selection.batchIndex, maps.gl,
                             maps.saved.selectedHead);
    ImGui::Text("L%d H%d", model.layer + 1, maps.saved.selectedHead + 1);
    ImGui::SameLine();
    ImGui::TextDisabled("largest |A \xE2\x88\x92 B| %.4f", maps.gl.maps.difference.maxWeight);
    differenceMap(trace, maps, across, side);
    ImGui::EndGroup();
    if (beside) ImGui::SameLine(0, em);
    ImGui::BeginGroup();
    rankedHeads(across, model, maps.saved);
    ImGui::EndGroup();
    return request;
}

} // namespace app
