// Floating-point numbers as text and back, the shortest text that reads back as the same value
// (what JSON, CSV and SVG files hold). std::to_chars / std::from_chars where the standard
// library has them for floating point (libstdc++ 11+); the browser build's libc++ 14 has them
// for integers only, so there the text is the shortest "%.*g" that round-trips and parsing is
// strtod's, in the "C" locale every program starts in.
#pragma once

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace core {

#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
#define MHA_FLOAT_CHARCONV 0
#else
#define MHA_FLOAT_CHARCONV 1
#endif

// Writes the shortest round-tripping text of `value` into buf (32 bytes hold any); returns the
// end. Finite values only.
template <class Real>
char* writeShortest(char* buf, std::size_t size, Real value) {
#if MHA_FLOAT_CHARCONV
    return std::to_chars(buf, buf + size, value).ptr;
#else
    constexpr int kMaxDigits = sizeof(Real) == 4 ? 9 : 17;
    int length = 0;
    for (int digits = 1; digits <= kMaxDigits; ++digits) {
        length = std::snprintf(buf, size, "%.*g", digits, double(value));
        if (Real(std::strtod(buf, nullptr)) == value) break;
    }
    return buf + length;
#endif
}

// `value` with `digits` significant digits (as "%.*g": 0.1235, 1.235e-05), trailing zeros
// dropped; returns the end. Finite values only.
template <class Real>
char* writeDigits(char* buf, std::size_t size, Real value, int digits) {
#if MHA_FLOAT_CHARCONV
    return std::to_chars(buf, buf + size, value, std::chars_format::general, digits).ptr;
#else
    return buf + std::snprintf(buf, size, "%.*g", digits, double(value));
#endif
}

// A whole field as a double (no leading '+', no spaces); false when it is not one.
inline bool parseReal(std::string_view text, double& value) {
#if MHA_FLOAT_CHARCONV
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
#else
    if (text.empty() || text.front() == ' ' || text.front() == '+') return false;
    const std::string copy(text); // strtod needs the terminator
    char* end = nullptr;
    value = std::strtod(copy.c_str(), &end);
    return end == copy.c_str() + copy.size();
#endif
}

} // namespace core
