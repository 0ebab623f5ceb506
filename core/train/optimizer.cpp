#include "train/optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace core::train {

namespace {

void checkSameShapes(const std::vector<NamedTensor>& params,
                     const std::vector<ConstNamedTensor>& gradients) {
    if (params.size() != gradients.size())
        throw std::invalid_argument("gradients have " + std::to_string(gradients.size()) +
                                    " tensors, the parameters " + std::to_string(params.size()));
    for (std::size_t i = 0; i < params.size(); ++i) {
        const Mat& w = *params[i].tensor;
        const Mat& g = *gradients[i].tensor;
        if (w.rows() != g.rows() || w.cols() != g.cols())
            throw std::invalid_argument(
                "gradient of " + params[i].name + " is " + std::to_string(g.rows()) + " x " +
                std::to_string(g.cols()) + ", the parameter " + std::to_string(w.rows()) + " x " +
                std::to_string(w.cols()));
    }
}

// One tensor's Adam update, entry by entry in float like torch.optim.Adam's single-tensor path:
// exp_avg.mul_(b1).add_(g, alpha=1-b1); exp_avg_sq.mul_(b2).addcmul_(g, g, value=1-b2);
// denom = (exp_avg_sq.sqrt() / sqrt(bc2)).add_(eps); w.addcdiv_(exp_avg, denom, value=-lr/bc1).
// In chunks that stay in L1 cache between the three passes; element-wise float operations, so
// the chunking changes no bit.
void adamUpdate(Mat& w, const Mat& g, Mat& m, Mat& v, const AdamSettings& adam, float stepSize,
                float biasCorrection2Sqrt) {
    using Entries = Eigen::Map<Eigen::Array<Scalar, Eigen::Dynamic, 1>>;
    using ConstEntries = Eigen::Map<const Eigen::Array<Scalar, Eigen::Dynamic, 1>>;
    constexpr Eigen::Index kChunk = 1024; // 4 KB of each tensor
    const float beta1 = float(adam.beta1), beta2 = float(adam.beta2), eps = float(adam.eps);
    const float oneMinusBeta1 = float(1 - adam.beta1), oneMinusBeta2 = float(1 - adam.beta2);
    for (Eigen::Index start = 0; start < w.size(); start += kChunk) {
        const Eigen::Index count = std::min(kChunk, w.size() - start);
        Entries weight(w.data() + start, count), first(m.data() + start, count); // count
        Entries second(v.data() + start, count);                                 // count
        const ConstEntries grad(g.data() + start, count);                        // count
        first = first * beta1 + oneMinusBeta1 * grad;
        second = second * beta2 + oneMinusBeta2 * (grad * grad);
        weight += -stepSize * (first / (second.sqrt() / biasCorrection2Sqrt + eps));
    }
}

} // namespace

Optimizer::Optimizer(OptimizerKind kind, double learningRate, const ModelConfig& config,
                     AdamSettings adam)
    : kind_(kind), learningRate_(learningRate), adam_(adam) {
    if (!std::isfinite(learningRate) || learningRate <= 0)
        throw std::invalid_argument("learning rate " + std::to_string(learningRate) +
                                    " must be a finite number > 0");
    if (kind == OptimizerKind::Adam) { // the moments start at 0, as in torch
        firstMoment_ = zeroParams(config);
        secondMoment_ = zeroParams(config);
    }
}

void Optimizer::step(Params& params, const Params& gradients) {
    const std::vector<NamedTensor> weights = namedTensors(params);
    const std::vector<ConstNamedTensor> grads = namedTensors(gradients);
    checkSameShapes(weights, grads);
    if (kind_ == OptimizerKind::Sgd) {
        ++steps_;
        const float lr = float(learningRate_);
        for (std::size_t i = 0; i < weights.size(); ++i)
            weights[i].tensor->array() -= lr * grads[i].tensor->array(); // w -= lr * g
        return;
    }
    const std::vector<NamedTensor> m = namedTensors(firstMoment_);
    const std::vector<NamedTensor> v = namedTensors(secondMoment_);
    checkSameShapes(m, grads); // params of another config than the optimizer's
    ++steps_;                  // t counts from 1, like torch's state["step"]
    // Bias corrections in double, as torch computes them in Python floats.
    const double t = double(steps_);
    const double biasCorrection1 = 1 - std::pow(adam_.beta1, t);
    const double biasCorrection2 = 1 - std::pow(adam_.beta2, t);
    const float stepSize = float(learningRate_ / biasCorrection1);
    const float biasCorrection2Sqrt = float(std::sqrt(biasCorrection2));
    for (std::size_t i = 0; i < weights.size(); ++i)
        adamUpdate(*weights[i].tensor, *grads[i].tensor, *m[i].tensor, *v[i].tensor, adam_,
                   stepSize, biasCorrection2Sqrt);
}

} // namespace core::train
