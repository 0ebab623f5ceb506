// The attention-file side of ModelRunner (model_runner.h): a file's maps shown as a real
// model's are (every layer, the rollout, the detectors on its sentence), all made when it was
// read, and what the panels say of it: where the maps come from, and that what needs the model
// is off (core::models::kNeedsTheModel).
#include "explorer/model_runner.h"

#include <algorithm>
#include <limits>

namespace app {

void ModelRunner::openSaved(std::shared_ptr<const core::models::SavedAttention> saved) {
    open(nullptr); // waits for a worker of the model it replaces
    saved_ = std::move(saved);
    savedStack_ = core::models::SavedStack::Cross; // so that the next line shows layers.*
    showSavedStack(core::models::SavedStack::Layers);
}

bool ModelRunner::showSavedStack(core::models::SavedStack which) {
    if (!saved_) return false;
    if (saved_->stack(which).empty()) which = core::models::SavedStack::Layers;
    if (which == savedStack_) return false;
    savedStack_ = which;
    showStack();
    return true;
}

void ModelRunner::showStack() {
    const core::models::SavedStack which = savedStack_;
    const core::models::SavedStackView& stack = saved_->stack(which);
    core::ModelSentence sentence;
    sentence.tokens = saved_->queries(which);
    // Equal tokens, equal ids: no vocabulary is claimed.
    sentence.ids = which == core::models::SavedStack::Encoder ? saved_->sourceIds : saved_->ids;
    trace_ = {};
    trace_.sentences = {std::move(sentence)};
    trace_.layers = stack.layers;
    trace_.warnings = saved_->warnings;
    sinkShares_ = stack.sinkShares;
    detectors_ = stack.detectors; // detectorsShown adds the sink share
    analyses_ = {};
    analyses_.rollout = stack.rollout;
    ++generation_;
    analysesGeneration_ = generation_; // nothing follows: every analysis came with the file
}

int ModelRunner::heads() const {
    if (saved_) return saved_->stack(savedStack_).heads;
    return real_ ? real_->config().heads : 0;
}

int ModelRunner::tokenCount() const {
    if (saved_) return int(saved_->queries(savedStack_).tokens.size());
    return realTrace_ ? int(realTrace_->ids.size()) : 0;
}

const std::vector<core::Mat>& ModelRunner::thumbnails() const {
    static const std::vector<core::Mat> none;
    if (saved_) return saved_->stack(savedStack_).thumbnails;
    return realTrace_ ? realTrace_->thumbnails : none;
}

std::string savedAttentionWindowTitle(const core::models::SavedAttention& saved) {
    return "mha-viz \xE2\x80\x94 " + core::models::savedAttentionTitle(saved);
}

namespace {

// "12 layers  12 heads  9 tokens  BF16  causal (as the maps show)" of the stack shown.
std::string sizesLine(const core::models::SavedAttention& s, core::models::SavedStack which) {
    const core::models::SavedStackView& stack = s.stack(which);
    std::string line = std::to_string(stack.layerCount()) + " layers  " +
                       std::to_string(stack.heads) + " heads  " +
                       std::to_string(s.queries(which).tokens.size()) + " tokens  " + s.dtype +
                       "  " + (stack.causal ? "causal" : "bidirectional") + " (as the maps show)";
    if (which == core::models::SavedStack::Cross)
        line += ", keys the " + std::to_string(s.sourceTokens.tokens.size()) + " source tokens";
    return line;
}

// What the detectors and the sink shares read, for the stack shown; the stacks to choose from.
void describeStack(const ModelRunner& runner, ModelView& view) {
    const core::models::SavedAttention& s = runner.saved();
    view.savedStack = int(runner.savedStack());
    view.savedStacks.assign(3, std::string()); // by SavedStack, "" where the file has none
    for (core::models::SavedStack which : s.stacks())
        view.savedStacks[std::size_t(which)] = core::models::savedStackLabel(s, which);
    const bool cross = runner.savedStack() == core::models::SavedStack::Cross;
    view.detectorsInput = cross ? "The detectors and the rollout read self-attention: "
                                  "cross-attention's queries and keys are two sentences."
                                : "One token: no detector has a pattern to score.";
    view.sinkShares = runner.sinkShares();
    const core::Tokenized& tokens = s.queries(runner.savedStack());
    view.firstToken = tokens.tokens.empty() ? "" : tokens.tokens.front().text;
}

} // namespace

void describeSavedAttention(const ModelRunner& runner, ModelView& view) {
    const core::models::SavedAttention& s = runner.saved();
    const core::models::SavedStackView& stack = s.stack(runner.savedStack());
    view.open = view.real = view.attentionOnly = true;
    view.title = core::models::savedAttentionTitle(s);
    view.architecture = sizesLine(s, runner.savedStack());
    view.vocabulary = "the tokens the file names (from " + s.tokensFrom + ")";
    view.encoder = !stack.causal; // the maps' own mask: no later key hidden
    view.hasHead = false;
    view.layers = stack.layerCount();
    view.layer = std::clamp(view.layer, 0, std::max(0, view.layers - 1));
    view.ablated.assign(std::size_t(view.layers), {}); // nothing can be switched off
    view.valueWeighted = false;
    if (view.grid == ModelGridMode::LogitLens) view.grid = ModelGridMode::EveryLayer;
    view.unknownWords.assign(runner.trace().sentences.size(), {});
    view.detectorsReady = true;
    view.loss = view.lossAllHeads = std::numeric_limits<double>::quiet_NaN();
    view.kvGroups = {stack.heads, stack.heads};
    view.fixedText = std::string("Attention saved elsewhere, shown as the file holds it. The "
                                 "pipeline, the steps, value-weighted attention, switching heads "
                                 "off, the logit lens, predictions and another sentence: ") +
                     core::models::kNeedsTheModel + ".";
    view.shapes = {"B=1", "N=" + std::to_string(runner.tokenCount()),
                   "H=" + std::to_string(stack.heads), "L=" + std::to_string(view.layers)};
    view.parameters = std::string("parameters: ") + core::models::kNeedsTheModel;
    view.parameterTerms = "The file holds the softmax weights of each head, not the projections "
                          "that made them.";
    describeStack(runner, view);
}

} // namespace app
