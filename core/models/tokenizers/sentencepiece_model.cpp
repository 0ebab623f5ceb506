// SentencePiece's ModelProto read by hand (sentencepiece_model.h).
#include "models/tokenizers/sentencepiece_model.h"

#include "io/text_file.h"

#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>

namespace core::models {
namespace {

// Protobuf's wire format over one message's bytes; every read checks the end first.
class Wire {
  public:
    Wire(std::string_view bytes, const std::string& path, const char* what)
        : bytes_(bytes), path_(path), what_(what) {}

    bool done() const { return at_ >= bytes_.size(); }

    [[noreturn]] void fail(const std::string& problem) const {
        throw std::invalid_argument(path_ + ": not a readable SentencePiece model: " + problem +
                                    " (" + what_ + ", byte " + std::to_string(at_) + ")");
    }

    // Base-128, low groups first; at most 10 bytes for 64 bits.
    std::uint64_t varint() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (done()) fail("a varint runs past the end");
            const auto byte = static_cast<unsigned char>(bytes_[at_++]);
            value |= std::uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) return value;
        }
        fail("a varint longer than 10 bytes");
    }

    // The next field's number and wire type.
    std::pair<std::uint64_t, int> key() {
        const std::uint64_t k = varint();
        if ((k >> 3) == 0) fail("a field numbered 0");
        return {k >> 3, int(k & 7)};
    }

    // A string, bytes or sub-message: its length, then that many bytes.
    std::string_view lengthDelimited() {
        const std::uint64_t n = varint();
        if (n > bytes_.size() - at_) fail("a length runs past the end");
        const std::string_view out = bytes_.substr(at_, std::size_t(n));
        at_ += std::size_t(n);
        return out;
    }

    // A float: 4 bytes, little-endian whatever the host.
    float fixed32() {
        if (bytes_.size() - at_ < 4) fail("a 32-bit value runs past the end");
        std::uint32_t bits = 0; // little-endian on the wire
        for (int k = 3; k >= 0; --k)
            bits = (bits << 8) | static_cast<unsigned char>(bytes_[at_ + std::size_t(k)]);
        at_ += 4;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }

    // A field this reader does not use, by its wire type.
    void skip(int wireType) {
        switch (wireType) {
        case 0:
            varint();
            return;
        case 1:
            if (bytes_.size() - at_ < 8) fail("a 64-bit value runs past the end");
            at_ += 8;
            return;
        case 2:
            lengthDelimited();
            return;
        case 5:
            fixed32();
            return;
        default:
            fail("wire type " + std::to_string(wireType) + " (groups are not read)");
        }
    }

    // The value of a field whose wire type must be `expected` (else it is refused).
    void expect(int wireType, int expected, const char* field) {
        if (wireType != expected) fail(std::string("field ") + field + " has the wrong wire type");
    }

  private:
    std::string_view bytes_;
    std::size_t at_ = 0;
    const std::string& path_;
    const char* what_;
};

int int32Of(std::uint64_t v) {
    return int(std::int32_t(std::uint32_t(v))); // int32 negatives are 10-byte varints
}

// ModelProto.SentencePiece: piece = 1, score = 2, type = 3.
SpmPiece readPiece(std::string_view bytes, const std::string& path) {
    Wire w(bytes, path, "a piece");
    SpmPiece p;
    while (!w.done()) {
        const auto [field, type] = w.key();
        if (field == 1) {
            w.expect(type, 2, "piece");
            p.text = std::string(w.lengthDelimited());
        } else if (field == 2) {
            w.expect(type, 5, "score");
            p.score = w.fixed32();
        } else if (field == 3) {
            w.expect(type, 0, "type");
            const std::uint64_t t = w.varint();
            if (t < 1 || t > 6) w.fail("piece type " + std::to_string(t));
            p.type = SpmPieceType(int(t));
        } else {
            w.skip(type);
        }
    }
    return p;
}

// TrainerSpec: model_type = 3, treat_whitespace_as_suffix = 24, byte_fallback = 35, unk / bos /
// eos / pad ids = 40..43; all varints.
void readTrainerSpec(std::string_view bytes, SentencePieceModel& m) {
    Wire w(bytes, m.path, "trainer_spec");
    while (!w.done()) {
        const auto [field, type] = w.key();
        if (field != 3 && field != 24 && field != 35 && (field < 40 || field > 43)) {
            w.skip(type);
            continue;
        }
        w.expect(type, 0, "of trainer_spec");
        const std::uint64_t v = w.varint();
        switch (field) {
        case 3:
            m.modelType = int32Of(v);
            break;
        case 24:
            m.treatWhitespaceAsSuffix = v != 0;
            break;
        case 35:
            m.byteFallback = v != 0;
            break;
        case 40:
            m.unkId = int32Of(v);
            break;
        case 41:
            m.bosId = int32Of(v);
            break;
        case 42:
            m.eosId = int32Of(v);
            break;
        default:
            m.padId = int32Of(v);
            break;
        }
    }
}

// NormalizerSpec: name = 1, precompiled_charsmap = 2, add_dummy_prefix = 3,
// remove_extra_whitespaces = 4, escape_whitespaces = 5.
void readNormalizerSpec(std::string_view bytes, SentencePieceModel& m) {
    Wire w(bytes, m.path, "normalizer_spec");
    SpmNormalizerSpec& n = m.normalizer;
    while (!w.done()) {
        const auto [field, type] = w.key();
        if (field == 1 || field == 2) {
            w.expect(type, 2, field == 1 ? "name" : "precompiled_charsmap");
            (field == 1 ? n.name : n.precompiledCharsmap) = std::string(w.lengthDelimited());
        } else if (field >= 3 && field <= 5) {
            w.expect(type, 0, "of normalizer_spec");
            const bool on = w.varint() != 0;
            (field == 3   ? n.addDummyPrefix
             : field == 4 ? n.removeExtraWhitespaces
                          : n.escapeWhitespaces) = on;
        } else {
            w.skip(type);
        }
    }
}

// TrainerSpec.ModelType's names, for the refusal.
const char* modelTypeName(int type) {
    switch (type) {
    case 2:
        return "BPE";
    case 3:
        return "WORD";
    case 4:
        return "CHAR";
    default:
        return "unknown";
    }
}

// What SentencePiece itself refuses when it loads a model, said in one line.
void check(const SentencePieceModel& m) {
    const auto fail = [&](const std::string& problem) {
        throw std::invalid_argument(m.path + ": " + problem);
    };
    if (m.modelType != 1)
        fail(std::string("the model type is ") + modelTypeName(m.modelType) + " (" +
             std::to_string(m.modelType) + "); only UNIGRAM models are read");
    if (m.pieces.empty()) fail("the model has no pieces");
    std::set<std::string_view> seen;
    int unknowns = 0;
    for (std::size_t id = 0; id < m.pieces.size(); ++id) {
        const SpmPiece& p = m.pieces[id];
        if (p.text.empty()) fail("piece " + std::to_string(id) + " is empty");
        if (!seen.insert(p.text).second) fail("piece \"" + p.text + "\" is defined twice");
        if (p.type == SpmPieceType::Unknown) ++unknowns;
    }
    if (unknowns != 1)
        fail(unknowns ? "more than one unknown piece" : "the model has no unknown piece");
}

} // namespace

// ModelProto: pieces = 1, trainer_spec = 2, normalizer_spec = 3 (self_test_data and
// denormalizer_spec skipped).
SentencePieceModel readSentencePieceModel(std::string_view bytes, const std::string& path) {
    SentencePieceModel m;
    m.path = path;
    Wire w(bytes, path, "ModelProto");
    while (!w.done()) {
        const auto [field, type] = w.key();
        if (field == 1) {
            w.expect(type, 2, "pieces");
            m.pieces.push_back(readPiece(w.lengthDelimited(), path));
        } else if (field == 2) {
            w.expect(type, 2, "trainer_spec");
            readTrainerSpec(w.lengthDelimited(), m);
        } else if (field == 3) {
            w.expect(type, 2, "normalizer_spec");
            readNormalizerSpec(w.lengthDelimited(), m);
        } else {
            w.skip(type);
        }
    }
    check(m);
    return m;
}

SentencePieceModel openSentencePieceModel(const std::string& path) {
    const TextFile file = readTextFile(path, kTokenizerFileCap);
    if (file.problem == FileProblem::Missing) throw std::invalid_argument(path + ": no such file");
    if (file.problem == FileProblem::TooLarge)
        throw std::invalid_argument(path + ": larger than a SentencePiece model can be");
    if (!file.ok()) throw std::invalid_argument(path + ": cannot be read");
    return readSentencePieceModel(file.text, path);
}

} // namespace core::models
