// A GGUF file's tokenizer (llama.cpp, Ollama, LM Studio), from its tokenizer.ggml.* metadata,
// run by the tokenizer.json engine (tokenizer_json.h) so that it gives the ids Hugging Face's
// tokenizer of the same model gives (docs/real-models.md, "GGUF tokenizers"):
//
// - model "gpt2": byte-level BPE with tokenizer.ggml.merges (ranked in order). `pre` names the
//   pre-tokenizer as llama.cpp's vocabulary code defines each: llama-bpe / llama3 /
//   llama-v3 (Llama 3's split, whole-token words, a BOS by default), tekken (Mistral Nemo's,
//   likewise), dbrx / smaug-bpe (Llama 3's split), qwen2 (Qwen's split, single digits, and the
//   NFC its tokenizer.json has), smollm (single digits, then GPT-2's split), gpt-2 (GPT-2's
//   split), olmo / mpt (GPT-NeoX's: NFC, then GPT-2's split), default (llama.cpp's fallback
//   for a file that names none).
// - model "llama": SentencePiece BPE with scores and <0xXX> byte tokens (Llama 2, Mistral,
//   Gemma, Phi-3): a space becomes U+2581, add_space_prefix (default true) puts one before
//   each stretch of text, the pieces merge highest score first (as the merges transformers
//   derives from the same scores: sentencepiece_merges.h), a character the vocabulary lacks
//   becomes its UTF-8 bytes. A BOS by default.
// - token types: CONTROL, USER_DEFINED and UNKNOWN tokens are split out of the text as typed
//   (Hugging Face's added tokens; CONTROL and UNKNOWN count as special); UNUSED ids (the
//   converter's "[PAD<id>]" fillers) are no token of the text; NORMAL, BYTE and the rest are
//   the BPE vocabulary. In a "llama" vocabulary the CONTROL, USER_DEFINED and UNKNOWN tokens
//   rank at SentencePiece's score for them, 0 (the converter writes -1000), and a USER_DEFINED
//   token's spaces are U+2581 again (the converter writes spaces), as in the tokenizer.model.
// - add_bos_token / add_eos_token put bos / eos around the ids (defaults: llama.cpp's, above;
//   EOS never), as LlamaTokenizerFast's switches do. The start token is the BOS when one is
//   added, else none. A "llama" vocabulary without bos / eos / unknown ids has llama.cpp's
//   1 / 2 / 0.
// - a gpt2 merge whose parts or join are not tokens never applies (llama.cpp keeps it, to no
//   effect on a converted file) and is left out.
//
// Anything it cannot run is std::invalid_argument in one line naming the key: a model or pre
// other than those (with the ones that work), no tokens, scores or types shorter than the
// tokens, a duplicate or non-UTF-8 token, a gpt2 vocabulary without merges or with a merge
// that is not two tokens, a special id outside the vocabulary, add_bos_token without a BOS.
#pragma once

#include "models/tokenizers/model_tokenizer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core::models {

struct GgufVocab {                        // the tokenizer.ggml.* metadata
    std::string model, pre;               // "gpt2" / "llama" ...; "llama-bpe", "qwen2", ...
    std::vector<std::string> tokens;      // tokenizer.ggml.tokens, by id
    std::vector<float> scores;            // may be empty
    std::vector<std::int32_t> tokenTypes; // may be empty (all NORMAL)
    std::vector<std::string> merges;      // "a b"; may be empty
    int bos = -1, eos = -1, unknown = -1, padding = -1;
    std::optional<bool> addBos, addEos, addSpacePrefix;
    std::string chatTemplate; // unused, kept for display
    std::string modelName;    // general.name: Phi-3's chat tokens are known by it (below)
};

// llama.cpp's token types (gguf-py's TokenType).
enum class GgufTokenType : std::int32_t {
    Undefined = 0,
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6
};

std::unique_ptr<ModelTokenizer> openGgufTokenizer(const GgufVocab& vocab);

} // namespace core::models
