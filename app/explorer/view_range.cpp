#include "explorer/view_range.h"

#include <algorithm>

namespace app {

void keepViewInRange(const core::Trace& trace, ViewState& view) {
    const int lastHead = std::max(trace.attention.heads - 1, 0);
    view.saved.selectedHead = std::clamp(view.saved.selectedHead, 0, lastHead);
    view.saved.compareHead = std::clamp(view.saved.compareHead, 0, lastHead);
    view.selection.batchIndex =
        std::clamp(view.selection.batchIndex, 0, std::max(trace.batch() - 1, 0));
    if (view.selection.pinnedQuery >= trace.queryLen()) view.selection.pinnedQuery = -1;
}

} // namespace app
