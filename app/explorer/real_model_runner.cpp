// The real-model side of TrainedModelRunner (trained_model_runner.h): a Hugging Face checkpoint
// run on a worker thread, its trace in the shape the explorer's views read (one core::Trace per
// layer), and what the panels say of it.
#include "explorer/trained_model_runner.h"

#include <algorithm>
#include <chrono>

namespace app {

TrainedModelRunner::~TrainedModelRunner() {
    if (worker_.valid()) worker_.wait();
}

void TrainedModelRunner::openReal(std::shared_ptr<const core::models::RealModel> model) {
    open(nullptr); // waits for a worker of the model it replaces
    real_ = std::move(model);
}

TrainedModelRunner::RealOutcome
TrainedModelRunner::runReal(std::shared_ptr<const core::models::RealModel> model,
                            std::vector<std::string> sentences, bool detect) {
    RealOutcome out;
    try {
        core::models::RealTraceOptions options;
        options.topK = 5; // a token chip's tooltip lists the five most likely next tokens
        core::models::RealTrace r = core::models::traceRealModel(*model, sentences.at(0), options);
        core::train::ModelSentence s;
        s.tokens = r.tokens;
        s.ids = r.ids;
        out.predictions.emplace_back();
        for (const std::vector<core::models::TokenChoice>& top : r.predictions) {
            s.predictions.push_back({top.front().id, top.front().probability});
            std::string line;
            for (const core::models::TokenChoice& choice : top)
                line +=
                    (line.empty() ? "" : ", ") + withProbability(choice.token, choice.probability);
            out.predictions.back().push_back(line);
        }
        out.trace.sentences.push_back(std::move(s));
        out.trace.layers = std::move(r.layers);
        out.trace.warnings = model->weights.warnings;
        out.trace.warnings.insert(out.trace.warnings.end(), r.warnings.begin(), r.warnings.end());
        if (detect) // TransformerLens's test: 2 x 50 random tokens after <|endoftext|>
            out.detectors = core::models::detectHeadsOnRepeatedTokens(
                *model, std::min(50, (model->config().nPositions - 1) / 2), 1);
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory for this model and this sentence";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

bool TrainedModelRunner::updateReal(const std::vector<std::string>& sentences, double now) {
    bool replaced = false;
    if (worker_.valid()) {
        if (worker_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
        RealOutcome outcome = worker_.get();
        if (!outcome.detectors.empty()) detectors_ = std::move(outcome.detectors);
        if (outcome.error.empty()) {
            trace_ = std::move(outcome.trace);
            realPredictions_ = std::move(outcome.predictions);
            ++generation_;
            status_.sceneError.clear();
            replaced = true;
        } else {
            status_.sceneError = outcome.error; // the last traces stay on screen
        }
    }
    if (attempted_ && sentences == lastAttempt_) return replaced;
    attempted_ = true;
    lastAttempt_ = sentences;
    status_.sceneHint.clear();
    if (sentences.size() != 1) {
        status_.sceneError = "a Hugging Face model reads one sentence";
        return replaced;
    }
    if (core::isBlank(sentences[0])) {
        status_.sceneHint = "Type a sentence to see every head of every layer.";
        return replaced;
    }
    status_.computingSince = now;
    worker_ = std::async(std::launch::async, runReal, real_, sentences, detectors_.empty());
    return replaced;
}

void describeRealModel(const TrainedModelRunner& runner, TrainedModelView& view) {
    const core::models::RealModel& model = runner.realModel();
    const core::models::ModelConfig& c = model.config();
    view.open = true;
    view.real = true;
    view.title = model.family + " (" + model.location.source + ")";
    view.architecture = std::to_string(c.layers) + " layers  d_model " + std::to_string(c.dModel) +
                        "  " + std::to_string(c.heads) + " heads (d_head " +
                        std::to_string(c.dModel / c.heads) + ")  context " +
                        std::to_string(c.nPositions) + "  vocab " + std::to_string(c.vocabSize) +
                        "  " + model.dtype();
    view.vocabulary = "any text: GPT-2's byte-level BPE reads every character";
    view.layers = c.layers;
    view.layer = std::clamp(view.layer, 0, c.layers - 1);
    for (std::size_t b = 0; b < runner.trace().sentences.size(); ++b)
        view.unknownWords.emplace_back();
    view.predictions = runner.realPredictions();
    view.detectorsReady = !runner.detectors().empty();
}

std::string realModelWindowTitle(const core::models::RealModel& model) {
    return "mha-viz \xE2\x80\x94 " + model.family + " (" + model.location.source + ")";
}

} // namespace app
