// The real-model side of TrainedModelRunner (trained_model_runner.h): a Hugging Face checkpoint
// run on a worker thread, its trace in the shape the explorer's views read (one core::Trace per
// layer), the analyses beside it (rollout, value-weighted attention, the logit lens, ablation's
// effect), and what the panels say of it.
#include "explorer/trained_model_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace app {

namespace {

template <typename T>
bool finished(const std::future<T>& f) {
    return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

// The loss and the five guesses after the last token of a trace.
RealOutcomeSummary summarize(const core::models::RealTrace& r) {
    RealOutcomeSummary s;
    s.valid = true;
    s.loss = r.ids.size() > 1 ? r.loss : std::numeric_limits<double>::quiet_NaN();
    if (!r.predictions.empty()) s.next = r.predictions.back();
    return s;
}

// The rollout after each layer.
RealAnalyses analyze(const std::vector<std::shared_ptr<const core::Trace>>& layers) {
    RealAnalyses a;
    a.rollout = core::models::attentionRollouts(layers); // L of N x N
    return a;
}

// Every head's value-weighted attention, rows normalised to the weights' scale so the colours
// compare with the raw maps.
std::vector<core::Mat>
valueWeighted(const std::vector<std::shared_ptr<const core::Trace>>& layers) {
    std::vector<core::Mat> maps; // L x H of N x N
    for (const std::shared_ptr<const core::Trace>& layer : layers)
        for (int h = 0; h < layer->attention.heads; ++h)
            maps.push_back(
                core::models::normalizedRows(core::models::valueWeightedAttention(*layer, h)));
    return maps;
}

} // namespace

TrainedModelRunner::~TrainedModelRunner() {
    if (worker_.valid()) worker_.wait();
    if (lensWorker_.valid()) lensWorker_.wait();
    if (weightedWorker_.valid()) weightedWorker_.wait();
}

void TrainedModelRunner::openReal(std::shared_ptr<const core::models::RealModel> model) {
    open(nullptr); // waits for a worker of the model it replaces
    real_ = std::move(model);
}

TrainedModelRunner::RealOutcome
TrainedModelRunner::runReal(std::shared_ptr<const core::models::RealModel> model,
                            RealRequest request) {
    RealOutcome out;
    try {
        core::models::RealTraceOptions options;
        options.topK = 5; // a token chip's tooltip lists the five most likely next tokens
        options.ablated = request.ablated;
        auto r = std::make_shared<core::models::RealTrace>(
            core::models::traceRealModel(*model, request.sentences.at(0), options));
        core::train::ModelSentence s;
        s.tokens = r->tokens;
        s.ids = r->ids;
        out.predictions.emplace_back();
        for (const std::vector<core::models::TokenChoice>& top : r->predictions) {
            s.predictions.push_back({top.front().id, top.front().probability});
            std::string line;
            for (const core::models::TokenChoice& choice : top)
                line +=
                    (line.empty() ? "" : ", ") + withProbability(choice.token, choice.probability);
            out.predictions.back().push_back(line);
        }
        out.trace.sentences.push_back(std::move(s));
        out.trace.layers = r->layers;
        out.trace.warnings = model->weights.warnings;
        out.trace.warnings.insert(out.trace.warnings.end(), r->warnings.begin(), r->warnings.end());
        out.analyses = analyze(r->layers);
        out.summary = summarize(*r);
        if (request.baseline) // the same sentence with every head on
            out.baseline = summarize(core::models::traceRealModel(
                *model, request.sentences.at(0), core::models::RealTraceOptions{5, {}, false}));
        out.real = std::move(r);
        if (request.detect) // TransformerLens's test: 2 x 50 random tokens after <|endoftext|>
            out.detectors = core::models::detectHeadsOnRepeatedTokens(
                *model, std::min(50, (model->config().nPositions - 1) / 2), 1);
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory for this model and this sentence";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

// Takes a finished worker's result: the new trace (or the error, the last trace staying).
bool TrainedModelRunner::takeRealOutcome() {
    RealOutcome outcome = worker_.get();
    if (!outcome.detectors.empty()) detectors_ = std::move(outcome.detectors);
    if (!outcome.error.empty()) {
        status_.sceneError = outcome.error; // the last traces stay on screen
        return false;
    }
    trace_ = std::move(outcome.trace);
    realTrace_ = std::move(outcome.real);
    realPredictions_ = std::move(outcome.predictions);
    analyses_ = std::move(outcome.analyses);
    outcome_ = std::move(outcome.summary);
    if (outcome.baseline.valid) baseline_ = std::move(outcome.baseline);
    if (std::all_of(lastAblated_.begin(), lastAblated_.end(),
                    [](const std::vector<int>& l) { return l.empty(); }))
        baseline_ = outcome_; // nothing switched off: this is the baseline
    baselineText_ = lastAttempt_.at(0);
    ++generation_;
    status_.sceneError.clear();
    return true;
}

bool TrainedModelRunner::updateReal(const std::vector<std::string>& sentences, double now,
                                    const core::train::HeadLists& ablated) {
    pollLens();
    pollValueWeighted();
    const bool replaced = finished(worker_) && takeRealOutcome();
    if (worker_.valid()) return replaced; // one forward at a time; the next one after it
    if (attempted_ && sentences == lastAttempt_ && ablated == lastAblated_) return replaced;
    attempted_ = true;
    lastAttempt_ = sentences;
    lastAblated_ = ablated;
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
    RealRequest request{sentences, ablated, detectors_.empty(), false};
    request.baseline = std::any_of(ablated.begin(), ablated.end(),
                                   [](const std::vector<int>& l) { return !l.empty(); }) &&
                       !(baseline_.valid && baselineText_ == sentences[0]);
    worker_ = std::async(std::launch::async, runReal, real_, std::move(request));
    return replaced;
}

void TrainedModelRunner::requestLens(int position) {
    pollLens();
    if (!realTrace_ || lensWorker_.valid()) return;
    const int n = int(realTrace_->ids.size());
    position = position < 0 || position >= n ? n - 1 : position;
    if (lens_.generation == generation_ && lens_.position == position) return;
    lensWorker_ = std::async(std::launch::async, [model = real_, trace = realTrace_, position,
                                                  generation = generation_] {
        LensRows rows;
        rows.generation = generation, rows.position = position;
        try {
            rows.layers = core::models::logitLens(*model, *trace, position, 5);
        } catch (const std::exception& e) {
            rows.error = e.what();
        }
        return rows;
    });
}

void TrainedModelRunner::pollLens() {
    if (finished(lensWorker_)) lens_ = lensWorker_.get();
}

void TrainedModelRunner::requestValueWeighted() {
    pollValueWeighted();
    if (!realTrace_ || weightedWorker_.valid() || weightedAsked_ == generation_) return;
    weightedAsked_ = generation_;
    weightedWorker_ = std::async(std::launch::async, valueWeighted, realTrace_->layers);
}

void TrainedModelRunner::pollValueWeighted() {
    if (!finished(weightedWorker_)) return;
    try {
        std::vector<core::Mat> maps = weightedWorker_.get(); // L x H of N x N
        if (weightedAsked_ != generation_) return;           // of a trace no longer shown
        analyses_.valueWeighted = std::move(maps);
        weightedGeneration_ = weightedAsked_;
        weightedError_.clear();
    } catch (const std::bad_alloc&) { // the weights stay shown, with why
        weightedError_ = "not enough memory for value-weighted attention of this sentence";
    } catch (const std::exception& e) {
        weightedError_ = e.what();
    }
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
    view.ablated.resize(std::size_t(c.layers));
    for (std::size_t b = 0; b < runner.trace().sentences.size(); ++b)
        view.unknownWords.emplace_back();
    view.predictions = runner.realPredictions();
    view.detectorsReady = !runner.detectors().empty();
    view.loss = runner.outcome().loss;
    view.lossAllHeads = runner.baseline().loss;
}

std::string realModelWindowTitle(const core::models::RealModel& model) {
    return "mha-viz \xE2\x80\x94 " + model.family + " (" + model.location.source + ")";
}

} // namespace app
