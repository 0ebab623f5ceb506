#include "platform/fonts.h"

#include "figures/figure.h" // findFigureFont
#include "text/utf8.h"

#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

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
    0x2400, 0x243F, // control pictures: "␣", the leading space of a GPT-2 token
    0x25A0, 0x25FF, // geometric shapes
    0xFFFD, 0xFFFD, // replacement character: ImGui draws it for glyphs no font has
    0,
};

// Enough for pages of Chinese (a newspaper uses about 3,000 distinct characters) while the
// atlas stays under 40 MB at 3x zoom; later characters show as U+FFFD.
constexpr std::size_t kMaxExtraGlyphs = 4000;

struct GlyphRequests {
    std::set<ImWchar> extra;   // characters beyond kGlyphRanges in the atlas (or tried)
    bool pending = false;      // extra grew since the atlas was built
    std::vector<ImWchar> main; // kGlyphRanges + extra, for DejaVu Sans
    std::vector<ImWchar> more; // extra alone, for the fallback font
};

GlyphRequests& requests() {
    static GlyphRequests instance;
    return instance;
}

bool inBaseRanges(char32_t cp) {
    for (const ImWchar* r = kGlyphRanges; r[0]; r += 2)
        if (cp >= r[0] && cp <= r[1]) return true;
    return false;
}

// ImGui reads the ranges when it builds the atlas, after loadUiFont returns: they live here.
void buildRanges(GlyphRequests& glyphs) {
    glyphs.main.assign(std::begin(kGlyphRanges), std::end(kGlyphRanges) - 1);
    glyphs.more.clear();
    for (const ImWchar cp : glyphs.extra) {
        for (auto* ranges : {&glyphs.main, &glyphs.more}) {
            ranges->push_back(cp);
            ranges->push_back(cp);
        }
    }
    glyphs.main.push_back(0);
    glyphs.more.push_back(0);
}

void addFallbackFonts(float pixelSize, const GlyphRequests& glyphs) {
    if (glyphs.extra.empty()) return;
    for (const std::string& path : findFallbackFonts()) {
        ImFontConfig config; // merged: earlier fonts' glyphs win, later ones fill the gaps
        config.MergeMode = true;
        config.OversampleH = 1;
        config.PixelSnapH = true;
        ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), pixelSize, &config,
                                                 glyphs.more.data());
    }
}

} // namespace

std::string loadUiFont(float pixelSize) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Flags |= ImFontAtlasFlags_NoBakedLines; // baked AA lines need bilinear reads
    GlyphRequests& glyphs = requests();
    buildRanges(glyphs);
    glyphs.pending = false;
    // The same DejaVu Sans the figure exporter uses ($MHA_VIZ_FONT, then the usual places).
    if (const std::string path = core::findFigureFont(); !path.empty()) {
        // Glyphs at 1:1 on whole pixels, so the atlas can be sampled nearest (renderImGui):
        // llvmpipe pays for every bilinear read, and at 1:1 they are the same texel anyway.
        ImFontConfig config;
        config.OversampleH = 1;
        config.PixelSnapH = true;
        if (io.Fonts->AddFontFromFileTTF(path.c_str(), pixelSize, &config, glyphs.main.data())) {
            addFallbackFonts(pixelSize, glyphs);
            return path;
        }
    }
    ImFontConfig config; // given a config, ImGui keeps its 3x oversampling: undo it here too
    config.SizePixels = pixelSize;
    config.OversampleH = config.OversampleV = 1;
    config.PixelSnapH = true;
    io.Fonts->AddFontDefault(&config);
    addFallbackFonts(pixelSize, glyphs);
    return "built-in";
}

void requestGlyphs(std::string_view utf8) {
    GlyphRequests& glyphs = requests();
    bool ascii = true; // the common case: nothing to look at
    for (const char c : utf8) ascii &= static_cast<unsigned char>(c) < 0x80;
    if (ascii || glyphs.extra.size() >= kMaxExtraGlyphs) return;
    for (const char32_t cp : core::decodeUtf8(utf8)) {
        if (cp > 0xFFFF || cp < 0x20 || (cp >= 0xE000 && cp <= 0xF8FF) || inBaseRanges(cp))
            continue; // beyond 16 bits or private use: drawn as U+FFFD whatever the fonts hold
        if (glyphs.extra.insert(ImWchar(cp)).second) glyphs.pending = true;
        if (glyphs.extra.size() >= kMaxExtraGlyphs) break;
    }
}

bool takeGlyphRequest() {
    return std::exchange(requests().pending, false);
}

std::vector<std::string> findFallbackFonts() {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<std::string> found;
    if (const char* custom = std::getenv("MHA_VIZ_FALLBACK_FONT"); custom && *custom) {
        if (fs::is_regular_file(custom, ec)) found.push_back(custom);
        return found;
    }
    for (const char* path : {"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", // zh, ja, ko
                             "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
                             "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"})
        if (fs::is_regular_file(path, ec)) found.push_back(path);
    return found;
}

} // namespace app
