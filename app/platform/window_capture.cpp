#include "platform/window_capture.h"

#include "io/atomic_file.h"
#include "io/figure_export.h" // freeStem
#include "io/trace_json.h"

#include "platform/gl.h"

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

namespace app {

core::Image captureFramebuffer(int width, int height) {
    core::Image image;
    image.width = width, image.height = height;
    image.rgba.resize(std::size_t(width) * std::size_t(height) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
    // GL's first row is the bottom one; images start at the top.
    const std::size_t stride = std::size_t(width) * 4;
    std::vector<std::uint8_t> row(stride);
    for (int y = 0; y < height / 2; ++y) {
        std::uint8_t* top = image.rgba.data() + std::size_t(y) * stride;
        std::uint8_t* bottom = image.rgba.data() + std::size_t(height - 1 - y) * stride;
        std::memcpy(row.data(), top, stride);
        std::memcpy(top, bottom, stride);
        std::memcpy(bottom, row.data(), stride);
    }
    for (std::size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255; // opaque PNG
    return image;
}

std::string exportWindow(const std::string& dir, const core::Image& window,
                         const core::Trace& trace, bool withTrace) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create '" + dir + "': " + ec.message());
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "mha-viz-%Y%m%d-%H%M%S", std::localtime(&now));
    const std::string stem = core::freeStem(dir, stamp, {".png", ".json"});
    core::writePng(stem + ".png", window);
    try {
        if (withTrace) core::writeFileAtomically(stem + ".json", core::traceJson(trace));
    } catch (const std::runtime_error&) {
        std::filesystem::remove(stem + ".png", ec); // nothing half-exported
        throw;
    }
    return stem + ".png";
}

} // namespace app
