// The short message at the bottom of the window: where an export went, why a file was not
// opened. Any panel may show one; the session draws it until it expires.
#pragma once

#include <string>

namespace app {

struct Notice {
    std::string text;
    double until = 0; // ImGui's clock

    // Shows `message` until `now + seconds`.
    void show(std::string message, double now, double seconds = 4.0);
    bool visible(double now) const { return !text.empty() && now <= until; }
};

// Draws a visible notice at the bottom centre of the window.
void drawNotice(const Notice& notice, double now);

} // namespace app
