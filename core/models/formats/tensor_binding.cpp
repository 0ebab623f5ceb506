// Binding tensors by name (tensor_binding.h).
#include "models/formats/tensor_binding.h"

#include <stdexcept>

namespace core::models {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

const TensorView* TensorBinder::optional(const std::string& name,
                                         std::vector<std::int64_t> shape) const {
    const std::string full = prefix_ + name;
    const TensorView* t = store_.find(full);
    if (!t) return nullptr;
    if (t->shape != shape)
        throw std::invalid_argument(store_.fileOf(full) + ": tensor " + full + " has shape " +
                                    shapeText(t->shape) + ", config.json implies " +
                                    shapeText(shape));
    if (t->dtype == Dtype::Other)
        throw std::invalid_argument(store_.fileOf(full) + ": tensor " + full + " has dtype " +
                                    t->dtypeText + ", not F32, F16 or BF16");
    return t;
}

const TensorView* TensorBinder::get(const std::string& name,
                                    std::vector<std::int64_t> shape) const {
    if (const TensorView* t = optional(name, shape)) return t;
    throw std::invalid_argument("the checkpoint has no tensor " + prefix_ + name +
                                " (config.json: " + std::to_string(config_.layers) + " layers)");
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
