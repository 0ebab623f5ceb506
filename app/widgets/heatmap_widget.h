// One attention heatmap with token labels, hover highlights, tooltip and clicks.
#pragma once

#include "engine/trace.h"
#include "io/scene_json.h"
#include "widgets/gl_heatmaps.h"
#include "widgets/selection.h"

#include <imgui.h>

#include <memory>

namespace app {

// Rebuilds gl.maps for sentence `batchIndex` and uploads them: after a recompute, or when
// another sentence is shown (gl.maps.showSentence says whether they are current). With
// `valueWeighted` (a real model's W) a model layer's maps are value-weighted attention, rows
// rescaled to sum to 1, as its model view draws them.
void uploadHeadMaps(const core::Trace& trace, int batchIndex, core::PairView pairView,
                    GlHeatmaps& gl, bool valueWeighted = false);

// The explorer's maps as its panels draw them: the saved colours and the selected head (a
// click selects), what the user points at, and the textures with the shown sentence's maps.
struct MapsView {
    core::SceneView& saved;
    Selection& selection;
    GlHeatmaps& gl;
};

// The views beside the grid keep their textures in the slots after the heads'.
enum class DerivedMap { Mean, Difference, Entropy };
inline constexpr int kDerivedMaps = 3;
inline int derivedSlot(const HeadMaps& maps, DerivedMap which) {
    return int(maps.heads.size()) + int(which);
}

// gl.maps' mean, entropy and headStats for the shown sentence, once per rebuild of the maps
// (only when a tab shows them: they cost as much as a frame at H x N x M = 16 x 128 x 128).
void uploadDerivedMaps(const core::Trace& trace, int batchIndex, GlHeatmaps& gl);

// gl.maps.difference = head a - head b, uploaded when those heads or the maps changed.
void uploadDifferenceMap(const core::Trace& trace, int batchIndex, GlHeatmaps& gl, int headA,
                         int headB);
// gl.maps.difference = head `head` of `trace` - the same head of `other` (the same layer of
// another model on the same text), uploaded when the head, the maps or `other` changed.
void uploadModelDifferenceMap(const core::Trace& trace,
                              const std::shared_ptr<const core::Trace>& other, int batchIndex,
                              GlHeatmaps& gl, int head);

enum class LabelMode { Compact, Full, None }; // None: a thumbnail (the tooltip names tokens)

struct MapStyle {
    GlHeatmaps* gl = nullptr;
    int slot = 0; // texture slot; also the widget's ImGui id
    float valueMin = 0, valueMax = 1;
    core::ColormapId colormap = core::ColormapId::Viridis;
    ImU32 frameColor = IM_COL32(128, 128, 128, 255);
    float frameThickness = 1.5f;
    bool shareHover = true; // rows x columns are this sentence's queries x keys
};

struct MapHit {
    int row = -1, col = -1; // the cell under the mouse
    bool clicked = false;
};

// Any map with labels, hover highlights and clicks, `size` pixels at the cursor. With
// style.shareHover it lights up and sets `selection`'s rows (it may be null otherwise). The
// caller adds the cell's tooltip. The invisible button is the last item (IsItemHovered works).
MapHit drawMap(const core::AttentionMap& map, const MapStyle& style, Selection* selection,
               ImVec2 size, LabelMode labels);

// Draws head `head` into the rectangle at the cursor, `size` pixels, labels included.
// Returns true when the map was clicked (it is then the selected head).
bool drawHeatmap(const core::Trace& trace, const MapsView& maps, int head, ImVec2 size,
                 LabelMode labels);

// Horizontal colour bar `width` wide, valueMin..valueMax, with labelled ends and middle.
void drawColorBar(GlHeatmaps& gl, core::ColormapId colormap, float valueMin, float valueMax,
                  float width);

// Colour `index` of the one palette (core/figures/palette.h) with `alpha`: the same colour the
// figures and curves give that index, on every theme.
ImU32 paletteColor(int index, float alpha = 1.0f);
// Head h of `trace` in its colour (its place in the model: Trace::headColorIndex).
ImU32 headColorU32(const core::Trace& trace, int head, float alpha = 1.0f);

} // namespace app
