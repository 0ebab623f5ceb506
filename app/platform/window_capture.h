// Screenshots of the window: the rendered back buffer as an image (file or buffer).
#pragma once

#include "engine/trace.h"
#include "figures/image.h"

#include <string>

namespace app {

// Reads the current framebuffer (call after rendering, before swapping).
core::Image captureFramebuffer(int width, int height);

// Ctrl+E: the window as PNG and (withTrace) the trace as JSON into `dir`, never overwriting.
// Returns the PNG path; throws std::runtime_error naming what failed (nothing is left
// half-exported).
std::string exportWindow(const std::string& dir, const core::Image& window,
                         const core::Trace& trace, bool withTrace = true);

} // namespace app
