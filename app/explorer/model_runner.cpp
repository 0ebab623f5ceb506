#include "explorer/model_runner.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace app {

void ModelRunner::open(std::shared_ptr<const core::TrainedRun> run) {
    if (cancel_) cancel_->store(true); // its result belongs to the model being replaced
    if (analysesCancel_) analysesCancel_->store(true);
    if (worker_.valid()) worker_.wait();
    if (analysesWorker_.valid()) analysesWorker_.wait();
    if (lensWorker_.valid()) lensWorker_.wait();
    if (weightedWorker_.valid()) weightedWorker_.wait();
    if (layerWorker_.valid()) layerWorker_.wait();
    if (seq2seqWorker_.valid()) seq2seqWorker_.wait();
    seq2seqWorker_ = {};
    seq2seq_ = nullptr;
    seq2seqAsked_.reset(), seq2seqNext_.reset();
    seq2seqTrace_ = stacksOf_ = nullptr;
    effect_ = {};
    writtenShown_ = -1;
    playStart_ = -1;
    worker_ = {};
    analysesWorker_ = {};
    nextAnalyses_.reset();
    analysesGeneration_ = -1;
    rolloutTrace_ = nullptr;
    lensWorker_ = {};
    weightedWorker_ = {};
    layerWorker_ = {};
    made_ = {};
    lastPair_.clear();
    weightedGeneration_ = weightedAsked_ = -1;
    weightedError_.clear();
    real_ = nullptr;
    saved_ = nullptr;
    realPredictions_.clear();
    detectors_.clear();
    sinkShares_ = {};
    realTrace_ = nullptr;
    analyses_ = {};
    outcome_ = baseline_ = {};
    baselineText_.clear();
    lastAblated_.clear();
    lens_ = {};
    ++generation_;
    run_ = std::move(run);
    trace_ = {};
    lastAttempt_.clear();
    attempted_ = false;
    status_ = {};
}

void ModelRunner::close() {
    open(nullptr);
}

bool ModelRunner::update(const std::vector<std::string>& sentences, double now,
                         const core::train::HeadLists& ablated, const std::string& pair) {
    if (real_) return updateReal(sentences, now, ablated, pair);
    if (saved_) return false; // its traces came with the file: nothing to run
    if (!run_ || (attempted_ && sentences == lastAttempt_)) return false;
    attempted_ = true;
    lastAttempt_ = sentences;
    status_ = {};
    if (std::any_of(sentences.begin(), sentences.end(), core::isBlank)) {
        status_.sceneHint = "Type a sentence in the model's vocabulary to see its attention maps.";
        return false;
    }
    try {
        trace_ = core::train::traceModel(run_->model, sentences, run_->warnings);
        return true;
    } catch (const std::bad_alloc&) {
        status_.sceneError = "not enough memory for this model and these sentences";
    } catch (const std::exception& e) {
        status_.sceneError = e.what(); // the last traces stay on screen
    }
    return false;
}

core::Scene ModelRunner::scene(const std::vector<std::string>& sentences) const {
    core::Scene scene;
    scene.sentences = sentences;
    if (real_) return core::models::realModelScene(*real_, sentences);
    if (seq2seq_) return seq2seqScene(sentences);
    if (saved_) return core::models::savedAttentionScene(*saved_, savedStack_); // not a typed one
    if (!run_) return scene;
    const core::train::ModelConfig& c = run_->model.config;
    scene.d_model = c.d_model;
    scene.heads = c.heads;
    scene.mask = core::MaskKind::Causal;
    scene.scale = core::ScaleKind::SqrtDHead;
    scene.seed = run_->model.seed;
    scene.weights = core::WeightsKind::Random;
    return scene;
}

namespace {

// Every word when there are few, else the first and the last: what may be typed.
std::string vocabularyLine(const std::vector<std::string>& vocab) {
    std::string line;
    const bool all = vocab.size() <= 48;
    for (std::size_t i = 0; i < vocab.size(); ++i) {
        if (!all && i == 6) {
            line += " ...";
            i = vocab.size() - 1;
        }
        line += (line.empty() ? "" : " ") + vocab[i];
    }
    return line;
}

} // namespace

std::string withProbability(const std::string& token, float probability) {
    char text[32];
    std::snprintf(text, sizeof text, " (%.2f)", double(probability));
    return token + text;
}

void describeModel(const ModelRunner& model, ModelView& view) {
    static_cast<ModelFacts&>(view) = {}; // made again; the user's choices are kept
    // ModelSpots stay: the panels set them as they draw, and a description made after they
    // drew this frame (the analyses arrived) must not blank what the state line reports.
    for (const core::ModelSentence& s : model.trace().sentences) view.tokens.push_back(s.tokens);
    view.warnings = model.trace().warnings;
    if (model.isReal()) {
        view.step = 0; // a checkpoint has no training steps
        describeRealModel(model, view);
        return;
    }
    if (model.isSeq2Seq()) {
        view.step = 0;
        describeSeq2Seq(model, view);
        return;
    }
    if (model.isSaved()) {
        view.step = 0;
        describeSavedAttention(model, view);
        return;
    }
    view.ablated.clear(); // a trained model has no switches here
    if (!model.isOpen()) return;
    const core::TrainedRun& run = model.run();
    const core::train::ModelConfig& c = run.model.config;
    view.open = true;
    view.title = std::string(core::toString(run.task)) + ", step " + std::to_string(run.step) +
                 " (" + run.dir + ")";
    view.architecture = std::to_string(c.layers) + (c.layers == 1 ? " layer" : " layers") +
                        "  d_model " + std::to_string(c.d_model) + "  " + std::to_string(c.heads) +
                        " heads (d_head " + std::to_string(c.dHead()) + ")  seq " +
                        std::to_string(c.seq) + "  vocab " + std::to_string(c.vocab);
    view.vocabulary = vocabularyLine(run.model.vocab);
    view.steps = run.steps;
    view.step = run.step;
    view.layers = c.layers;
    view.layer = std::clamp(view.layer, 0, c.layers - 1);
    for (const core::ModelSentence& s : model.trace().sentences) {
        view.unknownWords.push_back(s.unknown);
        view.predictions.emplace_back();
        for (const core::Prediction& p : s.predictions)
            view.predictions.back().push_back(
                withProbability(run.model.vocab[std::size_t(p.token)], p.probability));
    }
}

std::string trainedModelWindowTitle(const core::TrainedRun& run) {
    return "mha-viz \xE2\x80\x94 " + std::string(core::toString(run.task)) + ", step " +
           std::to_string(run.step) + " (" + run.dir + ")";
}

} // namespace app
