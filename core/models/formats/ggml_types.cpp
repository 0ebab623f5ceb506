// ggml's tensor types and their blocks (ggml_types.h). The sizes are those of ggml's block
// structs (ggml's block structs): e.g. Q4_K is 2 + 2 bytes of scales' scales, 12 of 6-bit scales
// and 128 of 4-bit values for 256 values.
#include "models/formats/ggml_types.h"

namespace core::models {
namespace {

constexpr GgmlTypeInfo kTypes[] = {
    {GgmlType::F32, "F32", 1, 4},
    {GgmlType::F16, "F16", 1, 2},
    {GgmlType::Q4_0, "Q4_0", 32, 18},
    {GgmlType::Q4_1, "Q4_1", 32, 20},
    {GgmlType::Q5_0, "Q5_0", 32, 22},
    {GgmlType::Q5_1, "Q5_1", 32, 24},
    {GgmlType::Q8_0, "Q8_0", 32, 34},
    {GgmlType::Q8_1, "Q8_1", 32, 36},
    {GgmlType::Q2_K, "Q2_K", 256, 84},
    {GgmlType::Q3_K, "Q3_K", 256, 110},
    {GgmlType::Q4_K, "Q4_K", 256, 144},
    {GgmlType::Q5_K, "Q5_K", 256, 176},
    {GgmlType::Q6_K, "Q6_K", 256, 210},
    {GgmlType::Q8_K, "Q8_K", 256, 292},
    {GgmlType::IQ2_XXS, "IQ2_XXS", 256, 66},
    {GgmlType::IQ2_XS, "IQ2_XS", 256, 74},
    {GgmlType::IQ3_XXS, "IQ3_XXS", 256, 98},
    {GgmlType::IQ1_S, "IQ1_S", 256, 50},
    {GgmlType::IQ4_NL, "IQ4_NL", 32, 18},
    {GgmlType::IQ3_S, "IQ3_S", 256, 110},
    {GgmlType::IQ2_S, "IQ2_S", 256, 82},
    {GgmlType::IQ4_XS, "IQ4_XS", 256, 136},
    {GgmlType::I8, "I8", 1, 1},
    {GgmlType::I16, "I16", 1, 2},
    {GgmlType::I32, "I32", 1, 4},
    {GgmlType::I64, "I64", 1, 8},
    {GgmlType::F64, "F64", 1, 8},
    {GgmlType::IQ1_M, "IQ1_M", 256, 56},
    {GgmlType::BF16, "BF16", 1, 2},
    {GgmlType::TQ1_0, "TQ1_0", 256, 54},
    {GgmlType::TQ2_0, "TQ2_0", 256, 66},
    {GgmlType::MXFP4, "MXFP4", 32, 17},
    {GgmlType::NVFP4, "NVFP4", 64, 36},
    {GgmlType::Q1_0, "Q1_0", 128, 18},
    {GgmlType::Q2_0, "Q2_0", 64, 18},
};

} // namespace

std::optional<GgmlTypeInfo> ggmlTypeInfo(std::uint32_t number) {
    for (const GgmlTypeInfo& info : kTypes)
        if (std::uint32_t(info.type) == number) return info;
    return std::nullopt;
}

const char* ggmlTypeName(GgmlType type) {
    const auto info = ggmlTypeInfo(std::uint32_t(type));
    return info ? info->name : "unknown";
}

std::optional<std::uint64_t> ggmlRowBytes(GgmlType type, std::uint64_t values) {
    const auto info = ggmlTypeInfo(std::uint32_t(type));
    if (!info || values % std::uint64_t(info->blockValues) != 0) return std::nullopt;
    return values / std::uint64_t(info->blockValues) * std::uint64_t(info->blockBytes);
}

bool ggmlTypeReadable(GgmlType type) {
    switch (type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
    case GgmlType::Q2_K:
    case GgmlType::Q3_K:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
        return true;
    default:
        return false;
    }
}

} // namespace core::models
