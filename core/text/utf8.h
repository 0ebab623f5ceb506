#pragma once

// Minimal UTF-8 helpers for turning arbitrary user bytes into text we can safely slice, measure
// and render. Invalid input never throws: it is replaced with U+FFFD.

#include <cstddef>
#include <string>
#include <string_view>

namespace core {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes UTF-8. Each ill-formed sequence becomes one U+FFFD per "maximal subpart" (Unicode §3.9,
// same as the WHATWG decoder): a lead byte plus the continuation bytes that were still valid for
// it. Catches stray continuations, truncation, overlongs, surrogates, > U+10FFFF, C0/C1, F5-FF.
std::u32string decodeUtf8(std::string_view bytes);

// Appends the UTF-8 encoding of cp. Surrogates and values above U+10FFFF are not scalar values,
// so they are written as U+FFFD to keep the output valid.
void appendUtf8(std::string& out, char32_t cp);

// Re-encodes decodeUtf8(bytes): the result is always valid UTF-8 (invalid parts -> EF BF BD).
std::string sanitizeUtf8(std::string_view bytes);

// Number of code points in already-valid UTF-8 (counts non-continuation bytes).
std::size_t countCodePoints(std::string_view validUtf8);

// The length of the well-formed UTF-8 character at s[i] (Unicode Table 3-7), 0 if ill-formed.
std::size_t utf8Length(std::string_view s, std::size_t i);

// The code point of the well-formed character of `length` bytes at s[i].
char32_t codePointAt(std::string_view s, std::size_t i, std::size_t length);

// The byte offset of the first ill-formed sequence, or std::string_view::npos when s is valid.
std::size_t firstInvalidUtf8(std::string_view s);

} // namespace core
