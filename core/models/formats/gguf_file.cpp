// Reading GGUF files in place (gguf_file.h), as ggml's GGUF specification lays them out
// (docs/real-models.md, "GGUF files"): little-endian throughout, strings as a u64 length and bytes,
// arrays as an element type, a u64 count and the elements, tensor offsets relative to the data
// section, which starts at the first multiple of general.alignment after the tensor infos.
#include "models/formats/gguf_file.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <stdexcept>

namespace core::models {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
    throw std::invalid_argument(path + ": " + what);
}

constexpr int kMaxNesting = 4;           // arrays of arrays of ...: no model nests deeper
constexpr std::uint64_t kMaxKey = 65535; // the spec's cap on a key's length
constexpr std::uint64_t kMaxName = 255;  // ggml's is 63; longer is a damaged file
constexpr std::uint32_t kMaxDims = 4;    // ggml's GGML_MAX_DIMS
constexpr std::uint64_t kMaxDim = std::uint64_t(1) << 40;

// The bytes of the file, read front to back; each read refuses to run past the end.
class Reader {
  public:
    Reader(const MappedFile& file) : p_(file.data()), size_(file.size()), path_(file.path()) {}

    std::size_t position() const { return pos_; }
    std::uint64_t left() const { return size_ - pos_; }
    [[noreturn]] void truncated(const std::string& what) const {
        refuse(path_,
               "ends inside " + what + " at byte " + std::to_string(pos_) + " (a truncated file?)");
    }
    template <typename T>
    T scalar(const std::string& what) {
        if (left() < sizeof(T)) truncated(what);
        std::uint64_t bits = 0; // little-endian, whatever the machine's order
        for (std::size_t i = 0; i < sizeof(T); ++i)
            bits |= std::uint64_t(std::to_integer<std::uint8_t>(p_[pos_ + i])) << (8 * i);
        pos_ += sizeof(T);
        T value;
        if constexpr (sizeof(T) == 8) {
            std::memcpy(&value, &bits, 8);
        } else {
            using U =
                std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                   std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>;
            const U narrow = U(bits);
            std::memcpy(&value, &narrow, sizeof(T));
        }
        return value;
    }
    std::string string(const std::string& what, std::uint64_t cap) {
        const std::uint64_t length = scalar<std::uint64_t>(what);
        if (length > left())
            refuse(path_, what + " is a string of " + std::to_string(length) +
                              " bytes, longer than the rest of the file (" +
                              std::to_string(left()) + " bytes)");
        if (length > cap)
            refuse(path_, what + " is " + std::to_string(length) + " bytes long (at most " +
                              std::to_string(cap) + ")");
        std::string text(reinterpret_cast<const char*>(p_ + pos_), std::size_t(length));
        pos_ += std::size_t(length);
        return text;
    }
    void skipTo(std::size_t pos) { pos_ = std::min<std::size_t>(pos, size_); }
    const std::string& path() const { return path_; }

  private:
    const std::byte* p_;
    std::size_t size_;
    std::size_t pos_ = 0;
    const std::string& path_;
};

// The fewest bytes one element of this type takes: what a claimed count is checked against.
std::uint64_t minimumBytes(GgufType type) {
    switch (type) {
    case GgufType::U8:
    case GgufType::I8:
    case GgufType::Bool:
        return 1;
    case GgufType::U16:
    case GgufType::I16:
        return 2;
    case GgufType::U32:
    case GgufType::I32:
    case GgufType::F32:
        return 4;
    case GgufType::String:
    case GgufType::U64:
    case GgufType::I64:
    case GgufType::F64:
        return 8;
    case GgufType::Array:
        return 12;
    }
    return 1;
}

bool knownType(std::uint32_t number) {
    return number <= std::uint32_t(GgufType::F64);
}

GgufValue readValue(Reader& in, GgufType type, const std::string& what, int depth);

// A scalar of an integer, float or bool type into `v`.
void readScalar(Reader& in, GgufValue& v, const std::string& what) {
    switch (v.type) {
    case GgufType::U8:
        v.integer = in.scalar<std::uint8_t>(what), v.unsignedInteger = true;
        break;
    case GgufType::I8:
        v.integer = in.scalar<std::int8_t>(what);
        break;
    case GgufType::U16:
        v.integer = in.scalar<std::uint16_t>(what), v.unsignedInteger = true;
        break;
    case GgufType::I16:
        v.integer = in.scalar<std::int16_t>(what);
        break;
    case GgufType::U32:
        v.integer = in.scalar<std::uint32_t>(what), v.unsignedInteger = true;
        break;
    case GgufType::I32:
        v.integer = in.scalar<std::int32_t>(what);
        break;
    case GgufType::U64:
        v.integer = std::int64_t(in.scalar<std::uint64_t>(what)), v.unsignedInteger = true;
        break;
    case GgufType::I64:
        v.integer = in.scalar<std::int64_t>(what);
        break;
    case GgufType::F32:
        v.real = in.scalar<float>(what);
        break;
    case GgufType::F64:
        v.real = in.scalar<double>(what);
        break;
    case GgufType::Bool: {
        const std::uint8_t b = in.scalar<std::uint8_t>(what);
        if (b > 1) refuse(in.path(), what + " is a bool of value " + std::to_string(b));
        v.integer = b;
        break;
    }
    default:
        break;
    }
}

// An array's elements, stored by kind (strings, numbers, arrays), each checked against the file.
void readArray(Reader& in, GgufValue& v, const std::string& what, int depth) {
    const std::uint32_t element = in.scalar<std::uint32_t>(what + "'s element type");
    if (!knownType(element))
        refuse(in.path(), what + " is an array of the unknown type " + std::to_string(element));
    v.elementType = GgufType(element);
    v.count = in.scalar<std::uint64_t>(what + "'s length");
    if (v.count > in.left() / minimumBytes(v.elementType))
        refuse(in.path(), what + " is an array of " + std::to_string(v.count) +
                              " elements, longer than the rest of the file (" +
                              std::to_string(in.left()) + " bytes)");
    if (v.elementType == GgufType::Array && depth >= kMaxNesting)
        refuse(in.path(), what + " nests arrays deeper than " + std::to_string(kMaxNesting));
    for (std::uint64_t i = 0; i < v.count; ++i) {
        if (v.elementType == GgufType::String) {
            v.strings.push_back(in.string(what, in.left()));
        } else if (v.elementType == GgufType::Array) {
            v.arrays.push_back(readValue(in, GgufType::Array, what, depth + 1));
        } else {
            GgufValue e;
            e.type = v.elementType;
            readScalar(in, e, what);
            v.numbers.push_back(e.isInteger() ? double(e.integer) : e.real);
        }
    }
}

GgufValue readValue(Reader& in, GgufType type, const std::string& what, int depth) {
    GgufValue v;
    v.type = type;
    if (type == GgufType::String)
        v.text = in.string(what, in.left());
    else if (type == GgufType::Array)
        readArray(in, v, what, depth);
    else
        readScalar(in, v, what);
    return v;
}

// The header's magic and version; any other is refused with what the file looks like.
std::uint32_t readVersion(Reader& in, const MappedFile& file) {
    if (file.size() < 4)
        refuse(file.path(),
               "too short for a GGUF file (" + std::to_string(file.size()) + " bytes)");
    if (std::memcmp(file.data(), "GGUF", 4) != 0) {
        std::string seen;
        for (int i = 0; i < 4; ++i) {
            const int c = std::to_integer<int>(file.data()[i]);
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            seen += std::isprint(c) ? std::string(1, char(c)) : std::string(hex);
        }
        refuse(file.path(), "not a GGUF file (it starts with \"" + seen + "\", not \"GGUF\")");
    }
    in.skipTo(4);
    const std::uint32_t version = in.scalar<std::uint32_t>("the header's version");
    if (version == 1)
        refuse(file.path(), "GGUF version 1 (2023, 32-bit counts) is not read; convert the "
                            "model again with a current llama.cpp");
    if (version != 2 && version != 3) {
        const bool swapped = version == 0x02000000u || version == 0x03000000u;
        refuse(file.path(), "GGUF version " + std::to_string(version) +
                                " is not one mha-viz reads (2 and 3)" +
                                (swapped ? "; a big-endian file?" : ""));
    }
    return version;
}

// Rows of whole blocks: the bytes of a tensor of this type and these dimensions (ggml's order),
// or nothing when a row is not whole blocks.
std::optional<std::uint64_t> tensorBytes(const GgmlTypeInfo& type,
                                         const std::vector<std::uint64_t>& ne) {
    const auto row = ggmlRowBytes(type.type, ne[0]);
    if (!row) return std::nullopt;
    std::uint64_t bytes = *row;
    for (std::size_t i = 1; i < ne.size(); ++i) {
        if (ne[i] != 0 && bytes > (std::uint64_t(1) << 62) / ne[i]) return std::uint64_t(1) << 62;
        bytes *= ne[i];
    }
    return bytes;
}

// What TensorView says of a ggml type: F32, F16, BF16 read as numbers, the block types mha-viz
// computes with as Quantized, every other type as Other (refused when a model binds it).
void setType(TensorView& t, const GgmlTypeInfo& type, std::uint64_t rowValues) {
    t.ggml = type.type;
    t.dtypeText = type.name;
    switch (type.type) {
    case GgmlType::F32:
        t.dtype = Dtype::F32, t.elementBytes = 4;
        return;
    case GgmlType::F16:
        t.dtype = Dtype::F16, t.elementBytes = 2;
        return;
    case GgmlType::BF16:
        t.dtype = Dtype::BF16, t.elementBytes = 2;
        return;
    default:
        break;
    }
    t.dtype = ggmlTypeReadable(type.type) ? Dtype::Quantized : Dtype::Other;
    t.elementBytes = type.blockValues == 1 ? std::size_t(type.blockBytes) : 0;
    t.rowBytes = std::size_t(ggmlRowBytes(type.type, rowValues).value_or(0));
}

struct TensorInfo {
    TensorView view;
    std::uint64_t offset = 0, bytes = 0;
};

TensorInfo readTensorInfo(Reader& in, std::uint64_t index) {
    const std::string where = "tensor info " + std::to_string(index + 1);
    TensorInfo info;
    info.view.name = in.string(where + "'s name", kMaxName);
    const std::string what = "tensor " + info.view.name;
    if (info.view.name.empty()) refuse(in.path(), where + " has an empty name");
    const std::uint32_t dims = in.scalar<std::uint32_t>(what + "'s dimension count");
    if (dims < 1 || dims > kMaxDims)
        refuse(in.path(), what + " has " + std::to_string(dims) + " dimensions (1 to 4)");
    std::vector<std::uint64_t> ne;
    for (std::uint32_t i = 0; i < dims; ++i) {
        ne.push_back(in.scalar<std::uint64_t>(what + "'s dimensions"));
        if (ne.back() > kMaxDim)
            refuse(in.path(), what + " has a dimension of " + std::to_string(ne.back()));
    }
    const std::uint32_t number = in.scalar<std::uint32_t>(what + "'s type");
    const auto type = ggmlTypeInfo(number);
    if (!type) refuse(in.path(), what + " has the unknown ggml type " + std::to_string(number));
    info.offset = in.scalar<std::uint64_t>(what + "'s offset");
    const auto bytes = tensorBytes(*type, ne);
    if (!bytes)
        refuse(in.path(), what + "'s rows of " + std::to_string(ne[0]) + " values are not " +
                              "whole blocks of " + std::to_string(type->blockValues) + " (" +
                              type->name + ")");
    info.bytes = *bytes;
    for (std::size_t i = ne.size(); i-- > 0;) info.view.shape.push_back(std::int64_t(ne[i]));
    setType(info.view, *type, ne[0]);
    return info;
}

// Each tensor inside the data, aligned, and no two sharing bytes.
void checkPlacement(const std::string& path, std::vector<TensorInfo>& infos,
                    std::uint64_t dataBytes, std::uint64_t alignment) {
    for (const TensorInfo& t : infos) {
        if (t.offset % alignment != 0)
            refuse(path, "tensor " + t.view.name + " starts at offset " + std::to_string(t.offset) +
                             ", not a multiple of the alignment " + std::to_string(alignment));
        if (t.offset > dataBytes || t.bytes > dataBytes - t.offset)
            refuse(path, "tensor " + t.view.name + " (" + std::to_string(t.bytes) +
                             " bytes at offset " + std::to_string(t.offset) +
                             ") lies outside the data section of " + std::to_string(dataBytes) +
                             " bytes (a truncated file?)");
    }
    std::vector<const TensorInfo*> order;
    for (const TensorInfo& t : infos) order.push_back(&t);
    std::sort(order.begin(), order.end(),
              [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
    for (std::size_t i = 1; i < order.size(); ++i)
        if (order[i]->offset < order[i - 1]->offset + order[i - 1]->bytes)
            refuse(path, "tensors " + order[i - 1]->view.name + " and " + order[i]->view.name +
                             " overlap");
}

std::uint64_t readAlignment(const std::string& path, const std::map<std::string, GgufValue>& m) {
    const auto it = m.find("general.alignment");
    if (it == m.end()) return 32;
    const GgufValue& v = it->second;
    if (!v.isInteger() || v.integer <= 0 || (v.integer & (v.integer - 1)) != 0 ||
        v.integer > (1 << 30))
        refuse(path, "general.alignment must be a power of two (it is " +
                         (v.isInteger() ? std::to_string(v.integer) : ggufTypeName(v.type)) + ")");
    return std::uint64_t(v.integer);
}

} // namespace

const char* ggufTypeName(GgufType type) {
    static const char* const names[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                        "bool", "string", "array", "u64", "i64", "f64"};
    const auto i = std::size_t(type);
    return i < std::size(names) ? names[i] : "unknown";
}

bool GgufValue::isInteger() const {
    return type != GgufType::F32 && type != GgufType::F64 && type != GgufType::String &&
           type != GgufType::Array;
}

bool GgufValue::isNumber() const {
    return type != GgufType::String && type != GgufType::Array;
}

GgufFile::GgufFile(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {
    Reader in(*file_);
    version_ = readVersion(in, *file_);
    const std::uint64_t tensors = in.scalar<std::uint64_t>("the header's tensor count");
    const std::uint64_t keys = in.scalar<std::uint64_t>("the header's metadata count");
    if (tensors > in.left() / 32 || keys > in.left() / 14)
        refuse(path, "its header claims " + std::to_string(tensors) + " tensors and " +
                         std::to_string(keys) + " metadata keys, more than its " +
                         std::to_string(file_->size()) +
                         " bytes hold (a truncated or damaged file?)");
    for (std::uint64_t k = 0; k < keys; ++k) {
        std::string key = in.string("metadata key " + std::to_string(k + 1), kMaxKey);
        if (key.empty()) refuse(path, "metadata key " + std::to_string(k + 1) + " is empty");
        const std::uint32_t type = in.scalar<std::uint32_t>(key + "'s type");
        if (!knownType(type))
            refuse(path, key + " has the unknown value type " + std::to_string(type));
        GgufValue value = readValue(in, GgufType(type), key, 0);
        if (!metadata_.emplace(key, std::move(value)).second)
            refuse(path, "the key " + key + " appears twice");
    }
    alignment_ = readAlignment(path, metadata_);
    std::vector<TensorInfo> infos;
    for (std::uint64_t t = 0; t < tensors; ++t) infos.push_back(readTensorInfo(in, t));
    const std::uint64_t start = (in.position() + alignment_ - 1) / alignment_ * alignment_;
    dataBytes_ = start < file_->size() ? file_->size() - start : 0;
    checkPlacement(path, infos, dataBytes_, alignment_);
    std::set<std::string> names;
    for (TensorInfo& t : infos) {
        if (!names.insert(t.view.name).second)
            refuse(path, "the tensor " + t.view.name + " appears twice");
        t.view.data = file_->data() + start + t.offset;
        tensors_.push_back(std::move(t.view));
    }
}

const GgufValue* GgufFile::find(const std::string& key) const {
    const auto it = metadata_.find(key);
    return it == metadata_.end() ? nullptr : &it->second;
}

void GgufFile::bad(const std::string& key, const std::string& what) const {
    refuse(path(), key + " " + what);
}

std::optional<std::uint64_t> GgufFile::unsignedValue(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    if (!v->isInteger() || v->type == GgufType::Bool)
        bad(key, std::string("is a ") + ggufTypeName(v->type) + ", not an integer");
    if (v->integer < 0 && !v->unsignedInteger)
        bad(key, "is " + std::to_string(v->integer) + ", not a count");
    return std::uint64_t(v->integer);
}

std::optional<double> GgufFile::number(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    if (!v->isNumber() || v->type == GgufType::Bool)
        bad(key, std::string("is a ") + ggufTypeName(v->type) + ", not a number");
    if (!v->isInteger()) return v->real;
    return v->unsignedInteger ? double(std::uint64_t(v->integer)) : double(v->integer);
}

std::optional<std::string> GgufFile::string(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != GgufType::String)
        bad(key, std::string("is a ") + ggufTypeName(v->type) + ", not a string");
    return v->text;
}

std::optional<bool> GgufFile::boolean(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    if (v->type != GgufType::Bool)
        bad(key, std::string("is a ") + ggufTypeName(v->type) + ", not a bool");
    return v->integer != 0;
}

std::vector<std::string> GgufFile::strings(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return {};
    if (v->type != GgufType::Array || v->elementType != GgufType::String)
        bad(key, "is not an array of strings");
    return v->strings;
}

std::vector<double> GgufFile::numbers(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) return {};
    if (v->type != GgufType::Array || v->elementType == GgufType::String ||
        v->elementType == GgufType::Array)
        bad(key, "is not an array of numbers");
    return v->numbers;
}

std::uint64_t GgufModel::fileBytes() const {
    std::uint64_t total = 0;
    for (const auto& part : parts) total += part->mapping()->size();
    return total;
}

namespace {

// NAME-0000K-of-0000N.gguf: llama.cpp's names for the parts of a split model.
struct SplitName {
    std::string prefix; // the path up to "-0000K"
    int part = 0, count = 0;
};

std::optional<SplitName> splitName(const std::string& path) {
    static const std::regex pattern(R"((.*)-(\d{5})-of-(\d{5})\.gguf)", std::regex::icase);
    std::smatch m;
    if (!std::regex_match(path, m, pattern)) return std::nullopt;
    return SplitName{m[1].str(), std::stoi(m[2].str()), std::stoi(m[3].str())};
}

std::string partPath(const SplitName& name, int part) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "-%05d-of-%05d.gguf", part, name.count);
    return name.prefix + tail;
}

// split.no (from 0) and split.count of a part, where it says them, against its place.
void checkPart(const GgufFile& file, int index, int count) {
    if (const auto no = file.unsignedValue("split.no"); no && *no != std::uint64_t(index))
        file.bad("split.no", "is " + std::to_string(*no) + ", but the file's name makes it part " +
                                 std::to_string(index + 1));
    if (const auto n = file.unsignedValue("split.count"); n && *n != std::uint64_t(count))
        file.bad("split.count",
                 "is " + std::to_string(*n) + ", but the parts are " + std::to_string(count));
}

} // namespace

GgufModel openGguf(const std::string& path) {
    auto given = std::make_shared<const GgufFile>(path);
    const auto count = given->unsignedValue("split.count");
    const auto name = splitName(path);
    GgufModel model;
    if ((!count || *count <= 1) && (!name || name->count <= 1)) {
        model.parts.push_back(std::move(given));
        return model;
    }
    if (!name)
        given->bad("split.count", "says " + std::to_string(*count) + " parts, but the name is " +
                                      "not NAME-0000K-of-0000N.gguf: the others cannot be found");
    if (count && *count != std::uint64_t(name->count))
        given->bad("split.count", "is " + std::to_string(*count) + ", the file's name says " +
                                      std::to_string(name->count) + " parts");
    if (name->part < 1 || name->part > name->count)
        refuse(path, "is part " + std::to_string(name->part) + " of " +
                         std::to_string(name->count) + "?");
    for (int k = 1; k <= name->count; ++k) {
        const std::string part = partPath(*name, k);
        std::error_code ec;
        if (k != name->part && !fs::is_regular_file(part, ec))
            refuse(part, "is missing: " + fs::path(path).filename().string() + " is one of " +
                             std::to_string(name->count) + " parts, and each is needed");
        model.parts.push_back(k == name->part ? given : std::make_shared<const GgufFile>(part));
        checkPart(*model.parts.back(), k - 1, name->count);
    }
    std::uint64_t tensors = 0;
    for (const auto& part : model.parts) tensors += part->tensors().size();
    if (const auto claimed = model.first().number("split.tensors.count");
        claimed && *claimed != double(tensors))
        model.first().bad("split.tensors.count", "says " + std::to_string(std::int64_t(*claimed)) +
                                                     " tensors, the parts hold " +
                                                     std::to_string(tensors));
    return model;
}

void addGgufTensors(const GgufModel& model, TensorStore& store) {
    for (const auto& part : model.parts) store.addTensors(part->mapping(), part->tensors());
}

std::string ggufFileTypeName(std::uint64_t fileType) {
    static const std::map<std::uint64_t, const char*> names = {
        {0, "F32"},     {1, "F16"},      {2, "Q4_0"},     {3, "Q4_1"},      {4, "Q4_1_SOME_F16"},
        {7, "Q8_0"},    {8, "Q5_0"},     {9, "Q5_1"},     {10, "Q2_K"},     {11, "Q3_K_S"},
        {12, "Q3_K_M"}, {13, "Q3_K_L"},  {14, "Q4_K_S"},  {15, "Q4_K_M"},   {16, "Q5_K_S"},
        {17, "Q5_K_M"}, {18, "Q6_K"},    {19, "IQ2_XXS"}, {20, "IQ2_XS"},   {21, "Q2_K_S"},
        {22, "IQ3_XS"}, {23, "IQ3_XXS"}, {24, "IQ1_S"},   {25, "IQ4_NL"},   {26, "IQ3_S"},
        {27, "IQ3_M"},  {28, "IQ2_S"},   {29, "IQ2_M"},   {30, "IQ4_XS"},   {31, "IQ1_M"},
        {32, "BF16"},   {36, "TQ1_0"},   {37, "TQ2_0"},   {38, "MXFP4_MOE"}};
    const auto it = names.find(fileType);
    return it == names.end() ? "" : it->second;
}

bool isGgufName(const std::string& name) {
    if (name.size() < 5) return false;
    std::string tail = name.substr(name.size() - 5);
    std::transform(tail.begin(), tail.end(), tail.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return tail == ".gguf";
}

} // namespace core::models
