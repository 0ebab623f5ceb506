// The encoder-decoder forward written once against Seq2SeqModel (seq2seq_model.h): the source
// through the encoder, then the target through the decoder teacher-forced (the start token and
// the target's ids, every position at once), or greedy generation one token a step on the
// decoder's key/value cache, each step computing only its new row.
#pragma once

#include "models/seq2seq_model.h"

#include <vector>

namespace core::models {

// Heads switched off, per layer (0-based), as ForwardOptions::ablated.
struct Seq2SeqAblation {
    std::vector<std::vector<int>> encoder;
    std::vector<DecoderAblation> decoder;
};

struct Seq2SeqRun {
    std::vector<Attention> encoder;            // L_enc, over the source (Ns x Ns)
    std::vector<Attention> decoderSelf, cross; // L_dec: Nt x Nt (causal), Nt x Ns
    Mat encoded;                               // Ns x d: what the cross-attention read
    Mat logits;                                // Nt x V: after each decoder position
    // Per layer, what each attention read (after its norm): Ns x d, Nt x d, Nt x d.
    std::vector<Mat> encoderRead, selfRead, crossRead;
};

// The encoder over `source`. Throws std::invalid_argument for an empty source, an id outside
// the vocabulary, more tokens than the model's positions or an ablated head that does not exist.
Seq2SeqRun encodeSource(const Seq2SeqModel& model, const std::vector<int>& source,
                        const Seq2SeqAblation& ablated = {});

// The encoder, then the decoder over `decoderInput` (the start token first): teacher-forced.
Seq2SeqRun runSeq2Seq(const Seq2SeqModel& model, const std::vector<int>& source,
                      const std::vector<int>& decoderInput, const Seq2SeqAblation& ablated = {});

struct GreedyOutput {
    std::vector<int> ids;        // the tokens chosen, eos included when reached
    std::vector<double> margins; // per step: top logit - second logit
    std::vector<Mat> cross;      // L_dec, (H*n) x Ns: each step's cross-attention row per head
    Mat logits;                  // n x V
};

// Greedy decoding from the start token: at most maxTokens steps, stopping after eos; each step
// feeds its one new token after the cached keys and values. `suppressed` ids are never chosen
// (Marian's pad, as its generation config's bad_words_ids).
GreedyOutput generateGreedy(const Seq2SeqModel& model, const Seq2SeqRun& encoded, int maxTokens,
                            const std::vector<int>& suppressed = {},
                            const Seq2SeqAblation& ablated = {});

} // namespace core::models
