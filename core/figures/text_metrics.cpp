// The font-free text estimate of text_metrics.h.
#include "figures/text_metrics.h"

#include "text/utf8.h"

namespace core {

namespace {

// DejaVu Sans advances of ASCII 32..126 in thousandths of the pixel height (ascent - descent,
// the size stb_truetype and the PNG use), read from the font once; the rest count as 600.
constexpr short kAdvances[95] = {
    273, 344, 395, 720, 547, 816, 670, 236, 335, 335, 430, 720, 273, 310, 273, 289, 547, 547, 547,
    547, 547, 547, 547, 547, 547, 547, 289, 289, 720, 720, 720, 456, 859, 588, 589, 600, 661, 543,
    494, 666, 646, 253, 253, 563, 479, 741, 643, 676, 518, 676, 597, 545, 525, 629, 588, 849, 589,
    525, 589, 335, 289, 335, 720, 430, 430, 526, 545, 472, 545, 529, 302, 545, 544, 239, 239, 497,
    239, 837, 544, 526, 545, 545, 353, 448, 337, 544, 508, 703, 508, 508, 451, 547, 289, 547, 720};

float advance(char32_t cp) {
    return cp >= 32 && cp < 127 ? float(kAdvances[cp - 32]) / 1000 : 0.6f;
}

} // namespace

TextMetrics estimatedMetrics() {
    TextMetrics m;
    m.width = [](const std::string& s, float px) {
        float width = 0;
        for (char32_t cp : decodeUtf8(s)) width += advance(cp) * px;
        return width;
    };
    m.lineHeight = [](float px) { return px; };
    m.ascent = [](float px) { return 0.797f * px; }; // 1901 of 2384 units
    m.cut = [](const std::string& s, float px, float maxWidth) {
        const std::u32string text = decodeUtf8(s);
        float width = 0;
        std::size_t fits = 0;
        while (fits < text.size() && width + advance(text[fits]) * px <= maxWidth)
            width += advance(text[fits++]) * px;
        std::string out;
        if (fits == text.size()) {
            for (char32_t cp : text) appendUtf8(out, cp);
            return out;
        }
        // Make room for the ellipsis (about 1 em), as raster::cutToWidth does.
        while (fits > 0 && width + px > maxWidth) width -= advance(text[--fits]) * px;
        for (std::size_t i = 0; i < fits; ++i) appendUtf8(out, text[i]);
        return out + "\u2026";
    };
    return m;
}

} // namespace core
