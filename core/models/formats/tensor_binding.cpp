// Binding tensors by name (tensor_binding.h).
#include "models/formats/tensor_binding.h"

#include <stdexcept>

namespace core::models {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

TensorView rowRange(const TensorView& t, std::int64_t first, std::int64_t rows, const char* part) {
    TensorView v = t;
    v.name = t.name + " (" + part + ")";
    v.shape = {rows, t.shape.at(1)};
    const std::int64_t stride = t.dtype == Dtype::Quantized
                                    ? std::int64_t(t.rowBytes)
                                    : t.shape[1] * std::int64_t(t.elementBytes);
    v.data = t.data + first * stride;
    return v;
}

namespace {

// What a GGUF tensor of a type mha-viz does not compute with is refused as.
std::string unreadableType(const std::string& file, const std::string& name, const TensorView& t,
                           bool gguf) {
    if (!gguf)
        return file + ": tensor " + name + " has dtype " + t.dtypeText + ", not F32, F16 or BF16";
    return file + ": tensor " + name + " is " + t.dtypeText +
           ", a type mha-viz does not compute with (it reads F32, F16, BF16, Q4_0, Q4_1, Q5_0, "
           "Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K and Q6_K): choose another quantization of the "
           "model";
}

} // namespace

const TensorView* TensorBinder::optional(const std::string& name,
                                         std::vector<std::int64_t> shape) const {
    const std::string full = prefix_ + name;
    const TensorView* t = store_.find(full);
    if (!t) return nullptr;
    if (t->shape != shape)
        throw std::invalid_argument(
            store_.fileOf(full) + ": tensor " + full + " has shape " + shapeText(t->shape) + ", " +
            (store_.gguf() ? "the metadata" : "config.json") + " implies " + shapeText(shape));
    if (t->dtype == Dtype::Other)
        throw std::invalid_argument(unreadableType(store_.fileOf(full), full, *t, store_.gguf()));
    return t;
}

const TensorView* TensorBinder::get(const std::string& name,
                                    std::vector<std::int64_t> shape) const {
    if (const TensorView* t = optional(name, shape)) return t;
    throw std::invalid_argument("the checkpoint has no tensor " + prefix_ + name + " (" +
                                (store_.gguf() ? "its metadata" : "config.json") + ": " +
                                std::to_string(config_.layers) + " layers)");
}

const TensorView* TensorBinder::getAny(std::initializer_list<std::string> names,
                                       std::vector<std::int64_t> shape) const {
    for (const std::string& name : names)
        if (const TensorView* t = optional(name, shape)) return t;
    return get(*names.begin(), shape); // throws, naming the current spelling
}

void mapWeights(const HfFiles& files, TensorStore& store) {
    for (const std::string& path : files.weights) store.addFile(path);
    // The shard index says where each tensor is: it must be where it says.
    for (const auto& [name, shard] : files.shardOf) {
        const std::string& actual = store.fileOf(name);
        if (actual.empty())
            throw std::invalid_argument("model.safetensors.index.json: tensor " + name +
                                        " is not in " + shard);
        if (actual != shard)
            throw std::invalid_argument("model.safetensors.index.json: tensor " + name + " is in " +
                                        actual + ", not " + shard);
    }
}

std::vector<std::string> nonFiniteWarnings(const TensorStore& store) {
    std::vector<std::string> warnings;
    for (const auto& [name, t] : store.tensors())
        if (const std::int64_t bad = nonFiniteCount(t); bad > 0)
            warnings.push_back("tensor " + name + " holds " + std::to_string(bad) +
                               " non-finite values (NaN or Inf)");
    return warnings;
}

} // namespace core::models
