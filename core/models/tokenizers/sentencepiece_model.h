// A SentencePiece model file (T5's spiece.model, Marian's source.spm / target.spm) read from its
// bytes: the protobuf ModelProto of sentencepiece_model.proto, decoded by hand (varints,
// length-delimited fields, fixed32 floats; fields this reader does not use are skipped by their
// wire type). What it keeps: each piece (text, score, type), the trainer_spec's model type,
// byte_fallback, treat_whitespace_as_suffix and special ids, the normalizer_spec's name,
// precompiled charsmap and whitespace switches. Refused with one line of std::invalid_argument
// naming the file: a truncated or malformed message (a varint or a length past the end, a wire
// type protobuf does not have), a model type other than UNIGRAM ("BPE", "WORD", "CHAR"), no
// pieces, an empty or repeated piece, no UNKNOWN piece or more than one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace core::models {

enum class SpmPieceType {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6
};

struct SpmPiece {
    std::string text;
    float score = 0.0f;
    SpmPieceType type = SpmPieceType::Normal;
};

struct SpmNormalizerSpec {
    std::string name;                // "nmt_nfkc", "identity", ...: for messages
    std::string precompiledCharsmap; // empty: no mapping (identity)
    bool addDummyPrefix = true, removeExtraWhitespaces = true, escapeWhitespaces = true;
};

struct SentencePieceModel {
    std::vector<SpmPiece> pieces; // the id is the index
    int modelType = 1;            // 1 UNIGRAM (the only one read)
    bool byteFallback = false, treatWhitespaceAsSuffix = false;
    int unkId = 0, bosId = 1, eosId = 2, padId = -1; // trainer_spec's (-1: none)
    SpmNormalizerSpec normalizer;
    std::string path; // names the file in messages
};

// The model in `bytes`; `path` names it in messages.
SentencePieceModel readSentencePieceModel(std::string_view bytes, const std::string& path);
// The file at `path` (at most 1 GiB).
SentencePieceModel openSentencePieceModel(const std::string& path);

} // namespace core::models
