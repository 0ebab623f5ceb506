// GPU side of the heatmaps: each map's cells coloured on the CPU (core::colorCells, the
// figures' colours) into an RGBA8 texture, drawn by shaders/heatmap.frag straight into the
// window while ImGui renders (a draw-list callback: no extra framebuffers, exact pixels, 512 x
// 512 maps stay cheap). One texture read per pixel: under llvmpipe a colormap lookup per pixel
// cost 2 ms of CPU a frame, colouring the cells once per change a fraction of that.
#pragma once

#include "figures/colormap.h"
#include "widgets/head_maps.h"

#include <imgui.h>

#include <array>
#include <cstdint>
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
    void beginFrame() {
        draws_.clear();
        ++frame_;
    }

    // Values of map `slot`: rows x cols, row-major, masked cells core::kMaskedCell (copied).
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
    struct Colouring { // the slot's values in one colormap and range, as a texture
        unsigned texture = 0;
        int rows = 0, cols = 0; // the texture's size
        core::ColormapId colormap = core::ColormapId::Viridis;
        float valueMin = 0, valueMax = 0;
        long long generation = -1; // the slot's values it was made from
        long long usedFrame = -1;  // drawn this frame: its texture must stay as it is
    };
    struct Slot {
        std::vector<float> values; // rows x cols, row-major; core::kMaskedCell where masked
        int rows = 0, cols = 0;
        long long generation = 0; // counts setValues calls
        bool masked = false;      // a cell is masked: drawn with the hatching program
        // Usually one; a map shown in two ranges in one frame (a per-head scale in the grid,
        // 0..1 in the pipeline) keeps one each, as both draws render after the frame is built.
        std::vector<Colouring> colourings;
    };
    struct Program { // heatmap.frag compiled with or without HATCH and SEAMS
        unsigned id = 0;
        int colors = -1, hatch = -1, cells = -1, halfPixel = -1; // uniform locations
    };
    struct Draw { // what one callback needs; lives until the next beginFrame()
        const GlHeatmaps* self = nullptr;
        unsigned texture = 0;
        bool masked = false, seams = false;
        int rows = 0, cols = 0;
        ImVec2 min, max;
    };
    unsigned colouredTexture(Slot& slot, core::ColormapId colormap, float valueMin, float valueMax);
    static Program linkProgram(std::string_view defines);
    static void renderCallback(const ImDrawList* list, const ImDrawCmd* command);
    void render(const Draw& d, const ImDrawCmd& command) const;

    std::vector<Slot> slots_;
    std::deque<Draw> draws_; // deque: pointers stay valid as draws are added
    std::vector<unsigned> colormapTextures_;
    std::array<Program, 4> programs_; // index: 1 = HATCH, 2 = SEAMS
    unsigned vertexArray_ = 0;
    unsigned hatchTexture_ = 0;
    long long frame_ = 0;
    std::vector<std::uint8_t> scratch_; // RGBA8 of the map being coloured
};

// GLSL sources embedded from shaders/ at build time.
std::string_view shaderSource(std::string_view name);

} // namespace app
