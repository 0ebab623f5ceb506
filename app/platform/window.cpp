#include "platform/window.h"

#include "platform/fonts.h"
#include "platform/window_icon.h"

#include "platform/gl.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace app {

namespace {

void glfwErrorToStderr(int code, const char* description) {
    std::fprintf(stderr, "mha-viz: GLFW error %d: %s\n", code, description);
}

// --ui-scale K: the window grows by K, as GLFW_SCALE_TO_MONITOR grows it by a monitor's content
// scale, up to the size of the monitor (a projector at 2x gets the whole screen).
void scaleWindowSize(float scale, int& width, int& height) {
    width = int(width * scale), height = int(height * scale);
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    if (const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr)
        width = std::min(width, mode->width), height = std::min(height, mode->height);
}

// The window with an OpenGL 3.3 core context, its icon and the class desktops match it by.
GLFWwindow* createWindow(float uiScale) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    int width = 1440, height = 900;
    if (uiScale > 0) scaleWindowSize(uiScale, width, height);
    // HiDPI: the window grows with the monitor's content scale, unless --ui-scale says how much.
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, uiScale > 0 ? GLFW_FALSE : GLFW_TRUE);
    // WM_CLASS, which desktops match against the .desktop file's StartupWMClass.
    glfwWindowHintString(GLFW_X11_CLASS_NAME, "mha-viz");
    glfwWindowHintString(GLFW_X11_INSTANCE_NAME, "mha-viz");
    GLFWwindow* window = glfwCreateWindow(
        width, height, "mha-viz \xE2\x80\x94 multi-head attention", nullptr, nullptr);
    if (window) setWindowIcon(window);
    return window;
}

} // namespace

GLFWwindow* openWindow(float uiScale, bool benchmarking) {
    glfwSetErrorCallback(glfwErrorToStderr);
    if (!glfwInit()) {
        std::fputs("mha-viz: error: cannot open a window (no display?); use --json for headless "
                   "output\n",
                   stderr);
        return nullptr;
    }
    GLFWwindow* window = createWindow(uiScale);
    if (!window) {
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fputs("mha-viz: error: OpenGL 3.3 is not available\n", stderr);
        closeWindow(window);
        return nullptr;
    }
    glfwSwapInterval(benchmarking ? 0 : 1);
    return window;
}

float initialUiScale(GLFWwindow* window, float uiScale) {
    if (uiScale <= 0) glfwGetWindowContentScale(window, &uiScale, nullptr);
    return uiScale;
}

void toggleFullscreen(GLFWwindow* window) {
    static int x = 0, y = 0, width = 1440, height = 900; // the window to come back to
    if (glfwGetWindowMonitor(window)) {
        glfwSetWindowMonitor(window, nullptr, x, y, width, height, 0);
        return;
    }
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (!mode) return;
    glfwGetWindowPos(window, &x, &y);
    glfwGetWindowSize(window, &width, &height);
    glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

void followScaleAndAppearance(GLFWwindow* window, bool scaleFixed, const Appearance& wanted,
                              float& uiScale, Appearance& applied) {
    float monitorScale = uiScale;
    if (!scaleFixed) glfwGetWindowContentScale(window, &monitorScale, nullptr);
    const bool newGlyphs = takeGlyphRequest(); // text in a script the atlas does not hold yet
    if (wanted == applied && monitorScale == uiScale && !newGlyphs) return;
    uiScale = monitorScale;
    applyAppearance(wanted, uiScale, true);
    applied = wanted;
}

void renderImGui(GLFWwindow* window) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    renderImGuiAt(width, height);
}

void closeWindow(GLFWwindow* window) {
    glfwDestroyWindow(window);
    glfwTerminate();
}

} // namespace app
