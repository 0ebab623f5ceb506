// The real-model side of ModelRunner (model_runner.h): a Hugging Face checkpoint
// run on a worker thread, its trace in the shape the explorer's views read (one core::Trace per
// layer), the analyses beside it (rollout, value-weighted attention, the logit lens, ablation's
// effect), and what the panels say of it.
#include "explorer/model_runner.h"

#include "platform/background_task.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace app {

namespace {

// A decoder's loss and five guesses after the last token; an encoder's five guesses at its
// first mask token (what ablation moves).
RealOutcomeSummary summarize(const core::models::RealTrace& r) {
    RealOutcomeSummary s;
    s.valid = true;
    s.loss = r.ids.size() > 1 ? r.loss : std::numeric_limits<double>::quiet_NaN();
    if (r.predictions.empty()) return s;
    const std::vector<int> masks = r.maskPositions();
    if (r.model->isEncoder()) s.loss = std::numeric_limits<double>::quiet_NaN();
    if (!r.model->isEncoder())
        s.next = r.predictions.back();
    else if (!masks.empty())
        s.next = r.predictions[std::size_t(masks.front())];
    return s;
}

// The rollout after each layer, from each layer's mean attention (kept by the trace).
RealAnalyses analyze(const core::models::RealTrace& r) {
    RealAnalyses a;
    a.rollout = core::models::attentionRollouts(r.meanAttention); // L of N x N
    return a;
}

// Every head's value-weighted attention, rows normalised to the weights' scale so the colours
// compare with the raw maps, pooled as the model view's thumbnails: one layer at a time, so a
// layer the trace did not keep is recomputed and dropped again.
std::vector<core::Mat> valueWeighted(std::shared_ptr<const core::models::RealTrace> r) {
    std::vector<core::Mat> maps; // L x H thumbnails
    for (int l = 0; l < r->layerCount(); ++l) {
        const std::shared_ptr<const core::Trace> layer = r->layer(l);
        for (int h = 0; h < layer->attention.heads; ++h)
            maps.push_back(core::models::thumbnailOf(
                core::models::normalizedRows(core::models::valueWeightedAttention(*layer, h))));
    }
    return maps;
}

// "␣mat (0.31)" for each of a position's guesses.
std::string choicesLine(const std::vector<core::models::TokenChoice>& top) {
    std::string line;
    for (const core::models::TokenChoice& choice : top)
        line += (line.empty() ? "" : ", ") + withProbability(choice.token, choice.probability);
    return line;
}

} // namespace

ModelRunner::~ModelRunner() {
    if (worker_.valid()) worker_.wait();
    if (lensWorker_.valid()) lensWorker_.wait();
    if (weightedWorker_.valid()) weightedWorker_.wait();
    if (layerWorker_.valid()) layerWorker_.wait();
}

void ModelRunner::openReal(std::shared_ptr<const core::models::RealModel> model) {
    open(nullptr); // waits for a worker of the model it replaces
    real_ = std::move(model);
}

ModelRunner::RealOutcome ModelRunner::runReal(std::shared_ptr<const core::models::RealModel> model,
                                              RealRequest request, std::size_t layerBudget) {
    RealOutcome out;
    try {
        core::models::RealTraceOptions options;
        options.topK = 5; // a token chip's tooltip lists the five most likely tokens
        options.ablated = request.ablated;
        options.pair = request.pair;
        options.keepBytes = layerBudget;
        options.resume = std::move(request.resume);
        auto r = std::make_shared<core::models::RealTrace>(
            core::models::traceRealModel(*model, request.sentences.at(0), options));
        core::ModelSentence s;
        s.tokens = r->tokens;
        s.ids = r->ids;
        out.predictions.emplace_back();
        for (const std::vector<core::models::TokenChoice>& top : r->predictions) {
            s.predictions.push_back({top.front().id, top.front().probability});
            out.predictions.back().push_back(choicesLine(top));
        }
        out.trace.sentences.push_back(std::move(s));
        out.trace.layers = r->layers; // a layer not kept is null: requestLayer makes it
        out.trace.warnings = model->net->warnings();
        out.trace.warnings.insert(out.trace.warnings.end(), r->warnings.begin(), r->warnings.end());
        out.analyses = analyze(*r);
        out.summary = summarize(*r);
        if (request.baseline) { // the same text with every head on
            core::models::RealTraceOptions all;
            all.topK = 5, all.pair = request.pair, all.keepBytes = 0;
            all.resume = r; // the layers before the first switched-off head are the same
            out.baseline =
                summarize(core::models::traceRealModel(*model, request.sentences.at(0), all));
        }
        // An encoder's scores are of the sentence shown; a decoder's test sequence runs on request.
        if (request.detect ||
            model->architecture->detectors == core::models::Detectors::SentenceShown)
            out.detectors = core::models::detectModelHeads(*r);
        out.real = std::move(r);
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory for this model and this sentence";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

// Takes a finished worker's result: the new trace (or the error, the last trace staying).
bool ModelRunner::takeRealOutcome() {
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
    baselineText_ = lastAttempt_.at(0) + '\n' + lastPair_;
    ++generation_;
    status_.sceneError.clear();
    return true;
}

bool ModelRunner::updateReal(const std::vector<std::string>& sentences, double now,
                             const core::train::HeadLists& ablated, const std::string& pair) {
    pollLens();
    pollValueWeighted();
    pollLayer();
    const bool replaced = taskReady(worker_) && takeRealOutcome();
    if (worker_.valid()) return replaced; // one forward at a time; the next one after it
    if (attempted_ && sentences == lastAttempt_ && ablated == lastAblated_ && pair == lastPair_)
        return replaced;
    attempted_ = true;
    lastAttempt_ = sentences;
    lastAblated_ = ablated;
    lastPair_ = pair;
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
    RealRequest request{sentences, ablated, pair, detectors_.empty(), false, realTrace_};
    request.baseline = std::any_of(ablated.begin(), ablated.end(),
                                   [](const std::vector<int>& l) { return !l.empty(); }) &&
                       !(baseline_.valid && baselineText_ == sentences[0] + '\n' + pair);
    worker_ =
        startTask([model = real_, request = std::move(request), budget = layerBudget_]() mutable {
            return runReal(std::move(model), std::move(request), budget);
        });
    return replaced;
}

int lensPositionShown(const ModelView& model, int n) {
    if (model.lensPosition >= 0 && model.lensPosition < n) return model.lensPosition;
    if (!model.maskFills.empty() && model.maskFills.front().position < n)
        return model.maskFills.front().position;
    return n - 1;
}

void ModelRunner::requestLens(int position) {
    pollLens();
    if (!realTrace_ || lensWorker_.valid()) return;
    const int n = int(realTrace_->ids.size());
    position = std::clamp(position, 0, n - 1); // the caller's lensPositionShown
    if (lens_.generation == generation_ && lens_.position == position) return;
    lensWorker_ =
        startTask([model = real_, trace = realTrace_, position, generation = generation_] {
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

void ModelRunner::pollLens() {
    if (taskReady(lensWorker_)) lens_ = lensWorker_.get();
}

void ModelRunner::requestValueWeighted() {
    pollValueWeighted();
    if (!realTrace_ || weightedWorker_.valid() || weightedAsked_ == generation_) return;
    weightedAsked_ = generation_;
    weightedWorker_ = startTask([trace = realTrace_] { return valueWeighted(trace); });
}

std::shared_ptr<const core::Trace> ModelRunner::layerTrace(int l) {
    pollLayer();
    if (l < 0 || std::size_t(l) >= trace_.layers.size()) return nullptr;
    if (trace_.layers[std::size_t(l)]) return trace_.layers[std::size_t(l)];
    if (made_.generation == generation_ && made_.layer == l) return made_.trace;
    if (!realTrace_ || layerWorker_.valid()) return nullptr; // asked again when it is done
    layerWorker_ = startTask([trace = realTrace_, l, g = generation_] {
        MadeLayer made;
        made.generation = g, made.layer = l;
        try {
            made.trace = trace->layer(l); // from the stream before it, as the forward did
        } catch (const std::exception& e) {
            made.error = e.what();
        }
        return made;
    });
    return nullptr;
}

void ModelRunner::pollLayer() {
    if (!taskReady(layerWorker_)) return;
    MadeLayer made = layerWorker_.get();
    if (!made.error.empty()) status_.sceneError = made.error;
    if (made.trace) made_ = std::move(made); // the one layer beyond the kept ones
}

void ModelRunner::pollValueWeighted() {
    if (!taskReady(weightedWorker_)) return;
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

namespace {

// What the shown trace says beyond its maps: where sentence B starts, the blanks filled.
void describeRealTrace(const ModelRunner& runner, ModelView& view) {
    view.pairStart = -1;
    view.maskFills.clear();
    const std::shared_ptr<const core::models::RealTrace>& r = runner.realTrace();
    if (!r) return;
    view.pairStart = r->pairStart;
    if (r->predictions.empty()) return;
    for (int position : r->maskPositions())
        view.maskFills.push_back({position, r->predictions[std::size_t(position)]});
}

} // namespace

void describeRealModel(const ModelRunner& runner, ModelView& view) {
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
    view.vocabulary = model.tokenizer->describe();
    view.encoder = model.isEncoder();
    view.hasHead = model.net->hasHead();
    view.pairs = model.tokenizer->takesPairs();
    view.attentionInput = model.net->attentionInputName();
    view.maskText = model.maskText();
    view.outProjection = model.architecture->outProjection;
    describeRealTrace(runner, view);
    view.layers = c.layers;
    view.layer = std::clamp(view.layer, 0, c.layers - 1);
    view.ablated.resize(std::size_t(c.layers));
    for (std::size_t b = 0; b < runner.trace().sentences.size(); ++b)
        view.unknownWords.emplace_back();
    view.predictions = runner.realPredictions();
    view.detectorsReady = !runner.detectors().empty();
    view.detectorsInput = core::models::detectorsInputLine(model);
    view.loss = runner.outcome().loss;
    view.lossAllHeads = runner.baseline().loss;
}

std::string realModelWindowTitle(const core::models::RealModel& model) {
    return "mha-viz \xE2\x80\x94 " + model.family + " (" + model.location.source + ")";
}

} // namespace app
