// The A-B tab across two models (docs/real-models.md, "Comparing two models"): model B, another
// version of the open model (its quantized GGUF, BF16 against F32, a fine-tune), run on the text
// shown with the same heads switched off and compared head by head (model_comparison.h). B loads
// and runs on workers; the frame never waits: it reads the last comparison, and B's layer that
// the tab shows once a worker has made it.
#pragma once

#include "models/analyses/model_comparison.h"
#include "models/real_model.h"

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

namespace app {

// One comparison: both traces of one text and what moved. The models are held with them (a
// trace points at its model).
struct ModelComparison {
    std::shared_ptr<const core::models::RealModel> modelA, modelB;
    std::shared_ptr<const core::models::RealTrace> traceA, traceB;
    core::models::TraceComparison heads;
};

// Whether `shown` is the text, pair and switched-off heads `traceA` ran: a trace whose
// predictions were completed later is the same run.
bool sameRun(const core::models::RealTrace& shown, const core::models::RealTrace& traceA);

class ComparisonRunner {
  public:
    ~ComparisonRunner(); // waits for its workers (a forward cannot be interrupted mid-layer)
    // Called on a worker's thread as it finishes (the window posts an event).
    void setWake(std::function<void()> wake) { wake_ = std::move(wake); }

    // Starts reading B off the frame thread; throws when no thread can be made.
    void open(const std::string& dirOrName);
    bool loading() const { return loadingModel_.valid(); }
    const std::string& loadingName() const { return loadingName_; }
    // Once a load ended: "" when B is the model read, else why it was not (the B before stays).
    // Nothing while it loads or when none was started. B must have A's layers and heads.
    std::optional<std::string> takeLoaded(const core::models::RealModel* modelA);
    bool hasModel() const { return modelB_ != nullptr; }
    const core::models::RealModel& model() const { return *modelB_; } // hasModel() only
    void close(); // B dropped; a worker under way is told to stop and its result dropped

    // Keeps the comparison in step with A's trace shown: a worker runs B on its text when it
    // changed (one at a time; a newer trace cancels the one under way).
    void update(const std::shared_ptr<const core::models::RealModel>& modelA,
                const std::shared_ptr<const core::models::RealTrace>& traceA);
    // The last comparison made, of the trace last given to update or an earlier one (sameRun
    // says which); null before the first.
    const std::shared_ptr<const ModelComparison>& result() const { return result_; }
    const std::string& error() const { return error_; } // why the last one could not be made
    bool computing() const { return worker_.valid(); }
    // Layer l of B's trace in result(): kept, or made on a worker (null meanwhile: ask again).
    std::shared_ptr<const core::Trace> layerOfB(int l);
    bool working() const { return loading() || worker_.valid() || layerWorker_.valid(); }

  private:
    using Cancel = std::shared_ptr<std::atomic<bool>>;
    struct Outcome {
        std::shared_ptr<const ModelComparison> result;
        std::string error;
        bool cancelled = false;
    };
    struct MadeLayer { // a layer B's trace did not keep, made again
        std::shared_ptr<const ModelComparison> of;
        int layer = -1;
        std::shared_ptr<const core::Trace> trace;
        std::string error;
    };
    static Outcome compare(std::shared_ptr<const core::models::RealModel> modelA,
                           std::shared_ptr<const core::models::RealModel> modelB,
                           std::shared_ptr<const core::models::RealTrace> traceA,
                           std::shared_ptr<const core::models::RealTrace> earlierB, Cancel cancel);
    void poll();
    void start();
    template <class F>
    auto startWorker(F work);

    std::function<void()> wake_;
    std::future<std::unique_ptr<core::models::RealModel>> loadingModel_;
    std::string loadingName_;
    std::shared_ptr<const core::models::RealModel> modelB_;
    std::shared_ptr<const core::models::RealModel> wantedModelA_;
    std::shared_ptr<const core::models::RealTrace> wantedA_;  // the trace to compare
    std::shared_ptr<const core::models::RealTrace> runningA_; // the worker's
    std::future<Outcome> worker_;
    Cancel cancel_;
    std::shared_ptr<const ModelComparison> result_;
    std::string error_;
    std::future<MadeLayer> layerWorker_;
    MadeLayer made_;
};

} // namespace app
