// What the fuzz targets share: a check that stops the run with a message (libFuzzer then
// saves the input), and an independent UTF-8 validator to judge core/text/utf8.cpp against.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

// Not assert(): it must stay on in release builds, and name what failed.
#define FUZZ_CHECK(condition)                                                                      \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #condition, __FILE__,          \
                         __LINE__);                                                                \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

namespace fuzz {

// Well-formed UTF-8 as in Unicode table 3-7, written from the table rather than from
// core/text/utf8.cpp so the two can disagree.
inline bool isValidUtf8(std::string_view s) {
    std::size_t i = 0;
    auto in = [&](std::size_t k, unsigned lo, unsigned hi) {
        if (k >= s.size()) return false;
        const unsigned b = static_cast<unsigned char>(s[k]);
        return b >= lo && b <= hi;
    };
    while (i < s.size()) {
        const unsigned b = static_cast<unsigned char>(s[i]);
        if (b <= 0x7F) {
            i += 1;
        } else if (b >= 0xC2 && b <= 0xDF && in(i + 1, 0x80, 0xBF)) {
            i += 2;
        } else if (b == 0xE0 && in(i + 1, 0xA0, 0xBF) && in(i + 2, 0x80, 0xBF)) {
            i += 3;
        } else if (((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) && in(i + 1, 0x80, 0xBF) &&
                   in(i + 2, 0x80, 0xBF)) {
            i += 3;
        } else if (b == 0xED && in(i + 1, 0x80, 0x9F) && in(i + 2, 0x80, 0xBF)) {
            i += 3;
        } else if (b == 0xF0 && in(i + 1, 0x90, 0xBF) && in(i + 2, 0x80, 0xBF) &&
                   in(i + 3, 0x80, 0xBF)) {
            i += 4;
        } else if (b >= 0xF1 && b <= 0xF3 && in(i + 1, 0x80, 0xBF) && in(i + 2, 0x80, 0xBF) &&
                   in(i + 3, 0x80, 0xBF)) {
            i += 4;
        } else if (b == 0xF4 && in(i + 1, 0x80, 0x8F) && in(i + 2, 0x80, 0xBF) &&
                   in(i + 3, 0x80, 0xBF)) {
            i += 4;
        } else {
            return false;
        }
    }
    return true;
}

} // namespace fuzz
