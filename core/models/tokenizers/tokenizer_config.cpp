// tokenizer_config.json (tokenizer_config.h).
#include "models/tokenizers/tokenizer_config.h"

#include "io/text_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace core::models {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::invalid_argument(path + ": " + what);
}

nlohmann::json parseObject(const std::string& text, const std::string& path) {
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        fail(path, "not JSON (error at byte " + std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::out_of_range&) { // e.g. 1e999: no double holds it
        fail(path, "a number is too large to read");
    }
    if (!root.is_object()) fail(path, "not a JSON object");
    return root;
}

std::optional<bool> optionalSwitch(const std::string& path, const nlohmann::json& root,
                                   const char* key) {
    if (!root.contains(key) || root[key].is_null()) return std::nullopt;
    if (!root[key].is_boolean()) fail(path, std::string("\"") + key + "\" is not true or false");
    return root[key].get<bool>();
}

} // namespace

TokenizerConfig readTokenizerConfig(const std::string& path) {
    if (path.empty()) return {};
    const TextFile file = readTextFile(path, kSettingsFileCap);
    if (!file.ok()) fail(path, describeProblem(file.problem, kSettingsFileCap));
    return parseTokenizerConfig(file.text, path);
}

TokenizerConfig parseTokenizerConfig(const std::string& text, const std::string& path) {
    TokenizerConfig config;
    const nlohmann::json root = parseObject(text, path);
    for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
                            "cls_token", "mask_token"}) {
        if (!root.contains(key)) continue;
        const nlohmann::json& value = root[key];
        if (value.is_string())
            config.specialTokens[key] = value.get<std::string>();
        else if (value.is_object() && value.contains("content") && value["content"].is_string())
            config.specialTokens[key] = value["content"].get<std::string>();
        else if (!value.is_null())
            fail(path, std::string("\"") + key + "\" is neither a string nor a token object");
    }
    config.doLowerCase = optionalSwitch(path, root, "do_lower_case");
    config.stripAccents = optionalSwitch(path, root, "strip_accents");
    config.tokenizeChineseChars = optionalSwitch(path, root, "tokenize_chinese_chars");
    config.addPrefixSpace = optionalSwitch(path, root, "add_prefix_space");
    config.addBosToken = optionalSwitch(path, root, "add_bos_token");
    config.addEosToken = optionalSwitch(path, root, "add_eos_token");
    if (root.contains("extra_ids") && !root["extra_ids"].is_null()) {
        const nlohmann::json& n = root["extra_ids"];
        if (!n.is_number_integer() || n.get<long long>() < 0 || n.get<long long>() > 100000)
            fail(path, "\"extra_ids\" is not a count from 0 to 100000");
        config.extraIds = int(n.get<long long>());
    }
    if (root.contains("tokenizer_class") && root["tokenizer_class"].is_string())
        config.tokenizerClass = root["tokenizer_class"].get<std::string>();
    return config;
}

} // namespace core::models
