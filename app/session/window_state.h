// The window's own state, shared by both modes and owned by neither: the zoom, the notice at
// the bottom, the key legend.
#pragma once

#include "widgets/notice.h"

namespace app {

struct WindowState {
    float zoom = 1.0f;     // Ctrl+plus / minus, on top of the monitor's content scale
    Notice notice;         // short-lived message, e.g. where an export went
    bool showKeys = false; // F1: the key legend
};

} // namespace app
