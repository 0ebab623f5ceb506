// GPU side of the heatmaps: one R32F value texture per map, coloured by
// shaders/heatmap.frag straight into the window while ImGui renders (a draw-list
// callback: no extra framebuffers, exact pixels, 512 x 512 maps stay cheap).
#pragma once

#include "figures/colormap.h"
#include "widgets/head_maps.h"

#include <imgui.h>

#include <array>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace app {

class GlHeatmaps {
  public:
    // Compiles the shaders and uploads the colormap tables. Needs a current GL 3.3 context.
    // Throws std::runtime_error with the shader compiler's message.
    void init();
    void shutdown();

    // Call once per frame before any draw(): forgets the previous frame's draws.
    void beginFrame() { draws_.clear(); }

    // Values of map `slot`: rows x cols, row-major, masked cells < 0.
    void setValues(int slot, const float* values, int rows, int cols);

    // Frees the textures of slots >= count (after H went down).
    void keepSlots(int count);

    // Queues map `slot` into `drawList`, filling [min, max] on screen; `seams`: a darker pixel
    // line along every inner cell border.
    void draw(ImDrawList* drawList, int slot, ImVec2 min, ImVec2 max, core::ColormapId colormap,
              float valueMin, float valueMax, bool seams = false);

    // 256 x 1 texture of a colormap, for colour bars.
    unsigned colormapTexture(core::ColormapId colormap) const;

    HeadMaps maps; // what the slots hold: head h in slot h, then the derived maps

  private:
    struct Slot {
        unsigned valueTexture = 0;
        int rows = 0, cols = 0;
        bool masked = false; // a cell is masked: drawn with the hatching program
    };
    struct Program { // heatmap.frag compiled with or without HATCH and SEAMS
        unsigned id = 0;
        int values = -1, colormap = -1, range = -1, hatch = -1, cells = -1,
            halfPixel = -1; // uniform locations
    };
    struct Draw { // what one callback needs; lives until the next beginFrame()
        const GlHeatmaps* self = nullptr;
        unsigned valueTexture = 0, colormapTexture = 0;
        bool masked = false, seams = false;
        int rows = 0, cols = 0;
        ImVec2 min, max;
        float valueMin = 0, valueMax = 1;
    };
    static Program linkProgram(std::string_view defines);
    static void renderCallback(const ImDrawList* list, const ImDrawCmd* command);
    void render(const Draw& d, const ImDrawCmd& command) const;

    std::vector<Slot> slots_;
    std::deque<Draw> draws_; // deque: pointers stay valid as draws are added
    std::vector<unsigned> colormapTextures_;
    std::array<Program, 4> programs_; // index: 1 = HATCH, 2 = SEAMS
    unsigned vertexArray_ = 0;
    unsigned hatchTexture_ = 0;
};

// GLSL sources embedded from shaders/ at build time.
std::string_view shaderSource(std::string_view name);

} // namespace app
