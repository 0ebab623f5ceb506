// Fuzzed vocabularies, merges and text -> core::models::ByteLevelBpe. The input is three
// parts separated by "\n==\n": a vocabulary, merges, a text. The first byte picks how they are
// read: 0 the parts as vocab.json and merges.txt, 1 as 0 (tokenizer.json has its own fuzzer,
// fuzz_tokenizer_json), both may be refused with std::invalid_argument only; else a vocabulary
// built to load: the 256 byte
// tokens, each line of the first part, and each merge line's two parts and their join. A
// loaded tokenizer must encode any valid UTF-8 text, refuse any other with invalid_argument,
// and give ids that decode back to the text.
#include "fuzz_check.h"

#include "models/tokenizers/byte_level_bpe.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using core::models::ByteLevelBpe;

std::vector<std::string> split(std::string_view text, std::string_view separator) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const std::size_t end = text.find(separator, start);
        parts.emplace_back(text.substr(start, end - start));
        if (end == std::string_view::npos) return parts;
        start = end + separator.size();
    }
}

std::string tempFile(const char* name, const std::string& text) {
    const std::string path = "/tmp/fuzz_gpt2_" + std::to_string(getpid()) + "_" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// The byte-level alphabet's character for a byte (printable bytes are themselves).
std::string alphabet(int byte) {
    int next = 0x100, cp = byte;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        if (!printable && b == byte) cp = next;
        next += printable ? 0 : 1;
    }
    std::string out;
    core::appendUtf8(out, static_cast<char32_t>(cp));
    return out;
}

// A vocabulary and merges that load: every merge's parts and join are added to the vocabulary.
std::pair<std::string, std::string> loadableFiles(const std::string& vocabLines,
                                                  const std::string& mergeLines) {
    nlohmann::json vocab = nlohmann::json::object();
    const auto add = [&](const std::string& token) {
        const std::string clean = core::sanitizeUtf8(token);
        if (!clean.empty() && !vocab.contains(clean)) vocab[clean] = vocab.size();
    };
    for (int b = 0; b < 256; ++b) add(alphabet(b));
    for (const std::string& line : split(vocabLines, "\n")) add(line);
    std::string merges = "#version: 0.2\n";
    for (std::string line : split(mergeLines, "\n")) {
        // The reader drops one CR before each line's end (CRLF files), so a line written back
        // must not end in one: "a b\r\r" would be read as "a b\r", a token not in the vocabulary.
        while (!line.empty() && line.back() == '\r') line.pop_back();
        line = core::sanitizeUtf8(line);
        const std::size_t space = line.find(' ');
        if (space == 0 || space == std::string::npos || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string::npos)
            continue;
        add(line.substr(0, space)), add(line.substr(space + 1));
        add(line.substr(0, space) + line.substr(space + 1));
        merges += line + "\n";
    }
    return {vocab.dump(), merges};
}

std::optional<ByteLevelBpe> load(std::uint8_t mode, const std::vector<std::string>& parts) {
    try {
        if (mode < 2)
            return ByteLevelBpe::fromVocabAndMerges(tempFile("vocab.json", parts[0]),
                                                    tempFile("merges.txt", parts[1]));
        const auto [vocab, merges] = loadableFiles(parts[0], parts[1]);
        return ByteLevelBpe::fromVocabAndMerges(tempFile("vocab.json", vocab),
                                                tempFile("merges.txt", merges));
    } catch (const std::invalid_argument& e) {
        FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos); // one line
        FUZZ_CHECK(mode < 2); // the built files always load
        return std::nullopt;
    }
}

void checkEncode(const ByteLevelBpe& tokenizer, const std::string& text) {
    std::vector<int> ids;
    try {
        ids = tokenizer.encode(text);
    } catch (const std::invalid_argument&) {
        FUZZ_CHECK(!fuzz::isValidUtf8(text));
        return;
    }
    FUZZ_CHECK(fuzz::isValidUtf8(text));
    for (int id : ids) {
        FUZZ_CHECK(id >= 0 && id < tokenizer.vocabSize());
        FUZZ_CHECK(!tokenizer.bytesOf(id).empty());
        FUZZ_CHECK(fuzz::isValidUtf8(tokenizer.readable(id)));
    }
    FUZZ_CHECK(core::models::decodeTokens(tokenizer, ids) == text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    std::vector<std::string> parts =
        split(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), "\n==\n");
    parts.resize(std::max<std::size_t>(parts.size(), 3));
    const std::uint8_t mode = data[0] % 4; // 2 and 3: the built vocabulary, the common case
    if (const std::optional<ByteLevelBpe> tokenizer = load(mode, parts))
        checkEncode(*tokenizer, parts[2]);
    return 0;
}
