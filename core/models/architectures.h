// Every architecture mha-viz opens, in one table (architectures.cpp), as llama.cpp keeps its
// own: per family the config.json model_type names it answers to, its config reader, its
// tokenizer, its loader (tensor names, forward) and what it is (stack, norm, positions).
// Everything else asks the table: the folder reader for the supported names, openRealModel
// for the reader, tokenizer and loader, the figures and the detectors for the traits. Adding a
// family is its file pair under families/ and one entry (docs/real-models.md, "Adding a family").
#pragma once

#include "models/formats/model_folder.h"
#include "models/seq2seq_model.h"
#include "models/tokenizers/model_tokenizer.h"
#include "models/transformer.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

enum class Stack { Decoder, Encoder }; // causal next-token, or bidirectional
// The norm before each sublayer, after its residual (BERT), or on the sublayer's output
// before the residual (OLMo 2: x + norm(f(x))).
enum class NormPlace { PreNorm, PostNorm, OnOutput };
// A table (RoBERTa's counts from pad + 1), or rotary positions on q and k.
enum class Positions { Learned, LearnedAfterPad, Rotary };
// The head detectors a family runs (model_analysis.h): a decoder's on a repeated random
// sequence (induction, previous token), an encoder's on the sentence shown (Clark et al.).
enum class Detectors { RepeatedSequence, SentenceShown };
// LayerNorm (GPT-2, BERT) or RMSNorm (the modern decoders): what the window says a layer reads.
enum class NormKind { LayerNorm, RmsNorm };

struct GgufModel; // formats/gguf_file.h

struct Architecture {
    const char* name;                                    // for people: "GPT-2", "BERT"
    std::vector<std::string> modelTypes;                 // config.json's model_type values it opens
    ModelConfig (*readConfig)(const JsonFields& fields); // the family's names -> ModelConfig
    std::unique_ptr<const ModelTokenizer> (*openTokenizer)(const HfFiles& files,
                                                           const ModelConfig& config);
    std::unique_ptr<const Transformer> (*load)(const ModelConfig& config, const HfFiles& files);
    Stack stack;
    NormPlace norm;
    Positions positions;
    const char* outProjection; // the attention's output projection as the checkpoint names it
    Detectors detectors;
    NormKind normKind = NormKind::LayerNorm;
    // GGUF files (formats/gguf_file.h): the general.architecture names (llama.cpp's) this entry
    // opens, its reader of their metadata and its loader of their tensors; none: the family
    // opens from Hugging Face folders only.
    std::vector<std::string> ggufArchitectures = {};
    ModelConfig (*readGgufConfig)(const GgufModel& model, const std::string& arch) = nullptr;
    std::unique_ptr<const Transformer> (*loadGguf)(const ModelConfig& config,
                                                   const GgufModel& model,
                                                   const std::string& arch) = nullptr;

    bool causal() const { return stack == Stack::Decoder; }
};

// An encoder-decoder family (seq2seq_model.h): the model_type names it opens, its loader
// (config.json's fields and the weights) and its tokenizers, the source's and the target's (one
// tokenizer for both in T5 and BART, two SentencePiece models in Marian).
struct Seq2SeqArchitecture {
    const char* name; // for people: "T5", "BART"
    std::vector<std::string> modelTypes;
    std::unique_ptr<const Seq2SeqModel> (*load)(const JsonFields& config, const HfFiles& files);
    std::unique_ptr<const ModelTokenizer> (*sourceTokenizer)(const HfFiles& files,
                                                             const Seq2SeqConfig& config);
    std::unique_ptr<const ModelTokenizer> (*targetTokenizer)(const HfFiles& files,
                                                             const Seq2SeqConfig& config);
    const char* defaultSource; // the source sentence it opens on (T5 reads a task prefix)
};

// Every entry, in the order messages list them.
std::span<const Architecture> architectures();
std::span<const Seq2SeqArchitecture> seq2seqArchitectures();
// The encoder-decoder entry that opens `modelType`, or null.
const Seq2SeqArchitecture* findSeq2SeqArchitecture(std::string_view modelType);

// The entry that opens `modelType`, or null.
const Architecture* findArchitecture(std::string_view modelType);

// The entry that opens GGUF files of llama.cpp's architecture `arch`, or null.
const Architecture* findGgufArchitecture(std::string_view arch);
// Every GGUF architecture some entry opens, in the registry's order, for messages.
std::vector<std::string> ggufArchitectureNames();

} // namespace core::models
