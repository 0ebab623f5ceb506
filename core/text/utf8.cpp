#include "text/utf8.h"

namespace core {

std::u32string decodeUtf8(std::string_view bytes) {
    std::u32string out;
    out.reserve(bytes.size());
    const std::size_t n = bytes.size();
    std::size_t i = 0;
    while (i < n) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        ++i;
        if (lead < 0x80) {
            out.push_back(lead);
            continue;
        }

        // The allowed range of the first continuation byte depends on the lead byte; narrowing
        // it here rejects overlongs, surrogates and > U+10FFFF at the earliest byte, which is
        // exactly what the maximal-subpart rule requires.
        std::size_t needed = 0;
        char32_t cp = 0;
        unsigned char low = 0x80;
        unsigned char high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            needed = 1;
            cp = lead & 0x1F;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            needed = 2;
            cp = lead & 0x0F;
            if (lead == 0xE0) {
                low = 0xA0; // below would be overlong
            } else if (lead == 0xED) {
                high = 0x9F; // above would be a surrogate
            }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            needed = 3;
            cp = lead & 0x07;
            if (lead == 0xF0) {
                low = 0x90; // below would be overlong
            } else if (lead == 0xF4) {
                high = 0x8F; // above would exceed U+10FFFF
            }
        } else {
            // Stray continuation byte, C0/C1 (always overlong) or F5-FF (never valid).
            out.push_back(kReplacementChar);
            continue;
        }

        bool complete = true;
        for (std::size_t k = 0; k < needed; ++k) {
            if (i >= n) {
                complete = false;
                break;
            }
            const auto b = static_cast<unsigned char>(bytes[i]);
            if (b < low || b > high) {
                // Leave the offending byte unconsumed: it may start the next sequence.
                complete = false;
                break;
            }
            cp = (cp << 6) | (b & 0x3F);
            ++i;
            low = 0x80;
            high = 0xBF;
        }
        out.push_back(complete ? cp : kReplacementChar);
    }
    return out;
}

void appendUtf8(std::string& out, char32_t cp) {
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
        cp = kReplacementChar;
    }
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string sanitizeUtf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (char32_t cp : decodeUtf8(bytes)) {
        appendUtf8(out, cp);
    }
    return out;
}

std::size_t countCodePoints(std::string_view validUtf8) {
    std::size_t count = 0;
    for (char c : validUtf8) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            ++count;
        }
    }
    return count;
}

// The length of the well-formed UTF-8 character at s[i] (Unicode Table 3-7), 0 if ill-formed.
std::size_t utf8Length(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned b = at(i);
    if (b < 0x80) return 1;
    std::size_t length;
    unsigned low = 0x80, high = 0xBF; // the second byte's range
    if (b >= 0xC2 && b <= 0xDF)
        length = 2;
    else if (b >= 0xE0 && b <= 0xEF)
        length = 3, low = b == 0xE0 ? 0xA0 : 0x80, high = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4)
        length = 4, low = b == 0xF0 ? 0x90 : 0x80, high = b == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (i + length > s.size() || at(i + 1) < low || at(i + 1) > high) return 0;
    for (std::size_t k = i + 2; k < i + length; ++k)
        if (at(k) < 0x80 || at(k) > 0xBF) return 0;
    return length;
}

char32_t codePointAt(std::string_view s, std::size_t i, std::size_t length) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    if (length == 1) return at(i);
    char32_t cp = at(i) & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (at(i + k) & 0x3F);
    return cp;
}

std::size_t firstInvalidUtf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t length = utf8Length(s, i);
        if (length == 0) return i;
        i += length;
    }
    return std::string_view::npos;
}

} // namespace core
