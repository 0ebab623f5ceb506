// GGUF files byte by byte for the tests (gguf_file_test, gguf_model_test): a header, metadata of
// any type, tensor infos and data, each piece where the test wants it, so that a file can be
// made whole or damaged in exactly one place. Little-endian, as ggml's gguf.md lays it out.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace testing_support {

class GgufBytes {
  public:
    std::string bytes;

    GgufBytes& raw(const std::string& s) { return bytes += s, *this; }
    template <typename T>
    GgufBytes& put(T value) {
        char b[sizeof(T)];
        std::memcpy(b, &value, sizeof(T)); // the test machines are little-endian
        bytes.append(b, sizeof(T));
        return *this;
    }
    GgufBytes& str(const std::string& s) { return put<std::uint64_t>(s.size()).raw(s); }
    GgufBytes& header(std::uint32_t version, std::uint64_t tensors, std::uint64_t keys) {
        return raw("GGUF").put(version).put(tensors).put(keys);
    }
    // A key and its type; the caller puts the value.
    GgufBytes& key(const std::string& k, std::uint32_t type) { return str(k).put(type); }
    GgufBytes& u32(const std::string& k, std::uint32_t v) { return key(k, 4).put(v); }
    GgufBytes& f32(const std::string& k, float v) { return key(k, 6).put(v); }
    GgufBytes& string(const std::string& k, const std::string& v) { return key(k, 8).str(v); }
    GgufBytes& strings(const std::string& k, const std::vector<std::string>& v) {
        key(k, 9).put<std::uint32_t>(8).put<std::uint64_t>(v.size());
        for (const std::string& s : v) str(s);
        return *this;
    }
    // A tensor info: dimensions in ggml's order (columns first).
    GgufBytes& tensor(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type,
                      std::uint64_t offset) {
        str(name).put<std::uint32_t>(std::uint32_t(ne.size()));
        for (std::uint64_t d : ne) put(d);
        return put(type).put(offset);
    }
    GgufBytes& pad(std::size_t alignment = 32) {
        bytes.append((alignment - bytes.size() % alignment) % alignment, '\0');
        return *this;
    }
    GgufBytes& floats(const std::vector<float>& v) {
        for (float x : v) put(x);
        return *this;
    }
    GgufBytes& zeros(std::size_t n) { return bytes.append(n, '\0'), *this; }

    void write(const std::filesystem::path& path) const {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    }
};

} // namespace testing_support
