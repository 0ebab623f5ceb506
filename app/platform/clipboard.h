// The system clipboard through ImGui with characters beyond U+FFFF intact: pasted text enters
// ImGui with stand-ins for them and copied text leaves with them restored
// (platform/astral_proxy.h). The GLFW backend's own functions would keep neither.
#pragma once

struct GLFWwindow;

namespace app {

// Call after ImGui_ImplGlfw_InitForOpenGL, which installs the backend's clipboard functions.
void installClipboard(GLFWwindow* window);

} // namespace app
