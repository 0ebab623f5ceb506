// Attention files written by the tests themselves, good and bad (docs/attention-files.md): the
// safetensors layout by hand (8-byte header size, JSON header, data), with any name, dtype, shape
// and value, so every refusal of core/models/formats/attention_file.h can be met. The committed
// fixtures (tests/make_attention_fixtures.py) are PyTorch's; these are the broken ones.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace testing_support {

struct SavedTensor {
    std::string name;
    std::vector<std::int64_t> shape;
    std::vector<float> values; // F32: written as they are; else each as 0 of the dtype's size
    std::string dtype = "F32";
};

// The bytes of a safetensors file of `tensors` with `metadata` (string values) in its header.
inline std::string safetensorsBytes(const std::vector<SavedTensor>& tensors,
                                    const nlohmann::json& metadata = nlohmann::json::object()) {
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::string data;
    for (const SavedTensor& t : tensors) {
        const std::size_t begin = data.size();
        if (t.dtype == "F32") {
            data.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * 4);
        } else {
            const std::size_t bytes = t.dtype == "F64" || t.dtype == "I64" ? 8
                                      : t.dtype == "I32"                   ? 4
                                                                           : 2;
            data.append(t.values.size() * bytes, '\0');
        }
        header[t.name] = {
            {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    const std::uint64_t size = text.size();
    for (int i = 0; i < 8; ++i) out[std::size_t(i)] = char((size >> (8 * i)) & 0xff);
    return out + text + data;
}

inline void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// H maps of N x N, causal and uniform over the keys each query sees (rows sum to 1).
inline std::vector<float> causalUniform(int heads, int n) {
    std::vector<float> values;
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) values.push_back(j <= i ? 1.0f / float(i + 1) : 0.0f);
    return values;
}

// The tokens as the metadata holds them: JSON text of a list.
inline nlohmann::json tokensMetadata(const std::vector<std::string>& tokens) {
    return {{"tokens", nlohmann::json(tokens).dump()}};
}

} // namespace testing_support
