// ggml's types dequantized (core/models/formats/ggml_quants.h): hand-made blocks whose values
// are worked out by hand from ggml-common.h's layouts, the blocks tests/ggml_quants.py quantized
// (fixtures/ggml_quants.safetensors, with that script's floats: equal bit for bit), non-finite
// scales counted without dequantizing, and a quantized tensor read through tensorAsFloat,
// copyRow and nonFiniteCount as a GGUF model reads its norms and embeddings.
#include "models/formats/ggml_quants.h"
#include "models/formats/safetensors_map.h"
#include "models/tensor_ops.h"

#include "build_facts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using core::models::GgmlType;

// One block of `bytes` zero bytes, filled in by the tests.
struct Block {
    std::vector<std::uint8_t> b;
    explicit Block(int bytes) : b(std::size_t(bytes), 0) {}
    void half(int at, std::uint16_t bits) { // a little-endian F16 (a scale)
        b[std::size_t(at)] = std::uint8_t(bits & 0xFF);
        b[std::size_t(at) + 1] = std::uint8_t(bits >> 8);
    }
    std::uint8_t& operator[](int i) { return b[std::size_t(i)]; }
};

std::vector<float> dequantize(GgmlType type, const std::vector<std::uint8_t>& bytes, int n) {
    std::vector<float> out(static_cast<std::size_t>(n));
    core::models::ggmlDequantize(type, reinterpret_cast<const std::byte*>(bytes.data()), out.data(),
                                 n);
    return out;
}

constexpr std::uint16_t kOne = 0x3C00, kHalf = 0x3800, kQuarter = 0x3400, kTwo = 0x4000;

TEST(GgmlQuants, Q4_0ByHand) {
    Block a(18), b(18); // two blocks of one row: the second starts at value 32
    a.half(0, kHalf);   // d = 0.5
    for (int j = 0; j < 16; ++j) a[2 + j] = 0x88; // nibbles 8: value 0
    a[2] = 0x1F;                                  // value 0: (15 - 8) d, value 16: (1 - 8) d
    b.half(0, kOne);
    b[2 + 15] = 0x0F; // value 15: 7, value 31: -8; every other nibble 0: -8
    std::vector<std::uint8_t> row = a.b;
    row.insert(row.end(), b.b.begin(), b.b.end());
    const auto v = dequantize(GgmlType::Q4_0, row, 64);
    EXPECT_EQ(v[0], 3.5f);
    EXPECT_EQ(v[16], -3.5f);
    EXPECT_EQ(v[1], 0.0f);
    EXPECT_EQ(v[32 + 15], 7.0f);
    EXPECT_EQ(v[32 + 31], -8.0f);
    EXPECT_EQ(v[32], -8.0f);
}

TEST(GgmlQuants, Q4_1AndQ5ByHand) {
    Block q41(20); // d = 0.25, m = -1: value nibble * d + m
    q41.half(0, kQuarter), q41.half(2, 0xBC00);
    q41[4] = 0x3C;
    const auto a = dequantize(GgmlType::Q4_1, q41.b, 32);
    EXPECT_EQ(a[0], 2.0f);    // 12 * 0.25 - 1
    EXPECT_EQ(a[16], -0.25f); // 3 * 0.25 - 1
    EXPECT_EQ(a[5], -1.0f);

    Block q50(22); // d = 1; qh bits 0 and 31: the fifth bits of values 0 and 31
    q50.half(0, kOne);
    q50[2] = 0x01, q50[5] = 0x80;
    q50[6] = 0x2F, q50[6 + 15] = 0xF0;
    const auto b = dequantize(GgmlType::Q5_0, q50.b, 32);
    EXPECT_EQ(b[0], 15.0f);   // (15 | 16) - 16
    EXPECT_EQ(b[16], -14.0f); // 2 - 16
    EXPECT_EQ(b[15], -16.0f); // 0 - 16
    EXPECT_EQ(b[31], 15.0f);  // (15 | 16) - 16

    Block q51(24); // d = 0.5, m = 2; qh bit 17
    q51.half(0, kHalf), q51.half(2, kTwo);
    q51[4 + 2] = 0x02;
    q51[8 + 1] = 0x41;
    const auto c = dequantize(GgmlType::Q5_1, q51.b, 32);
    EXPECT_EQ(c[1], 2.5f);   // 1 * 0.5 + 2
    EXPECT_EQ(c[17], 12.0f); // (4 | 16) * 0.5 + 2
    EXPECT_EQ(c[0], 2.0f);
}

TEST(GgmlQuants, Q8_0ByHand) {
    Block q(34);
    q.half(0, 0x2000); // 2^-7
    q[2] = 0x80, q[3] = 0xFF, q[2 + 31] = 0x7F;
    const auto v = dequantize(GgmlType::Q8_0, q.b, 32);
    EXPECT_EQ(v[0], -1.0f);
    EXPECT_EQ(v[1], -0.0078125f);
    EXPECT_EQ(v[31], 0.9921875f);
}

// 16-value groups with their 4-bit scale and min (low and high nibble), 2-bit quants read four
// times per 32 bytes: value 32 j + l of a 128-value half is bits 2j of byte l.
TEST(GgmlQuants, Q2_KByHand) {
    Block q(84);
    for (int j = 0; j < 16; ++j) q[j] = 0x21; // scale 1, min 2
    q[1] = 0x0F;                              // values 16..31: scale 15, min 0
    q[8] = 0x30;                              // values 128..143: scale 0, min 3
    q.half(80, kOne), q.half(82, kHalf);      // d = 1, dmin = 0.5
    q[16 + 0] = 0xE4;                         // quants 0, 1, 2, 3 for values 0, 32, 64, 96
    q[16 + 16] = 0x03;                        // value 16: 3
    q[16 + 32] = 0x02;                        // value 128: 2
    const auto v = dequantize(GgmlType::Q2_K, q.b, 256);
    EXPECT_EQ(v[0], -1.0f); // 1 * 0 - 0.5 * 2
    EXPECT_EQ(v[32], 0.0f);
    EXPECT_EQ(v[64], 1.0f);
    EXPECT_EQ(v[96], 2.0f);
    EXPECT_EQ(v[16], 45.0f);  // 15 * 3
    EXPECT_EQ(v[128], -1.5f); // 0 * 2 - 0.5 * 3
    EXPECT_EQ(v[255], -1.0f);
}

// 6-bit scales stored + 32 (low nibbles in bytes 0..7, high 2 bits in bytes 8..11), quants of
// 2 bits minus 4 unless their hmask bit is set.
TEST(GgmlQuants, Q3_KByHand) {
    Block q(110);
    for (int j = 0; j < 32; ++j) q[j] = 0xFF;     // every hmask bit set: no 4 subtracted
    q[0] = 0xFE;                                  // but value 0's
    for (int j = 0; j < 8; ++j) q[96 + j] = 0x22; // scales 34: 2
    for (int j = 8; j < 12; ++j) q[96 + j] = 0xAA;
    q[96 + 5] = 0x29, q[96 + 9] = 0xA6; // scale 5 (values 80..95): 25 = 9 | 1 << 4: -7
    q.half(108, kOne);
    q[32 + 0] = 0xE4;  // quants 0, 1, 2, 3 for values 0, 32, 64, 96
    q[32 + 16] = 0x30; // value 80 (bits 4..5 of byte 16): 3
    const auto v = dequantize(GgmlType::Q3_K, q.b, 256);
    EXPECT_EQ(v[0], -8.0f); // (0 - 4) * 2
    EXPECT_EQ(v[32], 2.0f);
    EXPECT_EQ(v[64], 4.0f);
    EXPECT_EQ(v[96], 6.0f);
    EXPECT_EQ(v[80], -21.0f); // 3 * -7
    EXPECT_EQ(v[81], 0.0f);
}

// The 6-bit scales and mins of Q4_K and Q5_K: group j < 4 in the low bits of bytes j and
// j + 4; group 7's low 4 bits in byte 11, its high 2 in the top bits of bytes 3 and 7.
Block kScales(int bytes) {
    Block q(bytes);
    q.half(0, kOne), q.half(2, kHalf); // d = 1, dmin = 0.5
    q[4 + 0] = 3, q[4 + 4] = 4;        // group 0: scale 3, min 4
    q[4 + 1] = 1;                      // group 1: scale 1, min 0
    q[4 + 3] = 0x80, q[4 + 11] = 0x15; // group 7: scale 0b10'0101 = 37, min 1
    return q;
}

TEST(GgmlQuants, Q4_KAndQ5_KByHand) {
    Block q4 = kScales(144);
    q4[16 + 0] = 0x5A;  // value 0: 10, value 32: 5
    q4[16 + 96] = 0x20; // value 224 (high nibble of the last 32 bytes): 2
    const auto a = dequantize(GgmlType::Q4_K, q4.b, 256);
    EXPECT_EQ(a[0], 28.0f); // 3 * 10 - 0.5 * 4
    EXPECT_EQ(a[32], 5.0f);
    EXPECT_EQ(a[224], 73.5f); // 37 * 2 - 0.5
    EXPECT_EQ(a[100], 0.0f);

    Block q5 = kScales(176);
    q5[16 + 0] = 0x81; // fifth bits of value 0 (bit 0) and value 224 (bit 7)
    q5[48 + 0] = 0x5A, q5[48 + 96] = 0x20;
    const auto b = dequantize(GgmlType::Q5_K, q5.b, 256);
    EXPECT_EQ(b[0], 76.0f); // 3 * (10 + 16) - 2
    EXPECT_EQ(b[32], 5.0f);
    EXPECT_EQ(b[224], 665.5f); // 37 * (2 + 16) - 0.5
}

// Low nibbles in ql, high bit pairs in qh, signed byte scales per 16 values, minus 32.
TEST(GgmlQuants, Q6_KByHand) {
    Block q(210);
    q[0] = 0x21;   // value 0: low 1; value 64: low 2
    q[32] = 0x07;  // value 32: low 7; value 96: low 0
    q[127] = 0xF0; // value 255: low 15
    q[128] = 0x24; // high pairs: value 0: 0, value 32: 1, value 64: 2, value 96: 0
    q[191] = 0xC0; // value 255: high 3
    q[192 + 0] = 0xFD, q[192 + 2] = 4, q[192 + 4] = 2, q[192 + 15] = 100; // scale 0 is -3
    q.half(208, kHalf);
    const auto v = dequantize(GgmlType::Q6_K, q.b, 256);
    EXPECT_EQ(v[0], 46.5f);   // 0.5 * -3 * (1 - 32)
    EXPECT_EQ(v[32], -18.0f); // 0.5 * 4 * (23 - 32)
    EXPECT_EQ(v[64], 2.0f);   // 0.5 * 2 * (34 - 32)
    EXPECT_EQ(v[96], 0.0f);
    EXPECT_EQ(v[255], 1550.0f); // 0.5 * 100 * (63 - 32)
}

// Every one of the 65536 halves as the safetensors reader's converter gives it (exact), and
// BF16 and F32 as they are.
TEST(GgmlQuants, PlainTypesExactly) {
    std::vector<std::uint8_t> halves(2 * 65536);
    for (int h = 0; h < 65536; ++h)
        halves[2 * h] = std::uint8_t(h), halves[2 * h + 1] = std::uint8_t(h >> 8);
    const auto v = dequantize(GgmlType::F16, halves, 65536);
    for (int h = 0; h < 65536; ++h) {
        const float expected = core::models::halfToFloat(std::uint16_t(h));
        std::uint32_t got, want;
        std::memcpy(&got, &v[std::size_t(h)], 4), std::memcpy(&want, &expected, 4);
        ASSERT_EQ(got, want) << "half " << h;
    }
    const auto b = dequantize(GgmlType::BF16, {0x80, 0x3F, 0x40, 0xC0, 0x80, 0x7F}, 3);
    EXPECT_EQ(b[0], 1.0f);
    EXPECT_EQ(b[1], -3.0f);
    EXPECT_TRUE(std::isinf(b[2]));
    const float f[2] = {1.25f, -7.5e-30f};
    std::vector<std::uint8_t> bytes(8);
    std::memcpy(bytes.data(), f, 8);
    EXPECT_EQ(dequantize(GgmlType::F32, bytes, 2), std::vector<float>(f, f + 2));
}

TEST(GgmlQuants, UnreadableTypesAndPartialBlocksAreRefused) {
    float out[256];
    const std::byte zeros[256] = {};
    EXPECT_EQ(core::models::ggmlDequantizer(GgmlType::IQ2_XXS), nullptr);
    EXPECT_EQ(core::models::ggmlDequantizer(GgmlType::Q8_1), nullptr);
    EXPECT_THROW(core::models::ggmlDequantize(GgmlType::IQ4_XS, zeros, out, 256),
                 std::invalid_argument);
    EXPECT_THROW(core::models::ggmlDequantize(GgmlType::Q4_K, zeros, out, 32),
                 std::invalid_argument);
    EXPECT_THROW(core::models::ggmlNonFiniteCount(GgmlType::TQ1_0, zeros, 256),
                 std::invalid_argument);
}

struct TypeCase {
    GgmlType type;
    int values, bytes;
    std::vector<int> scales; // where the block's F16 scales are
};
const TypeCase kBlockTypes[] = {
    {GgmlType::Q4_0, 32, 18, {0}},      {GgmlType::Q4_1, 32, 20, {0, 2}},
    {GgmlType::Q5_0, 32, 22, {0}},      {GgmlType::Q5_1, 32, 24, {0, 2}},
    {GgmlType::Q8_0, 32, 34, {0}},      {GgmlType::Q2_K, 256, 84, {80, 82}},
    {GgmlType::Q3_K, 256, 110, {108}},  {GgmlType::Q4_K, 256, 144, {0, 2}},
    {GgmlType::Q5_K, 256, 176, {0, 2}}, {GgmlType::Q6_K, 256, 210, {208}},
};

// A block's non-finite values are exactly those of a block with an Inf or NaN scale: the count
// from the scales alone equals the count of the dequantized values, for every type.
TEST(GgmlQuants, NonFiniteScalesCountedWithoutDequantizing) {
    std::mt19937 rng(3);
    for (const TypeCase& t : kBlockTypes) {
        const int blocks = 8;
        std::vector<std::uint8_t> bytes(std::size_t(blocks * t.bytes));
        for (auto& byte : bytes) byte = std::uint8_t(rng());
        for (int b = 0; b < blocks; ++b)
            for (int at : t.scales) { // finite halves of either sign, exponent below 0x1f
                bytes[std::size_t(b * t.bytes + at + 1)] &= 0xBB;
            }
        const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
        EXPECT_EQ(core::models::ggmlNonFiniteCount(t.type, data, blocks * t.values), 0)
            << core::models::ggmlTypeName(t.type);
        bytes[std::size_t(2 * t.bytes + t.scales.front() + 1)] = 0x7C; // Inf (or NaN)
        bytes[std::size_t(5 * t.bytes + t.scales.back() + 1)] = 0xFE;  // NaN
        const auto v = dequantize(t.type, bytes, blocks * t.values);
        std::int64_t bad = 0;
        for (float x : v) bad += !std::isfinite(x);
        EXPECT_EQ(bad, 2 * t.values) << core::models::ggmlTypeName(t.type);
        EXPECT_EQ(core::models::ggmlNonFiniteCount(t.type, data, blocks * t.values), bad)
            << core::models::ggmlTypeName(t.type);
    }
    const std::vector<std::uint8_t> halves = {0x00, 0x7C, 0x01, 0xFE, 0xFF, 0x7B, 0x00, 0xFC};
    EXPECT_EQ(core::models::ggmlNonFiniteCount(
                  GgmlType::F16, reinterpret_cast<const std::byte*>(halves.data()), 4),
              3);
}

// The tensors of fixtures/ggml_quants.safetensors: `<TYPE>.blocks` (U8, rows x row bytes) and
// `<TYPE>.values` (F32, tests/ggml_quants.py's dequantization of them).
class GgmlFixture : public ::testing::TestWithParam<std::string> {
  protected:
    static void SetUpTestSuite() {
        store_ = new core::models::TensorStore;
        store_->addFile(
            (std::filesystem::path(build_facts::fixtureDir()) / "ggml_quants.safetensors")
                .string());
    }
    static void TearDownTestSuite() { delete store_; }
    static core::models::TensorStore* store_;
};
core::models::TensorStore* GgmlFixture::store_ = nullptr;

// The fixture's blocks as the GGUF reader gives a tensor: a Quantized view, rows of whole blocks.
core::models::TensorView quantizedView(const core::models::TensorView& blocks,
                                       const core::models::TensorView& values) {
    core::models::TensorView t;
    t.name = blocks.name;
    t.dtype = core::models::Dtype::Quantized;
    const std::string type = blocks.name.substr(0, blocks.name.find('.'));
    for (std::uint32_t n = 0; n < 64; ++n)
        if (const auto info = core::models::ggmlTypeInfo(n); info && type == info->name)
            t.ggml = info->type;
    t.elementBytes = 0;
    t.rowBytes = std::size_t(blocks.shape[1]);
    t.shape = values.shape;
    t.data = blocks.data;
    return t;
}

TEST_P(GgmlFixture, PythonBlocksDequantizeToPythonsFloatsBitForBit) {
    const auto* blocks = store_->find(GetParam() + ".blocks");
    const auto* values = store_->find(GetParam() + ".values");
    ASSERT_TRUE(blocks && values);
    const core::models::TensorView t = quantizedView(*blocks, *values);
    ASSERT_EQ(core::models::ggmlRowBytes(t.ggml, std::uint64_t(t.shape[1])).value_or(0),
              t.rowBytes);
    std::vector<std::uint32_t> expected(std::size_t(values->elements())); // the floats' bits
    std::memcpy(expected.data(), values->data, expected.size() * 4);      // (maybe unaligned)
    core::Mat scratch;
    const auto m = core::models::tensorAsFloat(t, scratch); // rows x cols
    ASSERT_EQ(m.rows(), t.shape[0]);
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        std::uint32_t got;
        std::memcpy(&got, m.data() + i, 4);
        ASSERT_EQ(got, expected[std::size_t(i)]) << GetParam() << " value " << i;
    }
    std::vector<float> row(std::size_t(t.shape[1]));
    const std::int64_t last = t.shape[0] - 1; // the random blocks
    core::models::copyRow(t, last, row.data());
    EXPECT_EQ(0, std::memcmp(row.data(), expected.data() + last * t.shape[1], row.size() * 4));
    EXPECT_EQ(core::models::nonFiniteCount(t), 0);
}

INSTANTIATE_TEST_SUITE_P(Types, GgmlFixture,
                         ::testing::Values("F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1",
                                           "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"));

} // namespace
