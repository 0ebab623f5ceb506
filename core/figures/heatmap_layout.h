// Internals of the heatmap figures (a head, the grid, the mean, A−B, the statistics): where
// everything goes, computed once for the SVG writer and the PNG rasteriser, so both draw the
// same cells, white gaps, hatching, ticks and labels. Sizes are scale-1 pixels (SVG user units);
// the PNG multiplies them by its scale.
#pragma once

#include "figures/figure.h"
#include "figures/text_metrics.h"

#include <string>
#include <vector>

namespace core::heatmaps {

constexpr int kMargin = 16;
constexpr float kTitlePx = 15, kLabelPx = 12, kAxisTitlePx = 12, kTickPx = 11, kBarLabelPx = 11,
                kCaptionPx = 12;
constexpr int kTitleGap = 6;     // title -> the column axis title
constexpr int kKeyHeight = 3;    // the head's colour bar, inside the title gap
constexpr int kAxisTitleGap = 3; // column axis title -> column labels
constexpr int kLabelGap = 5;     // labels -> grid
constexpr int kBarGap = 14;      // grid -> colour bar
constexpr int kBarHeight = 12;
constexpr int kTickLength = 3;
constexpr int kBarLabelGap = 2; // tick labels -> what the colours mean
constexpr int kCaptionGap = 10; // the panel's last line -> caption
constexpr int kCaptionLineGap = 2;
constexpr int kMinBarWidth = 180;
constexpr int kMaxGrid = 640, kMaxCell = 22, kMinCell = 2;
constexpr int kSeamMinCell = 10;      // cells this large get a 1 px white gap to their neighbours
constexpr int kHatchPeriod = 6;       // masked cells: a diagonal every 6 px
constexpr float kHatchWidth = 0.707f; // across the diagonal: one pixel per row, as the PNG draws
constexpr int kCaptionMinWidth = 520; // captions may widen a narrow figure up to this width

const Rgb kTitleColor{40, 40, 45}, kLabelColor{50, 50, 55}, kAxisTitleColor{85, 85, 95},
    kTickColor{70, 70, 75}, kCaptionColor{105, 105, 110}, kSeamColor{250, 250, 252},
    kMaskedColor{205, 205, 208}, kHatchColor{140, 140, 145}, kBarBorder{150, 150, 155},
    kHiddenColor{243, 243, 245}, kDividerColor{235, 90, 60};
constexpr int kDividerWidth = 2;    // a sentence pair's A|B divider, across the cells
constexpr int kDividerOverhang = 4; // past the grid's edges, so it shows between the labels

// A cell's coloured square, without the gap to its neighbours: [x0, x1) x [y0, y1).
struct CellBox {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct PanelLayout {
    int width = 0, height = 0; // the panel, margins included, without a caption
    int rows = 0, cols = 0, cell = 0;
    int seam = 0; // the white gap left of and above every cell but the first row's and column's
    int gridLeft = 0, gridTop = 0, gridW = 0, gridH = 0;
    PlacedText title;         // left-aligned
    int keyTop = 0, keyW = 0; // the head's colour bar under the title (when it has one)
    PlacedText colAxis;       // "key →", left-aligned above the column labels
    PlacedText rowAxis;       // "query ↓", right-aligned with the row labels, above the first row
    std::vector<PlacedText> rowLabels; // right-aligned; empty text: no label on that row
    // Turned 90° counter-clockwise, reading upwards: x is the left of the turned line box, y
    // where the text starts (its bottom end, just above the grid).
    std::vector<PlacedText> colLabels;
    int barLeft = 0, barTop = 0, barW = 0;
    // No colour bar (a grid's panels under a shared one): barW 0, no ticks, no labels.
    std::vector<float> tickX;           // the middle of each 1 px tick mark under the bar
    std::vector<PlacedText> tickLabels; // centred on their tick
    PlacedText barLabel;                // what the colours mean, centred under the tick labels
    int bottom = 0;                     // the end of the lowest part; a caption starts here
};

CellBox cellBox(const PanelLayout& layout, int row, int col);

// A sentence pair's divider: the line between the cells before and after `pairStart` (none
// when the figure has no pair), on the columns (vertical) or the rows.
struct DividerBox {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
std::vector<DividerBox> pairDividers(const PanelLayout& layout, int pairStart);

// The hatching of a masked cell: diagonals x + y = k * kHatchPeriod in figure coordinates (so
// they run on from cell to cell), kHatchWidth wide, clipped to `box`, which lies at (dx, dy) in
// the figure. In the coordinates of the box (the panel's).
struct Segment {
    float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};
std::vector<Segment> hatchSegments(const CellBox& box, int dx, int dy);
// Whether device pixel (x, y) of the figure drawn at `scale` lies on that hatching: its centre
// is within half a pixel (scale-1) of a diagonal, along x. At scale 1 these are the pixels whose
// centres the diagonals pass through.
inline bool onHatch(int x, int y, int scale) {
    return (x + y + 1 + scale / 2) % (kHatchPeriod * scale) < scale;
}

// One heatmap with its caption. Throws std::invalid_argument for a figure without cells or
// whose values do not match rows x cols.
struct HeatmapLayout {
    PanelLayout panel;
    std::vector<PlacedText> caption; // left-aligned, wrapped at spaces to the width
    int width = 0, height = 0;
};
HeatmapLayout layoutHeatmap(const HeatmapFigure& figure, const TextMetrics& metrics);

// The title on top, panels on a regular grid of panelW x panelH cells below it, the shared
// colour bar (when the figure has one) and one caption under them all. Throws like
// layoutHeatmap, and for a grid without panels.
struct GridLayout {
    PlacedText title;
    int top = 0; // where the first row of panels starts
    std::vector<PanelLayout> panels;
    int panelW = 0, panelH = 0, columns = 1;
    PanelLayout bar; // the shared colour bar's parts (barW 0: each panel has its own)
    std::vector<PlacedText> caption;
    int width = 0, height = 0;
};
GridLayout layoutGrid(const GridFigure& figure, const TextMetrics& metrics);

struct Origin {
    int x = 0, y = 0;
};
// Where panel i's top-left corner lies in the grid figure.
Origin panelOrigin(const GridLayout& layout, std::size_t i);

// A group of panels framed together (GridFigure::panelGroups): one box per run of the group's
// panels within a row, kGroupInset inside the panels' outer edges (in their margins, so it
// touches no label), kGroupInsetTop below their tops (under a grid's title, which reaches
// into the first row's margin), a kGroupFrameWidth line, filled with kGroupTint when `tinted`.
constexpr int kGroupInset = 5, kGroupInsetTop = kMargin - 4, kGroupFrameWidth = 1;
const Rgb kGroupFrameColor{150, 158, 182}, kGroupTint{238, 242, 250};
struct GroupFrame {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool tinted = false;
};
std::vector<GroupFrame> groupFrames(const GridLayout& layout, const std::vector<int>& groups);

// `text` broken at spaces into lines at most maxWidth wide at `px`; a word wider than that on
// its own is cut with an ellipsis. Never a cut inside a word that fits on a line.
std::vector<std::string> wrapWords(const std::string& text, const TextMetrics& metrics, float px,
                                   float maxWidth);

// The colour bar's k-th tick label (k = 0..4), as both writers print it.
std::string tickText(const HeatmapFigure& figure, int k);

} // namespace core::heatmaps
