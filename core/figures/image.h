// An RGBA8 image in memory and its PNG encoding (stb_image_write; no display needed).
// Writing it to a file is io/atomic_file.h's writePng.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace core {

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba; // width * height * 4, top row first
};

// PNG bytes of the image (empty on failure).
std::vector<std::uint8_t> encodePng(const Image& image);

} // namespace core
