#include "platform/clipboard.h"

#include "platform/astral_proxy.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <string>

namespace app {

namespace {

const char* getClipboard(void* window) {
    static std::string pasted; // ImGui copies it before asking again
    const char* text = glfwGetClipboardString(static_cast<GLFWwindow*>(window));
    pasted = toImGuiText(text ? text : "");
    return pasted.c_str();
}

void setClipboard(void* window, const char* text) {
    glfwSetClipboardString(static_cast<GLFWwindow*>(window), fromImGuiText(text).c_str());
}

} // namespace

void installClipboard(GLFWwindow* window) {
    ImGuiIO& io = ImGui::GetIO();
    io.ClipboardUserData = window;
    io.GetClipboardTextFn = getClipboard;
    io.SetClipboardTextFn = setClipboard;
}

} // namespace app
