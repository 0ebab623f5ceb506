// What the panels show of an encoder-decoder (model_runner.h's describeSeq2Seq): the stack chosen
// (encoder, decoder, cross) as an attention file's is shown, but every control that needs the
// model works — switching heads off reruns it, the pipeline and the steps read the real layer —
// and the source, the target written or read, and what the switches changed.
#include "explorer/model_runner.h"

#include "models/analyses/seq2seq_stacks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace {

using core::models::SavedStack;

std::string lossText(double loss) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", loss);
    return text;
}

// A written text quoted, or what an empty one means.
std::string quoted(const std::string& text) {
    return text.empty() ? "nothing but its end token" : "\"" + text + "\"";
}

// "All heads on it writes "..." (loss of that target 1.234); with 3 off: "..." (1.876)".
std::string effectLine(const Seq2SeqAblationEffect& e, bool written, int off) {
    if (!e.valid) return {};
    const std::string heads = std::to_string(off) + (off == 1 ? " head" : " heads") + " off";
    return "All heads on, it writes " + quoted(e.textOn) + "; with " + heads + ": " +
           quoted(e.textOff) + ". The " + (written ? "text written all heads on" : "target") +
           "'s loss: " + lossText(e.lossOn) + " nats, with the heads off " + lossText(e.lossOff) +
           ".";
}

int countOff(const std::array<core::train::HeadLists, 3>& stacks) {
    int n = 0;
    for (const core::train::HeadLists& stack : stacks)
        for (const std::vector<int>& heads : stack) n += int(heads.size());
    return n;
}

// The text, its guesses per decoder position and the effect of the switches.
void describeTarget(const ModelRunner& runner, ModelView& view) {
    const std::shared_ptr<const core::models::Seq2SeqTrace>& t = runner.seq2seqTrace();
    if (!t) return;
    const core::models::Seq2SeqRealModel& m = runner.seq2seqModel();
    view.written = t->generated;
    view.writtenTokens = int(t->labels.size());
    const int shown = runner.writtenShown() < 0 ? view.writtenTokens : runner.writtenShown();
    view.writtenShown = runner.writtenShown();
    view.writtenText = core::models::writtenText(
        m, std::vector<int>(t->labels.begin(), t->labels.begin() + shown));
    if (view.writtenText.empty() && shown > 0) view.writtenText = "(its end token alone)";
    view.sourceTokens = t->source.tokens;
    for (int i = 0; i < shown && i < int(t->predictions.size()); ++i) {
        const core::models::TokenChoice& top = t->predictions[std::size_t(i)].front();
        view.decoderGuesses.push_back(withProbability(top.token, top.probability));
    }
    view.loss = t->loss;
    view.lossAllHeads = runner.ablationEffect().valid ? runner.ablationEffect().lossOn : t->loss;
    view.ablationEffect =
        effectLine(runner.ablationEffect(), t->generated, countOff(view.stackAblated));
}

// The sizes and what the model fixes, before any trace too.
void describeShape(const core::models::Seq2SeqRealModel& m, ModelView& view) {
    const core::models::Seq2SeqConfig& c = m.config();
    view.title = m.family + " (" + m.location.source + ")";
    view.architecture = std::to_string(c.base.layers) + " encoder + " +
                        std::to_string(c.decoderLayers) + " decoder layers  d_model " +
                        std::to_string(c.base.dModel) + "  " + std::to_string(c.base.heads) +
                        " heads (d_head " + std::to_string(c.base.headSize()) + ")  vocab " +
                        std::to_string(c.base.vocabSize) + "  " + m.net->dtype();
    view.vocabulary = m.source->describe();
    view.fixedText = "Fixed by the model: an encoder of " + std::to_string(c.base.layers) +
                     " layers reads the source (bidirectional); a decoder of " +
                     std::to_string(c.decoderLayers) +
                     " layers reads the target causally and, in each layer, the encoder's "
                     "output by cross-attention (queries from the target, keys and values from "
                     "the source).";
    view.attentionInput = "the stream after the sublayer's norm";
    view.outProjection = "o";
    view.parameters = "";
    view.parameterTerms = "";
}

} // namespace

void describeSeq2Seq(const ModelRunner& runner, ModelView& view) {
    const core::models::Seq2SeqRealModel& m = runner.seq2seqModel();
    const ModelGridMode grid = view.grid; // the alignment takes the logit lens's place
    if (runner.hasStacks()) describeSavedAttention(runner, view);
    view.grid = grid;
    view.open = view.real = view.seq2seq = true;
    view.attentionOnly = false;
    view.hasHead = true;
    // No mask hides a later key but in the decoder's self-attention (the maps hatch it).
    view.encoder = runner.savedStack() != SavedStack::Layers;
    describeShape(m, view);
    const std::size_t stack = std::size_t(runner.savedStack());
    const int layers = runner.savedStack() == SavedStack::Encoder ? m.config().base.layers
                                                                  : m.config().decoderLayers;
    view.layers = layers;
    view.layer = std::clamp(view.layer, 0, std::max(0, layers - 1));
    view.stackAblated[stack].resize(std::size_t(layers));
    view.ablated = view.stackAblated[stack];
    view.loss = view.lossAllHeads = std::nan("");
    describeTarget(runner, view);
    view.predictions.assign(1, {});
    if (runner.savedStack() != SavedStack::Encoder) view.predictions[0] = view.decoderGuesses;
    if (runner.savedStack() == SavedStack::Cross)
        view.detectorsInput = "Cross heads: how diagonal and how sharp each head's alignment of "
                              "the target with the source is.";
}

std::string seq2seqWindowTitle(const core::models::Seq2SeqRealModel& model) {
    return "mha-viz \xE2\x80\x94 " + model.family + " (" + model.location.source + ")";
}

} // namespace app
