// tokenizer.json read fast: Llama 3's is 9 MB, Gemma 3's 33 MB, almost all of it the model's
// vocabulary and merges. Those two are streamed from nlohmann's SAX parser straight into
// lists (no JSON value per entry); the rest of the file (normalizer, pre-tokenizer, added
// tokens, post-processor, decoder) becomes an ordinary nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace core::models {

struct TokenizerJsonFile {
    std::string path;
    nlohmann::json root; // the file without model.vocab and model.merges
    bool hasVocab = false, hasMerges = false;
    std::vector<std::pair<std::string, std::int64_t>> vocab; // model.vocab, in file order
    // model.merges, "a b" strings split at their space or ["a", "b"] pairs; a merge of another
    // shape is kept as {"", ""} with badMerge its 1-based number (the first such).
    std::vector<std::pair<std::string, std::string>> merges;
    std::size_t badMerge = 0;
};

// Reads the file. Throws std::invalid_argument "PATH: not JSON (error at byte N)" (or the file
// problem) in one line; what the contents mean is the caller's to check.
TokenizerJsonFile readTokenizerJsonFile(const std::string& path);

// The same for text already in memory (tests, fuzzers); `path` names it in messages.
TokenizerJsonFile parseTokenizerJson(const std::string& text, const std::string& path);

} // namespace core::models
