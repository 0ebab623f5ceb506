// The explorer's tabs, each mapped to the function that draws it with the parts of the state it
// takes. A new view: its name in core::ViewTab's table (io/scene_json.h), its draw function in
// its own panel_*.cpp (declared in panels.h), one case here.
#pragma once

#include "explorer/explorer_state.h"
#include "widgets/gl_heatmaps.h"

namespace app {

ExplorerRequest drawExplorerTab(core::ViewTab tab, core::Scene& scene, const core::Trace& trace,
                                ExplorerState& explorer, GlHeatmaps& gl);

} // namespace app
