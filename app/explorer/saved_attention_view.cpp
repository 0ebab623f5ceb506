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
    core::ModelSentence sentence;
    sentence.tokens = saved_->tokens;
    sentence.ids = saved_->ids; // equal tokens, equal ids: no vocabulary is claimed
    trace_.sentences = {std::move(sentence)};
    trace_.layers = saved_->layers;
    trace_.warnings = saved_->warnings;
    sinkShares_ = saved_->sinkShares;
    detectors_ = saved_->detectors; // detectorsShown adds the sink share
    analyses_.rollout = saved_->rollout;
    ++generation_;
    analysesGeneration_ = generation_; // nothing follows: every analysis came with the file
}

int ModelRunner::heads() const {
    if (saved_) return saved_->heads;
    return real_ ? real_->config().heads : 0;
}

int ModelRunner::tokenCount() const {
    if (saved_) return int(saved_->tokens.tokens.size());
    return realTrace_ ? int(realTrace_->ids.size()) : 0;
}

const std::vector<core::Mat>& ModelRunner::thumbnails() const {
    static const std::vector<core::Mat> none;
    if (saved_) return saved_->thumbnails;
    return realTrace_ ? realTrace_->thumbnails : none;
}

std::string savedAttentionWindowTitle(const core::models::SavedAttention& saved) {
    return "mha-viz \xE2\x80\x94 " + core::models::savedAttentionTitle(saved);
}

namespace {

// "12 layers  12 heads  9 tokens  BF16  causal (as the maps show)", and the encoder-decoder's
// other stacks when the file has them.
std::string sizesLine(const core::models::SavedAttention& s) {
    std::string line = std::to_string(s.layerCount()) + " layers  " + std::to_string(s.heads) +
                       " heads  " + std::to_string(s.tokens.tokens.size()) + " tokens  " + s.dtype +
                       "  " + (s.causal ? "causal" : "bidirectional") + " (as the maps show)";
    if (!s.encoder.empty())
        line += "  \xC2\xB7  " + std::to_string(s.encoder.size()) + " encoder layers";
    if (!s.cross.empty())
        line += "  \xC2\xB7  " + std::to_string(s.cross.size()) + " cross-attention layers";
    return line;
}

} // namespace

void describeSavedAttention(const ModelRunner& runner, ModelView& view) {
    const core::models::SavedAttention& s = runner.saved();
    view.open = view.real = view.attentionOnly = true;
    view.title = core::models::savedAttentionTitle(s);
    view.architecture = sizesLine(s);
    view.vocabulary = "the tokens the file names (from " + s.tokensFrom + ")";
    view.encoder = !s.causal; // the maps' own mask: no later key hidden
    view.hasHead = false;
    view.layers = s.layerCount();
    view.layer = std::clamp(view.layer, 0, std::max(0, s.layerCount() - 1));
    view.ablated.assign(std::size_t(s.layerCount()), {}); // nothing can be switched off
    view.valueWeighted = false;
    if (view.grid == ModelGridMode::LogitLens) view.grid = ModelGridMode::EveryLayer;
    view.unknownWords.assign(runner.trace().sentences.size(), {});
    view.detectorsReady = true;
    view.detectorsInput = "scored on the file's sentence, from its maps";
    view.loss = view.lossAllHeads = std::numeric_limits<double>::quiet_NaN();
    view.kvGroups = {s.heads, s.heads};
    view.fixedText = std::string("Attention saved elsewhere, shown as the file holds it. The "
                                 "pipeline, the steps, value-weighted attention, switching heads "
                                 "off, the logit lens, predictions and another sentence: ") +
                     core::models::kNeedsTheModel + ".";
    view.shapes = {"B=1", "N=" + std::to_string(s.tokens.tokens.size()),
                   "H=" + std::to_string(s.heads), "L=" + std::to_string(s.layerCount())};
    view.parameters = std::string("parameters: ") + core::models::kNeedsTheModel;
    view.parameterTerms = "The file holds the softmax weights of each head, not the projections "
                          "that made them.";
    view.sinkShares = runner.sinkShares();
    view.firstToken = s.tokens.tokens.empty() ? "" : s.tokens.tokens.front().text;
}

} // namespace app
