#include "explorer/view_range.h"

#include <algorithm>

namespace app {

void keepViewInRange(const core::Trace& trace, core::SceneView& saved, Selection& selection) {
    const int lastHead = std::max(trace.attention.heads - 1, 0);
    saved.selectedHead = std::clamp(saved.selectedHead, 0, lastHead);
    saved.compareHead = std::clamp(saved.compareHead, 0, lastHead);
    selection.batchIndex = std::clamp(selection.batchIndex, 0, std::max(trace.batch() - 1, 0));
    if (selection.pinnedQuery >= trace.queryLen()) selection.pinnedQuery = -1;
}

} // namespace app
