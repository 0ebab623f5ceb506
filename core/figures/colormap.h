// Colormap tables (256 RGB entries, low to high), embedded from assets/colormaps.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace core {

enum class ColormapId { Viridis, Magma, Cividis, Greys, RdBu };

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

using ColormapTable = std::array<Rgb, 256>;

inline constexpr ColormapId kSequentialColormaps[] = {ColormapId::Viridis, ColormapId::Magma,
                                                      ColormapId::Cividis, ColormapId::Greys};

std::string_view toString(ColormapId id);
std::optional<ColormapId> parseColormapId(std::string_view text);
const ColormapTable& colormapTable(ColormapId id);

// t in [0, 1] (clamped) -> nearest of the 256 entries.
Rgb sampleColormap(ColormapId id, float t);

// The embedded colour tables, by path under assets/ (generated at build time).
std::string_view colormapAsset(std::string_view name);

} // namespace core
