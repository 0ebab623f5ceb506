// Tabs: the mean over heads, and the difference of two heads on a diverging colormap.
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>

namespace app {

namespace {

// The largest square that leaves room for a colour bar (and `below` more) under it.
float mapSide(float below = 0) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    return std::max(32.0f, std::min(avail.x, avail.y - ImGui::GetFontSize() * 2.8f - below));
}

} // namespace

ExplorerRequest drawMeanView(const core::Trace& trace, const MapsView& maps) {
    GlHeatmaps& gl = maps.gl;
    const core::SceneView& saved = maps.saved;
    uploadDerivedMaps(trace, maps.selection.batchIndex, gl);
    const int heads = int(gl.maps.heads.size());
    if (heads == 0 || gl.maps.mean.rows == 0) return {};
    const ExplorerRequest request =
        viewHeader("The mean of every head's weights: where the layer looks on average. Rows "
                   "still sum to 1.",
                   ExportChoice::Mean);
    const float side = mapSide();
    MapStyle style;
    style.gl = &gl;
    style.slot = derivedSlot(gl.maps, DerivedMap::Mean);
    style.valueMax = saved.perHeadScale ? std::max(gl.maps.mean.maxWeight, 1e-6f) : 1.0f;
    style.colormap = saved.colormap;
    const MapHit hit =
        drawMap(gl.maps.mean, style, &maps.selection, ImVec2(side, side), LabelMode::Full);
    if (hit.row >= 0) {
        const std::size_t c =
            std::size_t(hit.row) * std::size_t(gl.maps.mean.cols) + std::size_t(hit.col);
        ImGui::BeginTooltip();
        ImGui::Text("%s \xE2\x86\x92 %s", gl.maps.mean.queryLabels[std::size_t(hit.row)].c_str(),
                    gl.maps.mean.keyLabels[std::size_t(hit.col)].c_str());
        if (gl.maps.mean.values[c] == core::kMaskedCell) {
            ImGui::TextUnformatted("masked");
        } else {
            ImGui::Text("mean weight %.4f", gl.maps.mean.values[c]);
            for (int h = 0; h < std::min(heads, 16); ++h) { // what the mean is made of
                ImGui::PushStyleColor(ImGuiCol_Text,
                                      ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h)));
                ImGui::Text("  %-22s %.4f", trace.headNames[std::size_t(h)].c_str(),
                            gl.maps.heads[std::size_t(h)].values[c]);
                ImGui::PopStyleColor();
            }
            if (heads > 16) ImGui::TextDisabled("  ... and %d more heads", heads - 16);
        }
        ImGui::EndTooltip();
    }
    ImGui::Spacing();
    drawColorBar(gl, saved.colormap, 0.0f, style.valueMax, std::min(side, 360.0f));
    ImGui::SameLine();
    ImGui::TextDisabled("mean weight");
    return request;
}

void drawDifferenceSource(ComparisonTabState& across) {
    if (!across.available) {
        across.acrossModels = false;
        return;
    }
    ImGui::TextUnformatted("B is");
    ImGui::SameLine();
    if (ImGui::RadioButton("another head", !across.acrossModels)) across.acrossModels = false;
    itemTooltip("Two heads of this layer, this model.");
    ImGui::SameLine();
    if (ImGui::RadioButton("this head, another model", across.acrossModels))
        across.acrossModels = true;
    itemTooltip("Open a second version of this model (its quantized GGUF, BF16 against F32, a "
                "fine-tune): A-B then shows where each head's attention moved, and which heads "
                "moved most.");
}

ExplorerRequest drawDifferenceView(const core::Trace& trace, const MapsView& maps, ModelView& model,
                                   ComparisonTabState& across) {
    GlHeatmaps& gl = maps.gl;
    core::SceneView& saved = maps.saved;
    const int heads = int(gl.maps.heads.size());
    if (heads == 0) return {};
    if (across.available && across.acrossModels)
        return drawModelDifference(trace, maps, model, across);
    const ExplorerRequest request =
        viewHeader("Head A minus head B, cell by cell: red where A attends more, blue where B "
                   "does. White: they agree.",
                   ExportChoice::Difference);
    auto headCombo = [&](const char* id, int& head) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
        const std::string preview =
            std::to_string(head + 1) + "  " + trace.headNames[std::size_t(head)];
        if (ImGui::BeginCombo(id, preview.c_str())) {
            for (int h = 0; h < heads; ++h) {
                const std::string label =
                    std::to_string(h + 1) + "  " + trace.headNames[std::size_t(h)];
                if (ImGui::Selectable(label.c_str(), h == head)) head = h;
            }
            ImGui::EndCombo();
        }
    };
    drawDifferenceSource(across);
    headCombo("A", saved.selectedHead);
    itemTooltip("Head A is the selected head (arrow keys change it).");
    ImGui::SameLine();
    headCombo("B##compare", saved.compareHead);
    uploadDifferenceMap(trace, maps.selection.batchIndex, gl, saved.selectedHead,
                        saved.compareHead);

    const core::AttentionMap& diff = gl.maps.difference;
    const float extent = core::differenceExtent(diff.maxWeight);
    const float side = mapSide();
    MapStyle style;
    style.gl = &gl;
    style.slot = derivedSlot(gl.maps, DerivedMap::Difference);
    style.valueMin = -extent, style.valueMax = extent;
    style.colormap = core::ColormapId::RdBu;
    const MapHit hit = drawMap(diff, style, &maps.selection, ImVec2(side, side), LabelMode::Full);
    if (hit.row >= 0) {
        const std::size_t c = std::size_t(hit.row) * std::size_t(diff.cols) + std::size_t(hit.col);
        ImGui::BeginTooltip();
        ImGui::Text("%s \xE2\x86\x92 %s", diff.queryLabels[std::size_t(hit.row)].c_str(),
                    diff.keyLabels[std::size_t(hit.col)].c_str());
        if (diff.values[c] == core::kMaskedCell) {
            ImGui::TextUnformatted("masked");
        } else {
            ImGui::Text("A  %.4f", gl.maps.heads[std::size_t(saved.selectedHead)].values[c]);
            ImGui::Text("B  %.4f", gl.maps.heads[std::size_t(saved.compareHead)].values[c]);
            ImGui::Text("A \xE2\x88\x92 B  %+.4f", diff.values[c]);
        }
        ImGui::EndTooltip();
    }
    ImGui::Spacing();
    drawColorBar(gl, core::ColormapId::RdBu, -extent, extent, std::min(side, 360.0f));
    ImGui::SameLine();
    ImGui::TextDisabled("A \xE2\x88\x92 B  \xC2\xB7  hatched = masked");
    return request;
}

} // namespace app
