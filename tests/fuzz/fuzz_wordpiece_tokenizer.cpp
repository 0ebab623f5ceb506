// Fuzzed vocabularies, tokenizer settings and text -> core::models::WordPieceTokenizer (BERT's).
// The input is two parts separated by "\n==\n": a vocabulary and a text. The first byte picks
// how the vocabulary is read: 0 as vocab.txt, 1 as tokenizer.json (both may be refused, with
// std::invalid_argument only), else as vocab.txt lines after BERT's five special tokens, with
// the settings (lower case, accents, CJK, cleaning) from the byte's bits. A loaded tokenizer
// must encode any valid UTF-8 text, alone and as a pair, refuse any other with invalid_argument,
// give ids inside its vocabulary, [CLS] first and [SEP] last, and never more than the context.
#include "fuzz_check.h"

#include "models/tokenizers/wordpiece_tokenizer.h"

#include <cstdint>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace core::models;

std::string tempFile(const char* name, const std::string& text) {
    const std::string path = "/tmp/fuzz_wordpiece_" + std::to_string(getpid()) + "_" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t start = 0; start <= text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

std::unique_ptr<WordPieceTokenizer> load(std::uint8_t mode, const std::string& vocab) {
    HfFiles files;
    try {
        if (mode == 0) {
            files.vocabTxt = tempFile("vocab.txt", vocab);
            return WordPieceTokenizer::open(files, true);
        }
        if (mode == 1) {
            files.tokenizerJson = tempFile("tokenizer.json", vocab);
            return WordPieceTokenizer::open(files, true);
        }
    } catch (const std::invalid_argument&) {
        return nullptr; // refused in one line: fine
    }
    std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (const std::string& line : lines(vocab)) tokens.push_back(line);
    WordPieceOptions options;
    options.lowercase = mode & 2, options.cleanText = mode & 4, options.chineseChars = mode & 8;
    if (mode & 16) options.stripAccents = bool(mode & 32);
    options.maxInputChars = 1 + (mode >> 6) * 40;
    return WordPieceTokenizer::fromVocab(tokens, options);
}

void checkEncoding(const WordPieceTokenizer& t, const Encoding& e, int maxTokens) {
    FUZZ_CHECK(e.ids.size() >= 2 && int(e.ids.size()) <= maxTokens);
    FUZZ_CHECK(e.ids.front() == t.startId() && e.ids.back() == t.specialIds()[1]);
    FUZZ_CHECK(e.ids.size() == e.types.size() && e.ids.size() == e.tokens.tokens.size());
    for (int id : e.ids) FUZZ_CHECK(id >= 0 && id < t.vocabSize());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string input(reinterpret_cast<const char*>(data + 1), size - 1);
    const std::size_t split = input.find("\n==\n");
    const std::string vocab = input.substr(0, split);
    const std::string text = split == std::string::npos ? "" : input.substr(split + 4);
    const std::unique_ptr<WordPieceTokenizer> t = load(data[0], vocab);
    if (!t) return 0;
    const int maxTokens = 3 + int(size % 61);
    try {
        checkEncoding(*t, t->encode(text, nullptr, maxTokens), maxTokens);
        FUZZ_CHECK(fuzz::isValidUtf8(text));
    } catch (const std::invalid_argument&) {
        FUZZ_CHECK(!fuzz::isValidUtf8(text)); // only invalid UTF-8 may be refused
    }
    try {
        checkEncoding(*t, t->encode(text, &vocab, 4096), 4096);
    } catch (const std::invalid_argument&) { // bad UTF-8 in either, or too long together
    }
    return 0;
}
