// ggml's types dequantized (ggml_quants.h), written from ggml's block structs (where each
// block's fields are) and ggml's dequantize_row_* functions (how each value is made). Every
// value is one float product of a scale and a small integer (then a minimum subtracted or
// added), as there: the order of the operations is kept (Q6_K's (d * scale) * q, not
// d * (scale * q)), and this file is compiled with -ffp-contract=off so a build for an FMA CPU
// never fuses a product and a sum into one rounding. The loops have no per-value branch (a bit
// selects by arithmetic), so the compiler vectorises them: a product dequantizes each weight
// once per forward.
#include "models/formats/ggml_quants.h"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

namespace core::models {
namespace {

using Bytes = const std::uint8_t*;

// The float an IEEE half's bits hold, exactly, without a branch (masks, so a row of them
// vectorises): a normal number's exponent rebiased, a subnormal one as mantissa * 2^-24 (exact
// in float), Inf and NaN kept.
inline float halfValue(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t rest = h & 0x7fffu, exponent = rest >> 10;
    const float subnormal = float(rest) * 0x1p-24f; // used only when the exponent is 0
    std::uint32_t subnormalBits;
    std::memcpy(&subnormalBits, &subnormal, sizeof subnormalBits);
    const std::uint32_t isSubnormal = 0u - std::uint32_t(exponent == 0);
    const std::uint32_t isSpecial = 0u - std::uint32_t(exponent == 0x1f); // Inf, NaN
    const std::uint32_t normal = (rest << 13) + (112u << 23);
    const std::uint32_t special = (rest << 13) | 0x7f800000u;
    const std::uint32_t bits = sign | (subnormalBits & isSubnormal) | (special & isSpecial) |
                               (normal & ~(isSubnormal | isSpecial));
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// The little-endian half at p (a block's scale).
inline float halfAt(Bytes p) {
    return halfValue(std::uint16_t(p[0] | (p[1] << 8)));
}

void rowF32(Bytes __restrict x, float* __restrict y, std::int64_t n) {
    if (n > 0) std::memcpy(y, x, std::size_t(n) * sizeof(float)); // depth 0: both may be null
}

void rowF16(Bytes __restrict x, float* __restrict y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
        y[i] = halfValue(std::uint16_t(x[2 * i] | (x[2 * i + 1] << 8)));
}

void rowBF16(Bytes __restrict x, float* __restrict y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
        const std::uint32_t bits = std::uint32_t(x[2 * i] | (x[2 * i + 1] << 8)) << 16;
        std::memcpy(y + i, &bits, sizeof bits);
    }
}

// The 32 quants of a 32-value block from its 16 bytes of nibbles (low nibbles the first 16
// values, high ones the last 16) and, for Q5, its fifth bits (`high`, 0 or 16 each).
inline void nibbles(Bytes qs, std::uint8_t* q) {
    for (int j = 0; j < 16; ++j) q[j] = qs[j] & 0xF;
    for (int j = 0; j < 16; ++j) q[16 + j] = qs[j] >> 4;
}

// Each byte's 8 bits spread over 8 bytes, bit i as 16 in byte i: the fifth bits of 8 values.
constexpr auto kFifthBits = [] {
    std::array<std::uint64_t, 256> table{};
    for (int byte = 0; byte < 256; ++byte)
        for (int i = 0; i < 8; ++i)
            table[std::size_t(byte)] |= std::uint64_t((byte >> i) & 1) << (8 * i + 4);
    return table;
}();

// Q5's fifth bits (qh, 4 bytes: bit j of the little-endian 32 bits for value j) added to the
// quants `nibbles` made.
inline void addFifthBits(Bytes qh, std::uint8_t* q) {
    std::uint8_t high[32];
    for (int i = 0; i < 4; ++i) std::memcpy(high + 8 * i, &kFifthBits[qh[i]], 8);
    for (int j = 0; j < 32; ++j) q[j] |= high[j];
}

// Q4_0, 18 bytes: d (half), 16 bytes of nibbles; value (nibble - 8) * d.
void blocksQ4_0(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    std::uint8_t q[32];
    for (std::int64_t b = 0; b < blocks; ++b, x += 18, y += 32) {
        const float d = halfAt(x);
        nibbles(x + 2, q);
        for (int j = 0; j < 32; ++j) y[j] = float(q[j] - 8) * d;
    }
}

// Q4_1, 20 bytes: d, m (halves), 16 bytes of nibbles; value nibble * d + m.
void blocksQ4_1(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    std::uint8_t q[32];
    for (std::int64_t b = 0; b < blocks; ++b, x += 20, y += 32) {
        const float d = halfAt(x), m = halfAt(x + 2);
        nibbles(x + 4, q);
        for (int j = 0; j < 32; ++j) y[j] = float(q[j]) * d + m;
    }
}

// Q5_0, 22 bytes: d, qh (4 bytes), 16 bytes of nibbles; value ((nibble | fifth bit) - 16) * d.
void blocksQ5_0(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    std::uint8_t q[32];
    for (std::int64_t b = 0; b < blocks; ++b, x += 22, y += 32) {
        const float d = halfAt(x);
        nibbles(x + 6, q);
        addFifthBits(x + 2, q);
        for (int j = 0; j < 32; ++j) y[j] = float(q[j] - 16) * d;
    }
}

// Q5_1, 24 bytes: d, m, qh, 16 bytes of nibbles; value (nibble | fifth bit) * d + m.
void blocksQ5_1(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    std::uint8_t q[32];
    for (std::int64_t b = 0; b < blocks; ++b, x += 24, y += 32) {
        const float d = halfAt(x), m = halfAt(x + 2);
        nibbles(x + 8, q);
        addFifthBits(x + 4, q);
        for (int j = 0; j < 32; ++j) y[j] = float(q[j]) * d + m;
    }
}

// Q8_0, 34 bytes: d, 32 signed bytes; value q * d.
void blocksQ8_0(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    for (std::int64_t b = 0; b < blocks; ++b, x += 34, y += 32) {
        const float d = halfAt(x);
        for (int j = 0; j < 32; ++j) y[j] = float(std::int8_t(x[2 + j])) * d;
    }
}

// Q2_K, 84 bytes for 256 values: 16 scale bytes (low nibble a 16-value group's scale, high
// nibble its min), 64 bytes of 2-bit quants, d and dmin (halves). The quants of a 128-value
// half are 32 bytes read four times (shift 0, 2, 4, 6), each time as two groups of 16: group
// g = 8 * half + 2 * (shift / 2) + second. Value (d * scale) * q - dmin * min.
void blocksQ2_K(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    for (std::int64_t b = 0; b < blocks; ++b, x += 84, y += 256) {
        const float d = halfAt(x + 80), dmin = halfAt(x + 82);
        for (int g = 0; g < 16; ++g) {
            const float dl = d * float(x[g] & 0xF), ml = dmin * float(x[g] >> 4);
            const Bytes q = x + 16 + 32 * (g / 8) + 16 * (g % 2);
            const int shift = 2 * ((g % 8) / 2);
            float* out = y + 16 * g;
            for (int l = 0; l < 16; ++l) out[l] = dl * float((q[l] >> shift) & 3) - ml;
        }
    }
}

// Q3_K's 16 signed 6-bit scales from their 12 bytes: the low 4 bits of scale j in byte j % 8
// (low nibble for j < 8, high for the rest), the high 2 bits in byte 8 + j % 4 at bit
// 2 * (j / 4); stored + 32.
inline void scalesQ3_K(Bytes packed, int* scale) {
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? packed[j] & 0xF : packed[j - 8] >> 4;
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        scale[j] = (low | high << 4) - 32;
    }
}

// Q3_K, 110 bytes: hmask (32 bytes: the third bit of each quant), 64 bytes of 2-bit quants
// (grouped as Q2_K's), 12 bytes of scales, d. A quant is its two bits minus 4 unless its hmask
// bit is set (bit g / 2 of byte l for group g): value (d * scale) * q.
void blocksQ3_K(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    int scale[16];
    for (std::int64_t b = 0; b < blocks; ++b, x += 110, y += 256) {
        const float d = halfAt(x + 108);
        scalesQ3_K(x + 96, scale);
        for (int g = 0; g < 16; ++g) {
            const float dl = d * float(scale[g]);
            const Bytes q = x + 32 + 32 * (g / 8) + 16 * (g % 2), h = x + 16 * (g % 2);
            const int shift = 2 * ((g % 8) / 2), bit = g / 2;
            float* out = y + 16 * g;
            for (int l = 0; l < 16; ++l)
                out[l] = dl * float(((q[l] >> shift) & 3) - 4 + 4 * ((h[l] >> bit) & 1));
        }
    }
}

// Q4_K's and Q5_K's 6-bit scale and min of 32-value group j (0..7) from their 12 bytes: for
// j < 4 the low 6 bits of bytes j and j + 4; else 4 bits from byte j + 4 and the top 2 bits of
// bytes j - 4 (scale) and j (min).
inline void scaleMinK4(int j, Bytes packed, int& scale, int& min) {
    if (j < 4) {
        scale = packed[j] & 63;
        min = packed[j + 4] & 63;
    } else {
        scale = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
        min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
    }
}

// Q4_K, 144 bytes: d, dmin, 12 bytes of scales and mins, 128 bytes of nibbles. Each 32 bytes
// hold 64 values, the low nibbles first: value (d * scale) * q - dmin * min.
void blocksQ4_K(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    for (std::int64_t b = 0; b < blocks; ++b, x += 144) {
        const float d = halfAt(x), dmin = halfAt(x + 2);
        Bytes q = x + 16;
        for (int j = 0; j < 8; j += 2, q += 32, y += 64) {
            int s1, m1, s2, m2;
            scaleMinK4(j, x + 4, s1, m1);
            scaleMinK4(j + 1, x + 4, s2, m2);
            const float d1 = d * float(s1), min1 = dmin * float(m1);
            const float d2 = d * float(s2), min2 = dmin * float(m2);
            for (int l = 0; l < 32; ++l) y[l] = d1 * float(q[l] & 0xF) - min1;
            for (int l = 0; l < 32; ++l) y[32 + l] = d2 * float(q[l] >> 4) - min2;
        }
    }
}

// Q5_K, 176 bytes: d, dmin, 12 bytes of scales and mins, qh (32 bytes: the fifth bits, bits
// j and j + 1 of byte l for the two groups of the j-th 64 values), 128 bytes of nibbles as
// Q4_K's: value (d * scale) * (nibble + 16 * bit) - dmin * min.
void blocksQ5_K(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    for (std::int64_t b = 0; b < blocks; ++b, x += 176) {
        const float d = halfAt(x), dmin = halfAt(x + 2);
        const Bytes qh = x + 16;
        Bytes q = x + 48;
        for (int j = 0; j < 8; j += 2, q += 32, y += 64) {
            int s1, m1, s2, m2;
            scaleMinK4(j, x + 4, s1, m1);
            scaleMinK4(j + 1, x + 4, s2, m2);
            const float d1 = d * float(s1), min1 = dmin * float(m1);
            const float d2 = d * float(s2), min2 = dmin * float(m2);
            for (int l = 0; l < 32; ++l)
                y[l] = d1 * float((q[l] & 0xF) + (((qh[l] >> j) & 1) << 4)) - min1;
            for (int l = 0; l < 32; ++l)
                y[32 + l] = d2 * float((q[l] >> 4) + (((qh[l] >> (j + 1)) & 1) << 4)) - min2;
        }
    }
}

// Q6_K, 210 bytes: ql (128 bytes of low nibbles), qh (64 bytes of high 2-bit pairs), 16 signed
// byte scales, d. Each 128 values read 64 bytes of ql and 32 of qh: value l + 32 * k takes
// its low 4 bits from ql[l] or ql[l + 32] (low, then high nibble) and its high 2 bits from
// qh[l] at bit 2k, minus 32; value (d * scale) * q with the scale of its 16-value group.
void blocksQ6_K(Bytes __restrict x, float* __restrict y, std::int64_t blocks) {
    for (std::int64_t b = 0; b < blocks; ++b, x += 210) {
        const float d = halfAt(x + 208);
        for (int half = 0; half < 2; ++half, y += 128) {
            const Bytes ql = x + 64 * half, qh = x + 128 + 32 * half;
            float ds[8]; // d * the scale of each 16-value group of these 128
            for (int k = 0; k < 8; ++k) ds[k] = d * float(std::int8_t(x[192 + 8 * half + k]));
            for (int g = 0; g < 2; ++g)
                for (int l = 16 * g; l < 16 * g + 16; ++l) {
                    y[l] = ds[g] * float(((ql[l] & 0xF) | ((qh[l] & 3) << 4)) - 32);
                    y[l + 32] =
                        ds[g + 2] * float(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
                    y[l + 64] = ds[g + 4] * float(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
                    y[l + 96] =
                        ds[g + 6] * float(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
                }
        }
    }
}

// A type's dequantizer from the function for its blocks (values: 1 for the plain types).
template <void (*Blocks)(Bytes, float*, std::int64_t), int Values>
void entry(const std::byte* blocks, float* out, std::int64_t count) {
    Blocks(reinterpret_cast<Bytes>(blocks), out, count / Values);
}

// One readable type: its block, how it becomes floats, where its F16 scales are.
struct Layout {
    GgmlType type;
    int values, bytes;
    GgmlDequantizer dequantize;
    int scaleOffsets[2]; // -1: none (the plain types check each value)
};
constexpr Layout kLayouts[] = {
    {GgmlType::F32, 1, 4, entry<rowF32, 1>, {-1, -1}},
    {GgmlType::F16, 1, 2, entry<rowF16, 1>, {-1, -1}},
    {GgmlType::BF16, 1, 2, entry<rowBF16, 1>, {-1, -1}},
    {GgmlType::Q4_0, 32, 18, entry<blocksQ4_0, 32>, {0, -1}},
    {GgmlType::Q4_1, 32, 20, entry<blocksQ4_1, 32>, {0, 2}},
    {GgmlType::Q5_0, 32, 22, entry<blocksQ5_0, 32>, {0, -1}},
    {GgmlType::Q5_1, 32, 24, entry<blocksQ5_1, 32>, {0, 2}},
    {GgmlType::Q8_0, 32, 34, entry<blocksQ8_0, 32>, {0, -1}},
    {GgmlType::Q2_K, 256, 84, entry<blocksQ2_K, 256>, {80, 82}},
    {GgmlType::Q3_K, 256, 110, entry<blocksQ3_K, 256>, {108, -1}},
    {GgmlType::Q4_K, 256, 144, entry<blocksQ4_K, 256>, {0, 2}},
    {GgmlType::Q5_K, 256, 176, entry<blocksQ5_K, 256>, {0, 2}},
    {GgmlType::Q6_K, 256, 210, entry<blocksQ6_K, 256>, {208, -1}},
};

const Layout* layoutOf(GgmlType type) {
    for (const Layout& layout : kLayouts)
        if (layout.type == type) return &layout;
    return nullptr;
}

// The layout of a readable type whose `count` values are whole blocks; throws otherwise.
const Layout& checkedLayout(GgmlType type, std::int64_t count) {
    const Layout* layout = layoutOf(type);
    if (!layout)
        throw std::invalid_argument(std::string("tensor type ") + ggmlTypeName(type) +
                                    " cannot be dequantized");
    if (count < 0 || count % layout->values != 0)
        throw std::invalid_argument(std::to_string(count) + " values are not whole " +
                                    ggmlTypeName(type) + " blocks of " +
                                    std::to_string(layout->values));
    return *layout;
}

// The non-finite values of a plain type, read one by one (the exponent's bits all ones).
std::int64_t plainNonFinite(GgmlType type, Bytes x, std::int64_t count) {
    std::int64_t bad = 0;
    if (type == GgmlType::F32) {
        for (std::int64_t i = 0; i < count; ++i)
            bad += (x[4 * i + 3] & 0x7f) == 0x7f && (x[4 * i + 2] & 0x80);
        return bad;
    }
    // F16: 5 exponent bits, 0x7c of the high byte; BF16: 8, 0x7f80 of the two bytes.
    const bool half = type == GgmlType::F16;
    for (std::int64_t i = 0; i < count; ++i) {
        const int high = x[2 * i + 1], low = x[2 * i];
        bad += half ? (high & 0x7c) == 0x7c : (high & 0x7f) == 0x7f && (low & 0x80);
    }
    return bad;
}

} // namespace

GgmlDequantizer ggmlDequantizer(GgmlType type) {
    const Layout* layout = layoutOf(type);
    return layout ? layout->dequantize : nullptr;
}

void ggmlDequantize(GgmlType type, const std::byte* blocks, float* out, std::int64_t count) {
    checkedLayout(type, count).dequantize(blocks, out, count);
}

std::int64_t ggmlNonFiniteCount(GgmlType type, const std::byte* blocks, std::int64_t count) {
    const Layout& layout = checkedLayout(type, count);
    const auto x = reinterpret_cast<Bytes>(blocks);
    if (layout.scaleOffsets[0] < 0) return plainNonFinite(type, x, count);
    const std::int64_t blockCount = count / layout.values;
    std::int64_t bad = 0;
    for (std::int64_t b = 0; b < blockCount; ++b) {
        const Bytes block = x + b * layout.bytes;
        bool finite = true;
        for (int offset : layout.scaleOffsets)
            if (offset >= 0) finite &= (block[offset + 1] & 0x7c) != 0x7c; // exponent all ones
        bad += finite ? 0 : layout.values;
    }
    return bad;
}

} // namespace core::models
