// Window-wide keys. Ctrl+E works even while typing; the rest only outside text fields.
#pragma once

#include "view_state.h"

namespace app {

struct ShortcutActions {
    bool exportWindow = false;
};

// Call between the platform backend's NewFrame and ImGui::NewFrame: Escape is taken
// away from a focused text field here, so it unpins instead of reverting the typing.
void interceptEscape(ViewState& view);

// Call after ImGui::NewFrame.
ShortcutActions handleShortcuts(ViewState& view);

} // namespace app
