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

} // namespace core
