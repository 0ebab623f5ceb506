// The GGUF reader (core/models/formats/gguf_file.h) on files made byte by byte: every metadata
// value type in versions 2 and 3, tensors in Hugging Face's order with their types, the
// alignment, split models; and every kind of damaged file refused in one line naming the file.
#include "models/formats/gguf_file.h"

#include "gguf_bytes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace {

namespace fs = std::filesystem;
using namespace core::models;
using testing_support::GgufBytes;

class GgufFileTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("mha-viz-gguf-file-" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string save(const GgufBytes& b, const std::string& name = "model.gguf") const {
        b.write(dir_ / name);
        return (dir_ / name).string();
    }
    // The one line a damaged file is refused with: its path, then `what`.
    void expectRefused(const GgufBytes& b, const std::string& what) const {
        const std::string path = save(b);
        try {
            GgufFile file(path);
            ADD_FAILURE() << "accepted a file that should be refused for: " << what;
        } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
            EXPECT_NE(message.find(what), std::string::npos) << message;
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        }
    }
    fs::path dir_;
};

// A valid file of one F32 tensor [2 rows x 3 cols] after `keys` metadata written by `meta`.
template <typename Meta>
GgufBytes oneTensor(std::uint32_t version, int keys, Meta meta) {
    GgufBytes b;
    b.header(version, 1, std::uint64_t(keys));
    meta(b);
    b.tensor("t.weight", {3, 2}, 0, 0).pad().floats({1, 2, 3, 4, 5, 6});
    return b;
}

TEST_F(GgufFileTest, ReadsEveryValueTypeInVersionsTwoAndThree) {
    for (std::uint32_t version : {2u, 3u}) {
        GgufBytes b;
        b.header(version, 1, 14);
        b.key("u8", 0).put<std::uint8_t>(200).key("i8", 1).put<std::int8_t>(-100);
        b.key("u16", 2).put<std::uint16_t>(60000).key("i16", 3).put<std::int16_t>(-30000);
        b.u32("u32", 4000000000u).key("i32", 5).put<std::int32_t>(-2000000000);
        b.f32("f32", 0.25f).key("bool", 7).put<std::uint8_t>(1).string("string", "héllo");
        b.key("u64", 10).put<std::uint64_t>(std::uint64_t(1) << 40);
        b.key("i64", 11).put<std::int64_t>(-(std::int64_t(1) << 40));
        b.key("f64", 12).put(0.125).strings("strings", {"a", "", "ccc"});
        // an array of two arrays of i32: [[1, 2], [3]]
        b.key("nested", 9).put<std::uint32_t>(9).put<std::uint64_t>(2);
        b.put<std::uint32_t>(5).put<std::uint64_t>(2).put<std::int32_t>(1).put<std::int32_t>(2);
        b.put<std::uint32_t>(5).put<std::uint64_t>(1).put<std::int32_t>(3);
        b.tensor("t.weight", {3, 2}, 0, 0).pad().floats({1, 2, 3, 4, 5, 6});
        const GgufFile f(save(b));
        EXPECT_EQ(f.version(), version);
        EXPECT_EQ(*f.unsignedValue("u8"), 200u);
        EXPECT_EQ(f.find("i8")->integer, -100);
        EXPECT_EQ(*f.unsignedValue("u16"), 60000u);
        EXPECT_EQ(f.find("i16")->integer, -30000);
        EXPECT_EQ(*f.unsignedValue("u32"), 4000000000u);
        EXPECT_EQ(*f.number("i32"), -2e9);
        EXPECT_EQ(*f.number("f32"), 0.25);
        EXPECT_EQ(*f.boolean("bool"), true);
        EXPECT_EQ(*f.string("string"), "héllo");
        EXPECT_EQ(*f.unsignedValue("u64"), std::uint64_t(1) << 40);
        EXPECT_EQ(*f.number("i64"), -std::pow(2.0, 40));
        EXPECT_EQ(*f.number("f64"), 0.125);
        EXPECT_EQ(f.strings("strings"), (std::vector<std::string>{"a", "", "ccc"}));
        const GgufValue& nested = *f.find("nested");
        ASSERT_EQ(nested.arrays.size(), 2u);
        EXPECT_EQ(nested.arrays[0].numbers, (std::vector<double>{1, 2}));
        EXPECT_EQ(nested.arrays[1].numbers, (std::vector<double>{3}));
        EXPECT_FALSE(f.unsignedValue("absent"));
        EXPECT_THROW(f.string("u8"), std::invalid_argument);        // a u8, not a string
        EXPECT_THROW(f.unsignedValue("i8"), std::invalid_argument); // -100 is not a count
    }
}

TEST_F(GgufFileTest, TensorsInHuggingFaceOrderWithTheirTypes) {
    GgufBytes b;
    b.header(3, 3, 0);
    b.tensor("f32", {3, 2}, 0, 0);      // ggml's ne = {cols, rows}
    b.tensor("q4k", {256, 2}, 12, 32);  // 2 rows of one 144-byte block
    b.tensor("iq2", {256, 1}, 16, 320); // a type mha-viz does not compute with
    b.pad().floats({1, 2, 3, 4, 5, 6}).pad().zeros(288).pad().zeros(66);
    const GgufFile f(save(b));
    ASSERT_EQ(f.tensors().size(), 3u);
    const TensorView& t = f.tensors()[0];
    EXPECT_EQ(t.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(t.dtype, Dtype::F32);
    core::Mat scratch;
    const auto m = tensorAsFloat(t, scratch);
    EXPECT_EQ(m(1, 0), 4.0f); // row 1, column 0
    const TensorView& q = f.tensors()[1];
    EXPECT_EQ(q.dtype, Dtype::Quantized);
    EXPECT_EQ(q.ggml, GgmlType::Q4_K);
    EXPECT_EQ(q.rowBytes, 144u);
    EXPECT_EQ(q.dtypeText, "Q4_K");
    EXPECT_EQ(q.data, t.data + 32);
    EXPECT_EQ(f.tensors()[2].dtype, Dtype::Other);
    EXPECT_EQ(f.tensors()[2].dtypeText, "IQ2_XXS");
}

TEST_F(GgufFileTest, TheAlignmentComesFromTheMetadata) {
    const auto aligned = [](std::uint32_t alignment, std::uint64_t offset) {
        GgufBytes b;
        b.header(3, 2, 1).u32("general.alignment", alignment);
        b.tensor("a", {2}, 0, 0).tensor("b", {2}, 0, offset).pad(alignment ? alignment : 32);
        return b.zeros(offset + 8);
    };
    const GgufFile f(save(aligned(64, 64)));
    EXPECT_EQ(f.alignment(), 64u);
    EXPECT_EQ(f.tensors()[1].data - f.tensors()[0].data, 64);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.tensors()[0].data) % 64, 0u);
    expectRefused(aligned(64, 32), "starts at offset 32, not a multiple of the alignment 64");
    expectRefused(aligned(3, 3), "general.alignment must be a power of two (it is 3)");
    expectRefused(aligned(0, 0), "general.alignment must be a power of two (it is 0)");
}

TEST_F(GgufFileTest, DamagedFilesAreRefusedInOneLineNamingTheFile) {
    const auto none = [](GgufBytes&) {};
    expectRefused(GgufBytes(), "too short for a GGUF file (0 bytes)");
    expectRefused(GgufBytes().raw("GGML").put<std::uint32_t>(3), "not a GGUF file");
    expectRefused(oneTensor(1, 0, none), "GGUF version 1");
    expectRefused(oneTensor(4, 0, none), "GGUF version 4 is not one mha-viz reads (2 and 3)");
    expectRefused(oneTensor(0x03000000u, 0, none), "a big-endian file?");
    const GgufBytes whole = oneTensor(3, 1, [](GgufBytes& b) { b.string("k", "value"); });
    for (std::size_t cut : {std::size_t(6), std::size_t(30), whole.bytes.size() - 40}) {
        GgufBytes cutShort;
        cutShort.bytes = whole.bytes.substr(0, cut);
        expectRefused(cutShort, "truncated");
    }
    GgufBytes longString;
    longString.header(3, 0, 1).key("k", 8).put<std::uint64_t>(1000).raw("short");
    expectRefused(longString, "k is a string of 1000 bytes, longer than the rest of the file");
    GgufBytes longArray;
    longArray.header(3, 0, 1).key("k", 9).put<std::uint32_t>(6).put<std::uint64_t>(1 << 20);
    expectRefused(longArray, "k is an array of 1048576 elements, longer than the rest");
    GgufBytes absurd;
    absurd.header(3, std::uint64_t(1) << 60, 0).zeros(64);
    expectRefused(absurd, "its header claims 1152921504606846976 tensors");
    expectRefused(oneTensor(3, 1, [](GgufBytes& b) { b.key("k", 13).put<std::uint32_t>(0); }),
                  "k has the unknown value type 13");
    expectRefused(oneTensor(3, 1, [](GgufBytes& b) { b.key("k", 7).put<std::uint8_t>(2); }),
                  "k is a bool of value 2");
    expectRefused(oneTensor(3, 2, [](GgufBytes& b) { b.u32("k", 1).u32("k", 2); }),
                  "the key k appears twice");
    GgufBytes deep;
    deep.header(3, 0, 1).key("k", 9);
    for (int i = 0; i < 6; ++i) deep.put<std::uint32_t>(9).put<std::uint64_t>(1);
    deep.put<std::uint32_t>(4).put<std::uint64_t>(0).zeros(64);
    expectRefused(deep, "k nests arrays deeper than 4");
}

TEST_F(GgufFileTest, TensorsOutsideTheDataOrOneAnotherAreRefused) {
    const auto file = [](std::vector<std::uint64_t> ne, std::uint32_t type, std::uint64_t offset,
                         std::size_t data) {
        GgufBytes b;
        b.header(3, 1, 0).tensor("t", std::move(ne), type, offset).pad();
        return b.zeros(data);
    };
    expectRefused(file({4, 2}, 0, 0, 16), "tensor t (32 bytes at offset 0) lies outside the data "
                                          "section of 16 bytes (a truncated file?)");
    expectRefused(file({4}, 0, 1u << 20, 64), "lies outside the data section");
    expectRefused(file({4}, 0, 8, 64), "starts at offset 8, not a multiple of the alignment 32");
    expectRefused(file({31}, 2, 0, 64), "tensor t's rows of 31 values are not whole blocks of 32 "
                                        "(Q4_0)");
    expectRefused(file({4}, 99, 0, 64), "tensor t has the unknown ggml type 99");
    expectRefused(file({1, 1, 1, 1, 1}, 0, 0, 64), "tensor t has 5 dimensions (1 to 4)");
    expectRefused(file({std::uint64_t(1) << 41}, 0, 0, 64), "tensor t has a dimension of");
    GgufBytes overlap;
    overlap.header(3, 2, 0).tensor("a", {16}, 0, 0).tensor("b", {16}, 0, 32).pad().zeros(128);
    expectRefused(overlap, "tensors a and b overlap");
    GgufBytes twice;
    twice.header(3, 2, 0).tensor("a", {4}, 0, 0).tensor("a", {4}, 0, 32).pad().zeros(64);
    expectRefused(twice, "the tensor a appears twice");
}

// A split model's part k of n (from 1) holding one F32 tensor of 4 values.
GgufBytes part(int k, int n, int tensorsCount, int no) {
    GgufBytes b;
    b.header(3, 1, 3);
    b.key("split.no", 2).put<std::uint16_t>(std::uint16_t(no));
    b.key("split.count", 2).put<std::uint16_t>(std::uint16_t(n));
    b.key("split.tensors.count", 5).put<std::int32_t>(tensorsCount);
    b.tensor("t" + std::to_string(k), {4}, 0, 0).pad();
    return b.floats({float(k), 0, 0, 0});
}

std::string partName(int k, int n) {
    char name[64];
    std::snprintf(name, sizeof name, "m-%05d-of-%05d.gguf", k, n);
    return name;
}

TEST_F(GgufFileTest, SplitModelsOpenEveryPartOrNameTheMissingOne) {
    for (int k = 1; k <= 3; ++k) save(part(k, 3, 3, k - 1), partName(k, 3));
    const GgufModel model = openGguf((dir_ / partName(2, 3)).string()); // any part opens all
    ASSERT_EQ(model.parts.size(), 3u);
    EXPECT_EQ(model.parts[0]->path(), (dir_ / partName(1, 3)).string());
    TensorStore store;
    addGgufTensors(model, store);
    EXPECT_TRUE(store.gguf());
    ASSERT_NE(store.find("t3"), nullptr);
    EXPECT_EQ(store.fileOf("t3"), (dir_ / partName(3, 3)).string());
    fs::remove(dir_ / partName(3, 3));
    try {
        openGguf((dir_ / partName(1, 3)).string());
        ADD_FAILURE() << "opened a split model without its third part";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), (dir_ / partName(3, 3)).string() +
                                             ": is missing: m-00001-of-00003.gguf is one of 3 "
                                             "parts, and each is needed");
    }
    save(part(3, 3, 3, 1), partName(3, 3)); // says it is the second
    EXPECT_THROW(openGguf((dir_ / partName(1, 3)).string()), std::invalid_argument);
    save(part(3, 3, 3, 2), partName(3, 3));
    save(part(1, 3, 5, 0), partName(1, 3)); // claims 5 tensors
    EXPECT_THROW(openGguf((dir_ / partName(1, 3)).string()), std::invalid_argument);
}

TEST(GgufNames, FileTypesAndFileNames) {
    EXPECT_EQ(ggufFileTypeName(15), "Q4_K_M");
    EXPECT_EQ(ggufFileTypeName(7), "Q8_0");
    EXPECT_EQ(ggufFileTypeName(32), "BF16");
    EXPECT_EQ(ggufFileTypeName(5), ""); // Q4_2, long gone
    EXPECT_TRUE(isGgufName("Llama-3.2-1B-Q4_K_M.GGUF"));
    EXPECT_FALSE(isGgufName("model.safetensors"));
}

} // namespace
