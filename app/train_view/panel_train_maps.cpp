// Train mode, right: every head of every layer on the probe sequence (BertViz's model view:
// a row per layer, a column per head), and the one clicked large with its token labels and
// the weight under the mouse. Heads switched off are crossed out; the maps of later layers
// change with them.
#include "train_view/train_panels.h"

#include "figures/curve_figure.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cstdio>

namespace app {

namespace {

// Uploads the maps when what they show changed (a new step, a scrub, a head switched off).
void uploadTrainMaps(TrainView& train, GlHeatmaps& gl, core::train::ProbeMaps& shown) {
    const std::uint64_t key = mapsKeyOf(train);
    if (key == train.mapsKey && !train.mapViews.empty()) return;
    shown = shownMaps(train);
    const int count = shown.layers * shown.heads;
    train.mapViews.clear();
    for (int l = 0; l < shown.layers; ++l)
        for (int h = 0; h < shown.heads; ++h) {
            core::AttentionMap& map = train.mapViews.emplace_back(core::attentionMap(shown, l, h));
            gl.setValues(l * shown.heads + h, map.values.data(), map.rows, map.cols);
        }
    gl.keepSlots(count);
    train.mapsKey = key;
}

MapStyle trainMapStyle(GlHeatmaps& gl, core::ColormapId colormap, int slot, int layer, int head,
                       int heads, bool selected) {
    MapStyle style;
    style.gl = &gl;
    style.slot = slot;
    style.colormap = colormap;
    style.frameColor = paletteColor(core::modelHeadIndex(layer, head, heads)); // as its curve
    style.frameThickness = selected ? 3.0f : 1.0f;
    style.shareHover = false;
    return style;
}

void crossOut(ImVec2 min, ImVec2 max) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddLine(min, max, IM_COL32(230, 70, 60, 230), 2.5f);
    draw->AddLine(ImVec2(min.x, max.y), ImVec2(max.x, min.y), IM_COL32(230, 70, 60, 230), 2.5f);
}

void mapGrid(TrainView& train, const core::train::ProbeMaps& shown, GlHeatmaps& gl,
             core::ColormapId colormap, float height) {
    const float avail = ImGui::GetContentRegionAvail().x;
    const float label = ImGui::CalcTextSize("L4 ").x;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float cell = std::min((avail - label) / float(shown.heads) - gap,
                                height / float(shown.layers) - ImGui::GetStyle().ItemSpacing.y);
    const float side = std::max(cell, 16.0f);
    for (int l = 0; l < shown.layers; ++l) {
        ImGui::AlignTextToFramePadding();
        ImGui::Text("L%d", l + 1);
        for (int h = 0; h < shown.heads; ++h) {
            ImGui::SameLine(label + float(h) * (side + gap) + ImGui::GetStyle().WindowPadding.x);
            const bool selected = l == train.largeLayer && h == train.largeHead;
            const core::AttentionMap& map = train.mapViews[std::size_t(l * shown.heads + h)];
            const MapStyle style =
                trainMapStyle(gl, colormap, l * shown.heads + h, l, h, shown.heads, selected);
            const ImVec2 at = ImGui::GetCursorScreenPos();
            const MapHit hit = drawMap(map, style, nullptr, ImVec2(side, side), LabelMode::None);
            if (isAblated(train, l, h)) crossOut(at, ImVec2(at.x + side, at.y + side));
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("L%dH%d: click to show it large, right-click to switch it off",
                                  l + 1, h + 1);
            if (hit.clicked) train.largeLayer = l, train.largeHead = h;
            if (ImGui::IsItemClicked(ImGuiMouseButton_Right)) toggleAblated(train, l, h);
        }
    }
}

// The side of a map whose every row and column carries its token's label: the heatmap widget
// labels every row when a cell is 0.95 of a text line high, plus the label strip.
float labelledSide(const core::train::ProbeMaps& shown) {
    float widest = 0;
    for (const std::string& label : shown.labels)
        widest = std::max(widest, ImGui::CalcTextSize(label.c_str()).x);
    return float(shown.length) * (ImGui::GetFontSize() * 0.95f + 0.5f) + widest + 8;
}

void largeMap(TrainView& train, const core::train::ProbeMaps& shown, GlHeatmaps& gl,
              core::ColormapId colormap) {
    const int l = std::min(train.largeLayer, shown.layers - 1);
    const int h = std::min(train.largeHead, shown.heads - 1);
    ImGui::Text("L%dH%d at step %d%s", l + 1, h + 1, shownStep(train),
                isAblated(train, l, h) ? "  (switched off)" : "");
    const core::AttentionMap& map = train.mapViews[std::size_t(l * shown.heads + h)];
    // Room for the stripe note below, then as large as the panel allows: 32 labelled rows need
    // a text line each beside the map's label strip (a smaller map labels every other token).
    const std::string note = trainNotes(train).map;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Reserved on every step of an induction run, so the map keeps its size when the note comes.
    const float noteRoom =
        inductionPhase(train) == InductionPhase::None
            ? 0
            : std::max(ImGui::GetTextLineHeightWithSpacing() * 2, noteHeight(note, avail.x) + 6);
    const float side =
        std::max(std::min(avail.x, avail.y - noteRoom - ImGui::GetFontSize() * 0.5f), 32.0f);
    const MapStyle style =
        trainMapStyle(gl, colormap, l * shown.heads + h, l, h, shown.heads, true);
    const MapHit hit = drawMap(map, style, nullptr, ImVec2(side, side), LabelMode::Full);
    if (hit.row >= 0 && hit.col >= 0) {
        ImGui::BeginTooltip();
        ImGui::Text("%s -> %s", map.queryLabels[std::size_t(hit.row)].c_str(),
                    map.keyLabels[std::size_t(hit.col)].c_str());
        const float w = map.values[std::size_t(hit.row) * map.cols + hit.col];
        if (w < 0)
            ImGui::TextDisabled("masked: a query sees no later key");
        else
            ImGui::Text("weight %.4f", w);
        ImGui::EndTooltip();
    }
    if (!note.empty()) noteText(note);
}

} // namespace

void drawTrainMaps(const PanelRect& rect, TrainView& train, core::ColormapId colormap,
                   GlHeatmaps& gl) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Maps", nullptr, kPanelFlags | ImGuiWindowFlags_NoScrollbar);
    core::train::ProbeMaps& shown = train.mapsShown;
    if (!train.run) {
        ImGui::End();
        return;
    }
    uploadTrainMaps(train, gl, shown);
    ImGui::TextUnformatted("Every head on a probe sequence");
    ImGui::SameLine();
    ImGui::TextDisabled("(rows: queries, columns: keys)");
    // The large map first gets the room its token labels need (one text line per row), the
    // grid of small maps the rest, between a fifth and 42% of the panel.
    const float below = labelledSide(shown) + 4 * ImGui::GetTextLineHeightWithSpacing();
    mapGrid(train, shown, gl, colormap,
            std::clamp(ImGui::GetContentRegionAvail().y - below, rect.size.y * 0.2f,
                       rect.size.y * 0.42f));
    ImGui::Separator();
    largeMap(train, shown, gl, colormap);
    ImGui::End();
}

} // namespace app
