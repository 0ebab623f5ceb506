// The encoder-decoder side of ModelRunner (model_runner.h): the source and the target run on a
// worker (teacher-forced, or the decoder writing greedily), the trace shown as three stacks like
// an attention file's (core::models::seq2seqStacks), the scrubber's earlier steps and the
// playback of a new generation, and what switching heads off changed.
#include "explorer/model_runner.h"

#include "models/analyses/seq2seq_stacks.h"

#include <algorithm>
#include <cmath>

namespace app {

namespace {

constexpr double kPlayStep = 0.18; // seconds between two tokens of a playback

using core::models::SavedStack;

// The switches by stack as the forward takes them: the encoder's, the decoder's self and cross.
core::models::Seq2SeqAblation toAblation(const Seq2SeqRequest& r, int decoderLayers) {
    core::models::Seq2SeqAblation a;
    a.encoder = r.ablated[std::size_t(SavedStack::Encoder)];
    a.decoder.resize(std::size_t(decoderLayers));
    const auto& self = r.ablated[std::size_t(SavedStack::Layers)];
    const auto& cross = r.ablated[std::size_t(SavedStack::Cross)];
    for (std::size_t l = 0; l < a.decoder.size(); ++l) {
        if (l < self.size()) a.decoder[l].self = self[l];
        if (l < cross.size()) a.decoder[l].cross = cross[l];
    }
    return a;
}

} // namespace

bool Seq2SeqRequest::anyAblated() const {
    for (const core::train::HeadLists& stack : ablated)
        for (const std::vector<int>& heads : stack)
            if (!heads.empty()) return true;
    return false;
}

void ModelRunner::openSeq2Seq(std::shared_ptr<const core::models::Seq2SeqRealModel> model) {
    open(nullptr);
    seq2seq_ = std::move(model);
    savedStack_ = SavedStack::Cross; // what the decoder reads of the source, first
}

core::Scene ModelRunner::seq2seqScene(const std::vector<std::string>& sentences) const {
    const core::models::Seq2SeqKind kind =
        savedStack_ == SavedStack::Encoder ? core::models::Seq2SeqKind::Encoder
        : savedStack_ == SavedStack::Cross ? core::models::Seq2SeqKind::Cross
                                           : core::models::Seq2SeqKind::DecoderSelf;
    // The same before and after a trace: only the stack chosen changes it.
    core::Scene scene = core::models::seq2seqLayerScene(*seq2seq_, kind);
    // The source as typed (the field stays the user's); cross-attention's keys are its tokens,
    // so the pipeline draws M source tokens beside the N target tokens.
    scene.sentences = sentences;
    if (kind == core::models::Seq2SeqKind::Cross && !sentences.empty())
        scene.sources = {sentences.front()};
    return scene;
}

ModelRunner::Seq2SeqOutcome
ModelRunner::runSeq2SeqRequest(std::shared_ptr<const core::models::Seq2SeqRealModel> model,
                               Seq2SeqRequest r) {
    namespace m = core::models;
    Seq2SeqOutcome out;
    try {
        const m::Seq2SeqAblation off = toAblation(r, model->config().decoderLayers);
        const bool write = r.target.empty();
        m::Seq2SeqTrace shown = write ? m::generateSeq2Seq(*model, r.source, r.maxTokens, 1, off)
                                      : m::traceSeq2Seq(*model, r.source, r.target, 1, off);
        if (r.anyAblated()) { // the same text all heads on: what the switches changed
            const m::Seq2SeqTrace on = write ? m::generateSeq2Seq(*model, r.source, r.maxTokens)
                                             : m::traceSeq2Seq(*model, r.source, r.target);
            Seq2SeqAblationEffect& e = out.effect;
            e.valid = true;
            e.lossOn = on.loss;
            e.textOn = m::writtenText(
                *model,
                write ? on.labels : m::generateSeq2Seq(*model, r.source, r.maxTokens).labels);
            e.textOff = m::writtenText(
                *model, write ? shown.labels
                              : m::generateSeq2Seq(*model, r.source, r.maxTokens, 1, off).labels);
            e.lossOff =
                write ? m::traceSeq2SeqIds(*model, r.source, on.labels, 1, off).loss : shown.loss;
        }
        out.trace = std::make_shared<const m::Seq2SeqTrace>(std::move(shown));
    } catch (const std::bad_alloc&) {
        out.error = "not enough memory for this source and target";
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    return out;
}

bool ModelRunner::updateSeq2Seq(const Seq2SeqRequest& request, double now, bool again) {
    bool replaced = false;
    if (seq2seqWorker_.valid() && taskReady(seq2seqWorker_)) replaced = takeSeq2SeqOutcome(now);
    const bool same =
        seq2seqNext_ ? *seq2seqNext_ == request : seq2seqAsked_ && *seq2seqAsked_ == request;
    if (same && !again) return replaced;
    status_.sceneHint.clear();
    if (core::isBlank(request.source)) {
        status_.sceneHint = "Type a source sentence: the encoder reads it, the decoder writes.";
        seq2seqAsked_ = request;
        return replaced;
    }
    if (seq2seqWorker_.valid()) { // one at a time: the newest waits for it
        seq2seqNext_ = request;
        return replaced;
    }
    seq2seqNext_.reset();
    seq2seqAsked_ = request;
    status_.computingSince = now;
    seq2seqWorker_ =
        startWorker([model = seq2seq_, request] { return runSeq2SeqRequest(model, request); });
    return replaced;
}

bool ModelRunner::takeSeq2SeqOutcome(double now) {
    Seq2SeqOutcome out = take(seq2seqWorker_);
    if (seq2seqNext_) { // a newer text was typed meanwhile: it runs now
        const Seq2SeqRequest next = *seq2seqNext_;
        seq2seqNext_.reset();
        seq2seqAsked_ = next;
        seq2seqWorker_ =
            startWorker([model = seq2seq_, next] { return runSeq2SeqRequest(model, next); });
    }
    status_.sceneError = out.error; // the last traces stay on screen
    if (!out.trace) return false;
    const bool fresh =
        out.trace->generated && (!seq2seqTrace_ || seq2seqTrace_->labels != out.trace->labels);
    seq2seqTrace_ = std::move(out.trace);
    effect_ = std::move(out.effect);
    writtenShown_ = -2;            // made again from the new trace, whatever was shown
    playStart_ = fresh ? now : -1; // a new text written: it plays, a token at a time
    return fresh ? playWritten(now) : showWritten(-1);
}

bool ModelRunner::showWritten(int tokens) {
    playStart_ = -1;
    if (!seq2seqTrace_) return false;
    const int all = int(seq2seqTrace_->labels.size());
    if (tokens >= all) tokens = -1;
    if (tokens == writtenShown_ && saved_) return false;
    // Another step of the trace shown: its encoder stack stays (the playback's every step).
    const core::models::SavedAttention* same =
        saved_ && stacksOf_ == seq2seqTrace_ ? saved_.get() : nullptr;
    writtenShown_ = tokens;
    saved_ = tokens < 0
                 ? core::models::seq2seqStacks(*seq2seq_, *seq2seqTrace_, same)
                 : core::models::seq2seqStacks(
                       *seq2seq_, core::models::firstTargetTokens(*seq2seqTrace_, tokens), same);
    stacksOf_ = seq2seqTrace_;
    showStack();
    return true;
}

bool ModelRunner::playWritten(double now) {
    if (playStart_ < 0 || !seq2seqTrace_) return false;
    const int all = int(seq2seqTrace_->labels.size());
    const int due = 1 + int((now - playStart_) / kPlayStep);
    const double start = playStart_;
    bool replaced = false;
    if (due != writtenShown_) replaced = showWritten(due); // stops the playback: resumed below

    playStart_ = due >= all ? -1 : start;
    return replaced;
}

} // namespace app
