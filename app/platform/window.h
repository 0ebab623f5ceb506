// The GLFW window: opening it with an OpenGL 3.3 core context, full screen, and following the
// monitor's content scale. Nothing here knows about attention.
#pragma once

#include "platform/appearance.h"

struct GLFWwindow;

namespace app {

// glfwInit, the window (1440x900, grown by --ui-scale K or the monitor's content scale), its
// icon and WM_CLASS, the current context and the GL loader; vsync unless benchmarking.
// nullptr after printing one line to stderr when there is no display or no OpenGL 3.3.
GLFWwindow* openWindow(float uiScale, bool benchmarking);

// --ui-scale K when given (> 0), else the window's monitor content scale.
float initialUiScale(GLFWwindow* window, float uiScale);

// F11: the whole monitor for a lecture hall, and back to the window it was.
void toggleFullscreen(GLFWwindow* window);

// Between frames: a theme or zoom change, or a move to a monitor of another content scale
// (unless --ui-scale fixed it), rebuilds the style and the fonts; so does text that needs
// glyphs the font atlas does not hold yet (platform/fonts.h).
void followScaleAndAppearance(GLFWwindow* window, bool scaleFixed, const Appearance& wanted,
                              float& uiScale, Appearance& applied);

// Clears to the window colour (the panels draw no background) and draws ImGui's lists.
void renderImGui(GLFWwindow* window);
// What renderImGui does once the framebuffer's size is known (the desktop asks GLFW, the
// browser its canvas): platform/imgui_render.cpp.
void renderImGuiAt(int width, int height);

// glfwDestroyWindow + glfwTerminate.
void closeWindow(GLFWwindow* window);

} // namespace app
