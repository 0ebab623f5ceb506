// Fuzzed tokenizer.json files and text -> core::models::TokenizerJson, the tokenizer.json
// engine. The input is a mode byte, then two parts separated by "\n==\n": a file part and a
// text. Mode 0 reads the file part as tokenizer.json; mode 1 uses it as a Split pre-tokenizer's
// regex on a small byte-level BPE; mode 2 as a Replace normalizer's regex and added tokens (one
// a line, their flags from the line's first byte) on a Llama 2-style file with byte fallback.
// Loading may refuse, with one line of std::invalid_argument only. A loaded tokenizer must
// encode any valid UTF-8 text, refuse any other with invalid_argument, give ids inside its
// vocabulary with readable UTF-8 pieces, and byte ranges in order inside the text.
#include "fuzz_check.h"

#include "models/tokenizers/tokenizer_json.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

using json = nlohmann::json;
using core::models::TokenizerJson;

// A byte-level vocabulary: the 256 byte characters and a few merges.
json byteLevelFile() {
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) {
        std::string s;
        core::appendUtf8(s, core::models::byteLevelChar(static_cast<unsigned char>(b)));
        vocab[s] = b;
    }
    vocab["\u0120t"] = 256, vocab["he"] = 257, vocab["\u0120the"] = 258;
    return {{"model",
             {{"type", "BPE"},
              {"vocab", vocab},
              {"merges", {"\u0120 t", "h e", "\u0120t he"}},
              {"ignore_merges", true}}},
            {"post_processor", {{"type", "ByteLevel"}}}};
}

// Llama 2's pipeline on a small vocabulary: ▁ for spaces, byte fallback, <s> first.
json metaspaceFile() {
    json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {"\u2581", 3}, {"a", 4}, {"\u2581a", 5}};
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        vocab[name] = 6 + b;
    }
    return {
        {"normalizer",
         {{"type", "Sequence"},
          {"normalizers",
           {{{"type", "NFKC"}},
            {{"type", "Prepend"}, {"prepend", "\u2581"}},
            {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
        {"pre_tokenizer", {{"type", "Metaspace"}, {"prepend_scheme", "first"}, {"split", true}}},
        {"model",
         {{"type", "BPE"},
          {"vocab", vocab},
          {"merges", {"\u2581 a"}},
          {"unk_token", "<unk>"},
          {"fuse_unk", true},
          {"byte_fallback", true}}},
        {"post_processor",
         {{"type", "TemplateProcessing"},
          {"single", {"<s>", "$A"}},
          {"pair", {"<s>", "$A", "<s>:1", "$B:1"}},
          {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}}};
}

std::string fileOf(std::uint8_t mode, const std::string& part) {
    if (mode == 0) return part;
    const std::string clean = core::sanitizeUtf8(part);
    if (mode == 1) {
        json root = byteLevelFile();
        root["pre_tokenizer"] = {
            {"type", "Sequence"},
            {"pretokenizers",
             {{{"type", "Split"}, {"pattern", {{"Regex", clean}}}, {"behavior", "Isolated"}},
              {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
        return root.dump();
    }
    json root = metaspaceFile();
    const std::size_t newline = clean.find('\n');
    root["normalizer"]["normalizers"].push_back({{"type", "Replace"},
                                                 {"pattern", {{"Regex", clean.substr(0, newline)}}},
                                                 {"content", "a"}});
    json added = json::array();
    for (std::size_t start = newline; start < clean.size();) {
        const std::size_t end = std::min(clean.find('\n', start + 1), clean.size());
        const std::string line = clean.substr(start + 1, end - start - 1);
        if (!line.empty()) {
            const unsigned flags = static_cast<unsigned char>(line[0]);
            added.push_back({{"id", 300 + added.size()},
                             {"content", core::sanitizeUtf8(line.substr(1))},
                             {"special", bool(flags & 1)},
                             {"lstrip", bool(flags & 2)},
                             {"rstrip", bool(flags & 4)},
                             {"normalized", bool(flags & 8)},
                             {"single_word", bool(flags & 16)}});
        }
        start = end;
    }
    root["added_tokens"] = added;
    return root.dump();
}

void checkEncode(const TokenizerJson& t, const std::string& text) {
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
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::size_t separator = input.find("\n==\n");
    const std::string part = input.substr(0, separator);
    const std::string text = separator == std::string::npos ? "" : input.substr(separator + 4);
    const std::uint8_t mode = data[0] % 3;
    std::unique_ptr<TokenizerJson> tokenizer;
    try {
        tokenizer = TokenizerJson::fromText(fileOf(mode, part), "");
    } catch (const std::invalid_argument& e) {
        FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos); // one line
        return 0;
    }
    checkEncode(*tokenizer, text);
    return 0;
}
