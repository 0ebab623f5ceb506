// PNG rasteriser for attention-map figures: cells, token labels, colour bar and caption drawn
// into an RGBA8 image with stb_truetype (implementation in libstb), no OpenGL, no display.
//
// Every layout dimension is computed once in scale-1 pixels (text measured at the scale-1
// font sizes) and then multiplied by `scale`, so a scale-2 image is exactly twice as wide and
// tall as the scale-1 one; only the glyphs are rendered at the larger size.
#include "figure.h"

#include "utf8.h"

#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

namespace core {

namespace {

// ---- font ------------------------------------------------------------------------------------

struct Font {
    std::vector<unsigned char> bytes;
    stbtt_fontinfo info{};
    float ascentUnits = 0, descentUnits = 0; // font units; descent is negative
    bool hasReplacement = false;
};

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

// Text as a coverage mask: `pad` px left, baseline at `baseline`, one line box tall.
struct TextMask {
    int width = 0, height = 0, pad = 1;
    std::vector<std::uint8_t> alpha;
};

TextMask renderText(const Font& font, const std::u32string& text, float px) {
    const float sc = stbtt_ScaleForPixelHeight(&font.info, px);
    TextMask mask;
    const int baseline = int(std::ceil(sc * font.ascentUnits));
    mask.height = baseline + int(std::ceil(-sc * font.descentUnits)) + 1;
    mask.width = int(std::ceil(textWidth(font, text, px))) + 2 * mask.pad + 2;
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

// ---- canvas ----------------------------------------------------------------------------------

struct Canvas {
    Image image;
    int scale = 1;

    Canvas(int width, int height, int s) : scale(s) {
        image.width = width * s;
        image.height = height * s;
        image.rgba.assign(std::size_t(image.width) * image.height * 4, 255);
    }

    void put(int x, int y, Rgb c) {
        if (x < 0 || y < 0 || x >= image.width || y >= image.height) return;
        std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
        p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
    }

    void blend(int x, int y, Rgb c, int alpha) {
        if (alpha <= 0 || x < 0 || y < 0 || x >= image.width || y >= image.height) return;
        std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
        const int inv = 255 - alpha;
        p[0] = std::uint8_t((c.r * alpha + p[0] * inv + 127) / 255);
        p[1] = std::uint8_t((c.g * alpha + p[1] * inv + 127) / 255);
        p[2] = std::uint8_t((c.b * alpha + p[2] * inv + 127) / 255);
        p[3] = 255;
    }

    // Rectangle in device pixels.
    void fill(int x0, int y0, int w, int h, Rgb c) {
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x) put(x, y, c);
    }

    // Horizontal mask with its top-left corner at (x, y), device pixels.
    void drawMask(const TextMask& mask, int x, int y, Rgb c) {
        for (int my = 0; my < mask.height; ++my)
            for (int mx = 0; mx < mask.width; ++mx)
                blend(x + mx, y + my, c, mask.alpha[std::size_t(my) * mask.width + mx]);
    }

    // Mask turned 90° counter-clockwise (reads bottom to top): glyph tops face left, the
    // start of the text at the bottom. (x, y) is the top-left of the rotated box.
    void drawMaskRotated(const TextMask& mask, int x, int y, Rgb c) {
        for (int my = 0; my < mask.height; ++my)
            for (int mx = 0; mx < mask.width; ++mx)
                blend(x + my, y + (mask.width - 1 - mx), c,
                      mask.alpha[std::size_t(my) * mask.width + mx]);
    }
};

// ---- layout (scale-1 pixels) -----------------------------------------------------------------

constexpr int kMargin = 16;
constexpr float kTitlePx = 15, kLabelPx = 12, kTickPx = 11, kCaptionPx = 12;
constexpr int kTitleGap = 6; // title -> column labels
constexpr int kLabelGap = 5; // labels -> grid
constexpr int kBarGap = 14;  // grid -> colour bar
constexpr int kBarHeight = 12;
constexpr int kTickLength = 3;
constexpr int kCaptionGap = 10; // tick labels -> caption
constexpr int kMinBarWidth = 180;
constexpr int kMaxGrid = 640, kMaxCell = 22, kMinCell = 2;
constexpr int kSeamMinCell = 10;
constexpr int kHatchPeriod = 6;
constexpr std::size_t kMaxLabelChars = 14;
constexpr int kCaptionMinWidth = 520; // captions may widen a narrow figure up to this width

const Rgb kTitleColor{40, 40, 45}, kLabelColor{50, 50, 55}, kTickColor{70, 70, 75},
    kCaptionColor{105, 105, 110}, kSeamColor{250, 250, 252}, kMaskedColor{205, 205, 208},
    kHatchColor{140, 140, 145}, kBarBorder{150, 150, 155};

int ceilInt(float v) {
    return int(std::ceil(v - 1e-4f));
}

struct Label {
    std::u32string text;
    int width = 0; // scale-1 px
};

struct PanelLayout {
    int width = 0, height = 0; // without captions: up to the tick labels + bottom margin
    std::u32string title;
    int cell = 0, rowStep = 1, colStep = 1;
    int titleTop = 0, gridLeft = 0, gridTop = 0, gridW = 0, gridH = 0;
    int barTop = 0, barW = 0, tickTop = 0, bottom = 0; // bottom: end of tick labels
    int labelLine = 0, tickLine = 0;
    std::vector<Label> rowLabels, colLabels, tickLabels;
};

int cellSize(int rows, int cols) {
    const int n = std::max(1, std::max(rows, cols));
    return std::clamp(kMaxGrid / n, kMinCell, kMaxCell);
}

PanelLayout layoutPanel(const Font& font, const HeatmapFigure& f) {
    PanelLayout L;
    L.cell = cellSize(f.rows, f.cols);
    L.gridW = L.cell * f.cols;
    L.gridH = L.cell * f.rows;
    L.labelLine = ceilInt(lineHeight(font, kLabelPx));
    L.tickLine = ceilInt(lineHeight(font, kTickPx));
    // One label every k rows/columns when cells are smaller than the font.
    const int step = L.cell >= int(kLabelPx) ? 1 : ceilInt(kLabelPx / float(L.cell));
    L.rowStep = L.colStep = step;

    int rowLabelW = 0, colLabelH = 0;
    for (int r = 0; r < f.rows; ++r) {
        Label label;
        if (r % L.rowStep == 0 && r < int(f.rowLabels.size())) {
            label.text = cutToCodePoints(f.rowLabels[std::size_t(r)], kMaxLabelChars);
            label.width = ceilInt(textWidth(font, label.text, kLabelPx));
        }
        rowLabelW = std::max(rowLabelW, label.width);
        L.rowLabels.push_back(std::move(label));
    }
    for (int c = 0; c < f.cols; ++c) {
        Label label;
        if (c % L.colStep == 0 && c < int(f.colLabels.size())) {
            label.text = cutToCodePoints(f.colLabels[std::size_t(c)], kMaxLabelChars);
            label.width = ceilInt(textWidth(font, label.text, kLabelPx));
        }
        colLabelH = std::max(colLabelH, label.width);
        L.colLabels.push_back(std::move(label));
    }
    const float valueMax = f.valueMax > 0 && std::isfinite(f.valueMax) ? f.valueMax : 1.0f;
    for (int i = 0; i <= 4; ++i) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.2f", double(valueMax * float(i) / 4.0f));
        Label label{decodeUtf8(buffer), 0};
        label.width = ceilInt(textWidth(font, label.text, kTickPx));
        L.tickLabels.push_back(std::move(label));
    }

    L.title = cutToWidth(font, f.title, kTitlePx, float(kMaxGrid + 200));
    const int titleW = ceilInt(textWidth(font, L.title, kTitlePx));
    const int titleH = ceilInt(lineHeight(font, kTitlePx));

    L.titleTop = kMargin;
    const int labelsLeftRoom = rowLabelW > 0 ? rowLabelW + kLabelGap : 0;
    L.gridLeft = kMargin + std::max(labelsLeftRoom, L.tickLabels.front().width / 2 + 1);
    L.gridTop = L.titleTop + titleH + kTitleGap + (colLabelH > 0 ? colLabelH + kLabelGap : 0);
    L.barTop = L.gridTop + L.gridH + kBarGap;
    L.barW = std::max(L.gridW, kMinBarWidth);
    L.tickTop = L.barTop + kBarHeight + kTickLength + 1;
    L.bottom = L.tickTop + L.tickLine;

    const int right =
        std::max({L.gridLeft + L.gridW, L.gridLeft + L.barW + L.tickLabels.back().width / 2 + 1,
                  kMargin + titleW});
    L.width = right + kMargin;
    L.height = L.bottom + kMargin;
    return L;
}

// Caption lines cut to fit `width` (scale-1 figure width); may widen a narrow figure first.
std::vector<std::u32string> layoutCaption(const Font& font, const std::vector<std::string>& lines,
                                          int& width) {
    int widest = 0;
    for (const std::string& line : lines)
        widest = std::max(widest, ceilInt(textWidth(font, line, kCaptionPx)));
    if (widest + 2 * kMargin > width)
        width = std::max(width, std::min(widest + 2 * kMargin, kCaptionMinWidth));
    std::vector<std::u32string> cut;
    for (const std::string& line : lines)
        cut.push_back(cutToWidth(font, line, kCaptionPx, float(width - 2 * kMargin)));
    return cut;
}

int captionHeight(const Font& font, std::size_t lineCount) {
    if (lineCount == 0) return 0;
    return kCaptionGap + int(lineCount) * (ceilInt(lineHeight(font, kCaptionPx)) + 2);
}

// ---- drawing ---------------------------------------------------------------------------------

void drawPanel(Canvas& canvas, const Font& font, const HeatmapFigure& f, const PanelLayout& L,
               int originX, int originY) {
    const int s = canvas.scale;
    const auto X = [&](int v) { return (originX + v) * s; };
    const auto Y = [&](int v) { return (originY + v) * s; };

    // Title.
    canvas.drawMask(renderText(font, L.title, kTitlePx * float(s)), X(kMargin) - s, Y(L.titleTop),
                    kTitleColor);

    // Cells.
    const float valueMax = f.valueMax > 0 && std::isfinite(f.valueMax) ? f.valueMax : 1.0f;
    const int cellPx = L.cell * s;
    const int seam = L.cell >= kSeamMinCell ? s : 0;
    const int period = kHatchPeriod * s;
    if (seam) canvas.fill(X(L.gridLeft), Y(L.gridTop), L.gridW * s, L.gridH * s, kSeamColor);
    for (int r = 0; r < f.rows; ++r) {
        for (int c = 0; c < f.cols; ++c) {
            const float v = f.values[std::size_t(r) * f.cols + c];
            const int x0 = X(L.gridLeft) + c * cellPx + (c > 0 ? seam : 0);
            const int y0 = Y(L.gridTop) + r * cellPx + (r > 0 ? seam : 0);
            const int x1 = X(L.gridLeft) + (c + 1) * cellPx;
            const int y1 = Y(L.gridTop) + (r + 1) * cellPx;
            if (v < 0) { // masked: grey with diagonal hatching, continuous across cells
                for (int y = y0; y < y1; ++y)
                    for (int x = x0; x < x1; ++x)
                        canvas.put(x, y,
                                   (x + y) % period < std::max(1, s) ? kHatchColor : kMaskedColor);
            } else {
                const float t = std::isfinite(v) ? v / valueMax : 0.0f;
                canvas.fill(x0, y0, x1 - x0, y1 - y0, sampleColormap(f.colormap, t));
            }
        }
    }

    // Row labels: right-aligned, centred on their row.
    const int labelLinePx = ceilInt(lineHeight(font, kLabelPx * float(s)));
    for (int r = 0; r < f.rows; ++r) {
        const Label& label = L.rowLabels[std::size_t(r)];
        if (label.text.empty()) continue;
        const TextMask mask = renderText(font, label.text, kLabelPx * float(s));
        const int w = ceilInt(textWidth(font, label.text, kLabelPx * float(s)));
        const int right = X(L.gridLeft - kLabelGap);
        const int centre = Y(L.gridTop) + r * cellPx + cellPx / 2;
        canvas.drawMask(mask, right - w - mask.pad, centre - labelLinePx / 2, kLabelColor);
    }
    // Column labels: rotated, reading bottom to top, starting just above the grid.
    for (int c = 0; c < f.cols; ++c) {
        const Label& label = L.colLabels[std::size_t(c)];
        if (label.text.empty()) continue;
        const TextMask mask = renderText(font, label.text, kLabelPx * float(s));
        const int bottom = Y(L.gridTop - kLabelGap); // text start (mask x = pad) lands here
        const int centre = X(L.gridLeft) + c * cellPx + cellPx / 2;
        canvas.drawMaskRotated(mask, centre - labelLinePx / 2, bottom - (mask.width - 1 - mask.pad),
                               kLabelColor);
    }

    // Colour bar with a thin border, ticks and labels.
    const int bx = X(L.gridLeft), by = Y(L.barTop), bw = L.barW * s, bh = kBarHeight * s;
    canvas.fill(bx - s, by - s, bw + 2 * s, bh + 2 * s, kBarBorder);
    for (int x = 0; x < bw; ++x) {
        const float t = bw > 1 ? float(x) / float(bw - 1) : 0.0f;
        canvas.fill(bx + x, by, 1, bh, sampleColormap(f.colormap, t));
    }
    for (int i = 0; i <= 4; ++i) {
        const int tx = bx + std::min(bw - 1, (bw * i) / 4);
        canvas.fill(tx - (s - 1) / 2, by + bh + s, s, kTickLength * s, kTickColor);
        const Label& label = L.tickLabels[std::size_t(i)];
        const TextMask mask = renderText(font, label.text, kTickPx * float(s));
        const int w = ceilInt(textWidth(font, label.text, kTickPx * float(s)));
        canvas.drawMask(mask, tx - w / 2 - mask.pad, Y(L.tickTop), kTickColor);
    }
}

void drawCaption(Canvas& canvas, const Font& font, const std::vector<std::u32string>& lines,
                 int top) {
    const int s = canvas.scale;
    const int line = ceilInt(lineHeight(font, kCaptionPx)) + 2;
    int y = top + kCaptionGap;
    for (const std::u32string& text : lines) {
        canvas.drawMask(renderText(font, text, kCaptionPx * float(s)), kMargin * s - s, y * s,
                        kCaptionColor);
        y += line;
    }
}

std::string checkFigure(const HeatmapFigure& f) {
    if (f.rows <= 0 || f.cols <= 0) return "figure has no cells";
    if (f.values.size() != std::size_t(f.rows) * std::size_t(f.cols))
        return "figure values do not match rows x cols";
    return {};
}

std::shared_ptr<const Font> figureFont(std::string& error) {
    const std::string path = findFigureFont();
    if (path.empty()) {
        error = "no font for the PNG figure: DejaVuSans.ttf not found (set MHA_VIZ_FONT)";
        return nullptr;
    }
    auto font = loadFont(path);
    if (!font) error = "cannot read the font " + path;
    return font;
}

bool checkScale(int scale, std::string& error) {
    if (scale >= 1 && scale <= 4) return true;
    error = "export scale must be 1 to 4";
    return false;
}

} // namespace

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

Image heatmapPng(const HeatmapFigure& figure, int scale, std::string& error) {
    error.clear();
    if (!checkScale(scale, error)) return {};
    if (std::string problem = checkFigure(figure); !problem.empty()) {
        error = problem;
        return {};
    }
    const auto font = figureFont(error);
    if (!font) return {};

    const PanelLayout layout = layoutPanel(*font, figure);
    int width = layout.width;
    const std::vector<std::u32string> caption = layoutCaption(*font, figure.captionLines, width);
    const int height = layout.bottom + captionHeight(*font, caption.size()) + kMargin;
    Canvas canvas(width, height, scale);
    drawPanel(canvas, *font, figure, layout, 0, 0);
    drawCaption(canvas, *font, caption, layout.bottom);
    return std::move(canvas.image);
}

Image gridPng(const GridFigure& figure, int scale, std::string& error) {
    error.clear();
    if (!checkScale(scale, error)) return {};
    if (figure.panels.empty()) {
        error = "grid figure has no panels";
        return {};
    }
    for (const HeatmapFigure& panel : figure.panels)
        if (std::string problem = checkFigure(panel); !problem.empty()) {
            error = problem;
            return {};
        }
    const auto font = figureFont(error);
    if (!font) return {};

    std::vector<PanelLayout> layouts;
    int panelW = 0, panelH = 0;
    for (const HeatmapFigure& panel : figure.panels) {
        layouts.push_back(layoutPanel(*font, panel));
        panelW = std::max(panelW, layouts.back().width);
        panelH = std::max(panelH, layouts.back().height);
    }
    const int count = int(figure.panels.size());
    const int columns = std::clamp(figure.columns, 1, count);
    const int rows = (count + columns - 1) / columns;
    int width = columns * panelW;
    const int gridBottom = rows * panelH - kMargin; // last panel's margin doubles as caption's
    const std::vector<std::u32string> caption = layoutCaption(*font, figure.captionLines, width);
    const int height = gridBottom + captionHeight(*font, caption.size()) + kMargin;

    Canvas canvas(width, height, scale);
    for (int i = 0; i < count; ++i)
        drawPanel(canvas, *font, figure.panels[std::size_t(i)], layouts[std::size_t(i)],
                  (i % columns) * panelW, (i / columns) * panelH);
    drawCaption(canvas, *font, caption, gridBottom);
    return std::move(canvas.image);
}

} // namespace core
