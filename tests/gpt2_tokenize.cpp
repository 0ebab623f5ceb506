// The GPT-2 tokenizer as a filter, for the cross-check against the JavaScript reference
// (gpt2_random_check.py):
//   gpt2_tokenize VOCAB_JSON MERGES_TXT < lines
// Each input line is one JSON string; each output line is the JSON list of its ids, or
// {"error": "..."} when encode throws.
#include "models/tokenizers/byte_level_bpe.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: gpt2_tokenize VOCAB_JSON MERGES_TXT < json-string-lines\n";
        return 2;
    }
    try {
        const auto tokenizer = core::models::ByteLevelBpe::fromVocabAndMerges(argv[1], argv[2]);
        std::string line;
        while (std::getline(std::cin, line)) {
            const std::string text = nlohmann::json::parse(line).get<std::string>();
            try {
                std::cout << nlohmann::json(tokenizer.encode(text)).dump() << '\n';
            } catch (const std::invalid_argument& e) {
                std::cout << nlohmann::json{{"error", e.what()}}.dump() << '\n';
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "gpt2_tokenize: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
