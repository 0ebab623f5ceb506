#include "figures/svg_text.h"

#include "text/utf8.h"

#include <cstdio>
#include <ostream>

namespace core::svg {

std::string xmlEscape(const std::string& text) {
    std::string out;
    for (char c : sanitizeUtf8(text)) { // a stray byte would make the whole file unreadable
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            // XML 1.0 forbids most control characters even escaped.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
        }
    }
    return out;
}

std::string hex(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

void text(std::ostream& out, const PlacedText& t, float px, Rgb color, const char* anchor,
          const TextMetrics& m) {
    if (t.text.empty()) return;
    out << "<text x=\"" << num(t.x) << "\" y=\"" << num(t.y + m.ascent(px)) << "\" font-size=\""
        << num(px * kSvgEmPerPx) << "\" fill=\"" << hex(color) << "\"";
    if (anchor) out << " text-anchor=\"" << anchor << "\"";
    out << ">" << xmlEscape(t.text) << "</text>\n";
}

} // namespace core::svg
