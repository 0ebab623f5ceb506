#include "train/trainer.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace core::train {

namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw std::invalid_argument(message);
}

void checkRange(const char* flag, long long value, long long lo, long long hi) {
    if (value < lo || value > hi)
        refuse(std::string(flag) + " " + std::to_string(value) + " must be " + std::to_string(lo) +
               " to " + std::to_string(hi));
}

// Activations a step keeps for the backward pass, in bytes: per layer the residual, q, k, v,
// concat and output ((B*N) x D each) and the scores and weights (B*H*N*N each); the logits and
// their gradient ((B*N) x V each).
double activationBytes(const TrainSettings& s, int vocab) {
    const double rows = double(s.batch) * s.model.seq;
    const double perLayer = 6.0 * rows * s.model.d_model +
                            2.0 * s.batch * double(s.model.heads) * s.model.seq * s.model.seq;
    return 4.0 * (s.model.layers * perLayer + 2.0 * rows * vocab);
}

// A step's memory cap: well within a laptop's RAM, and far beyond the lesson's models (the
// default run needs about 10 MB).
constexpr double kMaxActivationBytes = 2e9;

} // namespace

void validate(const TrainSettings& s) {
    checkRange("--layers", s.model.layers, 1, kMaxTrainLayers);
    checkRange("--d-model", s.model.d_model, 1, kMaxTrainDModel);
    checkRange("--heads", s.model.heads, 1, s.model.d_model);
    if (s.model.d_model % s.model.heads != 0)
        refuse("--heads " + std::to_string(s.model.heads) + " does not divide --d-model " +
               std::to_string(s.model.d_model) + " (d_head = d_model / heads must be whole)");
    const Task task(s.task);
    if (s.model.seq < task.minSeq() || s.model.seq > kMaxTrainSeq)
        refuse("--seq " + std::to_string(s.model.seq) + " must be " +
               std::to_string(task.minSeq()) + " to " + std::to_string(kMaxTrainSeq) + " for the " +
               std::string(toString(s.task)) + " task");
    checkRange("--batch", s.batch, 1, kMaxTrainBatch);
    checkRange("--steps", s.steps, 0, kMaxTrainSteps);
    if (!std::isfinite(s.learningRate) || s.learningRate <= 0 || s.learningRate > 10)
        refuse("--lr " + std::to_string(s.learningRate) + " must be a number > 0 and <= 10");
    checkRange("--eval-every", s.evalEvery, 1, kMaxTrainSteps);
    checkRange("--checkpoint-every", s.checkpointEvery, 0, kMaxTrainSteps);
    const double bytes = activationBytes(s, task.vocabSize());
    if (bytes > kMaxActivationBytes)
        refuse("a step of this model needs " + std::to_string(int(std::ceil(bytes / 1e9))) +
               " GB of activations (at most 2); use a smaller --batch, --seq or --d-model");
}

namespace {

// Valid settings with the task's vocabulary size filled in.
TrainSettings checked(TrainSettings settings) {
    validate(settings);
    settings.model.vocab = Task(settings.task).vocabSize();
    return settings;
}

} // namespace

Trainer::Trainer(TrainSettings settings)
    : settings_(checked(std::move(settings))), task_(settings_.task),
      params_(initParams(settings_.model, settings_.seed)),
      optimizer_(settings_.optimizer, settings_.learningRate, settings_.model),
      probe_(makeProbeSet(task_, probeSeed(settings_.seed), kProbeSequences, settings_.model.seq)),
      batchStream_(settings_.seed ^ fnv1a64("batches")) {}

const Batch& Trainer::nextBatch() {
    if (!haveNext_) {
        next_ = task_.makeBatch(batchStream_, settings_.batch, settings_.model.seq);
        haveNext_ = true;
    }
    return next_;
}

double Trainer::update() {
    const double loss = lossAndGradients(config(), params_, nextBatch(), buffers_);
    optimizer_.step(params_, buffers_.gradients);
    haveNext_ = false;
    ++step_;
    lossSum_ += loss;
    ++lossCount_;
    return loss;
}

bool Trainer::isEvalStep(int step) const {
    return step == 0 || step % settings_.evalEvery == 0 || step == settings_.steps;
}

bool Trainer::isCheckpointStep(int step) const {
    return step == 0 || step == settings_.steps ||
           (settings_.checkpointEvery > 0 && step % settings_.checkpointEvery == 0);
}

std::vector<std::string> Trainer::probeColumns() const {
    return train::probeColumns(config(), settings_.task);
}

std::vector<Metric> Trainer::probeMetrics() const {
    return train::probeMetrics(config(), params_, probe_);
}

double Trainer::takeTrainLoss() {
    double loss = 0;
    if (lossCount_ > 0)
        loss = lossSum_ / lossCount_;
    else // before any update: the first batch at the current weights
        loss = forwardPass(config(), params_, nextBatch()).loss;
    lossSum_ = 0;
    lossCount_ = 0;
    return loss;
}

std::string describeSettings(const TrainSettings& s) {
    std::ostringstream line;
    line << toString(s.task) << ", " << s.model.layers << " layer"
         << (s.model.layers == 1 ? "" : "s") << ", d_model " << s.model.d_model << ", "
         << s.model.heads << " heads, seq " << s.model.seq << ", batch " << s.batch << ", "
         << toString(s.optimizer) << " lr " << s.learningRate << ", seed " << s.seed;
    return line.str();
}

} // namespace core::train
