#include "figures/colormap.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace core {

namespace {

// "r g b\n" x 256, as written by assets/colormaps/make_colormaps.py.
ColormapTable parseTable(std::string_view name) {
    const std::string path = "colormaps/" + std::string(name) + ".txt";
    const std::string_view text = colormapAsset(path);
    ColormapTable table{};
    const char* p = text.data();
    const char* end = text.data() + text.size();
    for (Rgb& entry : table) {
        int rgb[3] = {0, 0, 0};
        for (int& channel : rgb) {
            while (p < end && (*p == ' ' || *p == '\n')) ++p;
            const auto result = std::from_chars(p, end, channel);
            if (result.ec != std::errc()) throw std::logic_error("bad embedded colormap " + path);
            p = result.ptr;
        }
        entry = {std::uint8_t(rgb[0]), std::uint8_t(rgb[1]), std::uint8_t(rgb[2])};
    }
    return table;
}

} // namespace

const ColormapTable& colormapTable(ColormapId id) {
    // Parsed once each, on first use; function-local statics are thread-safe.
    static const ColormapTable viridis = parseTable("viridis"), magma = parseTable("magma"),
                               cividis = parseTable("cividis"), greys = parseTable("greys"),
                               rdbu = parseTable("rdbu");
    switch (id) {
    case ColormapId::Viridis:
        return viridis;
    case ColormapId::Magma:
        return magma;
    case ColormapId::Cividis:
        return cividis;
    case ColormapId::Greys:
        return greys;
    case ColormapId::RdBu:
        return rdbu;
    }
    return viridis;
}

Rgb sampleColormap(ColormapId id, float t) {
    const float clamped = std::clamp(t, 0.0f, 1.0f);
    return colormapTable(id)[std::size_t(colormapEntry(clamped))];
}

} // namespace core
