// A model in the explorer: a trained run (--model RUN, the Train view's "Open in explorer") or a
// real checkpoint (--model DIR|NAME of a Hugging Face checkpoint, real_model_runner.cpp). The
// runner runs it on the sentences typed, as SceneRunner runs a scene (the traces of its layers),
// and says what the panels show of it. A real model runs on a worker thread: the frame never waits
// for it. No GL and no ImGui: unit tests drive it like the window does.
#pragma once

#include "engine/scene.h"
#include "explorer/scene_runner.h"
#include "io/trained_run.h"
#include "models/analyses/model_analysis.h"
#include "models/analyses/saved_attention.h"
#include "models/model_description.h"
#include "models/real_model.h"
#include "models/seq2seq_real_model.h"
#include "platform/background_task.h"
#include "train/model.h"
#include "train/model_trace.h"

#include <array>
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace app {

// The middle panel while a real model is open: this layer's heads, every head of every layer
// (the model view), the head detectors' scores, the attention rollout, or the logit lens
// (panel_model_grid.cpp, panel_model_analyses.cpp).
// An encoder-decoder shows its alignment view in the logit lens's place (it has no lens).
enum class ModelGridMode { LayerHeads, EveryLayer, Detectors, Rollout, LogitLens, Alignment = 4 };
inline constexpr int kModelGridModes = 5;

// What the user chooses of the open model's views: the layer (L / Shift+L), the grid's view
// (G), the detector, value-weighted maps (W), the heads switched off, the lens's token, an
// encoder's sentence B and which cells of a pair the maps show (B). Kept when the model's
// description is made again; a panel changes it only through an ExplorerRequest (session
// applies it) or its own widget.
struct ModelChoices {
    int step = 0;                                   // the run's checkpoint shown
    int layer = 0;                                  // the layer every view shows, from 0
    ModelGridMode grid = ModelGridMode::EveryLayer; // the middle panel's view (a real model)
    int detector = 0;                               // the detectors grid's score
    bool valueWeighted = false;     // the model view shows |alpha f(x)| instead of the weights
    bool showSinks = false;         // the model view marks each head's attention sink share
    core::train::HeadLists ablated; // per layer, the heads switched off (sorted)
    int lensPosition = -1;          // the logit lens's token (-1: the last)
    std::string pairText;           // sentence B, typed in the sentences panel ("" for none)
    // An attention file's stack shown (core::models::SavedStack: layers.*, encoder.*, cross.*).
    int savedStack = 0;
    core::PairView pairView = core::PairView::All; // which cells of a pair the maps show
    // An encoder-decoder: the target the decoder reads ("": it writes, greedily), how many
    // tokens it may write, the tokens of the written text shown (the scrubber; -1: all), and
    // the heads switched off per stack (core::models::SavedStack: decoder, encoder, cross).
    std::string targetText;
    int maxWritten = 32;
    int writtenShown = -1;
    bool generateNow = false; // Generate (Ctrl+G): the decoder writes again, even the same text
    std::array<core::train::HeadLists, 3> stackAblated;
    // The alignment view: one head (the head selected), the layer's heads' mean, or every
    // layer's mean.
    enum class Alignment { Head, LayerMean, EveryLayer } alignment = Alignment::LayerMean;
};

// What the panels show of the open model, made from the runner by describeModel.
struct ModelFacts {
    bool open = false;
    bool real = false; // a Hugging Face checkpoint: one sentence, any text, no steps
    // An attention file (--attention): one sentence, its own, and no model to run. `real` is
    // set too (one sentence, every layer at once); what needs the model is shown off, saying
    // core::models::kNeedsTheModel.
    bool attentionOnly = false;
    // Its stacks' labels by core::models::SavedStack ("" for one it lacks; savedStackLabel).
    std::vector<std::string> savedStacks;
    std::string title;        // task, step and run folder
    std::string architecture; // layers, d_model, heads, seq, vocab
    std::string vocabulary;   // the words that may be typed (or a sample of them)
    std::vector<int> steps;   // the run's checkpoints
    int layers = 0;
    bool detectorsReady = false; // the detectors' scores are computed
    std::string detectorsInput;  // what they score: a repeated random sequence, or the sentence
    std::vector<std::vector<std::string>> unknownWords; // per sentence: not in the vocabulary
    std::vector<std::vector<std::string>> predictions;  // per sentence and token: "t17 (0.93)"
    // Per sentence, the tokens the shown trace read: the chips show them with the maps, not
    // the layer trace's (a layer not kept arrives later).
    std::vector<core::Tokenized> tokens;
    // What was cut or changed to run (a text past the context, non-finite weights), shown
    // under the sentence field.
    std::vector<std::string> warnings;
    double loss = 0, lossAllHeads = 0; // a real model's, with the switches and with all heads on
    std::vector<std::string> lensTop;  // the logit lens shown: the top token after each layer
    // An encoder (BERT, RoBERTa, DistilBERT): bidirectional, its MLM head fills [MASK]s, and it
    // reads a sentence pair when `pairText` is set.
    bool encoder = false, hasHead = true, pairs = false;
    std::string attentionInput; // what a layer's attention reads, for the Pipeline tab
    std::string maskText;       // the mask token as typed: "[MASK]", "<mask>"
    std::string outProjection;  // the attention's output projection, as the checkpoint names it
    int pairStart = -1;         // the shown trace's first token of sentence B
    struct MaskFill {
        int position = 0;                           // the [MASK]'s token index
        std::vector<core::models::TokenChoice> top; // the MLM head's five, most likely first
    };
    std::vector<MaskFill> maskFills; // one per mask token of the shown trace
    bool guessesPending = false;     // the shown trace's guesses follow its maps (deferred)
    // A real model's query heads and the K/V heads they share (GQA, MQA; MHA shares none), with
    // the grid's legend: "2 query heads per K/V head (GQA)", "" for MHA.
    core::models::KvGroups kvGroups;
    std::string kvLegend;
    std::string fixedText;                  // "Fixed by the model: ...", from its config
    std::vector<std::string> shapes;        // "B=1", "N=12", ... "H_kv=2", "d_head=16"
    std::string parameters, parameterTerms; // each layer's attention: count (formula), parts
    // L x H: each head's share of attention on the first token of the text shown (the sink,
    // model_analysis.h); empty before the first trace.
    core::Mat sinkShares;
    std::string firstToken; // that token, readable ("<|begin_of_text|>")
    // An encoder-decoder (T5, BART, Marian): its source, what the decoder read or wrote, and
    // what the heads switched off changed (seq2seq_view.cpp).
    bool seq2seq = false;
    bool written = false;         // the decoder wrote the target (greedy), none was typed
    int writtenTokens = 0;        // the target's tokens (the scrubber's end)
    std::string writtenText;      // the target as the decoder wrote or read it
    std::string ablationEffect;   // "All heads on it writes ...; with 2 off ..." ("": none)
    core::Tokenized sourceTokens; // the encoder's tokens
    std::vector<std::string> decoderGuesses; // per decoder position: its top token "Haus (0.61)"
};

// Where the last frame drew the model's widgets, for the state file: a test clicks them as a
// user would.
struct ModelSpots {
    float gridRect[4] = {0, 0, 0, 0}; // the last model grid (x0 y0 x1 y1)
    float exportAt[2] = {0, 0};       // the centre of the detectors' "Export CSV" button
    float exportAllAt[2] = {0, 0};    // the centre of "Export all" (every view, a folder)
    float pairFieldAt[2] = {0, 0};    // the centre of sentence B's field
    float sinkToggleAt[2] = {0, 0};   // the centre of the model view's "sink share" switch
    // An attention file's stack choices by core::models::SavedStack (0 0: not drawn).
    std::array<std::array<float, 2>, 3> savedStackAt{};
    // The last model grid's K/V groups as framed (x0 y0 x1 y1 each, heads sharing one K/V
    // head; none for MHA) and the centres of its head columns and layer rows.
    std::vector<std::array<float, 4>> kvGroupRects;
    std::vector<float> headColumns, layerRows;
    float sourceFieldAt[2] = {0, 0}; // an encoder-decoder's source and target fields, Generate,
    float targetFieldAt[2] = {0, 0}; // the alignment's Export figure
    float generateAt[2] = {0, 0};
    float alignmentExportAt[2] = {0, 0};
};

// The open model in the explorer: the three parts side by side (model.layer, model.title, ...).
struct ModelView : ModelChoices, ModelFacts, ModelSpots {};

// The token the logit lens reads: the one chosen, else an encoder's first mask token, else the
// last of the n.
int lensPositionShown(const ModelView& model, int n);

// What the model view's textures hold: uploaded again when any of it changes.
struct ModelMapsKey {
    int generation = -1;
    bool valueWeighted = false; // shown and ready
    int layer = -1;
    core::PairView pairView = core::PairView::All;
    bool analyses = false; // the rollout of this generation is there (ModelRunner::analysesReady)
    bool operator==(const ModelMapsKey& o) const = default;
};

// A real model's loss on the sentence and its five most likely tokens after the last one:
// with the heads switched off, and with all of them on (what the ablation changed).
struct RealOutcomeSummary {
    bool valid = false;
    double loss = 0; // nats; NaN for a one-token sentence (nothing to predict)
    std::vector<core::models::TokenChoice> next;
};

// What a real model's analyses show beside the weights: the rollout made on the worker with
// each trace; value-weighted attention on its own worker when the view asks for it (as many
// maps as the weights: 600 MB for GPT-2 small at 1024 tokens, so only when shown).
struct RealAnalyses {
    std::vector<core::Mat> rollout;       // L, N x N: the rollout after layer l + 1
    std::vector<core::Mat> valueWeighted; // L x H (slot l * H + h), rows normalised, pooled
                                          // as RealTrace::thumbnails; empty until asked for
                                          // (requestValueWeighted)
};

// How much of a real trace's layers the window keeps whole (core::models::kLayerTraceBudget is
// the CLI's): the views show one layer at a time, and writing a gigabyte of maps for a pasted
// text cost its first maps a second; a layer not kept is made on a worker when shown.
inline constexpr std::size_t kWindowLayerBudget = std::size_t(128) << 20;

// The logit lens of one token (model_analysis.h): the top tokens after each layer.
struct LensRows {
    int generation = -1, position = -1; // the trace and token they belong to
    std::vector<std::vector<core::models::TokenChoice>> layers; // L, the last = the model's own
    std::string error;
};

// What an encoder-decoder's trace is made of: the source, the target the decoder reads ("": it
// writes up to maxTokens greedily), the heads switched off by stack (core::models::SavedStack).
struct Seq2SeqRequest {
    std::string source, target;
    int maxTokens = 32;
    std::array<core::train::HeadLists, 3> ablated;
    bool operator==(const Seq2SeqRequest&) const = default;
    bool anyAblated() const;
};

// What the heads switched off changed (none: not valid): all on, the decoder writes textOn, and
// the target (typed, or textOn) has lossOn; with them off it writes textOff, the target lossOff.
struct Seq2SeqAblationEffect {
    bool valid = false;
    std::string textOn, textOff;
    double lossOn = 0, lossOff = 0;
};

class ModelRunner {
  public:
    bool isOpen() const {
        return run_ != nullptr || real_ != nullptr || saved_ != nullptr || seq2seq_ != nullptr;
    }
    bool isReal() const { return real_ != nullptr; }
    bool isTrained() const { return run_ != nullptr; }
    // An attention file (saved_attention_view.cpp): its maps, no model to run.
    bool isSaved() const { return saved_ != nullptr && !seq2seq_; }
    // An encoder-decoder (seq2seq_runner.cpp): its traces shown as three stacks, like an
    // attention file's, but made by the model from the source and target typed.
    bool isSeq2Seq() const { return seq2seq_ != nullptr; }
    // A file's or an encoder-decoder's stacks: layers.* (the decoder), encoder.*, cross.*.
    bool hasStacks() const { return saved_ != nullptr; }
    // A real model or an attention file: every layer at once (the model view, the detectors,
    // the rollout), one sentence.
    bool showsWholeModel() const {
        return real_ != nullptr || saved_ != nullptr || seq2seq_ != nullptr;
    }
    const core::TrainedRun& run() const { return *run_; }                 // a trained run only
    const core::models::RealModel& realModel() const { return *real_; }   // a real model only
    const core::models::SavedAttention& saved() const { return *saved_; } // a file only
    const std::shared_ptr<const core::models::SavedAttention>& savedShared() const {
        return saved_;
    }
    // The heads of a layer, the tokens of the shown trace and every head's small map (L x H,
    // layer-major) of a real model or an attention file; 0 and none before a trace.
    int heads() const;
    int tokenCount() const;
    const std::vector<core::Mat>& thumbnails() const;
    // Shared with a job that must outlive a model opened meanwhile (an export).
    const std::shared_ptr<const core::models::RealModel>& realModelShared() const { return real_; }
    // Starts on `run` (or a real model); its traces are made by the next update.
    void open(std::shared_ptr<const core::TrainedRun> run);
    void openReal(std::shared_ptr<const core::models::RealModel> model);
    // Shows the file at once: its traces, rollout and detectors were made when it was read.
    void openSaved(std::shared_ptr<const core::models::SavedAttention> saved);
    // An encoder-decoder: its first trace is made by the next updateSeq2Seq.
    void openSeq2Seq(std::shared_ptr<const core::models::Seq2SeqRealModel> model);
    const core::models::Seq2SeqRealModel& seq2seqModel() const { return *seq2seq_; }
    const std::shared_ptr<const core::models::Seq2SeqRealModel>& seq2seqShared() const {
        return seq2seq_;
    }
    // Runs the encoder-decoder on a worker when the request changed (or `again`: Generate
    // pressed on the same text); true when the traces shown were replaced. A new generation
    // plays: its tokens appear one after another, each with its cross-attention row.
    bool updateSeq2Seq(const Seq2SeqRequest& request, double now, bool again = false);
    // The whole trace shown (null before the first) and what the switched-off heads changed.
    const std::shared_ptr<const core::models::Seq2SeqTrace>& seq2seqTrace() const {
        return seq2seqTrace_;
    }
    const Seq2SeqAblationEffect& ablationEffect() const { return effect_; }
    // The scrubber: the maps as they stood when the decoder had its first `tokens` (-1: all);
    // true when the traces shown were replaced. Stops a playback.
    bool showWritten(int tokens);
    int writtenShown() const { return writtenShown_; }
    // Moves a playback on (a token every kPlayStep seconds); true when the traces were replaced.
    bool playWritten(double now);
    bool playing() const { return playStart_ >= 0; }
    // Shows another of the file's stacks (layers.*, encoder.*, cross.*): true when the traces
    // were replaced (a stack the file does not hold shows layers.*).
    bool showSavedStack(core::models::SavedStack which);
    core::models::SavedStack savedStack() const { return savedStack_; }
    void close();
    ~ModelRunner(); // waits for a running worker (a forward cannot be interrupted)

    // Runs the model when the sentences changed since the last call; true when the traces were
    // replaced. A trained model (tiny) runs here; a real one on a worker, whose result a later
    // call takes. A blank sentence gives a hint, one the model cannot read an error
    // (status()); the last traces stay, as the explorer's do. `now` stamps computingSince.
    // A real model reruns when the heads switched off (`ablated`, per layer) change too.
    bool update(const std::vector<std::string>& sentences, double now = 0,
                const core::train::HeadLists& ablated = {}, const std::string& pair = {});
    RunStatus status() const {
        RunStatus status = status_;
        status.computing = computing();
        return status;
    }
    // The forward or the analyses of the shown trace under way. The maps show as soon as the
    // forward is done (generation() moves); the rollout, the baseline and an encoder's detectors
    // follow (analysesReady()).
    bool computing() const {
        return worker_.valid() || analysesWorker_.valid() || seq2seqWorker_.valid();
    }
    // The rollout, the baseline and the detectors shown are of the shown trace.
    bool analysesReady() const { return analysesGeneration_ == generation_; }
    // The rollout is made only while its view is shown (it costs a forward's share of a core
    // at 1000 tokens, and typing should not wait for it): the view asks each frame.
    void requestRollout();
    bool rolloutReady() const {
        return !analyses_.rollout.empty() &&
               (saved_ || (realTrace_ && rolloutTrace_ == realTrace_));
    }
    int analysesGeneration() const { return analysesGeneration_; } // the trace they are of
    // Any worker of this runner under way (the forward, the lens, value-weighted attention):
    // the frame loop keeps drawing to show their results.
    bool working() const {
        return worker_.valid() || analysesWorker_.valid() || lensWorker_.valid() ||
               weightedWorker_.valid() || layerWorker_.valid() || seq2seqWorker_.valid() ||
               playing();
    }
    // The head detectors of a real model on a repeated random-token sequence (computed once,
    // with its first trace): previous_token, duplicate_token, induction, first_token.
    const std::vector<core::models::HeadDetectorScores>& detectors() const { return detectors_; }
    // The detectors and after them the attention sink on the shown trace's text
    // (first_token_on_sentence): what the grid shows, its CSV and Export all write. Empty
    // until the detectors are there.
    std::vector<core::models::HeadDetectorScores> detectorsShown() const;
    // Each head's attention sink share on the shown trace's text, L x H (empty before one).
    const core::Mat& sinkShares() const { return sinkShares_; }
    // Bumped whenever the traces are replaced: the model view uploads its maps again.
    int generation() const { return generation_; }
    bool hasTrace() const { return !trace_.layers.empty(); }
    // The layers' traces; a real model's may hold null for a layer its trace did not keep
    // (core::models::kLayerTraceBudget): layerTrace makes it.
    const core::ModelTrace& trace() const { return trace_; }
    // Layer l's trace: kept, or made on a worker from the stream before it (null meanwhile:
    // ask again next frame; the frame never waits).
    std::shared_ptr<const core::Trace> layerTrace(int l);

    // The scene the model fixes (sizes, causal mask, scale, seed) with these sentences: what the
    // controls show, read-only.
    core::Scene scene(const std::vector<std::string>& sentences) const;

    // Per sentence and token, the real model's next-token guesses: "␣mat (0.31)".
    const std::vector<std::vector<std::string>>& realPredictions() const {
        return realPredictions_;
    }
    // A real model's rollout and value-weighted maps; the rollout is of the shown trace once
    // analysesReady(), until then of an earlier one.
    const RealAnalyses& analyses() const { return analyses_; }
    // The shown real trace (its text, ids, residual stream), null before the first.
    const std::shared_ptr<const core::models::RealTrace>& realTrace() const { return realTrace_; }
    // The shown trace's loss and last-token guesses, and the same with every head on.
    const RealOutcomeSummary& outcome() const { return outcome_; }
    const RealOutcomeSummary& baseline() const { return baseline_; }
    // The logit lens of token `position` of the shown trace: computed on a worker when the
    // trace or the token changed (the frame never waits); lens() has the last finished.
    void requestLens(int position);
    // Value-weighted attention of every head of the shown trace, on a worker; analyses() has
    // it once valueWeightedReady().
    void requestValueWeighted();
    bool valueWeightedReady() const {
        return !analyses_.valueWeighted.empty() && weightedGeneration_ == generation_;
    }
    const std::string& valueWeightedError() const { return weightedError_; }
    const LensRows& lens() const { return lens_; }
    // How much of a real trace's layers is kept whole (kWindowLayerBudget); the rest is made
    // again when shown. Tests make it small.
    void setLayerBudget(std::size_t bytes) { layerBudget_ = bytes; }
    bool lensComputing() const { return lensWorker_.valid(); }
    // Called on a worker's thread as it finishes (the window posts an event): the frame loop
    // need not spin while the model computes. Its result is ready a moment later.
    void setWake(std::function<void()> wake) { wake_ = std::move(wake); }
    // A worker has ended whose result no update has taken yet: the next frame takes it.
    bool finishing() const { return finished_->load() > taken_; }

  private:
    using Cancel = std::shared_ptr<std::atomic<bool>>; // set: the work is superseded
    struct RealOutcome {                               // the forward's: what the maps show, first
        core::ModelTrace trace;
        std::shared_ptr<const core::models::RealTrace> real; // its residual: the logit lens
        core::Mat sinkShares;                                // L x H, of its text
        std::vector<std::vector<std::string>> predictions;
        RealOutcomeSummary summary;
        std::string error;
        bool cancelled = false; // a newer sentence replaced it: dropped
    };
    struct RealRequest {
        std::vector<std::string> sentences;
        core::train::HeadLists ablated;
        std::string pair; // an encoder's sentence B
        // The trace shown: a switched-off head reruns from its own layer, text added at the end
        // of a decoder's runs its new tokens only (RealTraceOptions::resume).
        std::shared_ptr<const core::models::RealTrace> resume;
    };
    struct AnalysesRequest { // what follows the maps
        int generation = -1;
        std::shared_ptr<const core::models::RealTrace> trace;
        std::string pair;
        bool detect = false, baseline = false;
        bool rollout = false; // the rollout view is shown: only then is it made
        // The last rollout made and its trace: the rows a decoder's texts share are taken from
        // it. Points into analyses_, which changes only when this worker is done.
        const std::vector<core::Mat>* earlierRollout = nullptr;
        std::shared_ptr<const core::models::RealTrace> earlierTrace;
    };
    struct AnalysesOutcome {
        int generation = -1;
        // The trace they are of: the shown one, or its copy with the predictions it deferred
        // (made first: the chips' guesses and the loss follow the maps within a second).
        std::shared_ptr<const core::models::RealTrace> trace;
        bool completed = false;         // trace is the shown one's copy with its predictions
        std::vector<core::Mat> rollout; // L, N x N
        RealOutcomeSummary baseline;    // only when asked for
        std::vector<core::models::HeadDetectorScores> detectors; // empty when not asked for
        std::string error;
        bool cancelled = false;
    };
    struct MadeLayer { // a layer the trace did not keep, made again
        int generation = -1, layer = -1;
        std::shared_ptr<const core::Trace> trace;
        std::string error;
    };
    // startTask, with wake_ called as the work ends.
    template <class F>
    auto startWorker(F work) {
        return startTask([work = std::move(work), wake = wake_, finished = finished_]() mutable {
            auto result = work();
            ++*finished;
            if (wake) wake();
            return result;
        });
    }
    template <class T>
    T take(std::future<T>& worker) { // a finished worker's result
        ++taken_;
        return worker.get();
    }
    static RealOutcome runReal(std::shared_ptr<const core::models::RealModel> model,
                               RealRequest request, std::size_t layerBudget, Cancel cancel);
    static AnalysesOutcome runAnalyses(std::shared_ptr<const core::models::RealModel> model,
                                       AnalysesRequest request, Cancel cancel);
    void startAnalyses(bool baseline);
    void pollAnalyses();
    bool updateReal(const std::vector<std::string>& sentences, double now,
                    const core::train::HeadLists& ablated, const std::string& pair);
    void pollLayer();
    bool takeRealOutcome();
    void takePredictions(std::shared_ptr<const core::models::RealTrace> completed);
    void pollLens();
    void pollValueWeighted();
    struct Seq2SeqOutcome {
        std::shared_ptr<const core::models::Seq2SeqTrace> trace;
        Seq2SeqAblationEffect effect;
        std::string error;
    };
    static Seq2SeqOutcome
    runSeq2SeqRequest(std::shared_ptr<const core::models::Seq2SeqRealModel> model,
                      Seq2SeqRequest request);
    bool takeSeq2SeqOutcome(double now);
    void showStack(); // saved_'s stack savedStack_ as the traces shown
    core::Scene seq2seqScene(const std::vector<std::string>& sentences) const;

    std::shared_ptr<const core::TrainedRun> run_;
    std::shared_ptr<const core::models::RealModel> real_;
    std::shared_ptr<const core::models::SavedAttention> saved_;
    core::models::SavedStack savedStack_ = core::models::SavedStack::Layers; // saved_'s shown
    std::shared_ptr<const core::models::Seq2SeqRealModel> seq2seq_;
    std::future<Seq2SeqOutcome> seq2seqWorker_;
    std::optional<Seq2SeqRequest> seq2seqAsked_, seq2seqNext_; // running, waiting for it
    std::shared_ptr<const core::models::Seq2SeqTrace> seq2seqTrace_;
    std::shared_ptr<const core::models::Seq2SeqTrace> stacksOf_; // the trace saved_ was made of
    Seq2SeqAblationEffect effect_;
    int writtenShown_ = -1;
    double playStart_ = -1; // when the shown generation began to play (< 0: not playing)
    std::function<void()> wake_;
    std::shared_ptr<std::atomic<int>> finished_ = std::make_shared<std::atomic<int>>(0);
    int taken_ = 0; // results taken: finished_ - taken_ workers are ready or about to be
    std::future<RealOutcome> worker_;
    Cancel cancel_;                               // worker_'s
    std::future<AnalysesOutcome> analysesWorker_; // one at a time
    Cancel analysesCancel_;
    std::optional<AnalysesRequest> nextAnalyses_; // waiting for a superseded one to stop
    int analysesGeneration_ = -1;                 // the trace the analyses shown are of
    std::shared_ptr<const core::models::RealTrace> rolloutTrace_; // analyses_.rollout's
    bool rolloutAsked_ = false;  // requestRollout since the last update
    bool rolloutWanted_ = false; // asked in the frame before this update: made with the trace
    std::vector<std::vector<std::string>> realPredictions_;
    std::vector<core::models::HeadDetectorScores> detectors_;
    core::Mat sinkShares_; // of realTrace_, L x H
    std::shared_ptr<const core::models::RealTrace> realTrace_;
    RealAnalyses analyses_;
    RealOutcomeSummary outcome_, baseline_;
    std::string baselineText_; // the sentence baseline_ belongs to
    core::train::HeadLists lastAblated_;
    std::future<LensRows> lensWorker_;
    LensRows lens_;
    std::future<std::vector<core::Mat>> weightedWorker_; // L x H of N x N
    int weightedGeneration_ = -1, weightedAsked_ = -1;   // the trace they belong to, were asked for
    std::string weightedError_;                          // why the last could not be made
    std::future<MadeLayer> layerWorker_;
    MadeLayer made_;
    std::string lastPair_;
    std::size_t layerBudget_ = kWindowLayerBudget;
    int generation_ = 0;
    core::ModelTrace trace_;
    std::vector<std::string> lastAttempt_;
    bool attempted_ = false;
    RunStatus status_;
};

// What the panels show of the open model: title, architecture, vocabulary, steps, and per
// sentence its unknown words and the model's next-token guesses. Keeps the layer chosen (clamped
// to the model's layers).
// The choices are kept, clamped to the model (its layer, a real model's switched-off heads).
void describeModel(const ModelRunner& model, ModelView& view);

// The window title while a model is open: "mha-viz — induction, step 1500 (runs/induction-2)".
std::string trainedModelWindowTitle(const core::TrainedRun& run);
// A guess as the token chips show it: "t17 (0.93)".
std::string withProbability(const std::string& token, float probability);
// "mha-viz — gpt2 (openai-community/gpt2)".
std::string realModelWindowTitle(const core::models::RealModel& model);
// The panels' view of a real model (describeModel calls it).
void describeRealModel(const ModelRunner& model, ModelView& view);
// The panels' view of an attention file (saved_attention_view.cpp; describeModel calls it).
void describeSavedAttention(const ModelRunner& model, ModelView& view);
// The panels' view of an encoder-decoder (seq2seq_view.cpp; describeModel calls it).
void describeSeq2Seq(const ModelRunner& model, ModelView& view);
// "mha-viz — t5 (google-t5/t5-small)".
std::string seq2seqWindowTitle(const core::models::Seq2SeqRealModel& model);
// "mha-viz — attention from attn.safetensors (saved elsewhere)".
std::string savedAttentionWindowTitle(const core::models::SavedAttention& saved);

} // namespace app
