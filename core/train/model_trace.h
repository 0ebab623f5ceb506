// A trained model in the explorer: its typed sentences in the model's vocabulary, run through
// every layer with the explorer's engine into a core::ModelTrace (engine/model_trace.h: one
// core::Trace per layer, so every view of the window works on each layer), plus the next-token
// predictions. The numbers are forwardPass's: the same
// embedding, the same core::forward per layer, the same residual sum.
#pragma once

#include "engine/model_trace.h"
#include "engine/trace.h"
#include "text/tokenizer.h"
#include "train/model.h"
#include "train/tasks.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace core::train {

// A trained model as the explorer runs it. Each layer's weights are shared with every trace
// made from them (retyping a sentence copies no matrix).
struct TrainedModel {
    ModelConfig config;                                 // vocab = vocab.size()
    std::vector<std::string> vocab;                     // token strings, id = index
    std::uint64_t seed = 0;                             // the run's seed (model.json)
    Mat embed;                                          // V x D
    Mat pos;                                            // N x D
    std::vector<std::shared_ptr<const Weights>> layers; // L
    Mat unembed;                                        // D x V
};

// Takes the params (validated against config, which must name vocab.size() tokens).
TrainedModel makeTrainedModel(const ModelConfig& config, std::vector<std::string> vocab,
                              std::uint64_t seed, Params params);

// Splits `text` with core::tokenize and looks each word up in `vocab` (exactly, else
// ASCII-lowercased, so "The" is "the"); words not found go to `unknown`. More than `seq` known
// words are cut to the first `seq` with a warning naming sentence `index` (from 0). Throws
// std::invalid_argument for a blank sentence or one with no word the model knows.
ModelSentence tokenizeForModel(std::string_view text, const std::vector<std::string>& vocab,
                               int seq, int index, std::vector<std::string>& warnings);

// Runs the model on the sentences (padded to the longest, with a key-padding mask, like the
// explorer's batches; the causal mask keeps padding from changing any real position). Each
// layer's trace has the scene d_model, heads, causal mask, scale sqrt_d_head, heads named
// "head 1".., the full intermediates (scores, head outputs) and the layer's weights. Padded rows
// of the residual stream are kept 0, as the explorer's x is. Throws std::invalid_argument with
// one line for bad sentences or a batch too large (kMaxSentences, kMaxAttentionCells).
// `modelWarnings` (e.g. NaN weights in the checkpoint) come first in every warnings list.
ModelTrace traceModel(const TrainedModel& model, const std::vector<std::string>& sentences,
                      const std::vector<std::string>& modelWarnings = {});

// A sentence in the task's vocabulary that shows what it learned: for induction a random
// segment repeated, for agreement a subject and a nearer noun of the other number.
std::string defaultModelSentence(TaskKind task);

} // namespace core::train
