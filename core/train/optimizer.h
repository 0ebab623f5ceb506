// The optimizers of `mha-viz train`: plain SGD and Adam with PyTorch's defaults.
#pragma once

#include "base/enum_names.h"
#include "train/model.h"

#include <optional>
#include <string_view>

namespace core::train {

enum class OptimizerKind { Adam, Sgd };
inline constexpr EnumName<OptimizerKind> kOptimizerKindNames[] = {
    {OptimizerKind::Adam, "adam", "Adam"}, {OptimizerKind::Sgd, "sgd", "SGD"}};
constexpr std::span<const EnumName<OptimizerKind>> enumNames(OptimizerKind) {
    return kOptimizerKindNames;
}

// torch.optim.Adam's defaults; no weight decay, no amsgrad.
struct AdamSettings {
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
};

// Updates every tensor of Params in place from gradients of the same shapes.
//   SGD:  w -= lr * g
//   Adam: m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2  (float, per entry, from 0)
//         w -= lr * m_hat / (sqrt(v_hat) + eps), m_hat = m / (1 - b1^t), v_hat = v / (1 - b2^t),
//         t the step from 1. Evaluated as torch.optim.Adam does it for float32 tensors:
//         w -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps), with the bias
//         corrections in double and the per-entry arithmetic in float.
class Optimizer {
  public:
    // Throws std::invalid_argument naming a learning rate that is not finite and > 0.
    Optimizer(OptimizerKind kind, double learningRate, const ModelConfig& config,
              AdamSettings adam = {});

    // Throws std::invalid_argument when a tensor's shape differs from the config's.
    void step(Params& params, const Params& gradients);

    OptimizerKind kind() const { return kind_; }
    double learningRate() const { return learningRate_; }
    long long stepsTaken() const { return steps_; }

  private:
    OptimizerKind kind_;
    double learningRate_;
    AdamSettings adam_;
    Params firstMoment_;  // m, Params-shaped (Adam only)
    Params secondMoment_; // v, Params-shaped (Adam only)
    long long steps_ = 0;
};

} // namespace core::train
