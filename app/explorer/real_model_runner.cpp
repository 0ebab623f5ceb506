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
#include <thread>

namespace app {

namespace {

// How long the deferred predictions wait for the next key before they take the cores.
constexpr int kTypingPauseMillis = 200;

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

// The rows of `later` that `earlier` has the same (a decoder, the same switches, the ids it
// starts with; one row at least left to make), else 0.
int sharedRows(const core::models::RealTrace& earlier, const core::models::RealTrace& later) {
    if (earlier.model != later.model || earlier.model->isEncoder() ||
        earlier.layerCount() != later.layerCount())
        return 0;
    for (int l = 0; l < later.layerCount(); ++l)
        if (core::models::ablatedIn(earlier.ablated, l) !=
            core::models::ablatedIn(later.ablated, l))
            return 0;
    const std::size_t n = std::min(earlier.ids.size(), later.ids.size());
    std::size_t shared = 0;
    while (shared < n && earlier.ids[shared] == later.ids[shared]) ++shared;
    return int(std::min(shared, later.ids.size() - 1));
}

const std::vector<core::Mat>& none() {
    static const std::vector<core::Mat> empty;
    return empty;
}

// The rollout after each layer, from each layer's mean attention (kept by the trace); a
// decoder's rows that an earlier rollout has are taken from it.
std::vector<core::Mat> rollouts(const core::models::RealTrace& r,
                                const std::vector<core::Mat>* earlier,
                                const core::models::RealTrace* earlierTrace) {
    if (r.model->isEncoder()) return core::models::attentionRollouts(r.meanAttention);
    const int P = earlier && earlierTrace && earlier->size() == r.meanAttention.size()
                      ? sharedRows(*earlierTrace, r)
                      : 0;
    return core::models::attentionRolloutsAfter(r.meanAttention, P > 0 ? *earlier : none(),
                                                P); // L of N x N
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

// Each token's guess (the top one) and its chip's line of all k, from the trace's predictions.
void guessesOf(const core::models::RealTrace& r, std::vector<core::Prediction>& top,
               std::vector<std::string>& lines) {
    top.clear();
    lines.clear();
    for (const std::vector<core::models::TokenChoice>& choices : r.predictions) {
        top.push_back({choices.front().id, choices.front().probability});
        lines.push_back(choicesLine(choices));
    }
}

} // namespace

ModelRunner::~ModelRunner() {
    if (cancel_) cancel_->store(true); // nobody waits for their results any more
    if (analysesCancel_) analysesCancel_->store(true);
    if (worker_.valid()) worker_.wait();
    if (analysesWorker_.valid()) analysesWorker_.wait();
    if (lensWorker_.valid()) lensWorker_.wait();
    if (weightedWorker_.valid()) weightedWorker_.wait();
    if (layerWorker_.valid()) layerWorker_.wait();
}

void ModelRunner::openReal(std::shared_ptr<const core::models::RealModel> model) {
    open(nullptr); // waits for a worker of the model it replaces
    real_ = std::move(model);
}

ModelRunner::RealOutcome ModelRunner::runReal(std::shared_ptr<const core::models::RealModel> model,
                                              RealRequest request, std::size_t layerBudget,
                                              Cancel cancel) {
    RealOutcome out;
    try {
        core::models::RealTraceOptions options;
        options.topK = 5; // a token chip's tooltip lists the five most likely tokens
        options.ablated = request.ablated;
        options.pair = request.pair;
        options.keepBytes = layerBudget;
        options.resume = std::move(request.resume);
        options.cancel = std::move(cancel);
        options.deferPredictions = true; // the maps first; the analyses worker makes them
        auto r = std::make_shared<core::models::RealTrace>(
            core::models::traceRealModel(*model, request.sentences.at(0), options));
        core::ModelSentence s;
        s.tokens = r->tokens;
        s.ids = r->ids;
        out.predictions.assign(1, {});
        guessesOf(*r, s.predictions, out.predictions.back());
        out.trace.sentences.push_back(std::move(s));
        out.trace.layers = r->layers; // a layer not kept is null: requestLayer makes it
        out.trace.warnings = model->net->warnings();
        out.trace.warnings.insert(out.trace.warnings.end(), r->warnings.begin(), r->warnings.end());
        out.summary = summarize(*r);
        out.sinkShares = core::models::attentionSinkShares(*r);
        out.real = std::move(r);
    } catch (const core::models::TraceCancelled&) {
        out.cancelled = true;
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory for this model and this sentence";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

ModelRunner::AnalysesOutcome
ModelRunner::runAnalyses(std::shared_ptr<const core::models::RealModel> model,
                         AnalysesRequest request, Cancel cancel) {
    AnalysesOutcome out;
    out.generation = request.generation;
    out.trace = request.trace;
    try {
        if (request.trace->predictionsPending) {
            // Typing keeps both cores for its maps: the guesses start once it pauses.
            for (int wait = 0; wait < kTypingPauseMillis / 10 && !cancel->load(); ++wait)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            core::models::RealTraceOptions stop;
            stop.cancel = cancel;
            out.trace = core::models::withPredictions(request.trace, stop);
            out.completed = true;
        }
        const core::models::RealTrace& r = *out.trace;
        if (request.rollout)
            out.rollout = rollouts(r, request.earlierRollout, request.earlierTrace.get());
        if (request.baseline && !cancel->load()) { // the same text with every head on
            core::models::RealTraceOptions all;
            all.topK = 5, all.pair = request.pair, all.keepBytes = 0;
            all.resume = request.trace; // the layers before the first switched-off head
            all.cancel = cancel;
            out.baseline = summarize(core::models::traceRealModel(*model, r.text, all));
        }
        // An encoder's scores are of the sentence shown; a decoder's test sequence runs once.
        if (!cancel->load() && (request.detect || model->architecture->detectors ==
                                                      core::models::Detectors::SentenceShown))
            out.detectors = core::models::detectModelHeads(r);
        out.cancelled = cancel->load();
    } catch (const core::models::TraceCancelled&) {
        out.cancelled = true;
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory for the analyses of this sentence";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

// The analyses of the trace just shown: now, or once a superseded run has stopped (a task's
// future waits for it when dropped, and the frame never waits).
void ModelRunner::startAnalyses(bool baseline) {
    AnalysesRequest request;
    request.generation = generation_;
    request.trace = realTrace_;
    request.pair = lastPair_;
    request.detect = detectors_.empty() ||
                     real_->architecture->detectors == core::models::Detectors::SentenceShown;
    request.baseline = baseline;
    request.rollout = rolloutWanted_;
    if (analysesCancel_) analysesCancel_->store(true);
    nextAnalyses_ = std::move(request);
    pollAnalyses();
}

void ModelRunner::pollAnalyses() {
    if (taskReady(analysesWorker_)) {
        AnalysesOutcome a = take(analysesWorker_);
        if (a.error.empty() && !a.rollout.empty()) {  // made whole, even if no longer shown
            analyses_.rollout = std::move(a.rollout); // kept: the next text's shared rows
            rolloutTrace_ = a.trace;
        }
        const bool shown = !a.cancelled && a.generation == generation_;
        // A decoder's detectors read a test sequence of their own: any trace's are the model's.
        if (!a.detectors.empty() && !a.cancelled &&
            (shown || real_->architecture->detectors != core::models::Detectors::SentenceShown))
            detectors_ = std::move(a.detectors);
        if (shown && a.completed) takePredictions(a.trace);
        if (shown) {
            if (!a.error.empty()) status_.sceneError = a.error;
            if (a.baseline.valid) baselineText_ = a.trace->text + '\n' + a.trace->pair;
            if (a.baseline.valid) baseline_ = std::move(a.baseline);
            analysesGeneration_ = a.generation;
        }
    }
    if (analysesWorker_.valid() || !nextAnalyses_) return;
    AnalysesRequest request = std::move(*nextAnalyses_);
    nextAnalyses_.reset();
    if (rolloutTrace_) { // read by the worker; analyses_ changes only once it is done
        request.earlierRollout = &analyses_.rollout;
        request.earlierTrace = rolloutTrace_;
    }
    analysesCancel_ = std::make_shared<std::atomic<bool>>(false);
    analysesWorker_ = startWorker(
        [model = real_, request = std::move(request), cancel = analysesCancel_]() mutable {
            return runAnalyses(std::move(model), std::move(request), std::move(cancel));
        });
}

// The shown trace's deferred predictions, made by the analyses worker: the chips' guesses, the
// loss and the last token's five (or the mask's), as if the forward had made them.
void ModelRunner::takePredictions(std::shared_ptr<const core::models::RealTrace> completed) {
    realTrace_ = std::move(completed);
    realPredictions_.assign(1, {});
    guessesOf(*realTrace_, trace_.sentences.at(0).predictions, realPredictions_.back());
    outcome_ = summarize(*realTrace_);
    const bool ablated = std::any_of(lastAblated_.begin(), lastAblated_.end(),
                                     [](const std::vector<int>& l) { return !l.empty(); });
    if (!ablated) baseline_ = outcome_; // nothing switched off: this is the baseline
}

// Takes a finished worker's result: the new trace (or the error, the last trace staying); its
// analyses follow on their own worker.
bool ModelRunner::takeRealOutcome() {
    RealOutcome outcome = take(worker_);
    if (outcome.cancelled) {
        attempted_ = false; // the sentence now typed runs next, whatever it is
        return false;
    }
    if (!outcome.error.empty()) {
        status_.sceneError = outcome.error; // the last traces stay on screen
        return false;
    }
    trace_ = std::move(outcome.trace);
    realTrace_ = std::move(outcome.real);
    sinkShares_ = std::move(outcome.sinkShares);
    realPredictions_ = std::move(outcome.predictions);
    outcome_ = std::move(outcome.summary);
    const bool ablated = std::any_of(lastAblated_.begin(), lastAblated_.end(),
                                     [](const std::vector<int>& l) { return !l.empty(); });
    const std::string text = realTrace_->text + '\n' + realTrace_->pair;
    if (!ablated) { // nothing switched off: this is the baseline
        baseline_ = outcome_;
        baselineText_ = text;
    } else if (baselineText_ != text) {
        baseline_ = {}; // another text's: not shown until the analyses make this one's
    }
    if (real_->architecture->detectors == core::models::Detectors::SentenceShown)
        detectors_.clear(); // of the sentence before
    ++generation_;
    status_.sceneError.clear();
    startAnalyses(ablated && baselineText_ != text);
    return true;
}

std::vector<core::models::HeadDetectorScores> ModelRunner::detectorsShown() const {
    if (detectors_.empty()) return {};
    std::vector<core::models::HeadDetectorScores> shown = detectors_;
    core::models::HeadDetectorScores sink = core::models::sinkDetectorScores(sinkShares_);
    if (sink.scores.rows() == shown[0].scores.rows() &&
        sink.scores.cols() == shown[0].scores.cols())
        shown.push_back(std::move(sink));
    return shown;
}

void ModelRunner::requestRollout() {
    rolloutAsked_ = true;
    pollAnalyses();
    if (!realTrace_ || rolloutReady() || analysesWorker_.valid() || nextAnalyses_ ||
        worker_.valid())
        return; // there, or on its way (a trace's analyses make it while the view is shown)
    AnalysesRequest request;
    request.generation = generation_;
    request.trace = realTrace_;
    request.pair = lastPair_;
    request.rollout = true;
    nextAnalyses_ = std::move(request);
    pollAnalyses();
}

bool ModelRunner::updateReal(const std::vector<std::string>& sentences, double now,
                             const core::train::HeadLists& ablated, const std::string& pair) {
    rolloutWanted_ = std::exchange(rolloutAsked_, false);
    pollLens();
    pollValueWeighted();
    pollLayer();
    pollAnalyses();
    const bool replaced = taskReady(worker_) && takeRealOutcome();
    const bool same =
        attempted_ && sentences == lastAttempt_ && ablated == lastAblated_ && pair == lastPair_;
    if (worker_.valid()) { // one forward at a time: a superseded one stops at its next layer
        if (!same && cancel_) cancel_->store(true);
        return replaced;
    }
    if (same) return replaced;
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
    if (analysesCancel_) analysesCancel_->store(true); // of a trace about to be replaced
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    RealRequest request{sentences, ablated, pair, realTrace_};
    worker_ = startWorker([model = real_, request = std::move(request), budget = layerBudget_,
                           cancel = cancel_]() mutable {
        return runReal(std::move(model), std::move(request), budget, std::move(cancel));
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
        startWorker([model = real_, trace = realTrace_, position, generation = generation_] {
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
    if (taskReady(lensWorker_)) lens_ = take(lensWorker_);
}

void ModelRunner::requestValueWeighted() {
    pollValueWeighted();
    if (!realTrace_ || weightedWorker_.valid() || weightedAsked_ == generation_) return;
    weightedAsked_ = generation_;
    weightedWorker_ = startWorker([trace = realTrace_] { return valueWeighted(trace); });
}

std::shared_ptr<const core::Trace> ModelRunner::layerTrace(int l) {
    pollLayer();
    if (l < 0 || std::size_t(l) >= trace_.layers.size()) return nullptr;
    if (trace_.layers[std::size_t(l)]) return trace_.layers[std::size_t(l)];
    if (made_.generation == generation_ && made_.layer == l) return made_.trace;
    if (!realTrace_ || layerWorker_.valid()) return nullptr; // asked again when it is done
    layerWorker_ = startWorker([trace = realTrace_, l, g = generation_] {
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
    MadeLayer made = take(layerWorker_);
    if (!made.error.empty()) status_.sceneError = made.error;
    if (made.trace) made_ = std::move(made); // the one layer beyond the kept ones
}

void ModelRunner::pollValueWeighted() {
    if (!taskReady(weightedWorker_)) return;
    try {
        std::vector<core::Mat> maps = take(weightedWorker_); // L x H of N x N
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
    view.guessesPending = r->predictionsPending;
    if (r->predictions.empty()) return;
    for (int position : r->maskPositions())
        view.maskFills.push_back({position, r->predictions[std::size_t(position)]});
}

// What the model's attention is (its config in words, model_description.h), how its heads
// share K/V heads, and each head's sink share on the shown text.
void describeAttention(const ModelRunner& runner, ModelView& view) {
    const core::models::RealModel& model = runner.realModel();
    view.kvGroups = core::models::kvGroups(model.config());
    view.kvLegend = core::models::kvGroupsLegend(view.kvGroups);
    view.fixedText = core::models::fixedByModelText(model);
    const std::shared_ptr<const core::models::RealTrace>& r = runner.realTrace();
    view.shapes = core::models::realShapePieces(model.config(), r ? int(r->ids.size()) : 0);
    const core::models::AttentionParameterCount p = core::models::attentionParameters(model);
    view.parameters = core::models::groupedDigits(p.count) + " parameters per layer's attention (" +
                      p.formula + ")";
    view.parameterTerms = p.terms;
    view.sinkShares = runner.sinkShares();
    view.firstToken = r && !r->tokens.tokens.empty() ? r->tokens.tokens.front().text : "";
}

} // namespace

void describeRealModel(const ModelRunner& runner, ModelView& view) {
    const core::models::RealModel& model = runner.realModel();
    const core::models::ModelConfig& c = model.config();
    view.open = true;
    view.real = true;
    view.title = model.family + " (" + model.location.source + ")";
    view.architecture = std::to_string(c.layers) + " layers  d_model " + std::to_string(c.dModel) +
                        "  " + core::models::headLayout(c) + "  context " +
                        std::to_string(c.nPositions) + "  vocab " + std::to_string(c.vocabSize) +
                        "  " + model.net->weightTypes();
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
    describeAttention(runner, view);
}

std::string realModelWindowTitle(const core::models::RealModel& model) {
    return "mha-viz \xE2\x80\x94 " + model.family + " (" + model.location.source + ")";
}

} // namespace app
