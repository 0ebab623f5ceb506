// GGUF files, the format llama.cpp, Ollama and LM Studio keep models in (docs/real-models.md,
// "GGUF files"), read as ggml's GGUF specification defines versions 2 and 3: the header (magic
// "GGUF", version, tensor and key counts), the typed metadata (every value type, arrays, arrays
// of arrays), the tensor infos, `general.alignment` (32 when absent) and the data section,
// memory-mapped like safetensors (safetensors_map.h): nothing is copied. Each tensor becomes a
// TensorView in Hugging Face's order ({rows, cols}: ggml's dimensions reversed) as F32, F16,
// BF16, Dtype::Quantized (a block type mha-viz computes with: ggmlTypeReadable) or Dtype::Other
// (any other type, refused by name only when a model binds it). A split model
// (NAME-00001-of-00003.gguf with split.* metadata) is opened whole, or refused naming the part
// that is missing. Every failure is one std::invalid_argument line naming the file.
#pragma once

#include "models/formats/safetensors_map.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core::models {

// The metadata value types, by their numbers in the file.
enum class GgufType : std::uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};
const char* ggufTypeName(GgufType type); // "u32", "string", "array" ...

// One metadata value. Scalars keep their value in `integer` (every integer type and bool; a u64
// above 2^63 - 1 wraps, and `unsignedInteger` says it was unsigned) or `real`; an array keeps
// its elements by kind: strings, numbers (every integer and float type, as double) or arrays.
struct GgufValue {
    GgufType type = GgufType::U8;
    std::int64_t integer = 0;
    bool unsignedInteger = false;
    double real = 0;
    std::string text;
    GgufType elementType = GgufType::U8; // an array's
    std::uint64_t count = 0;             // an array's elements
    std::vector<std::string> strings;    // an array of strings
    std::vector<double> numbers;         // an array of integers, floats or bools
    std::vector<GgufValue> arrays;       // an array of arrays

    bool isInteger() const;
    bool isNumber() const; // an integer or a float
};

// One parsed (and mapped) file.
class GgufFile {
  public:
    // Maps and parses `path`. Throws std::invalid_argument naming the file and the problem:
    // truncated, wrong magic, a version other than 2 or 3, a string or array longer than the
    // file, absurd counts or dimensions, a duplicate key or tensor name, an unknown tensor type,
    // a row that is not whole blocks, a tensor outside the data, misaligned or overlapping
    // another.
    explicit GgufFile(const std::string& path);

    const std::string& path() const { return file_->path(); }
    std::uint32_t version() const { return version_; }
    std::uint64_t alignment() const { return alignment_; }
    const std::map<std::string, GgufValue>& metadata() const { return metadata_; }
    const std::vector<TensorView>& tensors() const { return tensors_; }
    const std::shared_ptr<const MappedFile>& mapping() const { return file_; }
    std::uint64_t dataBytes() const { return dataBytes_; } // the data section's size

    const GgufValue* find(const std::string& key) const; // nullptr when absent
    // Typed reads, nothing when the key is absent; a value of another type is refused in one
    // line naming the file, the key, its type and the type wanted.
    std::optional<std::uint64_t> unsignedValue(const std::string& key) const; // an integer >= 0
    std::optional<double> number(const std::string& key) const;               // integer or float
    std::optional<std::string> string(const std::string& key) const;
    std::optional<bool> boolean(const std::string& key) const;
    std::vector<std::string> strings(const std::string& key) const; // empty when absent
    std::vector<double> numbers(const std::string& key) const;      // empty when absent
    // "path: key ..." as the messages about this file's metadata start.
    [[noreturn]] void bad(const std::string& key, const std::string& what) const;

  private:
    std::shared_ptr<const MappedFile> file_;
    std::uint32_t version_ = 0;
    std::uint64_t alignment_ = 32;
    std::uint64_t dataBytes_ = 0;
    std::map<std::string, GgufValue> metadata_;
    std::vector<TensorView> tensors_;
};

// A model's GGUF: one file, or every part of a split one (the first part holds the metadata).
struct GgufModel {
    std::vector<std::shared_ptr<const GgufFile>> parts;

    const GgufFile& first() const { return *parts.front(); }
    std::uint64_t fileBytes() const;
};

// Opens `path` and, when it is one part of a split model (split.count above 1, or a name
// NAME-0000K-of-0000N.gguf), every part beside it, part 1 first. Refuses a missing part by its
// file name, parts whose split.* metadata disagree, and a tensor in two parts.
GgufModel openGguf(const std::string& path);

// Every tensor of every part into `store` (TensorStore::addTensors), kept mapped by it.
void addGgufTensors(const GgufModel& model, TensorStore& store);

// The file type general.file_type names, as llama.cpp's quantize names it ("Q4_K_M", "F16",
// "Q8_0"); "" for a number it does not define.
std::string ggufFileTypeName(std::uint64_t fileType);

// Whether `name` ends in ".gguf" (any case).
bool isGgufName(const std::string& name);

} // namespace core::models
