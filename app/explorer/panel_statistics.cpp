// Tab: per-head statistics. How spread each head's attention is (row entropy in bits) and
// where its maximum sits, for every head and for each query of the selected head.
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>

namespace app {

namespace {

constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                        ImGuiTableFlags_BordersInnerV |
                                        ImGuiTableFlags_SizingStretchProp;

// Entropy map: one row per head, one column per query; hover for the numbers, click to select.
void drawEntropyMap(const core::Trace& trace, const MapsView& maps) {
    GlHeatmaps& gl = maps.gl;
    const int heads = int(gl.maps.heads.size());
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float mapHeight =
        std::min(avail.y * 0.42f, ImGui::GetFontSize() * (3.0f + 1.6f * float(heads)));
    MapStyle style;
    style.gl = &gl;
    style.slot = derivedSlot(gl.maps, DerivedMap::Entropy);
    style.valueMax = std::max(gl.maps.entropy.maxWeight, 1e-3f);
    style.colormap = maps.saved.colormap;
    style.shareHover = false; // rows are heads, not queries
    const MapHit hit =
        drawMap(gl.maps.entropy, style, nullptr, ImVec2(avail.x, mapHeight), LabelMode::Full);
    if (hit.row >= 0) {
        const core::RowStatistics& r =
            gl.maps.headStats[std::size_t(hit.row)].rows[std::size_t(hit.col)];
        const core::AttentionMap& map = gl.maps.heads[std::size_t(hit.row)];
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(trace.headNames[std::size_t(hit.row)].c_str());
        ImGui::Text("query  %s  (#%d)", map.queryLabels[std::size_t(hit.col)].c_str(), hit.col + 1);
        if (r.argmaxKey < 0) {
            ImGui::TextUnformatted("every key masked");
        } else {
            ImGui::Text("entropy %.3f bits", r.entropyBits);
            ImGui::Text("max     %.4f on %s (#%d)", r.maxWeight,
                        map.keyLabels[std::size_t(r.argmaxKey)].c_str(), r.argmaxKey + 1);
        }
        ImGui::EndTooltip();
    }
    if (hit.clicked && hit.row >= 0) maps.saved.selectedHead = hit.row;
    drawColorBar(gl, maps.saved.colormap, 0.0f, style.valueMax, std::min(avail.x * 0.5f, 360.0f));
    ImGui::SameLine();
    ImGui::TextDisabled("entropy (bits)");
}

// Per head: mean entropy and where the maximum usually sits. Click a row to select it.
void drawHeadTable(const core::Trace& trace, const HeadMaps& shown, int& selectedHead) {
    const int heads = int(shown.heads.size());
    const float tableHeight = std::min(ImGui::GetContentRegionAvail().y * 0.5f,
                                       ImGui::GetFrameHeightWithSpacing() * (float(heads) + 1.5f));
    if (ImGui::BeginTable("heads", 3, kTableFlags, ImVec2(0, tableHeight))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("head");
        ImGui::TableSetupColumn("mean entropy (bits)");
        ImGui::TableSetupColumn("maximum usually on");
        ImGui::TableHeadersRow();
        for (int h = 0; h < heads; ++h) {
            const core::HeadStatistics& s = shown.headStats[std::size_t(h)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushStyleColor(ImGuiCol_Text,
                                  ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h)));
            const std::string name = std::to_string(h + 1) + "  " + trace.headNames[std::size_t(h)];
            if (ImGui::Selectable(name.c_str(), h == selectedHead,
                                  ImGuiSelectableFlags_SpanAllColumns))
                selectedHead = h;
            ImGui::PopStyleColor();
            ImGui::TableNextColumn();
            ImGui::Text("%.2f of %.2f", s.meanEntropyBits, s.maxEntropyBits);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(
                core::describeMaximum(s, shown.heads[std::size_t(h)].keyLabels).c_str());
        }
        ImGui::EndTable();
    }
}

// The selected head, query by query: where each row's maximum sits and how spread it is.
void drawQueryTable(const core::Trace& trace, const HeadMaps& shown, int h) {
    const core::AttentionMap& map = shown.heads[std::size_t(h)];
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h)));
    ImGui::Text("%s, query by query", trace.headNames[std::size_t(h)].c_str());
    ImGui::PopStyleColor();
    if (ImGui::BeginTable("rows", 4, kTableFlags, ImVec2(0, ImGui::GetContentRegionAvail().y))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("query");
        ImGui::TableSetupColumn("maximum on");
        ImGui::TableSetupColumn("weight");
        ImGui::TableSetupColumn("entropy (bits)");
        ImGui::TableHeadersRow();
        const auto& rows = shown.headStats[std::size_t(h)].rows;
        for (int i = 0; i < int(rows.size()); ++i) {
            const core::RowStatistics& r = rows[std::size_t(i)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(map.queryLabels[std::size_t(i)].c_str());
            ImGui::TableNextColumn();
            if (r.argmaxKey < 0) {
                ImGui::TextDisabled("(every key masked)");
                continue;
            }
            ImGui::Text("%s  (%s)", map.keyLabels[std::size_t(r.argmaxKey)].c_str(),
                        core::describeOffset(r.argmaxKey - i).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", r.maxWeight);
            ImGui::TableNextColumn();
            ImGui::Text("%.2f", r.entropyBits);
        }
        ImGui::EndTable();
    }
}

} // namespace

ExplorerRequest drawStatisticsView(const core::Trace& trace, const MapsView& maps) {
    GlHeatmaps& gl = maps.gl;
    uploadDerivedMaps(trace, maps.selection.batchIndex, gl);
    const int heads = int(gl.maps.heads.size());
    if (heads == 0 || int(gl.maps.headStats.size()) != heads) return {};
    const ExplorerRequest request =
        viewHeader("Row entropy: 0 bits when one key takes all, log2(keys) when spread evenly. "
                   "Argmax: the key with the largest weight.",
                   ExportChoice::Statistics);
    drawEntropyMap(trace, maps);
    drawHeadTable(trace, gl.maps, maps.saved.selectedHead);
    drawQueryTable(trace, gl.maps, maps.saved.selectedHead);
    return request;
}

} // namespace app
