// renderImGuiAt (platform/window.h): the part of drawing a frame both builds share, the
// desktop's window (window.cpp) and the browser's canvas (web/web_window.cpp).
#include "platform/gl.h"
#include "platform/window.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdint>

namespace app {

namespace {

// The font atlas read nearest, not bilinear as the backend creates it: glyphs are drawn 1:1 on
// whole pixels (fonts.cpp), so the picture is the same, and llvmpipe draws it 8% cheaper. Set
// every frame: a rebuilt atlas (zoom, theme) may get the old one's texture name back, and GL
// ignores a parameter set to the value it has.
void sampleFontAtlasNearest() {
    const ImTextureID atlas = ImGui::GetIO().Fonts->TexID;
    if (!atlas) return;
    glBindTexture(GL_TEXTURE_2D, GLuint(reinterpret_cast<std::intptr_t>(atlas)));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

} // namespace

void renderImGuiAt(int width, int height) {
    sampleFontAtlasNearest();
    glViewport(0, 0, width, height);
    const ImVec4 background = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    glClearColor(background.x, background.y, background.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

} // namespace app
