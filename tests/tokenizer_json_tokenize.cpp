// A tokenizer.json tokenizer (core/models/tokenizers/tokenizer_json.h) as a filter, for the
// cross-checks against Hugging Face's tokenizers (tests/tokenizer_json_random_check.py):
//   tokenizer_json_tokenize TOKENIZER_JSON [TOKENIZER_CONFIG_JSON] < lines
// Each input line is a JSON string; each output line the JSON list of ids with the special
// tokens the files add, or {"error": "..."} when encode throws. Prints the load time on stderr.
#include "models/tokenizers/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
    using namespace core::models;
    if (argc < 2 || argc > 3) {
        std::cerr << "usage: tokenizer_json_tokenize TOKENIZER_JSON [CONFIG] < json-lines\n";
        return 2;
    }
    try {
        HfFiles files;
        files.tokenizerJson = argv[1];
        if (argc == 3) files.tokenizerConfig = argv[2];
        const auto start = std::chrono::steady_clock::now();
        const std::unique_ptr<ModelTokenizer> tokenizer = openTokenizerJson(files);
        std::cerr << "loaded in "
                  << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               start)
                         .count()
                  << " ms\n";
        std::string line;
        while (std::getline(std::cin, line)) {
            const std::string text = nlohmann::json::parse(line).get<std::string>();
            try {
                const Encoding e = tokenizer->encode(text, nullptr, 1 << 30);
                std::cout << nlohmann::json(e.ids).dump() << '\n';
            } catch (const std::invalid_argument& e) {
                std::cout << nlohmann::json{{"error", e.what()}}.dump() << '\n';
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "tokenizer_json_tokenize: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
