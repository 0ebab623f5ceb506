// mha-viz: type a sentence, see every head's attention. Headless with --json, --export or
// --save-scene; otherwise the window, whose loop reads top to bottom like Dear ImGui's
// example_glfw_opengl3: set up, then one frame (session/frame.h: poll -> new frame -> panels ->
// render -> swap) until the window closes, then shut down. The window itself is window.h.
#include "cli/cli.h"
#include "cli/plot_command.h"
#include "cli/train_command.h"
#include "platform/thread_policy.h"
#include "platform/window.h"
#include "session/frame.h"
#include "session/session.h"
#include "session/shortcuts.h"

#include <GLFW/glfw3.h>

#include <atomic>
#include <csignal>
#include <malloc.h>
#include <string>
#include <string_view>

namespace {

std::atomic<bool> stopRequested{false}; // Ctrl+C / SIGTERM: leave the loop, shut down cleanly

void requestStop(int) {
    stopRequested = true;
}

} // namespace

int main(int argc, char** argv) {
    // Over a file-size limit (ulimit -f) a write fails with EFBIG and is reported like a full
    // disk, instead of the process being killed halfway through an export.
    std::signal(SIGXFSZ, SIG_IGN);
    // Keep large freed blocks in the heap for the next recompute: a real model's forward
    // allocates the same tens of megabytes on every keystroke, and getting them fresh from the
    // kernel each time (page faults, zeroing) cost a third of GPT-2's forward.
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
    // Commands of their own, without a window.
    if (argc > 1 && std::string_view(argv[1]) == "train")
        return app::runTrainCommand(argc - 1, argv + 1);
    if (argc > 1 && std::string_view(argv[1]) == "plot")
        return app::runPlotCommand(argc - 1, argv + 1);
    int exitCode = 0;
    const auto options = app::parseCli(argc, argv, exitCode);
    if (!options) return exitCode;
    if (options->headless()) return app::runHeadless(*options);
    app::restartWithSleepingWorkers(argv); // the cores are llvmpipe's while it draws

    // Set up: the window and its GL context, Dear ImGui with its backends, the session.
    GLFWwindow* window =
        app::openWindow(options->uiScale, options->benchFrames > 0 || options->benchTyping > 0);
    if (!window) return 1;
    const float uiScale = app::initialUiScale(window, options->uiScale);
    app::startImGui(window, uiScale, "#version 330 core");
    app::installFileDrop(window);
    app::Session session(*options, uiScale);
    const bool ready = session.init();

    // Main loop.
    std::signal(SIGINT, requestStop);
    std::signal(SIGTERM, requestStop);
    while (ready && !glfwWindowShouldClose(window) && !stopRequested)
        app::runFrame(session, window, {});

    // Shutdown, in reverse order.
    session.shutdown();
    app::stopImGui();
    app::closeWindow(window);
    return ready ? session.exitCode() : 1;
}
