// The PNG encoder (core/figures/image.cpp): what it writes decodes, with stb_image and with a
// chunk walk of our own (zlib's crc32 and inflate), back to exactly the pixels it was given.
#include "figures/image.h"

#include "thrown_message.h"

#include <gtest/gtest.h>
#include <stb_image.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using testing_support::thrownMessage;

namespace {

using Bytes = std::vector<std::uint8_t>;

// Random pixels; alpha 255 everywhere when `opaque`.
core::Image randomImage(int width, int height, bool opaque, unsigned seed) {
    std::mt19937 rng(seed);
    core::Image image{width, height, {}};
    image.rgba.resize(std::size_t(width) * height * 4);
    for (std::size_t i = 0; i < image.rgba.size(); ++i)
        image.rgba[i] = i % 4 == 3 && opaque ? 255 : std::uint8_t(rng());
    if (!opaque) image.rgba[3] = 128; // surely not opaque, even 1 x 1
    return image;
}

// Decoded by stb_image in the file's own channel count; the pixels as RGBA.
core::Image decode(const Bytes& png, int& channels) {
    int width = 0, height = 0;
    stbi_uc* pixels =
        stbi_load_from_memory(png.data(), int(png.size()), &width, &height, &channels, 4);
    EXPECT_NE(pixels, nullptr) << stbi_failure_reason();
    core::Image image{width, height, {}};
    if (pixels) image.rgba.assign(pixels, pixels + std::size_t(width) * height * 4);
    stbi_image_free(pixels);
    return image;
}

std::uint32_t bigEndian(const std::uint8_t* at) {
    return std::uint32_t(at[0]) << 24 | std::uint32_t(at[1]) << 16 | std::uint32_t(at[2]) << 8 |
           at[3];
}

// The chunk types in order, each CRC checked; `idat` gets the IDAT data joined.
std::vector<std::string> chunks(const Bytes& png, Bytes& idat) {
    std::vector<std::string> types;
    const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    EXPECT_TRUE(png.size() >= 8 && std::memcmp(png.data(), signature, 8) == 0);
    for (std::size_t at = 8; at + 12 <= png.size();) {
        const std::uint32_t size = bigEndian(&png[at]);
        EXPECT_LE(at + 12 + size, png.size());
        if (at + 12 + size > png.size()) break;
        types.emplace_back(reinterpret_cast<const char*>(&png[at + 4]), 4);
        const uLong crc = crc32(0L, &png[at + 4], uInt(size + 4));
        EXPECT_EQ(bigEndian(&png[at + 8 + size]), std::uint32_t(crc)) << types.back();
        if (types.back() == "IDAT") idat.insert(idat.end(), &png[at + 8], &png[at + 8 + size]);
        at += 12 + std::size_t(size);
    }
    return types;
}

TEST(PngEncoder, RoundTripsExactlyRgbWhenOpaqueRgbaOtherwise) {
    for (auto [width, height] : {std::pair{1, 1}, {3, 5}, {17, 1}, {1, 17}, {101, 37}})
        for (bool opaque : {true, false}) {
            const core::Image image = randomImage(width, height, opaque, unsigned(width * height));
            int channels = 0;
            const core::Image back = decode(core::encodePng(image), channels);
            EXPECT_EQ(channels, opaque ? 3 : 4) << width << "x" << height;
            EXPECT_EQ(back.width, width);
            EXPECT_EQ(back.height, height);
            EXPECT_TRUE(back.rgba == image.rgba) << width << "x" << height << " opaque " << opaque;
        }
}

// Chunks in order with valid CRCs, the IDAT data a zlib stream of filtered rows (each row's
// filter byte, then its bytes): also what other decoders than stb would check.
TEST(PngEncoder, ChunksAndZlibStreamAreWellFormed) {
    const core::Image image = randomImage(300, 200, false, 7); // noise: several IDAT chunks
    const Bytes png = core::encodePng(image);
    Bytes idat;
    const std::vector<std::string> types = chunks(png, idat);
    ASSERT_GE(types.size(), 4u);
    EXPECT_EQ(types.front(), "IHDR");
    EXPECT_EQ(types.back(), "IEND");
    for (std::size_t i = 1; i + 1 < types.size(); ++i) EXPECT_EQ(types[i], "IDAT");
    EXPECT_GT(types.size(), 4u) << "200 KB of noise takes more than one 64 KB IDAT chunk";
    Bytes raw(std::size_t(200) * (1 + 300 * 4));
    uLongf rawSize = uLongf(raw.size());
    ASSERT_EQ(uncompress(raw.data(), &rawSize, idat.data(), uLong(idat.size())), Z_OK);
    EXPECT_EQ(rawSize, raw.size());
    for (std::size_t row = 0; row < 200; ++row) EXPECT_LE(raw[row * (1 + 300 * 4)], 4);
}

// Rows given in bands of any size make the same file as all at once.
TEST(PngEncoder, BandsOfAnySizeMakeTheSameBytes) {
    const core::Image image = randomImage(23, 41, true, 3);
    const Bytes whole = core::encodePng(image);
    for (int band : {1, 2, 7, 40, 41}) {
        Bytes png;
        core::PngEncoder encoder(23, 41, false, [&](const std::uint8_t* bytes, std::size_t size) {
            png.insert(png.end(), bytes, bytes + size);
        });
        for (int top = 0; top < 41; top += band)
            encoder.addRows(&image.rgba[std::size_t(top) * 23 * 4], std::min(band, 41 - top));
        encoder.finish();
        EXPECT_TRUE(png == whole) << "bands of " << band << " rows";
    }
}

TEST(PngEncoder, MisuseIsAnError) {
    EXPECT_TRUE(core::encodePng(core::Image{}).empty());
    const auto sink = [](const std::uint8_t*, std::size_t) {};
    EXPECT_EQ(thrownMessage([&] { core::PngEncoder(0, 5, false, sink); }),
              "PNG image has no pixels");
    const std::vector<std::uint8_t> row(8, 255);
    core::PngEncoder encoder(2, 1, false, sink);
    EXPECT_EQ(thrownMessage([&] { encoder.finish(); }), "PNG image is missing rows");
    encoder.addRows(row.data(), 1);
    EXPECT_EQ(thrownMessage([&] { encoder.addRows(row.data(), 1); }),
              "more PNG rows than the image has");
    EXPECT_EQ(thrownMessage([&] { encoder.finish(); }), "");
}

} // namespace
