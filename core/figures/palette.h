// The one palette of the app: every head, in every view of the window, every figure, every
// curve and every legend, has the colour its place in the model gives it, so a student can
// match head 3's curve to head 3's map by colour. A head's place is modelHeadIndex(layer, head,
// heads) (engine/trace.h); a single layer's heads are 0 .. H-1.
#pragma once

#include "engine/trace.h"
#include "figures/colormap.h"

#include <vector>

namespace core {

// The i-th colour (i >= 0): Tableau 10 first with its grey moved last (a grey line reads as
// "off"), ten hues chosen to differ from those, the grey, then golden-angle hues. Every colour
// reads as a line on white paper and as text on the window's dark theme (luminance 60 to 200).
// Stable: the same i gives the same colour on every machine and in every release of a figure.
Rgb seriesColor(int i);
// n distinct colours, seriesColor(0..n-1).
std::vector<Rgb> headPalette(int n);
// Head `head` of layer `layer` (both from 0) of a model with `heads` heads per layer:
// seriesColor(modelHeadIndex(layer, head, heads)).
Rgb headColor(int layer, int head, int heads);
// Head `head` of a trace, by its place in its model (Trace::headColorIndex).
Rgb headColor(const Trace& trace, int head);

} // namespace core
