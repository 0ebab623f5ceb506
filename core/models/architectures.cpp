// The registry of architectures (architectures.h): one entry per family.
#include "models/architectures.h"

#include "models/families/bart_model.h"
#include "models/families/bert_model.h"
#include "models/families/gpt2_model.h"
#include "models/families/llama_model.h"
#include "models/families/t5_model.h"
#include "models/tokenizers/byte_level_tokenizer.h"
#include "models/tokenizers/marian_tokenizer.h"
#include "models/tokenizers/sentencepiece_tokenizer.h"
#include "models/tokenizers/tokenizer_config.h"
#include "models/tokenizers/tokenizer_json.h"
#include "models/tokenizers/wordpiece_tokenizer.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace core::models {
namespace {

std::unique_ptr<const ModelTokenizer> byteLevel(const HfFiles& files, const ModelConfig&) {
    return ByteLevelTokenizer::open(files, ByteLevelTokenizer::Marks::None);
}

std::unique_ptr<const ModelTokenizer> byteLevelSentences(const HfFiles& files, const ModelConfig&) {
    return ByteLevelTokenizer::open(files, ByteLevelTokenizer::Marks::Sentence);
}

// The Llama family's tokenizer.json (any of its models, BPE byte-level or SentencePiece-style).
std::unique_ptr<const ModelTokenizer> tokenizerJson(const HfFiles& files, const ModelConfig&) {
    if (files.tokenizerJson.empty())
        throw std::invalid_argument("the folder has no tokenizer.json (this family's tokenizer "
                                    "is read from it: download tokenizer.json with the weights)");
    return openTokenizerJson(files, true);
}

std::unique_ptr<const ModelTokenizer> wordPiece(const HfFiles& files, const ModelConfig& c) {
    return WordPieceTokenizer::open(files, c.typeVocabSize > 0);
}

template <EncoderFamily family>
std::unique_ptr<const Transformer> loadEncoder(const ModelConfig& c, const HfFiles& files) {
    return std::make_unique<BertModel>(loadBertWeights(c, files, family));
}

std::unique_ptr<const Transformer> loadGpt2(const ModelConfig& c, const HfFiles& files) {
    return std::make_unique<Gpt2Model>(loadGpt2Weights(c, files));
}

std::unique_ptr<const Transformer> loadLlama(const ModelConfig& c, const HfFiles& files) {
    return std::make_unique<LlamaModel>(loadLlamaWeights(c, files));
}

std::unique_ptr<const Transformer> loadLlamaFromGguf(const ModelConfig& c, const GgufModel& model,
                                                     const std::string& arch) {
    return std::make_unique<LlamaModel>(core::models::loadLlamaGguf(c, model, arch));
}

// A modern decoder's entry: tokenizer.json, the shared forward, rotary positions; from GGUF
// files of llama.cpp's architecture `gguf` too, unless null.
Architecture decoder(const char* name, const char* type, ModelConfig (*read)(const JsonFields&),
                     const char* gguf, NormPlace norm = NormPlace::PreNorm) {
    Architecture a{name,
                   {type},
                   read,
                   tokenizerJson,
                   loadLlama,
                   Stack::Decoder,
                   norm,
                   Positions::Rotary,
                   "o_proj",
                   Detectors::RepeatedSequence,
                   NormKind::RmsNorm};
    if (gguf) a.ggufArchitectures = {gguf}, a.readGgufConfig = readLlamaGgufConfig;
    if (gguf) a.loadGguf = loadLlamaFromGguf;
    return a;
}

const Architecture kArchitectures[] = {
    {"GPT-2",
     {"gpt2"},
     readGpt2Config,
     byteLevel,
     loadGpt2,
     Stack::Decoder,
     NormPlace::PreNorm,
     Positions::Learned,
     "c_proj",
     Detectors::RepeatedSequence},
    {"BERT",
     {"bert"},
     readBertConfig,
     wordPiece,
     loadEncoder<EncoderFamily::Bert>,
     Stack::Encoder,
     NormPlace::PostNorm,
     Positions::Learned,
     "the output dense",
     Detectors::SentenceShown},
    {"RoBERTa",
     {"roberta"},
     readRobertaConfig,
     byteLevelSentences,
     loadEncoder<EncoderFamily::Roberta>,
     Stack::Encoder,
     NormPlace::PostNorm,
     Positions::LearnedAfterPad,
     "the output dense",
     Detectors::SentenceShown},
    {"DistilBERT",
     {"distilbert"},
     readDistilBertConfig,
     wordPiece,
     loadEncoder<EncoderFamily::DistilBert>,
     Stack::Encoder,
     NormPlace::PostNorm,
     Positions::Learned,
     "the output dense",
     Detectors::SentenceShown},
    decoder("Llama", "llama", readLlamaConfig, "llama"), // Mistral's GGUFs are llama's too
    decoder("Mistral", "mistral", readMistralConfig, nullptr),
    decoder("Qwen2", "qwen2", readQwen2Config, "qwen2"),
    decoder("Qwen3", "qwen3", readQwen3Config, "qwen3"),
    decoder("Gemma", "gemma", readGemmaConfig, "gemma"),
    decoder("Gemma 2", "gemma2", readGemma2Config, "gemma2"),
    {"Gemma 3",
     {"gemma3_text", "gemma3"},
     readGemma3Config,
     tokenizerJson,
     loadLlama,
     Stack::Decoder,
     NormPlace::PreNorm,
     Positions::Rotary,
     "o_proj",
     Detectors::RepeatedSequence,
     NormKind::RmsNorm,
     {"gemma3"},
     readLlamaGgufConfig,
     loadLlamaFromGguf},
    decoder("Phi-3", "phi3", readPhi3Config, "phi3"),
    decoder("OLMo 2", "olmo2", readOlmo2Config, "olmo2", NormPlace::OnOutput),
};

std::unique_ptr<const Seq2SeqModel> loadT5(const JsonFields& config, const HfFiles& files) {
    return std::make_unique<T5Model>(readT5Config(config), files);
}

template <bool marian>
std::unique_ptr<const Seq2SeqModel> loadBart(const JsonFields& config, const HfFiles& files) {
    return std::make_unique<BartModel>(readBartConfig(config, marian), files);
}

// BART's byte-level BPE, RoBERTa's: <s> text </s>, for the source and the target alike.
std::unique_ptr<const ModelTokenizer> bartTokenizer(const HfFiles& files, const Seq2SeqConfig&) {
    return ByteLevelTokenizer::open(files, ByteLevelTokenizer::Marks::Sentence);
}

// T5's tokenizer for both sides, the one AutoTokenizer picks: tokenizer.json (T5TokenizerFast)
// when the folder has it, else spiece.model as T5Tokenizer runs it, with tokenizer_config.json's
// extra_ids sentinels (without the key T5Tokenizer's default 100, fewer where config.json's
// vocab_size has no room for them: an mT5 folder without the file).
std::unique_ptr<const ModelTokenizer> t5Tokenizer(const HfFiles& files, const Seq2SeqConfig& c) {
    if (!files.tokenizerJson.empty()) return openTokenizerJson(files, true);
    if (files.sentencePiece.empty())
        throw std::invalid_argument("the folder has no spiece.model or tokenizer.json (T5's "
                                    "tokenizer: download one with the weights)");
    SentencePieceModel model = openSentencePieceModel(files.sentencePiece);
    const int room = std::max(c.base.vocabSize - int(model.pieces.size()), 0);
    const std::optional<int> extra = readTokenizerConfig(files.tokenizerConfig).extraIds;
    return std::make_unique<SentencePieceTokenizer>(std::move(model),
                                                    extra ? *extra : std::min(100, room));
}

// Marian's side: its SentencePiece model, the pieces through the shared vocab.json.
template <bool source>
std::unique_ptr<const ModelTokenizer> marianTokenizer(const HfFiles& files, const Seq2SeqConfig&) {
    const std::string& spm = source ? files.sourceSpm : files.targetSpm;
    if (spm.empty() || files.vocabJson.empty())
        throw std::invalid_argument(
            std::string("the folder has no ") +
            (spm.empty() ? (source ? "source.spm" : "target.spm") : "vocab.json") +
            " (Marian's tokenizer is source.spm, target.spm and "
            "vocab.json: download them with the weights)");
    return MarianTokenizer::open(spm, files.vocabJson);
}

const Seq2SeqArchitecture kSeq2SeqArchitectures[] = {
    {"T5",
     {"t5", "mt5"},
     loadT5,
     t5Tokenizer,
     t5Tokenizer,
     "translate English to German: The house is wonderful."},
    {"BART", {"bart"}, loadBart<false>, bartTokenizer, bartTokenizer, "The house is wonderful."},
    {"Marian",
     {"marian"},
     loadBart<true>,
     marianTokenizer<true>,
     marianTokenizer<false>,
     "The house is wonderful."},
};

} // namespace

std::span<const Architecture> architectures() {
    return kArchitectures;
}

std::span<const Seq2SeqArchitecture> seq2seqArchitectures() {
    return kSeq2SeqArchitectures;
}

const Seq2SeqArchitecture* findSeq2SeqArchitecture(std::string_view modelType) {
    for (const Seq2SeqArchitecture& a : kSeq2SeqArchitectures)
        if (std::find(a.modelTypes.begin(), a.modelTypes.end(), modelType) != a.modelTypes.end())
            return &a;
    return nullptr;
}

const Architecture* findArchitecture(std::string_view modelType) {
    for (const Architecture& a : kArchitectures)
        if (std::find(a.modelTypes.begin(), a.modelTypes.end(), modelType) != a.modelTypes.end())
            return &a;
    return nullptr;
}

const Architecture* findGgufArchitecture(std::string_view arch) {
    for (const Architecture& a : kArchitectures)
        if (std::find(a.ggufArchitectures.begin(), a.ggufArchitectures.end(), arch) !=
            a.ggufArchitectures.end())
            return &a;
    return nullptr;
}

std::vector<std::string> ggufArchitectureNames() {
    std::vector<std::string> names;
    for (const Architecture& a : kArchitectures)
        names.insert(names.end(), a.ggufArchitectures.begin(), a.ggufArchitectures.end());
    return names;
}

} // namespace core::models
