// The tensor types a GGUF file can name (ggml's `enum ggml_type`, by their numbers in the file),
// with the block each is stored in: what the GGUF reader needs to size a tensor's data and
// what a refusal names. Which of them mha-viz can compute with is `ggmlTypeReadable`; the
// others are refused naming the tensor and the type (docs/real-models.md, "GGUF files").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace core::models {

enum class GgmlType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
    Q2_0 = 42,
};

// How a type is stored: `blockValues` values in `blockBytes` bytes (1 and the element size for
// the plain types; 32 or 256 values for the quantized ones).
struct GgmlTypeInfo {
    GgmlType type;
    const char* name; // as ggml prints it: "Q4_K", "BF16"
    int blockValues;
    int blockBytes;
};

// The type with this number, or nothing for a number ggml does not define (or no longer does).
std::optional<GgmlTypeInfo> ggmlTypeInfo(std::uint32_t number);
const char* ggmlTypeName(GgmlType type);

// Bytes of a row of `values` values (a multiple of the block's values; else nothing).
std::optional<std::uint64_t> ggmlRowBytes(GgmlType type, std::uint64_t values);

// Whether mha-viz computes with this type: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K.
bool ggmlTypeReadable(GgmlType type);

} // namespace core::models
