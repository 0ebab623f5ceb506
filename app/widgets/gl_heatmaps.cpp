#include "widgets/gl_heatmaps.h"

#include "figures/attention_map.h"

#include "platform/gl.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>

namespace app {

namespace {

// `defines` go right after the source's #version line (GLSL wants that line first).
unsigned compileShader(GLenum type, std::string_view name, std::string_view defines = "") {
    const std::string text = glslSource(shaderSource(name)); // GLSL ES in the browser
    const std::string_view source = text;
    if (source.empty())
        throw std::runtime_error("shader " + std::string(name) + " is not embedded");
    const std::size_t afterVersion = std::min(source.find('\n'), source.size() - 1) + 1;
    const GLuint shader = glCreateShader(type);
    const char* parts[] = {source.data(), defines.data(), source.data() + afterVersion};
    const GLint lengths[] = {GLint(afterVersion), GLint(defines.size()),
                             GLint(source.size() - afterVersion)};
    glShaderSource(shader, 3, parts, lengths);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        std::array<char, 2048> log{};
        glGetShaderInfoLog(shader, GLsizei(log.size()), nullptr, log.data());
        glDeleteShader(shader);
        throw std::runtime_error(std::string(name) + ": " + log.data());
    }
    return shader;
}

// Nearest-filtered RGBA8 texture: lookup tables and patterns must not blend.
unsigned makeRgbaTexture(int width, int height, const unsigned char* rgba, GLint wrap) {
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, wrap);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wrap);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    return texture;
}

} // namespace

// heatmap.frag with `defines`, linked to the full-window triangle; its uniforms located.
GlHeatmaps::Program GlHeatmaps::linkProgram(std::string_view defines) {
    const unsigned vert = compileShader(GL_VERTEX_SHADER, "fullscreen.vert");
    unsigned frag = 0;
    try {
        frag = compileShader(GL_FRAGMENT_SHADER, "heatmap.frag", defines);
    } catch (const std::runtime_error&) {
        glDeleteShader(vert);
        throw;
    }
    Program p;
    p.id = glCreateProgram();
    glAttachShader(p.id, vert);
    glAttachShader(p.id, frag);
    glLinkProgram(p.id);
    glDeleteShader(vert);
    glDeleteShader(frag);
    GLint ok = 0;
    glGetProgramiv(p.id, GL_LINK_STATUS, &ok);
    if (!ok) {
        std::array<char, 2048> log{};
        glGetProgramInfoLog(p.id, GLsizei(log.size()), nullptr, log.data());
        glDeleteProgram(p.id);
        throw std::runtime_error(std::string("heatmap program: ") + log.data());
    }
    p.colors = glGetUniformLocation(p.id, "colors");
    p.hatch = glGetUniformLocation(p.id, "hatchPattern"); // -1 without HATCH
    p.cells = glGetUniformLocation(p.id, "cells");        // -1 without SEAMS
    p.halfPixel = glGetUniformLocation(p.id, "halfPixel");
    return p;
}

void GlHeatmaps::init() {
    for (std::size_t k = 0; k < programs_.size(); ++k)
        programs_[k] = linkProgram(std::string(k & 1 ? "#define HATCH\n" : "") +
                                   (k & 2 ? "#define SEAMS\n" : ""));
    glGenVertexArrays(1, &vertexArray_); // core profile draws need a bound VAO

    for (core::ColormapId id :
         {core::ColormapId::Viridis, core::ColormapId::Magma, core::ColormapId::Cividis,
          core::ColormapId::Greys, core::ColormapId::RdBu}) {
        std::array<unsigned char, 256 * 4> rgba{};
        const core::ColormapTable& table = core::colormapTable(id);
        for (int i = 0; i < 256; ++i) {
            rgba[i * 4 + 0] = table[i].r, rgba[i * 4 + 1] = table[i].g;
            rgba[i * 4 + 2] = table[i].b, rgba[i * 4 + 3] = 255;
        }
        colormapTextures_.push_back(makeRgbaTexture(256, 1, rgba.data(), GL_CLAMP_TO_EDGE));
    }

    // Masked cells: light grey with darker diagonal stripes, 2 of every 8 pixels. A texture
    // lookup is cheaper than computing the pattern per pixel in llvmpipe.
    std::array<unsigned char, 8 * 8 * 4> hatch{};
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            const unsigned char grey = (x + y) % 8 < 2 ? 140 : 205;
            unsigned char* px = &hatch[std::size_t(y * 8 + x) * 4];
            px[0] = grey, px[1] = grey, px[2] = static_cast<unsigned char>(grey + 4), px[3] = 255;
        }
    hatchTexture_ = makeRgbaTexture(8, 8, hatch.data(), GL_REPEAT);
}

void GlHeatmaps::shutdown() {
    keepSlots(0);
    draws_.clear();
    glDeleteTextures(GLsizei(colormapTextures_.size()), colormapTextures_.data());
    glDeleteTextures(1, &hatchTexture_);
    colormapTextures_.clear();
    glDeleteVertexArrays(1, &vertexArray_);
    for (Program& p : programs_) glDeleteProgram(p.id);
    programs_ = {};
    vertexArray_ = 0;
}

void GlHeatmaps::keepSlots(int count) {
    for (std::size_t k = std::size_t(std::max(count, 0)); k < slots_.size(); ++k)
        for (const Colouring& c : slots_[k].colourings) glDeleteTextures(1, &c.texture);
    if (count < int(slots_.size())) slots_.resize(std::size_t(std::max(count, 0)));
}

void GlHeatmaps::setValues(int index, const float* values, int rows, int cols) {
    if (index >= int(slots_.size())) slots_.resize(std::size_t(index) + 1);
    Slot& s = slots_[std::size_t(index)];
    s.values.assign(values, values + std::ptrdiff_t(rows) * cols);
    s.rows = rows, s.cols = cols;
    ++s.generation; // every colouring is out of date
    s.masked = std::find(s.values.begin(), s.values.end(), core::kMaskedCell) != s.values.end();
}

// The slot's texture in this colormap and range, coloured now if no colouring has it. A
// colouring another draw of this frame uses is never recoloured: that draw renders later.
unsigned GlHeatmaps::colouredTexture(Slot& slot, core::ColormapId colormap, float valueMin,
                                     float valueMax) {
    Colouring* target = nullptr;
    for (Colouring& c : slot.colourings) {
        if (c.generation == slot.generation && c.colormap == colormap && c.valueMin == valueMin &&
            c.valueMax == valueMax) {
            c.usedFrame = frame_;
            return c.texture;
        }
        if (c.usedFrame != frame_ && !target) target = &c;
    }
    if (!target) target = &slot.colourings.emplace_back();
    std::vector<std::uint8_t>& rgba = scratch_; // kept: no allocation per colouring
    rgba.resize(slot.values.size() * 4);
    core::colorCells(slot.values.data(), slot.values.size(), colormap, valueMin, valueMax,
                     rgba.data());
    if (!target->texture) {
        target->texture = makeRgbaTexture(slot.cols, slot.rows, rgba.data(), GL_CLAMP_TO_EDGE);
    } else {
        glBindTexture(GL_TEXTURE_2D, target->texture);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        if (target->rows == slot.rows && target->cols == slot.cols)
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, slot.cols, slot.rows, GL_RGBA, GL_UNSIGNED_BYTE,
                            rgba.data());
        else
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, slot.cols, slot.rows, 0, GL_RGBA,
                         GL_UNSIGNED_BYTE, rgba.data());
    }
    *target = Colouring{target->texture, slot.rows, slot.cols,       colormap,
                        valueMin,        valueMax,  slot.generation, frame_};
    return target->texture;
}

void GlHeatmaps::draw(ImDrawList* drawList, int slot, ImVec2 min, ImVec2 max,
                      core::ColormapId colormap, float valueMin, float valueMax, bool seams) {
    if (slot < 0 || slot >= int(slots_.size()) || slots_[std::size_t(slot)].values.empty()) return;
    Slot& s = slots_[std::size_t(slot)];
    // colorCells paints every unusable scale alike; one key for them all keeps a NaN range
    // (never equal to itself) from recolouring on every draw.
    if (!core::usableColorScale(valueMin, valueMax)) valueMin = valueMax = 0;
    const unsigned texture = colouredTexture(s, colormap, valueMin, valueMax);
    draws_.push_back(Draw{this, texture, s.masked, seams, s.rows, s.cols, min, max});
    drawList->AddCallback(renderCallback, &draws_.back());
    drawList->AddCallback(ImDrawCallback_ResetRenderState,
                          nullptr); // hand GL back to ImGui's renderer
}

void GlHeatmaps::renderCallback(const ImDrawList*, const ImDrawCmd* command) {
    const Draw& d = *static_cast<const Draw*>(command->UserCallbackData);
    d.self->render(d, *command);
}

void GlHeatmaps::render(const Draw& d, const ImDrawCmd& command) const {
    const ImDrawData* data = ImGui::GetDrawData();
    const ImVec2 origin = data->DisplayPos, scale = data->FramebufferScale;
    const float framebufferHeight = data->DisplaySize.y * scale.y;
    // Screen rectangle -> GL window coordinates (origin bottom-left).
    const float x0 = (d.min.x - origin.x) * scale.x, x1 = (d.max.x - origin.x) * scale.x;
    const float y0 = framebufferHeight - (d.max.y - origin.y) * scale.y;
    const float y1 = framebufferHeight - (d.min.y - origin.y) * scale.y;
    const ImVec4 clip = command.ClipRect; // the panel's visible area
    const float cx0 = (clip.x - origin.x) * scale.x, cx1 = (clip.z - origin.x) * scale.x;
    const float cy0 = framebufferHeight - (clip.w - origin.y) * scale.y;
    const float cy1 = framebufferHeight - (clip.y - origin.y) * scale.y;
    if (cx1 <= cx0 || cy1 <= cy0) return;

    const GLsizei width = GLsizei(x1 - x0 + 0.5f), height = GLsizei(y1 - y0 + 0.5f);
    glViewport(GLint(x0), GLint(y0), width, height);
    glEnable(GL_SCISSOR_TEST);
    glScissor(GLint(cx0), GLint(cy0), GLsizei(cx1 - cx0), GLsizei(cy1 - cy0));
    glDisable(GL_BLEND);
    const Program& p = programs_[(d.masked ? 1 : 0) + (d.seams ? 2 : 0)];
    glUseProgram(p.id);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, hatchTexture_);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, d.texture);
    glUniform1i(p.colors, 0);
    glUniform1i(p.hatch, 1); // location -1 (a program without HATCH): GL ignores it
    glUniform2f(p.cells, float(d.cols), float(d.rows));
    glUniform2f(p.halfPixel, 0.5f * float(d.cols) / float(std::max(width, 1)),
                0.5f * float(d.rows) / float(std::max(height, 1)));
    glBindVertexArray(vertexArray_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

unsigned GlHeatmaps::colormapTexture(core::ColormapId colormap) const {
    return colormapTextures_.at(std::size_t(colormap));
}

} // namespace app
