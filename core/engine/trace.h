// The result of running a Scene: the inputs as the engine saw them and every
// intermediate tensor. Panels draw it, exporters write it.
#pragma once

#include "engine/attention.h"
#include "engine/scene.h"
#include "engine/weights.h"
#include "text/tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace core {

// Head `head` of layer `layer` (both from 0) of a model with `heads` heads per layer, numbered
// through the whole model: what a head's colour follows (figures/palette.h), so layer 2's first
// head has one colour in the explorer, the Train view and its curves.
inline int modelHeadIndex(int layer, int head, int heads) {
    return layer * (heads > 0 ? heads : 1) + head;
}

// Which cells of an encoder's sentence pair ([CLS] A [SEP] B [SEP]) the views show, the rest
// drawn as masked: every cell, sentence A's tokens attending to B's, or B's to A's (BertViz's
// sentence-pair view). Only for display, chosen in the window and passed to the maps and
// figures (figures/attention_map.h): the numbers and the trace are the model's.
enum class PairView { All, AToB, BToA };
inline constexpr EnumName<PairView> kPairViewNames[] = {
    {PairView::All, "all", "all"},
    {PairView::AToB, "a_to_b", "A \xE2\x86\x92 B"},
    {PairView::BToA, "b_to_a", "B \xE2\x86\x92 A"}};
constexpr std::span<const EnumName<PairView>> enumNames(PairView) {
    return kPairViewNames;
}

struct Trace {
    // How this trace was made: a scene's every setting; for a layer of a model only its sizes,
    // mask and scale (modelWeights says where the weights come from instead of a seed).
    Scene scene;
    std::string modelWeights; // a model's layer: "checkpoint gpt2", "trained (mha-viz train,
                              // seed 1)"; "" for a scene, whose seed and weights kind made them
    std::vector<std::string> headNames;     // H
    std::vector<Tokenized> sentences;       // B
    std::vector<Tokenized> sources;         // B when cross, else empty
    std::vector<std::string> warnings;      // e.g. tokens cut at the cap
    std::shared_ptr<const Weights> weights; // shared: unchanged across recomputes of one seed
    AttentionInput input;                   // x: (B*N) x d_model, xSource: (B*M) x d_model
    Attention attention;                    // q, k, v, scores, weights, head outputs, output
    int layer = 0;      // which layer of a model this is (0 for a scene): its heads' colours follow
    int pairStart = -1; // an encoder's sentence pair: the first token of sentence B
    bool isModelLayer() const { return !modelWeights.empty(); }

    // Head h's place in its model (modelHeadIndex): the index of its colour.
    int headColorIndex(int h) const { return modelHeadIndex(layer, h, attention.heads); }

    int batch() const { return attention.batch; }
    int queryLen() const { return attention.queryLen; }
    int keyLen() const { return attention.keyLen; }
    const Tokenized& keySide(int b) const { return scene.isCross() ? sources[b] : sentences[b]; }
};

// Runs the scene. `previous` lets it reuse weights that did not change (the
// window recomputes on every keystroke). Throws std::invalid_argument with
// validationError()'s message for a bad scene.
Trace run(const Scene& scene, const Trace* previous = nullptr);

// The warning run() adds for a sentence cut at the token cap ("sentence 2 has 5000 tokens; kept
// the first 512 (cap 512)"), empty when nothing was cut. `what` is "sentence" or "source
// sentence", `index` from 0. The window shows it under that sentence's field.
std::string tokenCapWarning(const char* what, std::size_t index, const Tokenized& tokens);

} // namespace core
