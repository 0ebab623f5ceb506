// tokenizer_config.json, the settings Hugging Face's tokenizer classes read beside the
// vocabulary: the special tokens' strings and the switches that change the ids (BERT's
// lower-casing, accent stripping and CJK splitting; RoBERTa's prefix space). Absent keys stay
// unset, so each tokenizer keeps its own defaults.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace core::models {

struct TokenizerConfig {
    // "cls_token" -> "[CLS]", ... as strings or as {"content": ...} objects in the file.
    std::map<std::string, std::string> specialTokens;
    std::optional<bool> doLowerCase, stripAccents, tokenizeChineseChars, addPrefixSpace;
    std::optional<bool> addBosToken, addEosToken; // LlamaTokenizerFast's switches
    std::string tokenizerClass;                   // "LlamaTokenizerFast", ... ("" when absent)
    std::optional<int> extraIds; // T5Tokenizer's sentinels <extra_id_N> after the pieces

    std::string token(const std::string& key, const std::string& fallback) const {
        const auto found = specialTokens.find(key);
        return found == specialTokens.end() ? fallback : found->second;
    }
};

// Reads the file; "" gives the empty config. Throws std::invalid_argument naming the file when
// it is not a JSON object or a switch is not true, false or null.
TokenizerConfig readTokenizerConfig(const std::string& path);
// The same for the file's text; `path` names it in messages.
TokenizerConfig parseTokenizerConfig(const std::string& text, const std::string& path);

} // namespace core::models
