#include "view_range.h"

#include <algorithm>

namespace app {

void keepViewInRange(const core::Trace& trace, ViewState& view) {
    const int lastHead = std::max(trace.attention.heads - 1, 0);
    view.selectedHead = std::clamp(view.selectedHead, 0, lastHead);
    view.compareHead = std::clamp(view.compareHead, 0, lastHead);
    view.batchIndex = std::clamp(view.batchIndex, 0, std::max(trace.batch() - 1, 0));
    if (view.pinnedQuery >= trace.queryLen()) view.pinnedQuery = -1;
}

} // namespace app
