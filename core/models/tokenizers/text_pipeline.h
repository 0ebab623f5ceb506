// The normalizer and pre-tokenizer of a tokenizer.json (tokenizer_json.h), read from their
// JSON and run as Hugging Face's `tokenizers` runs them, on aligned text (normalized_text.h).
//
// Normalizers: NFC, NFD, NFKC, NFKD, Lowercase, Strip (strip_left / strip_right, White_Space),
// StripAccents (marks removed), Prepend (before a non-empty text), Replace (a String pattern,
// or a Regex one the CodePointRegex runs), Precompiled (SentencePiece's charsmap, base64:
// precompiled_charsmap.h, looked up per grapheme cluster as the Rust library does), Sequence;
// null is none.
// Pre-tokenizers: ByteLevel (add_prefix_space, use_regex with GPT-2's pattern, then each byte
// a character of the byte-level alphabet), Split (String or Regex pattern; behavior Removed,
// Isolated, MergedWithPrevious, MergedWithNext, Contiguous; invert), Metaspace (replacement,
// prepend_scheme always / first / never, split), Digits (individual_digits), Whitespace,
// WhitespaceSplit, Sequence; null is none.
// Any other type is refused with std::invalid_argument "normalizer \"Nmt\" is not supported"
// (the caller puts the file before it), as is a field of the wrong type.
#pragma once

#include "models/tokenizers/code_point_regex.h"
#include "models/tokenizers/normalized_text.h"
#include "models/tokenizers/precompiled_charsmap.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace core {
class JsonFields;
}

namespace core::models {

class TextNormalizer {
  public:
    TextNormalizer() = default; // none
    static TextNormalizer read(const nlohmann::json& spec);
    void apply(UnitText& text) const;
    bool none() const { return kind_ == Kind::None; }

  private:
    static TextNormalizer read(const nlohmann::json& spec, int depth);
    void replace(UnitText& text) const;
    void precompiled(UnitText& text) const;

    enum class Kind {
        None,
        Sequence,
        Unicode,
        Lowercase,
        Strip,
        StripAccents,
        Prepend,
        Replace,
        Precompiled
    };
    Kind kind_ = Kind::None;
    NormalForm form_ = NormalForm::NFC;
    bool left_ = false, right_ = false;
    std::u32string text_, content_; // Prepend's text; Replace's literal pattern and content
    std::shared_ptr<const CodePointRegex> regex_;         // Replace's regex pattern
    std::shared_ptr<const PrecompiledCharsmap> charsmap_; // Precompiled's
    std::vector<TextNormalizer> steps_;
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

class PreTokenizer {
  public:
    PreTokenizer() = default; // none: the whole text is one pre-token
    static PreTokenizer read(const nlohmann::json& spec);
    // The pre-tokens of one stretch of text (between added tokens), none of them empty.
    std::vector<UnitText> apply(UnitText text) const;
    bool none() const { return kind_ == Kind::None; }
    // Some step is ByteLevel: the vocabulary's entries are in the byte-level alphabet.
    bool byteLevel() const;
    // Metaspace's replacement character, or 0.
    char32_t metaspace() const;
    void setAddPrefixSpace(bool on); // every ByteLevel step's add_prefix_space

  private:
    enum class Kind {
        None,
        Sequence,
        ByteLevel,
        Split,
        Metaspace,
        Digits,
        Whitespace,
        WhitespaceSplit
    };
    enum class Prepend { Always, First, Never };
    static PreTokenizer read(const nlohmann::json& spec, int depth);
    static void readMetaspace(const JsonFields& fields, PreTokenizer& p);
    void run(std::vector<UnitText>& pieces) const;
    void splitByteLevel(std::vector<UnitText>& pieces) const;
    void splitMetaspace(std::vector<UnitText>& pieces) const;

    Kind kind_ = Kind::None;
    bool prefixSpace_ = false, useRegex_ = true, invert_ = false, individual_ = false;
    bool split_ = true;
    SplitBehavior behavior_ = SplitBehavior::Isolated;
    Prepend prepend_ = Prepend::Always;
    char32_t replacement_ = U'\u2581';
    std::u32string literal_; // Split's String pattern
    std::shared_ptr<const CodePointRegex>
        regex_; // Split's Regex pattern; ByteLevel's, Whitespace's
    std::vector<PreTokenizer> steps_;
};

// Where `literal` (or, when given, `regex`) matches `text`: leftmost, not overlapping, as
// [begin, end) code point indices.
std::vector<std::pair<std::size_t, std::size_t>> patternMatches(const std::u32string& literal,
                                                                const CodePointRegex* regex,
                                                                std::u32string_view text);
// A part's "type" ("normalizer", "pre_tokenizer", ...: `part` names it in the message).
std::string typeOfPart(const nlohmann::json& spec, const char* part);
// A Split's or Replace's "pattern": {"String": s} (its code points) or {"Regex": r} (compiled).
void readPattern(const JsonFields& fields, std::u32string& literal,
                 std::shared_ptr<const CodePointRegex>& regex);

// The code point of the byte-level alphabet that stands for a byte (GPT-2's bytes_to_unicode:
// printable bytes are themselves, the other 68 are U+0100 + n in byte order), and back (-1:
// not in the alphabet).
char32_t byteLevelChar(unsigned char byte);
int byteLevelByte(char32_t cp);

} // namespace core::models
