// Model B and its comparison with the open model, on workers (comparison_runner.h).
#include "explorer/comparison_runner.h"

#include "explorer/model_runner.h"
#include "platform/background_task.h"

#include <algorithm>
#include <new>
#include <stdexcept>

namespace app {

namespace {

// The same input: text, pair and switched-off heads (whichever model read them).
bool sameInput(const core::models::RealTrace& a, const core::models::RealTrace& b) {
    return a.text == b.text && a.pair == b.pair && a.ablated == b.ablated;
}

} // namespace

bool sameRun(const core::models::RealTrace& shown, const core::models::RealTrace& traceA) {
    return shown.model == traceA.model && shown.ids == traceA.ids && sameInput(shown, traceA);
}

ComparisonRunner::~ComparisonRunner() {
    close();
    if (loadingModel_.valid()) loadingModel_.wait();
}

template <class F>
auto ComparisonRunner::startWorker(F work) {
    return startTask([work = std::move(work), wake = wake_]() mutable {
        auto result = work();
        if (wake) wake();
        return result;
    });
}

void ComparisonRunner::open(const std::string& dirOrName) {
    // No wake: the frames poll while it loads (working()), and a load still under way when the
    // window closes must not post to a GLFW that is gone.
    loadingModel_ = startTask([dirOrName] { return core::models::openRealModel(dirOrName); });
    loadingName_ = dirOrName;
}

std::optional<std::string> ComparisonRunner::takeLoaded(const core::models::RealModel* modelA) {
    if (!taskReady(loadingModel_)) return std::nullopt;
    const std::string name = std::exchange(loadingName_, std::string());
    try {
        std::shared_ptr<const core::models::RealModel> b = loadingModel_.get();
        const core::models::ModelConfig& cb = b->config();
        if (modelA && (modelA->config().layers != cb.layers || modelA->config().heads != cb.heads))
            return name + " has " + std::to_string(cb.layers) +
                   (cb.layers == 1 ? " layer x " : " layers x ") + std::to_string(cb.heads) +
                   " heads, the open model " + std::to_string(modelA->config().layers) + " x " +
                   std::to_string(modelA->config().heads) + ": compare two versions of one model";
        close(); // the comparison with the B before is of no use now
        modelB_ = std::move(b);
        return std::string();
    } catch (const std::bad_alloc&) {
        return name + ": not enough memory for a second model";
    } catch (const std::exception& e) {
        return e.what();
    }
}

void ComparisonRunner::close() {
    if (cancel_) cancel_->store(true);
    if (worker_.valid()) worker_.wait();
    if (layerWorker_.valid()) layerWorker_.wait();
    worker_ = {}, layerWorker_ = {};
    modelB_.reset(), wantedModelA_.reset(), wantedA_.reset(), runningA_.reset();
    result_.reset(), made_ = {};
    error_.clear();
}

ComparisonRunner::Outcome
ComparisonRunner::compare(std::shared_ptr<const core::models::RealModel> modelA,
                          std::shared_ptr<const core::models::RealModel> modelB,
                          std::shared_ptr<const core::models::RealTrace> traceA,
                          std::shared_ptr<const core::models::RealTrace> earlierB, Cancel cancel) {
    Outcome out;
    try {
        auto result = std::make_shared<ModelComparison>();
        result->modelA = std::move(modelA), result->modelB = modelB;
        result->traceA = traceA;
        // The same run of B serves a trace of A whose predictions came later.
        const bool earlierOfB = earlierB && earlierB->model == modelB.get();
        if (earlierOfB && sameInput(*earlierB, *traceA)) {
            result->traceB = std::move(earlierB);
        } else {
            core::models::RealTraceOptions options;
            options.ablated = traceA->ablated, options.pair = traceA->pair;
            options.topK = std::max(1, traceA->topK);
            options.keepBytes = kWindowLayerBudget;
            options.cancel = cancel;
            if (earlierOfB) options.resume = earlierB;
            result->traceB = std::make_shared<const core::models::RealTrace>(
                core::models::traceRealModel(*modelB, traceA->text, options));
        }
        result->heads = core::models::compareTraces(*traceA, *result->traceB);
        out.result = std::move(result);
    } catch (const core::models::TraceCancelled&) {
        out.cancelled = true;
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory to run model B on this text";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

void ComparisonRunner::start() {
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    runningA_ = wantedA_;
    worker_ = startWorker([a = wantedModelA_, b = modelB_, t = wantedA_,
                           earlier = result_ ? result_->traceB : nullptr,
                           cancel = cancel_] { return compare(a, b, t, earlier, cancel); });
}

void ComparisonRunner::poll() {
    if (taskReady(worker_)) {
        Outcome out = worker_.get();
        if (!out.cancelled && !out.error.empty()) result_.reset(), error_ = out.error;
        if (out.result) result_ = std::move(out.result), error_.clear();
    }
    if (taskReady(layerWorker_)) {
        made_ = layerWorker_.get();
        if (!made_.error.empty()) error_ = made_.error;
    }
}

void ComparisonRunner::update(const std::shared_ptr<const core::models::RealModel>& modelA,
                              const std::shared_ptr<const core::models::RealTrace>& traceA) {
    poll();
    if (!modelB_ || !traceA) return;
    if (traceA != wantedA_) wantedA_ = traceA, wantedModelA_ = modelA;
    if (worker_.valid()) {
        if (runningA_ != wantedA_) cancel_->store(true); // started again once it stops
        return;
    }
    if (runningA_ != wantedA_) start();
}

std::shared_ptr<const core::Trace> ComparisonRunner::layerOfB(int l) {
    poll();
    if (!result_ || l < 0 || l >= result_->traceB->layerCount()) return nullptr;
    const core::models::RealTrace& b = *result_->traceB;
    if (b.layers[std::size_t(l)]) return b.layers[std::size_t(l)];
    if (made_.of == result_ && made_.layer == l) return made_.trace; // null: it failed (error())
    if (!layerWorker_.valid())
        layerWorker_ = startWorker([result = result_, l] {
            MadeLayer made{result, l, nullptr, {}};
            try {
                made.trace = result->traceB->layer(l);
            } catch (const std::bad_alloc&) {
                made.error = "not enough memory for layer " + std::to_string(l + 1) + " of B";
            } catch (const std::exception& e) {
                made.error = e.what();
            }
            return made;
        });
    return nullptr;
}

} // namespace app
