// The window in the browser: the page's canvas with a WebGL 2 context through emscripten's GLFW,
// sized to the canvas's CSS size in device pixels every frame; the clipboard through the page
// (emscripten's GLFW has none). What platform/window.cpp, clipboard.cpp, window_icon.cpp and
// thread_policy.cpp do on the desktop.
#include "platform/clipboard.h"
#include "platform/fonts.h"
#include "platform/gl.h"
#include "platform/thread_policy.h"
#include "platform/window.h"
#include "platform/window_icon.h"
#include "web/browser.h"

#include "platform/astral_proxy.h"

#include <GLFW/glfw3.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>

namespace app {

GLFWwindow* openWindow(float, bool) {
    if (!glfwInit()) {
        std::fputs("mha-viz: error: this browser gives no WebGL 2 context\n", stderr);
        return nullptr;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    // An opaque canvas with colour alone: ImGui draws no depth or stencil, and each buffer
    // less is a full-canvas clear less per frame for a software renderer (SwiftShader).
    glfwWindowHint(GLFW_ALPHA_BITS, 0);
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    const web::CanvasSize size = web::fitCanvas();
    GLFWwindow* window = glfwCreateWindow(size.width, size.height, "mha-viz", nullptr, nullptr);
    if (!window) {
        std::fputs("mha-viz: error: this browser gives no WebGL 2 context\n", stderr);
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    return window;
}

float initialUiScale(GLFWwindow*, float uiScale) {
    return uiScale > 0 ? uiScale : web::fitCanvas().pixelRatio;
}

void toggleFullscreen(GLFWwindow*) {
    EmscriptenFullscreenStrategy strategy{};
    strategy.scaleMode = EMSCRIPTEN_FULLSCREEN_SCALE_STRETCH;
    strategy.canvasResolutionScaleMode = EMSCRIPTEN_FULLSCREEN_CANVAS_SCALE_HIDEF;
    if (emscripten_exit_fullscreen() != EMSCRIPTEN_RESULT_SUCCESS)
        emscripten_request_fullscreen_strategy("#canvas", EM_TRUE, &strategy);
}

void followScaleAndAppearance(GLFWwindow*, bool scaleFixed, const Appearance& wanted,
                              float& uiScale, Appearance& applied) {
    const float ratio = scaleFixed ? uiScale : web::fitCanvas().pixelRatio;
    const bool newGlyphs = takeGlyphRequest(); // text in a script the atlas does not hold yet
    if (wanted == applied && ratio == uiScale && !newGlyphs) return;
    uiScale = ratio;
    applyAppearance(wanted, uiScale, true);
    applied = wanted;
}

void renderImGui(GLFWwindow*) {
    const web::CanvasSize size = web::fitCanvas();
    renderImGuiAt(size.width, size.height);
}

void closeWindow(GLFWwindow* window) {
    glfwDestroyWindow(window);
    glfwTerminate();
}

namespace {

const char* getClipboard(void*) {
    static std::string text; // ImGui copies it before asking again
    text = toImGuiText(web::pastedText());
    return text.c_str();
}

void setClipboard(void*, const char* text) {
    web::copyToClipboard(fromImGuiText(text));
}

} // namespace

void installClipboard(GLFWwindow*) {
    ImGuiIO& io = ImGui::GetIO();
    io.GetClipboardTextFn = getClipboard;
    io.SetClipboardTextFn = setClipboard;
    web::pastedText(); // starts listening for the page's paste events
}

void setWindowIcon(GLFWwindow*) {} // the page's favicon

void restartWithSleepingWorkers(char**) {} // one thread: nothing to put to sleep

} // namespace app
