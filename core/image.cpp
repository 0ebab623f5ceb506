#include "image.h"

#include "atomic_file.h"

#include <stb_image_write.h>

namespace core {

std::vector<std::uint8_t> encodePng(const Image& image) {
    std::vector<std::uint8_t> png;
    if (image.width <= 0 || image.height <= 0) return png;
    auto append = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<std::uint8_t>*>(context);
        const auto* bytes = static_cast<const std::uint8_t*>(data);
        out->insert(out->end(), bytes, bytes + size);
    };
    stbi_write_png_to_func(append, &png, image.width, image.height, 4, image.rgba.data(),
                           image.width * 4);
    return png;
}

std::string writePng(const std::string& path, const Image& image) {
    const std::vector<std::uint8_t> png = encodePng(image);
    if (png.empty()) return "cannot encode PNG for '" + path + "'";
    return writeFileAtomically(
        path, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
}

} // namespace core
