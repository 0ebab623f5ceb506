// The frame and the set-up both loops share (frame.h).
#include "session/frame.h"

#include "platform/appearance.h"
#include "platform/clipboard.h"
#include "platform/input_queue.h"
#include "platform/user_paths.h"
#include "platform/window.h"
#include "session/session.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <string>

namespace app {

void startImGui(GLFWwindow* window, float uiScale, const char* glslVersion) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    static std::string iniPath; // ImGui keeps the pointer for the whole run
    iniPath = imguiIniPath();
    ImGui::GetIO().IniFilename = iniPath.c_str();
    applyAppearance(Appearance{}, uiScale, false); // dark, 1x; the backend uploads the font
    installInputQueue(window);                     // all input callbacks: the backend installs none
    ImGui_ImplGlfw_InitForOpenGL(window, false);
    installClipboard(window); // characters beyond U+FFFF kept (platform/astral_proxy.h)
    ImGui_ImplOpenGL3_Init(glslVersion);
}

void stopImGui() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
}

void runFrame(Session& session, GLFWwindow* window, const FramePlatform& platform) {
    session.pollEvents();
    session.followAppearance(window);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (platform.fitDisplay) platform.fitDisplay();
    session.feedInput();
    ImGui::NewFrame();
    session.drawPanels(window);
    ImGui::Render();
    renderImGui(window);
    session.afterRender(window);
    if (platform.swapBuffers) glfwSwapBuffers(window);
    session.afterSwap(window);
}

} // namespace app
