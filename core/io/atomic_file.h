// Writes that never leave a half-written file: temp file in the same folder, then rename.
#pragma once

#include "figures/image.h"

#include <string>
#include <string_view>

namespace core {

// Returns an empty string on success, else one line naming the path and the problem.
// On failure the destination is untouched and the temp file is removed.
std::string writeFileAtomically(const std::string& path, std::string_view contents);

// Encodes the image as PNG and writes it atomically; same result convention.
std::string writePng(const std::string& path, const Image& image);

} // namespace core
