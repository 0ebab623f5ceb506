#include "io/safetensors.h"

#include "io/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace core {

namespace {

using nlohmann::json;

// A header larger than this is not a checkpoint of this app (each tensor's entry is ~80 bytes):
// refusing it early keeps a corrupt size field from allocating gigabytes.
constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

[[noreturn]] void refuse(const std::string& message) {
    throw std::invalid_argument(message);
}

std::string headerJson(const std::vector<NamedMatrix>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::uint64_t offset = 0;
    for (const NamedMatrix& t : tensors) {
        const std::uint64_t bytes = std::uint64_t(t.values.size()) * sizeof(float);
        header[t.name] = {{"dtype", "F32"},
                          {"shape", {t.values.rows(), t.values.cols()}},
                          {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    return text;
}

std::uint64_t readSize(const std::string& bytes) {
    std::uint64_t size = 0;
    for (int i = 7; i >= 0; --i) size = (size << 8) | std::uint8_t(bytes[std::size_t(i)]);
    return size;
}

// One tensor entry of the header: F32, [rows, cols], offsets inside the data.
NamedMatrix readTensor(const std::string& name, const json& entry, const std::string& data) {
    const std::string where = "tensor '" + name + "'";
    if (!entry.is_object() || entry.value("dtype", json()) != "F32")
        refuse(where + " is not F32 (only F32 tensors are read)");
    const json shape = entry.value("shape", json());
    const json offsets = entry.value("data_offsets", json());
    if (!shape.is_array() || shape.size() != 2 || !shape[0].is_number_unsigned() ||
        !shape[1].is_number_unsigned())
        refuse(where + " has shape " + shape.dump() + "; only 2-D shapes are read");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
        refuse(where + " has no valid data_offsets");
    const std::uint64_t rows = shape[0], cols = shape[1];
    const std::uint64_t begin = offsets[0], end = offsets[1];
    if (begin > end || end > data.size())
        refuse(where + " has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
               "] outside the " + std::to_string(data.size()) + " data bytes");
    // Each dimension within the data on its own (an empty tensor may not claim 2^64 rows), then
    // the product, tested by division so rows * cols cannot overflow.
    const std::uint64_t values = (end - begin) / sizeof(float);
    if (rows > std::max<std::uint64_t>(values, 1) || cols > std::max<std::uint64_t>(values, 1) ||
        (cols > 0 && rows > values / cols))
        refuse(where + " has shape [" + std::to_string(rows) + ", " + std::to_string(cols) +
               "], larger than its data");
    if (rows * cols * sizeof(float) != end - begin)
        refuse(where + " has " + std::to_string(end - begin) + " bytes for shape [" +
               std::to_string(rows) + ", " + std::to_string(cols) + "]");
    NamedMatrix t{name, Mat(Eigen::Index(rows), Eigen::Index(cols))}; // rows x cols
    if (end > begin) std::memcpy(t.values.data(), data.data() + begin, end - begin);
    return t;
}

// Data offsets as [begin, end) of each tensor, in file order: none may overlap.
void checkNoOverlap(const json& header, std::vector<NamedMatrix>& tensors) {
    auto beginOf = [&](const NamedMatrix& t) {
        return header[t.name]["data_offsets"][0].get<std::uint64_t>();
    };
    std::sort(tensors.begin(), tensors.end(),
              [&](const NamedMatrix& a, const NamedMatrix& b) { return beginOf(a) < beginOf(b); });
    for (std::size_t i = 1; i < tensors.size(); ++i)
        if (beginOf(tensors[i]) < header[tensors[i - 1].name]["data_offsets"][1])
            refuse("tensors '" + tensors[i - 1].name + "' and '" + tensors[i].name + "' overlap");
}

} // namespace

const NamedMatrix* SafetensorsFile::find(const std::string& name) const {
    for (const NamedMatrix& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

std::string safetensorsBytes(const std::vector<NamedMatrix>& tensors,
                             const std::map<std::string, std::string>& metadata) {
    const std::string header = headerJson(tensors, metadata);
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[std::size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
    bytes += header;
    for (const NamedMatrix& t : tensors) // Mat is row-major: the rows are already in order
        bytes.append(reinterpret_cast<const char*>(t.values.data()),
                     std::size_t(t.values.size()) * sizeof(float));
    return bytes;
}

void writeSafetensors(const std::string& path, const std::vector<NamedMatrix>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    writeFileAtomically(path, safetensorsBytes(tensors, metadata));
}

SafetensorsFile parseSafetensors(const std::string& bytes) {
    if (bytes.size() < 8)
        refuse("the file is " + std::to_string(bytes.size()) +
               " bytes, too "
               "short for a safetensors header");
    const std::uint64_t headerSize = readSize(bytes);
    if (headerSize > kMaxHeaderBytes || headerSize > bytes.size() - 8)
        refuse("the header size " + std::to_string(headerSize) + " does not fit the " +
               std::to_string(bytes.size()) + "-byte file");
    const json header =
        json::parse(bytes.begin() + 8, bytes.begin() + 8 + long(headerSize), nullptr, false);
    if (!header.is_object()) refuse("the header is not a JSON object");
    const std::string data = bytes.substr(8 + headerSize);
    SafetensorsFile file;
    for (const auto& [name, entry] : header.items()) {
        if (name != "__metadata__") {
            file.tensors.push_back(readTensor(name, entry, data));
            continue;
        }
        if (!entry.is_object()) refuse("__metadata__ is not an object");
        for (const auto& [key, value] : entry.items())
            if (value.is_string()) file.metadata[key] = value.get<std::string>();
    }
    checkNoOverlap(header, file.tensors);
    return file;
}

SafetensorsFile readSafetensors(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw std::runtime_error("cannot read '" + path + "': not a file");
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::runtime_error("cannot read '" + path + "'");
    try {
        return parseSafetensors(bytes);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("'" + path + "' is not a checkpoint: " + e.what());
    }
}

} // namespace core
