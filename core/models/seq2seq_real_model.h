// An encoder-decoder checkpoint as Hugging Face stores it (T5, mT5, BART, Marian; the registry's
// Seq2SeqArchitecture entries), opened from a folder or a cache name, and its trace of one source
// with a target: read teacher-forced, or written greedily by the decoder. GUI-free: the CLI's
// --target / --generate and its trace JSON read it (docs/real-models.md, "Encoder-decoders").
#pragma once

#include "models/architectures.h"
#include "models/real_model.h"
#include "models/seq2seq_forward.h"

#include <memory>
#include <string>
#include <vector>

namespace core::models {

struct Seq2SeqRealModel {
    ModelLocation location;
    std::string family; // config.json's model_type
    const Seq2SeqArchitecture* architecture = nullptr;
    std::unique_ptr<const Seq2SeqModel> net;
    std::unique_ptr<const ModelTokenizer> source,
        target;                  // the same tokenizer twice for T5 and BART
    double loadMilliseconds = 0; // openSeq2SeqModel's time: config, mapped weights, tokenizers
    const Seq2SeqConfig& config() const { return net->config(); }
};

// Whether the folder of `location` holds an encoder-decoder this build opens (its config.json's
// model_type is a Seq2SeqArchitecture's). False for any other model, whose own reader says what
// it cannot open; throws std::invalid_argument for an encoder-decoder this build does not open
// ("is_encoder_decoder": true), naming those it does.
bool isSeq2SeqFolder(const ModelLocation& location);

// Reads config.json, the weights and the tokenizer files. Throws std::invalid_argument naming
// the file, the field or the tensor.
std::unique_ptr<Seq2SeqRealModel> openSeq2SeqModel(const ModelLocation& location);

struct Seq2SeqTrace {
    std::string sourceText, targetText;                // targetText: as typed, "" when generated
    Encoding source;                                   // the encoder's ids and readable tokens
    std::vector<int> labels;                           // the target's ids (its eos included)
    std::vector<int> decoderInput;                     // the start token, then labels but the last
    std::vector<std::string> decoderTokens;            // readable, per decoder position
    Seq2SeqRun run;                                    // every layer's maps, the logits (Nt x V)
    std::vector<std::vector<TokenChoice>> predictions; // Nt: after each decoder position
    double loss = 0;                                   // mean cross-entropy of the labels (nats)
    bool generated = false; // the decoder chose the labels (greedy), none was typed
    std::vector<std::string> warnings;
};

// Teacher-forced: `target`'s ids are the labels. Throws std::invalid_argument for an empty
// source or target, a text the tokenizer cannot read, or a side past the model's positions.
Seq2SeqTrace traceSeq2Seq(const Seq2SeqRealModel& model, const std::string& source,
                          const std::string& target, int topK = 1,
                          const Seq2SeqAblation& ablated = {});

// The same with the target given as its ids (what a greedy run wrote, read again with other heads
// switched off): no text to tokenize.
Seq2SeqTrace traceSeq2SeqIds(const Seq2SeqRealModel& model, const std::string& source,
                             const std::vector<int>& labels, int topK = 1,
                             const Seq2SeqAblation& ablated = {});

// Greedy: at most `maxTokens` tokens from the start token, stopping after eos, on the key/value
// cache; the trace is then the teacher-forced run over what was written (its maps equal each
// step's within float rounding).
Seq2SeqTrace generateSeq2Seq(const Seq2SeqRealModel& model, const std::string& source,
                             int maxTokens, int topK = 1, const Seq2SeqAblation& ablated = {});

} // namespace core::models
