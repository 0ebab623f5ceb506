#include "figures/figure_raster.h"

#include "figures/figure.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

namespace core {

namespace raster {

namespace {

// Each font file is read and parsed once per process (per path, so $MHA_VIZ_FONT can change).
std::shared_ptr<const Font> loadFont(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const Font>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(path); it != cache.end()) return it->second;

    auto font = std::make_shared<Font>();
    std::ifstream in(path, std::ios::binary);
    if (!in) return nullptr;
    font->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (font->bytes.empty()) return nullptr;
    const int offset = stbtt_GetFontOffsetForIndex(font->bytes.data(), 0);
    if (offset < 0 || !stbtt_InitFont(&font->info, font->bytes.data(), offset)) return nullptr;
    int ascent = 0, descent = 0, lineGap = 0;
    stbtt_GetFontVMetrics(&font->info, &ascent, &descent, &lineGap);
    font->ascentUnits = float(ascent);
    font->descentUnits = float(descent);
    font->hasReplacement = stbtt_FindGlyphIndex(&font->info, int(kReplacementChar)) != 0;
    cache.emplace(path, font);
    return font;
}

// The codepoint actually drawn: U+FFFD for glyphs the font lacks (when it has U+FFFD).
int drawnCodepoint(const Font& font, char32_t cp) {
    if (stbtt_FindGlyphIndex(&font.info, int(cp)) != 0) return int(cp);
    return font.hasReplacement ? int(kReplacementChar) : int(cp);
}

} // namespace

float textWidth(const Font& font, const std::u32string& text, float px) {
    const float sc = stbtt_ScaleForPixelHeight(&font.info, px);
    float x = 0;
    int prev = 0;
    for (char32_t raw : text) {
        const int cp = drawnCodepoint(font, raw);
        if (prev) x += sc * float(stbtt_GetCodepointKernAdvance(&font.info, prev, cp));
        int advance = 0, lsb = 0;
        stbtt_GetCodepointHMetrics(&font.info, cp, &advance, &lsb);
        x += sc * float(advance);
        prev = cp;
    }
    return x;
}

float textWidth(const Font& font, const std::string& utf8, float px) {
    return textWidth(font, decodeUtf8(utf8), px);
}

// Line box height (ascent - descent) in pixels.
float lineHeight(const Font& font, float px) {
    return stbtt_ScaleForPixelHeight(&font.info, px) * (font.ascentUnits - font.descentUnits);
}

int textMaskHeight(const Font& font, float px) {
    const float sc = stbtt_ScaleForPixelHeight(&font.info, px);
    return int(std::ceil(sc * font.ascentUnits)) + int(std::ceil(-sc * font.descentUnits)) + 1;
}

int textMaskWidth(const Font& font, const std::u32string& text, float px) {
    return int(std::ceil(textWidth(font, text, px))) + 2 * TextMask{}.pad + 2;
}

TextMask renderText(const Font& font, const std::u32string& text, float px) {
    const float sc = stbtt_ScaleForPixelHeight(&font.info, px);
    TextMask mask;
    const int baseline = int(std::ceil(sc * font.ascentUnits));
    mask.height = textMaskHeight(font, px);
    mask.width = textMaskWidth(font, text, px);
    mask.alpha.assign(std::size_t(mask.width) * mask.height, 0);
    float x = float(mask.pad);
    int prev = 0;
    for (char32_t raw : text) {
        const int cp = drawnCodepoint(font, raw);
        if (prev) x += sc * float(stbtt_GetCodepointKernAdvance(&font.info, prev, cp));
        const float ix = std::floor(x);
        const float shift = x - ix;
        int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        stbtt_GetCodepointBitmapBoxSubpixel(&font.info, cp, sc, sc, shift, 0, &x0, &y0, &x1, &y1);
        const int gw = x1 - x0, gh = y1 - y0;
        if (gw > 0 && gh > 0) {
            std::vector<unsigned char> glyph(std::size_t(gw) * gh, 0);
            stbtt_MakeCodepointBitmapSubpixel(&font.info, glyph.data(), gw, gh, gw, sc, sc, shift,
                                              0, cp);
            for (int gy = 0; gy < gh; ++gy) {
                const int my = baseline + y0 + gy;
                if (my < 0 || my >= mask.height) continue;
                for (int gx = 0; gx < gw; ++gx) {
                    const int mx = int(ix) + x0 + gx;
                    if (mx < 0 || mx >= mask.width) continue;
                    std::uint8_t& dst = mask.alpha[std::size_t(my) * mask.width + mx];
                    dst = std::max(dst, glyph[std::size_t(gy) * gw + gx]);
                }
            }
        }
        int advance = 0, lsb = 0;
        stbtt_GetCodepointHMetrics(&font.info, cp, &advance, &lsb);
        x += sc * float(advance);
        prev = cp;
    }
    return mask;
}

// Cuts text to at most maxCodePoints, the last one becoming an ellipsis.
std::u32string cutToCodePoints(const std::string& utf8, std::size_t maxCodePoints) {
    std::u32string text = decodeUtf8(utf8);
    if (text.size() > maxCodePoints && maxCodePoints > 0) {
        text.resize(maxCodePoints - 1);
        text.push_back(U'\u2026');
    }
    return text;
}

// Cuts text (with an ellipsis) until it is at most maxWidth px wide.
std::u32string cutToWidth(const Font& font, const std::string& utf8, float px, float maxWidth) {
    std::u32string text = decodeUtf8(utf8);
    if (textWidth(font, text, px) <= maxWidth) return text;
    while (!text.empty()) {
        text.pop_back();
        std::u32string candidate = text + U'\u2026';
        if (textWidth(font, candidate, px) <= maxWidth) return candidate;
    }
    return U"\u2026";
}

TextMetrics fontMetrics(const Font& font) {
    TextMetrics m;
    m.width = [&font](const std::string& s, float px) { return textWidth(font, s, px); };
    m.lineHeight = [&font](float px) { return lineHeight(font, px); };
    m.ascent = [&font](float px) {
        return stbtt_ScaleForPixelHeight(&font.info, px) * font.ascentUnits;
    };
    m.cut = [&font](const std::string& s, float px, float maxWidth) {
        std::string out;
        for (char32_t cp : cutToWidth(font, s, px, maxWidth)) appendUtf8(out, cp);
        return out;
    };
    return m;
}

TextMetrics figureFontMetricsOrEstimate() {
    std::shared_ptr<const Font> font;
    try {
        font = figureFont();
    } catch (const std::runtime_error&) {
        return estimatedMetrics();
    }
    TextMetrics m = fontMetrics(*font);
    // Each function holds the font, so the references inside stay valid.
    m.width = [font, f = m.width](const std::string& s, float px) { return f(s, px); };
    m.lineHeight = [font, f = m.lineHeight](float px) { return f(px); };
    m.ascent = [font, f = m.ascent](float px) { return f(px); };
    m.cut = [font, f = m.cut](const std::string& s, float px, float w) { return f(s, px, w); };
    return m;
}

void drawText(Canvas& canvas, const Font& font, const PlacedText& t, float px, Rgb color,
              Anchor anchor) {
    const int s = canvas.scale;
    const float devicePx = px * float(s);
    const int top = int(std::lround(t.y * float(s)));
    if (t.text.empty() || !canvas.touchesRows(top, textMaskHeight(font, devicePx))) return;
    const std::u32string text = decodeUtf8(t.text);
    const TextMask mask = renderText(font, text, devicePx);
    const float w = textWidth(font, text, devicePx);
    const float shift = anchor == Anchor::Left ? 0 : anchor == Anchor::Centre ? w / 2 : w;
    canvas.drawMask(mask, int(std::lround(t.x * float(s) - shift)) - mask.pad, top, color);
}

int ceilInt(float v) {
    return int(std::ceil(v - 1e-4f));
}

std::shared_ptr<const Font> figureFont() {
    const std::string path = findFigureFont();
    if (path.empty())
        throw std::runtime_error(
            "no font for the PNG figure: DejaVuSans.ttf not found (set MHA_VIZ_FONT)");
    auto font = loadFont(path);
    if (!font) throw std::runtime_error("cannot read the font " + path);
    return font;
}

void checkScale(int scale) {
    if (scale < 1 || scale > 4) throw std::invalid_argument("export scale must be 1 to 4");
}

} // namespace raster

std::string findFigureFont() {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* custom = std::getenv("MHA_VIZ_FONT"); custom && *custom)
        if (fs::is_regular_file(custom, ec)) return custom;
    std::vector<fs::path> paths;
    for (const char* dir :
         {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF", "/usr/share/fonts/dejavu",
          "/usr/local/share/fonts", "/usr/share/fonts/dejavu-sans-fonts",
          "/opt/homebrew/share/fonts", "/Library/Fonts"})
        paths.push_back(fs::path(dir) / "DejaVuSans.ttf");
    if (const char* home = std::getenv("HOME"); home && *home) {
        paths.push_back(fs::path(home) / ".local/share/fonts/DejaVuSans.ttf");
        paths.push_back(fs::path(home) / ".fonts/DejaVuSans.ttf");
    }
    for (const fs::path& path : paths)
        if (fs::is_regular_file(path, ec)) return path.string();
    return {};
}

} // namespace core
