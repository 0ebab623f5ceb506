// A core::CurveFigure drawn live with ImGui's draw list (Debian has no ImPlot): the same series,
// axis and ticks the SVG and PNG exports of the figure draw, so what is exported is what was
// seen. A hover line reads every series' value at the step under the mouse.
#pragma once

#include "figures/curve_figure.h"

#include <imgui.h>

namespace app {

struct CurvePlotStyle {
    bool dark = true;      // the window's theme: text and grid colours
    double markerX = -1;   // a vertical line at this x (the step shown); < 0: none
    bool legend = true;    // the series' names above the axes
    double dimAfterX = -1; // the steps after this x drawn faint (the future of a scrubbed
                           // cursor); levels stay as they are; < 0: none
};

// Draws `figure` into `size` pixels at the cursor. The figure's xRange / yRange fix the axes;
// otherwise they fit the data. Returns the x under the mouse when the plot was clicked, else
// a negative value (a click on the loss curve scrubs the timeline there).
double drawCurvePlot(const char* id, const core::CurveFigure& figure, ImVec2 size,
                     const CurvePlotStyle& style);

} // namespace app
