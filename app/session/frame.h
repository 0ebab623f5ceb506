// The explorer's set-up and one frame, written once for the desktop window (main.cpp, a plain
// while loop like Dear ImGui's example_glfw_opengl3) and the browser's canvas (web_main.cpp,
// one call per animation frame): poll -> new frame -> panels -> render -> swap, each step a
// function of Session.
#pragma once

struct GLFWwindow;

namespace app {

class Session;

// Dear ImGui's context on the window: its settings file, the dark style at `uiScale`, the
// input queue (every input callback; the backend installs none), the GLFW and OpenGL 3
// backends (`glslVersion`: "#version 330 core" on the desktop, "#version 300 es" in WebGL 2)
// and the clipboard.
void startImGui(GLFWwindow* window, float uiScale, const char* glslVersion);

// The backends and the context, in reverse order.
void stopImGui();

// What differs between the two loops: the page sizes ImGui's display to its canvas after the
// backend's new frame, and the browser shows what was drawn without a swap.
struct FramePlatform {
    void (*fitDisplay)() = nullptr; // null on the desktop: the backend's size is the window's
    bool swapBuffers = true;
};

// One frame of the session on the window.
void runFrame(Session& session, GLFWwindow* window, const FramePlatform& platform);

} // namespace app
