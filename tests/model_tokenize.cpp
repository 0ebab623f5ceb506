// A real model's tokenizer as a filter, for the cross-checks against the JavaScript reference
// (tokenizer_random_check.py):
//   model_tokenize bert|roberta DIR < lines
// DIR holds vocab.txt (bert) or vocab.json + merges.txt (roberta), and tokenizer_config.json.
// Each input line is a JSON string, or [text, pair] (an empty pair is none, as in Hugging Face);
// each output line is the JSON list of the
// ids with the model's special tokens, or {"error": "..."} when encode throws.
#include "models/architectures.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

std::string fileIn(const std::string& dir, const char* name) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    return std::filesystem::exists(path) ? path.string() : std::string();
}

} // namespace

int main(int argc, char** argv) {
    using namespace core::models;
    if (argc != 3) {
        std::cerr << "usage: model_tokenize bert|roberta DIR < json-lines\n";
        return 2;
    }
    try {
        const std::string family = argv[1], dir = argv[2];
        HfFiles files;
        files.vocabTxt = fileIn(dir, "vocab.txt");
        files.vocabJson = fileIn(dir, "vocab.json");
        files.merges = fileIn(dir, "merges.txt");
        files.tokenizerConfig = fileIn(dir, "tokenizer_config.json");
        const Architecture* architecture = findArchitecture(family); // its registry entry
        if (!architecture) throw std::invalid_argument("no family " + family);
        ModelConfig config;
        config.typeVocabSize = 2; // BERT's segments A and B
        const std::unique_ptr<const ModelTokenizer> tokenizer =
            architecture->openTokenizer(files, config);
        std::string line;
        while (std::getline(std::cin, line)) {
            const nlohmann::json input = nlohmann::json::parse(line);
            const bool pair = input.is_array() && !input[1].get<std::string>().empty();
            const std::string text =
                input.is_array() ? input[0].get<std::string>() : input.get<std::string>();
            const std::string second = pair ? input[1].get<std::string>() : std::string();
            try {
                const Encoding e = tokenizer->encode(text, pair ? &second : nullptr, 1 << 20);
                std::cout << nlohmann::json(e.ids).dump() << '\n';
            } catch (const std::invalid_argument& e) {
                std::cout << nlohmann::json{{"error", e.what()}}.dump() << '\n';
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "model_tokenize: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
