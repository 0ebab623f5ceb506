// Reading safetensors files in place (safetensors_map.h).
#include "models/formats/safetensors_map.h"

#include "models/formats/ggml_quants.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace core::models {
namespace {

using json = nlohmann::json;

constexpr std::uint64_t kMaxHeaderBytes = 100u << 20; // the format's own cap

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
    throw std::invalid_argument(path + ": " + what);
}

// Every dtype the format defines, with its size; only the first three are read as numbers.
struct DtypeName {
    const char* name;
    Dtype dtype;
    std::size_t bytes;
};
constexpr DtypeName kDtypes[] = {
    {"F32", Dtype::F32, 4},    {"F16", Dtype::F16, 2},       {"BF16", Dtype::BF16, 2},
    {"F64", Dtype::Other, 8},  {"I64", Dtype::Other, 8},     {"U64", Dtype::Other, 8},
    {"I32", Dtype::Other, 4},  {"U32", Dtype::Other, 4},     {"I16", Dtype::Other, 2},
    {"U16", Dtype::Other, 2},  {"I8", Dtype::Other, 1},      {"U8", Dtype::Other, 1},
    {"BOOL", Dtype::Other, 1}, {"F8_E4M3", Dtype::Other, 1}, {"F8_E5M2", Dtype::Other, 1}};

bool parseDtype(const std::string& name, TensorView& t) {
    for (const DtypeName& d : kDtypes)
        if (name == d.name) {
            t.dtype = d.dtype, t.dtypeText = name, t.elementBytes = d.bytes;
            return true;
        }
    return false;
}

std::vector<std::int64_t> readShape(const std::string& where, const json& shape) {
    if (!shape.is_array() || shape.size() > 8) refuse(where, "has no valid shape");
    std::vector<std::int64_t> dims;
    for (const json& d : shape) {
        if (!d.is_number_unsigned() || d.get<std::uint64_t>() > (1ull << 40))
            refuse(where, "has shape " + shape.dump() + ", not sizes");
        dims.push_back(d.get<std::int64_t>());
    }
    return dims;
}

// One header entry checked against the data section [0, dataBytes).
TensorView readEntry(const std::string& where, const std::string& name, const json& entry,
                     const std::byte* data, std::uint64_t dataBytes) {
    if (!entry.is_object() || !entry.contains("dtype") || !entry["dtype"].is_string())
        refuse(where, "has no dtype");
    TensorView t;
    t.name = name;
    const std::string dtype = entry["dtype"].get<std::string>();
    if (!parseDtype(dtype, t)) refuse(where, "has the unknown dtype " + dtype);
    t.shape = readShape(where, entry.value("shape", json()));
    const json offsets = entry.value("data_offsets", json());
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
        refuse(where, "has no valid data_offsets");
    const std::uint64_t begin = offsets[0], end = offsets[1];
    if (begin > end || end > dataBytes)
        refuse(where, "has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                          "] outside the " + std::to_string(dataBytes) +
                          " data bytes (a truncated file?)");
    // Dimensions are capped at 2^40 each, so the product is checked step by step.
    std::uint64_t bytes = t.elementBytes;
    for (std::int64_t d : t.shape)
        bytes = (d != 0 && bytes > (dataBytes + 1) / std::uint64_t(d)) ? dataBytes + 1
                                                                       : bytes * std::uint64_t(d);
    if (bytes != end - begin)
        refuse(where, "has " + std::to_string(end - begin) + " bytes, not what its shape needs");
    t.data = data + begin;
    return t;
}

std::uint64_t littleEndian64(const std::byte* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | std::uint64_t(p[i]);
    return v;
}

void checkNoOverlap(const std::string& path, std::vector<const TensorView*> views) {
    std::sort(views.begin(), views.end(),
              [](const TensorView* a, const TensorView* b) { return a->data < b->data; });
    for (std::size_t i = 1; i < views.size(); ++i) {
        const TensorView& prev = *views[i - 1];
        const auto prevEnd = prev.data + prev.elements() * std::int64_t(prev.elementBytes);
        if (views[i]->data < prevEnd)
            refuse(path, "tensors " + prev.name + " and " + views[i]->name + " overlap");
    }
}

} // namespace

const char* dtypeName(Dtype dtype) {
    for (const DtypeName& d : kDtypes)
        if (d.dtype == dtype) return d.name;
    return dtype == Dtype::Quantized ? "quantized" : "other";
}

std::int64_t TensorView::elements() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return n;
}

MappedFile::MappedFile(const std::string& path) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) refuse(path, std::string("cannot open (") + std::strerror(errno) + ")");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        refuse(path, "not a file");
    }
    size_ = std::size_t(st.st_size);
    if (size_ > 0) {
        // Populated up front: the load reads every weight anyway (nonFiniteCount), and one
        // call maps the page-cache pages far faster than 120 000 faults for GPT-2 small.
#ifdef MAP_POPULATE
        constexpr int kFlags = MAP_PRIVATE | MAP_POPULATE;
#else
        constexpr int kFlags = MAP_PRIVATE;
#endif
        void* p = ::mmap(nullptr, size_, PROT_READ, kFlags, fd, 0);
        if (p == MAP_FAILED) {
            ::close(fd);
            refuse(path, std::string("cannot map (") + std::strerror(errno) + ")");
        }
        data_ = static_cast<const std::byte*>(p);
    }
    ::close(fd); // the mapping keeps the file
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

void TensorStore::addFile(const std::string& path) {
    auto file = std::make_shared<MappedFile>(path);
    const std::size_t size = file->size();
    if (size < 8)
        refuse(path, "too short for a safetensors file (" + std::to_string(size) + " bytes)");
    const std::uint64_t headerBytes = littleEndian64(file->data());
    if (headerBytes > kMaxHeaderBytes || headerBytes > size - 8)
        refuse(path, "its header size " + std::to_string(headerBytes) + " does not fit the " +
                         std::to_string(size) + "-byte file (not safetensors, or truncated)");
    const char* text = reinterpret_cast<const char*>(file->data()) + 8;
    const json header = json::parse(text, text + headerBytes, nullptr, false);
    if (!header.is_object()) refuse(path, "its header is not a JSON object (not safetensors?)");
    const std::byte* data = file->data() + 8 + headerBytes;
    const std::uint64_t dataBytes = size - 8 - headerBytes;
    std::vector<const TensorView*> added;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) continue; // not the format's; nothing reads it then
            for (const auto& [key, value] : entry.items())
                if (value.is_string()) metadata_[key] = value.get<std::string>();
            continue;
        }
        if (tensors_.count(name)) refuse(path, "tensor " + name + " is also in " + fileOf(name));
        TensorView t = readEntry(path + ": tensor " + name, name, entry, data, dataBytes);
        auto [it, ok] = tensors_.emplace(name, std::move(t));
        fileIndex_[name] = files_.size();
        added.push_back(&it->second);
    }
    checkNoOverlap(path, added);
    files_.push_back(std::move(file));
}

void TensorStore::addTensors(std::shared_ptr<const MappedFile> file,
                             std::vector<TensorView> views) {
    for (const TensorView& t : views)
        if (tensors_.count(t.name))
            refuse(file->path(), "tensor " + t.name + " is also in " + fileOf(t.name));
    for (TensorView& t : views) {
        fileIndex_[t.name] = files_.size();
        const std::string name = t.name;
        tensors_.emplace(name, std::move(t));
    }
    files_.push_back(std::move(file));
    gguf_ = true;
}

const TensorView* TensorStore::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

const std::string& TensorStore::fileOf(const std::string& name) const {
    static const std::string none;
    auto it = fileIndex_.find(name);
    return it == fileIndex_.end() || it->second >= files_.size() ? none
                                                                 : files_[it->second]->path();
}

std::uint64_t TensorStore::fileBytes() const {
    std::uint64_t total = 0;
    for (const auto& f : files_) total += f->size();
    return total;
}

Dtype TensorStore::commonDtype() const {
    std::int64_t count[5] = {0, 0, 0, 0, 0};
    for (const auto& [name, t] : tensors_) count[int(t.dtype)] += t.elements();
    count[int(Dtype::Other)] = 0;
    return Dtype(std::max_element(count, count + 5) - count);
}

namespace {

// The float with these bits (std::bit_cast, which the browser build's libc++ 14 lacks).
float floatOfBits(std::uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

} // namespace

float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0x1f) // Inf or NaN
        return floatOfBits(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) { // zero or subnormal: mantissa * 2^-24, exact in float
        const float v = std::ldexp(float(mantissa), -24);
        return sign ? -v : v;
    }
    return floatOfBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float bfloat16ToFloat(std::uint16_t bits) {
    return floatOfBits(std::uint32_t(bits) << 16);
}

Eigen::Map<const Mat> tensorAsFloat(const TensorView& t, Mat& scratch) {
    if (t.dtype == Dtype::Other)
        throw std::invalid_argument("tensor " + t.name + " has dtype " + t.dtypeText +
                                    ", not F32, F16 or BF16");
    const Eigen::Index cols = t.shape.empty() ? 1 : Eigen::Index(t.shape.back());
    const Eigen::Index rows = cols == 0 ? 0 : Eigen::Index(t.elements() / cols);
    const bool aligned = reinterpret_cast<std::uintptr_t>(t.data) % alignof(float) == 0;
    if (t.dtype == Dtype::F32 && aligned)
        return Eigen::Map<const Mat>(reinterpret_cast<const float*>(t.data), rows, cols);
    scratch.resize(rows, cols); // rows x cols
    float* out = scratch.data();
    const std::int64_t n = t.elements();
    if (t.dtype == Dtype::Quantized) { // a GGUF tensor (a norm's weight, a bias), row by row
        for (Eigen::Index r = 0; r < rows; ++r)
            ggmlDequantize(t.ggml, t.data + std::size_t(r) * t.rowBytes, out + r * cols, cols);
    } else if (t.dtype == Dtype::F32) {
        std::memcpy(out, t.data, std::size_t(n) * sizeof(float));
    } else {
        for (std::int64_t i = 0; i < n; ++i) {
            std::uint16_t bits;
            std::memcpy(&bits, t.data + 2 * i, 2);
            out[i] = t.dtype == Dtype::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
        }
    }
    return Eigen::Map<const Mat>(scratch.data(), rows, cols);
}

std::int64_t nonFiniteCount(const TensorView& t) {
    std::int64_t bad = 0;
    const std::int64_t n = t.elements();
    if (t.dtype == Dtype::Other) return 0;
    if (t.dtype == Dtype::Quantized) { // the blocks' scales only (ggml_quants.h)
        const std::int64_t cols = t.shape.empty() ? 1 : t.shape.back();
        for (std::int64_t r = 0; cols > 0 && r < n / cols; ++r)
            bad += ggmlNonFiniteCount(t.ggml, t.data + std::size_t(r) * t.rowBytes, cols);
        return bad;
    }
    if (t.dtype == Dtype::F32) {
        for (std::int64_t i = 0; i < n; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, t.data + 4 * i, 4);
            bad += (bits & 0x7f800000u) == 0x7f800000u;
        }
        return bad;
    }
    const std::uint16_t allOnes = t.dtype == Dtype::F16 ? 0x7c00 : 0x7f80; // exponent bits
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, t.data + 2 * i, 2);
        bad += (bits & allOnes) == allOnes;
    }
    return bad;
}

} // namespace core::models
