// The app icon: a causal attention map (6 x 6, viridis, the masked triangle dimmed) on a
// rounded dark square. One definition feeds the PNGs at every size and the SVG, so the
// desktop's icons never drift apart from each other.
#pragma once

#include "figures/image.h"

#include <string>

namespace core {

inline constexpr int kAppIconCells = 6;        // query rows = key columns
inline constexpr double kAppIconUnits = 256.0; // design units (the SVG's viewBox)
// The PNG sizes of the hicolor theme that desktops look up (cmake/install.cmake lists the same).
inline constexpr int kAppIconSizes[] = {16, 24, 32, 48, 64, 128, 256};

// The attention weight the icon shows for query `row` on key `col`: each row is a softmax of a
// fixed sequence of scores over the keys up to the row; 0 above the diagonal (masked).
float appIconWeight(int row, int col);

// Where a cell sits, in design units (0..256, y down).
struct AppIconRect {
    double x = 0, y = 0, width = 0, height = 0;
};
AppIconRect appIconCell(int row, int col);

// The icon, size x size RGBA, straight alpha: transparent outside the rounded square, edges
// anti-aliased by supersampling. Sizes below 1 give an empty image.
Image appIcon(int size);

// The same design as a standalone SVG 1.1 document (viewBox 0 0 256 256), starting with <svg.
std::string appIconSvg();

} // namespace core
