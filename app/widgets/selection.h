// What the user points at in the maps: the sentence shown, the pinned query row, the hovered
// cell and head. Every map of the explorer reads and sets it, so a row lights up in every head.
#pragma once

namespace app {

struct CellRef {
    int query = -1, key = -1; // -1 = none
};

// Hover is double-buffered: a cell hovered in one heatmap lights up in every head on the next
// frame (the maps drawn before it this frame could not know yet).
struct Selection {
    int batchIndex = 0;   // which sentence's maps are shown when B > 1
    int pinnedQuery = -1; // query row pinned by a click; Esc unpins
    CellRef hover;        // hovered in the previous frame: highlighted in every head now
    CellRef nextHover;    // collected while drawing this frame
    int hoverHead = -1;   // head under the mouse last frame (heatmap or pipeline slice)
    int nextHoverHead = -1;

    void beginFrame() { nextHover = {}, nextHoverHead = -1; }
    void endFrame() { hover = nextHover, hoverHead = nextHoverHead; }
};

} // namespace app
