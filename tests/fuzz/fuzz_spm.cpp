// Fuzzed SentencePiece model files and text -> core::models::SentencePieceTokenizer, and the
// tokenizer.json engine's Unigram model with its Precompiled normalizer. The input is a mode
// byte, then a part and a text separated by "\n==\n". Mode 0 reads the part as a model file;
// mode 1 puts it as the precompiled charsmap into a small model (both engines); mode 2 makes
// pieces of its lines (the first byte of a line picks the type, the second the score) behind
// <unk>, with byte_fallback when the mode byte's bit 4 is set; bit 5 also runs the model as
// T5Tokenizer (openT5: three sentinels <extra_id_N>, typed special tokens split out of the
// text, their whitespace stripped). Loading may refuse, with one line
// of std::invalid_argument only. A loaded tokenizer must encode any valid UTF-8 text, refuse
// any other with invalid_argument, give ids inside its vocabulary with readable UTF-8 pieces,
// byte ranges in order inside the text, and </s> last.
#include "fuzz_check.h"

#include "models/tokenizers/sentencepiece_model.h"
#include "models/tokenizers/sentencepiece_tokenizer.h"
#include "models/tokenizers/tokenizer_json.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

using core::models::ModelTokenizer;

std::string varint(std::uint64_t v) {
    std::string s;
    for (; v >= 0x80; v >>= 7) s += char((v & 0x7f) | 0x80);
    return s + char(v);
}
std::string bytesField(int number, const std::string& bytes) {
    return varint(std::uint64_t(number) << 3 | 2) + varint(bytes.size()) + bytes;
}
std::string intField(int number, std::uint64_t v) {
    return varint(std::uint64_t(number) << 3) + varint(v);
}
std::string piece(const std::string& text, int type, float score) {
    std::string bits(4, '\0');
    std::memcpy(bits.data(), &score, 4); // little-endian hosts only: the fuzzers' x86-64
    return bytesField(1, bytesField(1, text) + varint(2 << 3 | 5) + bits +
                             intField(3, unsigned(type)));
}

// <unk> <s> </s>, then a few letters and words.
std::string basePieces() {
    std::string out = piece("<unk>", 2, 0) + piece("<s>", 3, 0) + piece("</s>", 3, 0);
    float score = -1;
    for (const char* p : {"\xe2\x96\x81", "a", "b",
                          "\xe2\x96\x81"
                          "a",
                          "ab", "\xc3\xa9", "1"})
        out += piece(p, 1, score), score -= 0.5f;
    return out;
}

std::string modelOf(std::uint8_t mode, const std::string& part) {
    if (mode % 3 == 0) return part;
    if (mode % 3 == 1)
        return basePieces() + bytesField(3, bytesField(1, "fuzz") + bytesField(2, part));
    std::string out = basePieces();
    for (std::size_t start = 0; start < part.size();) {
        const std::size_t end = std::min(part.find('\n', start), part.size());
        if (end - start > 2) {
            const int type = 1 + static_cast<unsigned char>(part[start]) % 6;
            const float score = -float(static_cast<unsigned char>(part[start + 1])) / 16;
            if (type != 2) out += piece(part.substr(start + 2, end - start - 2), type, score);
        }
        start = end + 1;
    }
    if (mode & 16) {
        out += bytesField(2, intField(35, 1));
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            out += piece(name, 6, 0);
        }
    }
    return out;
}

void checkEncode(const ModelTokenizer& t, const std::string& text, bool eosLast) {
    core::models::Encoding e;
    try {
        e = t.encode(text, nullptr, 1 << 20);
    } catch (const std::invalid_argument&) {
        FUZZ_CHECK(!fuzz::isValidUtf8(text));
        return;
    }
    FUZZ_CHECK(fuzz::isValidUtf8(text));
    FUZZ_CHECK(e.ids.size() == e.tokens.tokens.size() && e.ids.size() == e.types.size());
    std::size_t done = 0;
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
        FUZZ_CHECK(e.ids[i] >= 0 && e.ids[i] < t.vocabSize());
        FUZZ_CHECK(fuzz::isValidUtf8(t.readable(e.ids[i])));
        const core::Token& token = e.tokens.tokens[i];
        FUZZ_CHECK(token.begin >= done && token.begin <= token.end && token.end <= text.size());
        done = token.end;
    }
    if (eosLast) FUZZ_CHECK(!e.ids.empty() && e.special.back() == 1);
}

// The same model as tokenizer.json: Unigram, Precompiled, Metaspace (mode 1's charsmap).
void checkTokenizerJson(const core::models::SentencePieceModel& m, const std::string& text) {
    nlohmann::json vocab = nlohmann::json::array();
    for (const auto& p : m.pieces) vocab.push_back({core::sanitizeUtf8(p.text), p.score});
    static const char* alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string b64;
    const std::string& blob = m.normalizer.precompiledCharsmap;
    for (std::size_t i = 0; i < blob.size(); i += 3) {
        std::uint32_t n = 0;
        for (std::size_t k = 0; k < 3; ++k)
            n = n << 8 | (i + k < blob.size() ? static_cast<unsigned char>(blob[i + k]) : 0u);
        for (std::size_t k = 0; k < 4; ++k)
            b64 += k <= (blob.size() - i) ? alphabet[(n >> (18 - 6 * k)) & 63] : '=';
    }
    const nlohmann::json root = {
        {"normalizer", {{"type", "Precompiled"}, {"precompiled_charsmap", b64}}},
        {"pre_tokenizer", {{"type", "Metaspace"}, {"prepend_scheme", "always"}}},
        {"model", {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}}}};
    std::unique_ptr<core::models::TokenizerJson> t;
    try {
        t = core::models::TokenizerJson::fromText(root.dump(), "");
    } catch (const std::invalid_argument& e) {
        FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos);
        return;
    }
    checkEncode(*t, text, false);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::size_t separator = input.find("\n==\n");
    const std::string part = input.substr(0, separator);
    const std::string text = separator == std::string::npos ? "" : input.substr(separator + 4);
    std::unique_ptr<core::models::SentencePieceTokenizer> tokenizer;
    core::models::SentencePieceModel model;
    try {
        model = core::models::readSentencePieceModel(modelOf(data[0], part), "fuzz.model");
        tokenizer = std::make_unique<core::models::SentencePieceTokenizer>(model);
    } catch (const std::invalid_argument& e) {
        FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos); // one line
        return 0;
    }
    checkEncode(*tokenizer, text, tokenizer->eosId() >= 0);
    if (data[0] & 32) {
        const core::models::SentencePieceTokenizer t5(model, 3);
        checkEncode(t5, text, t5.eosId() >= 0);
    }
    if (data[0] % 3 == 1) checkTokenizerJson(model, text);
    return 0;
}
