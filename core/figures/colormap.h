// Colormap tables (256 RGB entries, low to high), embedded from assets/colormaps.
#pragma once

#include "base/enum_names.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace core {

enum class ColormapId { Viridis, Magma, Cividis, Greys, RdBu };
inline constexpr EnumName<ColormapId> kColormapIdNames[] = {{ColormapId::Viridis, "viridis", ""},
                                                            {ColormapId::Magma, "magma", ""},
                                                            {ColormapId::Cividis, "cividis", ""},
                                                            {ColormapId::Greys, "greys", ""},
                                                            {ColormapId::RdBu, "rdbu", ""}};
constexpr std::span<const EnumName<ColormapId>> enumNames(ColormapId) {
    return kColormapIdNames;
}

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

using ColormapTable = std::array<Rgb, 256>;

inline constexpr ColormapId kSequentialColormaps[] = {ColormapId::Viridis, ColormapId::Magma,
                                                      ColormapId::Cividis, ColormapId::Greys};

const ColormapTable& colormapTable(ColormapId id);

// t in [0, 1] (clamped) -> nearest of the 256 entries.
Rgb sampleColormap(ColormapId id, float t);

// The entry sampleColormap picks for t in [0, 1].
inline int colormapEntry(float t) {
    return int(t * 255.0f + 0.5f);
}

// A colour scale from valueMin to valueMax that can place values: not empty, finite.
inline bool usableColorScale(float valueMin, float valueMax) {
    const float range = valueMax - valueMin;
    return range > 0 && range - range == 0.0f; // range - range is NaN for an infinite range
}

// Where v falls on the scale, 0..1: clamped, and 0 for a non-finite v or an unusable scale.
// Written without branches, so loops over cells vectorise (colorCells).
inline float colorScalePosition(float v, float valueMin, float valueMax) {
    const bool usable = usableColorScale(valueMin, valueMax);
    float t = (v - valueMin) / (usable ? valueMax - valueMin : 1.0f) * (usable ? 1.0f : 0.0f);
    t = t > 0.0f ? t : 0.0f; // NaN -> 0
    t = t < 1.0f ? t : 1.0f;
    return v - v == 0.0f ? t : 0.0f; // v - v is NaN for a non-finite v
}

// The embedded colour tables, by path under assets/ (generated at build time).
std::string_view colormapAsset(std::string_view name);

} // namespace core
