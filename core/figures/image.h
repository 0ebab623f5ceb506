// An RGBA8 image in memory and its PNG encoding (zlib; no display needed). Writing it to a
// file is io/atomic_file.h's writePng.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core {

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba; // width * height * 4, top row first
};

// A PNG written as its rows arrive: each band of rows is filtered and deflated at once and the
// compressed bytes go to `sink`, so a figure too large for memory as pixels (the grid at 4x)
// never has to exist whole. Safe to use on several threads, one encoder each.
class PngEncoder {
  public:
    using Sink = std::function<void(const std::uint8_t* bytes, std::size_t size)>;
    // RGB when !alpha (the rows' alpha bytes are dropped), else RGBA. Throws
    // std::invalid_argument for an empty size.
    PngEncoder(int width, int height, bool alpha, Sink sink);
    ~PngEncoder();
    PngEncoder(const PngEncoder&) = delete;
    PngEncoder& operator=(const PngEncoder&) = delete;

    // The next `rows` rows, RGBA8 (width * 4 bytes each), top to bottom.
    void addRows(const std::uint8_t* rgba, int rows);
    // After the last row: ends the image (throws std::logic_error if rows are missing).
    void finish();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// True when every pixel's alpha is 255 (then the PNG is RGB: a quarter less to compress).
bool isOpaque(const Image& image);

// PNG bytes of the image (empty for an empty image).
std::vector<std::uint8_t> encodePng(const Image& image);

} // namespace core
