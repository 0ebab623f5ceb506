// mha-viz in the browser: the desktop's frame (session/frame.h) called once per animation
// frame (emscripten_set_main_loop_arg), on the same Session, panels and core.
// The canvas is sized in device pixels every frame, so ImGui draws at the screen's resolution.
// It starts once the files kept between visits (/persist, IndexedDB) are read.
#include "cli/cli.h"
#include "platform/window.h"
#include "session/frame.h"
#include "session/session.h"
#include "web/browser.h"

#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace {

struct Page {
    app::CliOptions options;
    GLFWwindow* window = nullptr;
    std::unique_ptr<app::Session> session;
    int frames = 0;
    double flushedAt = 0;
};

Page& thePage() {
    static Page page;
    return page;
}

// How often what changed under /persist is written back (and when the page is left).
constexpr double kFlushSeconds = 5;

// ImGui's display is the canvas, in device pixels.
void fitDisplay() {
    const app::web::CanvasSize size = app::web::fitCanvas();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(size.width), float(size.height));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    if (io.DeltaTime <= 0) io.DeltaTime = 1e-4f; // a page's clock may stand still between frames
}

// One frame: the desktop's, then what the page reports and keeps.
void frame(void* argument) {
    Page& page = *static_cast<Page*>(argument);
    if (glfwWindowShouldClose(page.window)) { // --bench-frames done: the app ends here
        emscripten_cancel_main_loop();
        app::web::announceFinished();
        return;
    }
    app::runFrame(*page.session, page.window, {fitDisplay, false}); // the browser shows it
    if (++page.frames == 1) app::web::announceFirstFrame();
    if (page.frames == 3) app::web::announceReady();
    if (const double now = ImGui::GetTime(); now - page.flushedAt > kFlushSeconds) {
        page.flushedAt = now;
        app::web::flushPersistent();
    }
}

// After the persistent files are read: the window, Dear ImGui and the session, then the loop.
void start() {
    Page& page = thePage();
    page.window = app::openWindow(0, false);
    if (!page.window) return;
    const float uiScale = app::initialUiScale(page.window, 0);
    app::startImGui(page.window, uiScale, "#version 300 es"); // its settings under /persist
    glfwSetScrollCallback(page.window, nullptr); // emscripten's GLFW passes the wheel unscaled:
    app::web::installWheel();                    // the page's own events instead
    app::web::keepAppKeys();
    app::web::installFiles();
    app::web::flushWhenLeaving();
    page.session = std::make_unique<app::Session>(page.options, uiScale);
    if (!page.session->init()) return;
    emscripten_set_main_loop_arg(frame, &page, 0, false);
}

} // namespace

// The page's address gives the command line: index.html?arg=--sentence&arg=the%20cat (the
// window's options: --scene, --sentence, --weights, --state-file, --bench-frames, ...).
int main(int argc, char** argv) {
    int exitCode = 0;
    std::optional<app::CliOptions> options = app::parseCli(argc, argv, exitCode);
    if (!options) return exitCode;
    if (options->headless()) {
        std::fputs("mha-viz: error: --json, --export and the other files without a window are "
                   "written by the desktop app; the page takes the window's options\n",
                   stderr);
        return 2;
    }
    thePage().options = std::move(*options);
    // Settings, recent models, scenes and saved runs live in the IndexedDB-backed /persist.
    setenv("XDG_CONFIG_HOME", "/persist/config", 1);
    setenv("XDG_PICTURES_DIR", "/persist/Pictures", 1);
    app::web::mountPersistent(start);
    return 0; // the runtime stays: start() runs once /persist is read
}
