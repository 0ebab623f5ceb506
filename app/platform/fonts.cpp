#include "platform/fonts.h"

#include "figures/figure.h" // findFigureFont

#include <imgui.h>

namespace app {

namespace {

// Ranges DejaVu Sans covers that sentences in a lecture are likely to use.
const ImWchar kGlyphRanges[] = {
    0x0020, 0x024F, // Latin, Latin-1, Latin Extended-A/B
    0x0250, 0x036F, // IPA, spacing modifiers, combining marks
    0x0370, 0x03FF, // Greek
    0x0400, 0x052F, // Cyrillic
    0x0590, 0x05FF, // Hebrew
    0x0600, 0x06FF, // Arabic
    0x1E00, 0x1FFF, // Latin Extended Additional, Greek Extended
    0x2000, 0x209F, // punctuation, super- and subscripts
    0x20A0, 0x20CF, // currency
    0x2100, 0x22FF, // letterlike, arrows, mathematical operators
    0x25A0, 0x25FF, // geometric shapes
    0xFFFD, 0xFFFD, // replacement character: ImGui draws it for glyphs no font has
    0,
};

} // namespace

std::string loadUiFont(float pixelSize) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Flags |= ImFontAtlasFlags_NoBakedLines; // baked AA lines need bilinear reads
    // The same DejaVu Sans the figure exporter uses ($MHA_VIZ_FONT, then the usual places).
    if (const std::string path = core::findFigureFont(); !path.empty()) {
        // Glyphs at 1:1 on whole pixels, so the atlas can be sampled nearest (renderImGui):
        // llvmpipe pays for every bilinear read, and at 1:1 they are the same texel anyway.
        ImFontConfig config;
        config.OversampleH = 1;
        config.PixelSnapH = true;
        if (io.Fonts->AddFontFromFileTTF(path.c_str(), pixelSize, &config, kGlyphRanges))
            return path;
    }
    ImFontConfig config; // given a config, ImGui keeps its 3x oversampling: undo it here too
    config.SizePixels = pixelSize;
    config.OversampleH = config.OversampleV = 1;
    config.PixelSnapH = true;
    io.Fonts->AddFontDefault(&config);
    return "built-in";
}

} // namespace app
