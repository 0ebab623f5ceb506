// An RGBA8 image in memory and its PNG encoding (stb_image_write; no display needed).
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

// Writes atomically; returns an empty string or a one-line error naming the path.
std::string writePng(const std::string& path, const Image& image);

} // namespace core
