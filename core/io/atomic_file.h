// Writes that never leave a half-written file: temp file in the same folder, then rename.
#pragma once

#include "figures/image.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// Throws std::runtime_error with one line naming the path and the problem; then the
// destination is untouched and the temp file is removed.
void writeFileAtomically(const std::string& path, std::string_view contents);
// The same, the contents written by `write` into a stream on the temp file: a large file (a
// real model's trace, layer by layer) is never held whole in memory.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);
// The same for binary contents (an encoded PNG).
void writeFileAtomically(const std::string& path, const std::vector<std::uint8_t>& bytes);

// Encodes the image as PNG and writes it atomically; throws like writeFileAtomically.
void writePng(const std::string& path, const Image& image);

} // namespace core
