// Safetensors files memory-mapped, for real checkpoints (docs/real-models.md, "Weights"): the
// header is parsed, the tensors' bytes stay in the mapping, so a 500 MB GPT-2 opens without a
// copy and the page cache is shared between runs. Any rank; dtypes F32, F16 and BF16, read as
// float by tensorAsFloat (F32 in place, the others converted). The writer and the F32-only
// reader of training checkpoints are io/safetensors.h. Tensors of other dtypes (the BOOL or U8
// causal-mask buffers some GPT-2 files hold) are listed as Dtype::Other and never read.
#pragma once

#include "engine/scalar.h"
#include "models/formats/ggml_types.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace core::models {

// Quantized: a GGUF tensor in one of ggml's block types (TensorView::ggml names which); its
// rows are whole blocks along the last dimension.
enum class Dtype { F32, F16, BF16, Other, Quantized };
const char* dtypeName(Dtype dtype);

// A read-only mapping of a whole file; unmapped when the last owner goes.
class MappedFile {
  public:
    // Throws std::invalid_argument naming the path when it cannot be opened or mapped.
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

struct TensorView {
    std::string name;
    Dtype dtype = Dtype::F32;
    std::string dtypeText;         // as the file names it ("F32", "BOOL", ...)
    std::size_t elementBytes = 4;  // the dtype's size (0 for Quantized: see rowBytes)
    GgmlType ggml = GgmlType::F32; // the block type of a Quantized tensor
    std::size_t rowBytes = 0;      // a Quantized tensor's bytes per row (whole blocks)
    std::vector<std::int64_t> shape;
    const std::byte* data = nullptr; // inside a MappedFile that outlives the view
    std::int64_t elements() const;
};

// The tensors of one or more safetensors files (a model's shards), by name.
class TensorStore {
  public:
    // Maps and parses `path`; throws std::invalid_argument with one line naming the file and
    // the problem: too short, header size past the end, header not JSON, a dtype the format
    // does not define (named), bad shape or offsets, data outside the file, overlapping tensors,
    // a name already read from another shard.
    void addFile(const std::string& path);
    // Tensors another reader parsed from `file` (a GGUF file: gguf_file.h), kept mapped by the
    // store; a name already read from another file is refused.
    void addTensors(std::shared_ptr<const MappedFile> file, std::vector<TensorView> views);

    const TensorView* find(const std::string& name) const; // nullptr when absent
    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    // The file a tensor was read from (for messages and the shard index check).
    const std::string& fileOf(const std::string& name) const;
    std::uint64_t fileBytes() const; // all files together
    Dtype commonDtype() const;       // the dtype most parameters have
    // Whether the tensors came from GGUF files (the messages name ggml's types and the
    // metadata, not config.json).
    bool gguf() const { return gguf_; }
    // The header's __metadata__: its string values (the format's str -> str), of every file
    // read (a later file's value for a key replaces an earlier one's).
    const std::map<std::string, std::string>& metadata() const { return metadata_; }

  private:
    std::vector<std::shared_ptr<const MappedFile>> files_;
    bool gguf_ = false;
    std::map<std::string, TensorView> tensors_;
    std::map<std::string, std::size_t> fileIndex_;
    std::map<std::string, std::string> metadata_;
};

// The tensor as a rows x cols float matrix (a 1-D tensor is one row): F32 data is mapped in
// place (no copy), F16/BF16 are converted and Quantized tensors dequantized (ggml_quants.h) into
// `scratch`. Valid while the store lives and until `scratch` changes. Throws
// std::invalid_argument for Dtype::Other (named). A large quantized matrix is better multiplied
// where it is (engineMultiply with a QuantMatrix, tensor_ops.h's linear): this expands it.
Eigen::Map<const Mat> tensorAsFloat(const TensorView& t, Mat& scratch);

// How many of the tensor's values are NaN or infinite (0 for Dtype::Other); for a Quantized
// tensor from its blocks' scales, without dequantizing it.
std::int64_t nonFiniteCount(const TensorView& t);

float halfToFloat(std::uint16_t bits);
float bfloat16ToFloat(std::uint16_t bits);

} // namespace core::models
