// mha-viz: type a sentence, see every head's attention. Headless with --json;
// otherwise the window, whose frame loop reads top to bottom like Dear ImGui's
// example_glfw_opengl3: poll -> new frame -> panels -> render -> swap.
#include "cli.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "fonts.h"
#include "frame_stats.h"
#include "widgets/gl_heatmaps.h"
#include "widgets/heatmap_widget.h"
#include "input_queue.h"
#include "panels/panels.h"
#include "io/scene_json.h"
#include "scene_runner.h"
#include "shortcuts.h"
#include "state_file.h"
#include "user_paths.h"
#include "view_range.h"
#include "view_settings.h"
#include "window_capture.h"
#include "window_icon.h"
#include "window_layout.h"

#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace {

std::atomic<bool> stopRequested{false}; // Ctrl+C / SIGTERM: leave the loop, shut down cleanly

void requestStop(int) {
    stopRequested = true;
}

void glfwErrorToStderr(int code, const char* description) {
    std::fprintf(stderr, "mha-viz: GLFW error %d: %s\n", code, description);
}

void drawNotice(const app::ViewState& view, double now) {
    if (view.notice.empty() || now > view.noticeUntil) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y - 16.0f), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.92f);
    ImGui::Begin("##notice", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    ImGui::TextUnformatted(view.notice.c_str());
    ImGui::End();
}

// F11: the whole monitor for a lecture hall, and back to the window it was.
void toggleFullscreen(GLFWwindow* window) {
    static int x = 0, y = 0, width = 1440, height = 900;
    if (GLFWmonitor* monitor = glfwGetWindowMonitor(window)) {
        (void)monitor;
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
    if (window) app::setWindowIcon(window);
    return window;
}

// Between frames: a theme or zoom change, or a move to a monitor of another content scale
// (unless --ui-scale fixed it), rebuilds the style and the fonts.
void followScaleAndAppearance(GLFWwindow* window, bool scaleFixed, const app::Appearance& wanted,
                              float& uiScale, app::Appearance& applied) {
    float monitorScale = uiScale;
    if (!scaleFixed) glfwGetWindowContentScale(window, &monitorScale, nullptr);
    if (wanted == applied && monitorScale == uiScale) return;
    uiScale = monitorScale;
    app::applyAppearance(wanted, uiScale, true);
    applied = wanted;
}

// --bench-frames: a different first word each frame, so every frame recomputes.
void varyForBenchmark(core::Scene& scene, int frame) {
    static const std::string base = scene.sentences.front();
    scene.sentences.front() = (frame % 2 ? "One " : "Two ") + base;
}

} // namespace

int main(int argc, char** argv) {
    // Over a file-size limit (ulimit -f) a write fails with EFBIG and is reported like a full
    // disk, instead of the process being killed halfway through an export.
    std::signal(SIGXFSZ, SIG_IGN);
    int exitCode = 0;
    const auto options = app::parseCli(argc, argv, exitCode);
    if (!options) return exitCode;
    if (options->headless()) return app::runHeadless(*options);

    // Window set-up.
    glfwSetErrorCallback(glfwErrorToStderr);
    if (!glfwInit()) {
        std::cerr << "mha-viz: error: cannot open a window (no display?); use --json for headless "
                     "output\n";
        return 1;
    }
    GLFWwindow* window = createWindow(options->uiScale);
    if (!window) {
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::cerr << "mha-viz: error: OpenGL 3.3 is not available\n";
        return 1;
    }
    const bool benchmarking = options->benchFrames > 0;
    glfwSwapInterval(benchmarking ? 0 : 1);

    // --ui-scale, else the monitor's content scale (followed when the window changes monitor).
    float uiScale = options->uiScale;
    if (uiScale <= 0) glfwGetWindowContentScale(window, &uiScale, nullptr);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    const std::string iniPath = app::imguiIniPath();
    ImGui::GetIO().IniFilename = iniPath.c_str();
    app::applyAppearance(app::Appearance{}, uiScale,
                         false); // dark, 1x; the backend uploads the font
    app::installFileDrop(window);
    app::installInputQueue(window); // all input callbacks: the backend installs none
    ImGui_ImplGlfw_InitForOpenGL(window, false);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    app::GlHeatmaps gl;
    if (std::string error; !gl.init(error)) {
        std::cerr << "mha-viz: error: " << error << '\n';
        return 1;
    }

    // State: the Scene the user edits, the Trace drawn, how it is drawn.
    core::Scene scene = options->scene;
    if (!options->weightsGiven) scene.weights = "designed"; // the demo shows heads that specialise
    std::shared_ptr<const core::Trace> trace = std::make_shared<const core::Trace>();
    app::ViewState view;
    app::applySceneView(options->view, view); // --view, or a scene file's view settings
    app::SceneRunner runner;
    app::Appearance appliedAppearance;
    runner.update(scene, trace, view, ImGui::GetTime(), false); // the maps before frame 1
    app::uploadHeadMaps(*trace, view, gl);
    const std::string exportDir =
        options->exportDir.empty() ? app::defaultExportDir() : options->exportDir;
    app::FrameStats benchStats;
    int frame = 0, framesToSettle = 3;

    // Main loop.
    std::signal(SIGINT, requestStop);
    std::signal(SIGTERM, requestStop);
    while (!glfwWindowShouldClose(window) && !stopRequested) {
        const auto frameStart = std::chrono::steady_clock::now();
        // Sleep until input when nothing moves; redraw every frame while a control is active.
        const bool animating = view.animStart >= 0 && ImGui::GetTime() - view.animStart < 0.7;
        const bool exporting = view.exportPanel.job || view.exportPanel.captureCountdown > 0;
        const bool busy = benchmarking || !options->screenshotPath.empty() || framesToSettle > 0 ||
                          ImGui::IsAnyItemActive() || animating || exporting ||
                          runner.computing() || app::inputPending();
        const double now = ImGui::GetTime(); // the notices' clock
        if (busy) {
            glfwPollEvents();
            framesToSettle = std::max(0, framesToSettle - 1);
        } else {
            // Wake at least twice a second to notice a stop signal; otherwise sleep.
            glfwWaitEventsTimeout(now < view.noticeUntil ? std::min(0.5, view.noticeUntil - now)
                                                         : 0.5);
            framesToSettle = 2; // ImGui needs a frame or two to settle after input
        }
        if (benchmarking) varyForBenchmark(scene, frame);

        followScaleAndAppearance(window, options->uiScale > 0, view.appearance, uiScale,
                                 appliedAppearance);
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        app::feedInputQueue(); // this frame's share of the queued keys, clicks and typing
        if (!options->screenshotPath.empty()) // wherever the pointer rests, no hover in screenshots
            ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        app::interceptEscape();
        ImGui::NewFrame();
        gl.beginFrame();
        view.nextHover = {};
        view.nextHoverHead = -1;
        const app::ShortcutActions actions = app::handleShortcuts(scene, view);
        if (actions.toggleFullscreen) toggleFullscreen(window);
        if (const std::string dropped = app::takeDroppedPath(); !dropped.empty())
            app::openSceneFile(scene, view, dropped);
        if (actions.saveScene) {
            std::error_code ec;
            std::filesystem::create_directories(exportDir, ec);
            const std::string path = core::freePath(exportDir, "mha-viz-scene", ".json");
            const core::SceneView settings = app::sceneViewOf(view);
            const std::string error = core::saveSceneFile(path, scene, &settings);
            app::showNotice(view, error.empty() ? "Saved " + path : "Scene not saved: " + error);
            std::cerr << "mha-viz: " << view.notice << '\n';
        }

        const ImVec2 display = ImGui::GetIO().DisplaySize;
        const app::WindowLayout layout =
            app::layoutFor(display.x, display.y, uiScale * view.appearance.zoom);
        app::drawSentencesPanel(layout.sentences, scene, *trace, view);
        app::drawControlsPanel(layout.controls, scene, *trace, view);
        const int headsBefore = trace->attention.heads;
        // --bench-frames times the run in the same frame as the edit (no worker).
        if (runner.update(scene, trace, view, ImGui::GetTime(), !benchmarking) ||
            !view.mapsUploaded) {
            app::uploadHeadMaps(*trace, view, gl);
            if (trace->attention.heads != headsBefore && headsBefore > 0)
                app::noteHeadCountChange(view, headsBefore);
        }
        app::keepViewInRange(*trace, view); // before any panel indexes heads with it
        app::drawHeadsPanel(layout.heads, *trace, view, gl);
        app::drawViewsPanel(layout.head, scene, *trace, view, gl);
        app::drawKeyLegend(view);
        app::drawScenesPanel(scene, view);
        app::drawExportPanel(trace, view, exportDir);
        drawNotice(view, ImGui::GetTime());
        view.hover = view.nextHover;
        view.hoverHead = view.nextHoverHead;

        // Rendering.
        ImGui::Render();
        int width = 0, height = 0;
        glfwGetFramebufferSize(window, &width, &height);
        glViewport(0, 0, width, height);
        const ImVec4 background =
            ImGui::GetStyleColorVec4(ImGuiCol_WindowBg); // panels draw no background
        glClearColor(background.x, background.y, background.z, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

        if (app::ExportPanel& panel = view.exportPanel;
            panel.captureCountdown > 0 &&
            --panel.captureCountdown == 0) { // drawn without the panel
            std::string error;
            const std::string path =
                app::exportWindow(panel.folder, app::captureFramebuffer(width, height), *trace,
                                  error, panel.formats.json);
            app::finishWindowCapture(view, path, error);
        }
        if (actions.exportWindow) {
            std::string error;
            const std::string path =
                app::exportWindow(exportDir, app::captureFramebuffer(width, height), *trace, error);
            app::showNotice(view, path.empty() ? "Export failed: " + error
                                               : "Saved " + path + " (+ .json)");
            std::cerr << "mha-viz: " << view.notice << '\n';
        }
        if (!options->screenshotPath.empty() && frame >= 5) { // fonts, layout and maps have settled
            const std::string error =
                core::writePng(options->screenshotPath, app::captureFramebuffer(width, height));
            if (!error.empty()) {
                std::cerr << "mha-viz: error: " << error << '\n';
                exitCode = app::kExitBadInput;
            }
            glfwSetWindowShouldClose(window, GLFW_TRUE);
        }
        glfwSwapBuffers(window);
        if (!options->stateFile.empty()) // after the swap: what the line says is on screen
            app::writeStateFile(options->stateFile,
                                app::stateLine({frame + 1, app::inputPending(), runner.computing(),
                                                app::syncMarks()},
                                               scene, *trace, view));

        if (benchmarking) {
            glFinish(); // count the GPU's (llvmpipe's) work too
            benchStats.millis.push_back(std::chrono::duration<double, std::milli>(
                                            std::chrono::steady_clock::now() - frameStart)
                                            .count());
            if (int(benchStats.millis.size()) >= options->benchFrames) {
                std::cout << benchStats.summary() << std::endl;
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            }
        }
        ++frame;
    }

    // Shutdown, in reverse order.
    gl.shutdown();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exitCode;
}
