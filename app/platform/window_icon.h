// The window's own icon (title bar, task switcher), the same drawing the installed icons use.
#pragma once

struct GLFWwindow;

namespace app {

void setWindowIcon(GLFWwindow* window);

} // namespace app
