// Binding a checkpoint's tensors by name against config.json (or a GGUF file's metadata), for
// every family's loader: each
// tensor present with the shape the config implies and a dtype that can be read, the shard
// index true to where each tensor is, non-finite weights named. Every failure is
// std::invalid_argument with one line naming the tensor and its file.
#pragma once

#include "models/formats/model_folder.h"
#include "models/formats/safetensors_map.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace core::models {

std::string shapeText(const std::vector<std::int64_t>& shape);

// Rows [first, first + rows) of a 2-D tensor as a view of its own, named "NAME (part)": Phi-3's
// fused q/k/v and gate/up tensors, quantized ones too (whole rows of blocks).
TensorView rowRange(const TensorView& t, std::int64_t first, std::int64_t rows, const char* part);

class TensorBinder {
  public:
    // `prefix` ("transformer.", "bert.", ...) goes before every name asked for.
    TensorBinder(const TensorStore& store, const ModelConfig& config, std::string prefix)
        : store_(store), config_(config), prefix_(std::move(prefix)) {}

    // The tensor `prefix + name` with this shape; throws when it is missing or differs.
    const TensorView* get(const std::string& name, std::vector<std::int64_t> shape) const;
    // The first of `names` the file has (old and new spellings of one tensor), checked as get.
    const TensorView* getAny(std::initializer_list<std::string> names,
                             std::vector<std::int64_t> shape) const;
    // The tensor when the file has it (checked as get), else nullptr.
    const TensorView* optional(const std::string& name, std::vector<std::int64_t> shape) const;
    const std::string& prefix() const { return prefix_; }

  private:
    const TensorStore& store_;
    const ModelConfig& config_;
    std::string prefix_;
};

// Maps every weights file of the folder into `store` and checks the shard index against it.
void mapWeights(const HfFiles& files, TensorStore& store);

// "tensor NAME holds K non-finite values (NaN or Inf)", one per such tensor.
std::vector<std::string> nonFiniteWarnings(const TensorStore& store);

} // namespace core::models
