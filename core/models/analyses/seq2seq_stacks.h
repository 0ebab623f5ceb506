// An encoder-decoder's trace as the window's views read it (docs/real-models.md, "Encoder-
// decoders in the window"): the three stacks of a SavedAttention — layers.* the decoder's
// self-attention, encoder.* and cross.* — each layer a whole trace of the model's run (what its
// attention read, its projections, q, k, v, the scores), so the model view, the head views,
// the pipeline and the steps show the real computation; and the detectors cross heads need.
#pragma once

#include "models/analyses/saved_attention.h"
#include "models/seq2seq_real_model.h"

#include <memory>
#include <string>
#include <vector>

namespace core::models {

// The stacks of `trace`, its layers' attentions copied (the trace stays whole for the figures).
// The detectors: each self-attention stack's on its own tokens (detectSavedHeads), the cross
// stack's detectCrossHeads. `sameSource`: stacks made from a run of the same source (the
// scrubber's other steps of one trace), whose encoder stack is taken as it is.
std::shared_ptr<const SavedAttention> seq2seqStacks(const Seq2SeqRealModel& model,
                                                    const Seq2SeqTrace& trace,
                                                    const SavedAttention* sameSource = nullptr);

// What a kind's layers fix of the scene (the controls show it, read-only): d_model, H, the mask
// (causal for the decoder's self-attention), the scale (none for T5) and the positions.
Scene seq2seqLayerScene(const Seq2SeqRealModel& model, Seq2SeqKind kind);

// The trace as it stood when the decoder had written its first `tokens` labels (1 .. all): the
// first rows of each decoder map, its predictions and loss over them. The decoder is causal, so
// these are the rows that step computed; the encoder's maps are the same.
Seq2SeqTrace firstTargetTokens(const Seq2SeqTrace& trace, int tokens);

// How each cross-attention head aligns the target with the source, L x H each, in [0, 1]:
// "diagonal", the share of each target row's weight within one token of the diagonal scaled to
// the two lengths (a monotonic alignment, as word order mostly keeps); and "sharp", one minus each
// row's entropy over log(source tokens) (1: every target token reads one source token).
std::vector<HeadDetectorScores>
detectCrossHeads(const std::vector<std::shared_ptr<const Trace>>& cross);

// The text the decoder wrote: its tokens readable and joined (a space for each "\u2423"), the
// end token left out.
std::string writtenText(const Seq2SeqRealModel& model, const std::vector<int>& ids);

} // namespace core::models
