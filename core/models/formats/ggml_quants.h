// ggml's tensor types turned into floats, a row (or any run of whole blocks) at a time: F32,
// F16, BF16 and the block types Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K,
// each value computed with the float operations of ggml's dequantize_row_* in the same order
// (each product and sum rounded on its own), so they are the bits ggml's reference code gives.
// The blocks' layouts are ggml's block structs'; docs/engine.md ("Quantized weights") describes
// them. A product never expands a whole matrix: the engine calls the dequantizer on the rows of the
// panel it is about to multiply (core::QuantMatrix in engine/attention.h).
#pragma once

#include "models/formats/ggml_types.h"

#include <cstddef>
#include <cstdint>

namespace core::models {

// Writes the `count` values stored from `blocks` on (whole blocks of the type: `count` a
// multiple of its block values) into out[0, count).
using GgmlDequantizer = void (*)(const std::byte* blocks, float* out, std::int64_t count);

// The dequantizer of a type ggmlTypeReadable accepts; nullptr for any other.
GgmlDequantizer ggmlDequantizer(GgmlType type);

// The same, checked: throws std::invalid_argument naming the type when it is not readable or
// `count` is not whole blocks.
void ggmlDequantize(GgmlType type, const std::byte* blocks, float* out, std::int64_t count);

// How many of those `count` values are NaN or infinite, without dequantizing them: a block
// type's value is non-finite exactly when one of its block's F16 scales is (the quants are
// small integers, and no product of finite F16 scales and quants overflows a float), so only
// the scales are read. Throws like ggmlDequantize.
std::int64_t ggmlNonFiniteCount(GgmlType type, const std::byte* blocks, std::int64_t count);

} // namespace core::models
