// Tab: the selected head, large, with full token labels, a colour bar and an Export... button.
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"

#include "engine/designed_heads.h"

#include <algorithm>

namespace app {

namespace {

// Per-head preset menu: random, or one of the designed heads (switches the weights to designed).
void presetMenu(core::Scene& scene, int head) {
    if (!core::designedHeadsFit(scene.d_model, scene.heads, scene.kvHeadCount())) return;
    std::vector<std::string> presets =
        scene.weights != core::WeightsKind::Designed
            ? std::vector<std::string>(std::size_t(scene.heads), core::kRandomPreset)
        : scene.headPresets.empty() ? core::defaultHeadPresets(scene.heads)
                                    : scene.headPresets;
    // The trace on screen may still have the head count from before an edit (the recompute
    // runs on the worker), and a scene's presets another length: no menu for a head not there.
    if (head < 0 || head >= scene.heads || head >= int(presets.size())) return;
    const std::string current = presets[std::size_t(head)];
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::BeginCombo("preset", current.c_str())) {
        auto option = [&](const char* id, const char* tooltip) {
            if (ImGui::Selectable(id, current == id)) {
                presets[std::size_t(head)] = id;
                scene.headPresets = presets;
                scene.weights = core::WeightsKind::Designed;
            }
            itemTooltip(tooltip);
        };
        option(core::kRandomPreset, "Seeded random query and key columns for this head.");
        for (const core::DesignedPreset& p : core::kDesignedPresets) option(p.id, p.looksFor);
        ImGui::EndCombo();
    }
    itemTooltip("What this head is built to look for: random, or one of the designed heads.");
}

// One line per designed head: what it looks for; the tooltip says how, honestly.
void legend(const core::Trace& trace) {
    bool any = false;
    for (const std::string& name : trace.headNames)
        any = any || core::designedPresetIndex(name) >= 0;
    if (!any) return;
    ImGui::Spacing();
    ImGui::TextUnformatted("Designed heads (hover for how they are built)");
    for (int h = 0; h < int(trace.headNames.size()); ++h) {
        const int p = core::designedPresetIndex(trace.headNames[std::size_t(h)]);
        if (p < 0) continue;
        ImGui::PushStyleColor(ImGuiCol_Text,
                              ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h)));
        ImGui::TextUnformatted(core::kDesignedPresets[p].id);
        ImGui::PopStyleColor();
        ImGui::SameLine(ImGui::GetFontSize() * 10.5f); // one column for the descriptions
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", core::kDesignedPresets[p].looksFor);
        ImGui::PopTextWrapPos();
        if (ImGui::IsItemHovered()) designedHeadTooltip(trace.headNames[std::size_t(h)]);
    }
}

// One chip of kvGroupStrip: head h's number, filled with its colour when it is the one shown.
void headChip(const core::Trace& trace, const core::models::KvGroups& g, int h, bool shown,
              ImVec2 min, ImVec2 max) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 color = headColorU32(trace, h);
    ImU32 ink = ImGui::GetColorU32(shown ? ImGuiCol_Text : ImGuiCol_TextDisabled);
    if (shown) { // black or white on the head's colour, whichever reads
        draw->AddRectFilled(min, max, color, 2.0f);
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(color);
        ink = 0.299f * c.x + 0.587f * c.y + 0.114f * c.z > 0.55f ? IM_COL32(0, 0, 0, 255)
                                                                 : IM_COL32(255, 255, 255, 255);
    } else {
        draw->AddRect(min, max, color, 2.0f);
    }
    const std::string number = std::to_string(h + 1);
    const ImVec2 size = ImGui::CalcTextSize(number.c_str());
    draw->AddText(ImVec2((min.x + max.x - size.x) / 2, (min.y + max.y - size.y) / 2), ink,
                  number.c_str());
    if (ImGui::IsMouseHoveringRect(min, max) && ImGui::IsWindowHovered())
        ImGui::SetTooltip("%s", core::models::kvGroupNote(g, h).c_str());
}

// A real model's query heads as numbered chips, framed by the K/V head they read (GQA, MQA),
// the head shown filled in its colour: which heads see the same keys and values as this one.
void kvGroupStrip(const core::Trace& trace, const ModelView& model, int head) {
    const core::models::KvGroups& g = model.kvGroups;
    if (!g.shared() || g.heads != int(trace.headNames.size())) return;
    ImGui::TextDisabled("%s", core::models::kvGroupNote(g, head).c_str());
    const float chip = ImGui::CalcTextSize("88").x + 8, height = ImGui::GetTextLineHeight() + 2;
    const float pad = 3, gap = 8;
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float right = start.x + ImGui::GetContentRegionAvail().x;
    ImVec2 at = start;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int k = 0; k < g.groups(); ++k) {
        const float width = float(g.perGroup()) * (chip + 2) - 2 + 2 * pad;
        if (k > 0 && at.x + width > right) at = ImVec2(start.x, at.y + height + 2 * pad + 4);
        const ImVec2 max(at.x + width, at.y + height + 2 * pad);
        if (k % 2 == 0) draw->AddRectFilled(at, max, themeMix(0.12f), pad);
        draw->AddRect(at, max, themeMix(0.45f), pad);
        for (int i = 0; i < g.perGroup(); ++i) {
            const int h = g.firstHead(k) + i;
            const ImVec2 min(at.x + pad + float(i) * (chip + 2), at.y + pad);
            headChip(trace, g, h, h == head, min, ImVec2(min.x + chip, min.y + height));
        }
        at.x += width + gap;
    }
    ImGui::Dummy(ImVec2(right - start.x, at.y + height + 2 * pad - start.y));
}

} // namespace

void designedHeadTooltip(const std::string& headName) {
    const int p = core::designedPresetIndex(headName);
    if (p < 0) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(core::kDesignedPresets[p].looksFor);
    ImGui::TextDisabled("%s", core::kDesignedPresets[p].how);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

ExplorerRequest drawHeadView(core::Scene& scene, const core::Trace& trace, const ModelView& model,
                             const MapsView& maps) {
    GlHeatmaps& gl = maps.gl;
    const core::SceneView& saved = maps.saved;
    const int heads = int(gl.maps.heads.size());
    if (heads == 0) return {};
    const int h = saved.selectedHead;
    const bool ablated =
        h < int(trace.attention.headAblated.size()) && trace.attention.headAblated[std::size_t(h)];
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h)));
    ImGui::Text(
        "%s%s%s", trace.headNames[std::size_t(h)].c_str(),
        trace.batch() > 1
            ? ("  \xC2\xB7  sentence " + std::to_string(maps.selection.batchIndex + 1)).c_str()
            : "",
        ablated ? "  (switched off: its output is zeroed before W_O)" : "");
    ImGui::PopStyleColor();
    if (model.open) { // a trained head has no preset: say which layer it is in
        ImGui::TextDisabled("layer %d of %d", model.layer + 1, model.layers);
        ImGui::SameLine();
        keysHint("L / Shift+L");
        kvGroupStrip(trace, model, h);
        if (gl.maps.valueWeighted) // W: said where the map is, as the model view's box says it
            ImGui::TextWrapped("value-weighted |alpha f(x)|, rows rescaled to 1 (W: the weights)");
    } else {
        presetMenu(scene, h);
    }
    const ExplorerRequest request = exportButton(ExportChoice::Head);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const bool hasLegend =
        std::any_of(trace.headNames.begin(), trace.headNames.end(),
                    [](const std::string& n) { return core::designedPresetIndex(n) >= 0; });
    const float legendHeight = hasLegend
                                   ? ImGui::GetTextLineHeightWithSpacing() *
                                         float(std::min<std::size_t>(trace.headNames.size(), 9) + 1)
                                   : 0.0f;
    const float barHeight = ImGui::GetFontSize() * 2.6f + legendHeight;
    const float side = std::max(32.0f, std::min(avail.x, avail.y - barHeight));
    drawHeatmap(trace, maps, h, ImVec2(side, side), LabelMode::Full);
    ImGui::Spacing();
    const float valueMax =
        saved.perHeadScale ? std::max(gl.maps.heads[std::size_t(h)].maxWeight, 1e-6f) : 1.0f;
    drawColorBar(gl, saved.colormap, 0.0f, valueMax, std::min(side, 360.0f));
    const std::string key = std::string(gl.maps.valueWeighted ? "value-weighted" : "weight") +
                            (saved.perHeadScale ? " (this head's range)" : "") +
                            "  \xC2\xB7  hatched = masked";
    sameLineIfFits(ImGui::CalcTextSize(key.c_str()).x);
    fittedText(key, true);
    legend(trace);
    return request;
}

} // namespace app
