// BERT's WordPiece tokenizer (wordpiece_tokenizer.h).
#include "models/tokenizers/wordpiece_tokenizer.h"
#include "io/text_file.h"

#include "models/tokenizers/normalized_text.h"
#include "models/tokenizers/tokenizer_config.h"
#include "models/tokenizers/wordpiece_unicode.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace core::models {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw std::invalid_argument(where + ": " + what);
}

std::string readFile(const std::string& path) {
    TextFile file = readTextFile(path, kTokenizerFileCap);
    if (!file.ok()) fail(path, describeProblem(file.problem, kTokenizerFileCap));
    return std::move(file.text);
}

// vocab.txt: line i is token i, without its "\n" (a "\r" stays, as load_vocab keeps it).
std::vector<std::string> vocabLines(const std::string& path) {
    const std::string text = readFile(path);
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.emplace_back(text, start, end - start);
        start = end + 1;
    }
    if (lines.empty()) fail(path, "the vocabulary is empty");
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        fail(path, "not UTF-8 (byte " + std::to_string(bad) + ")");
    return lines;
}

bool isChinese(char32_t cp) { // tokenizers' BertNormalizer::is_chinese_char
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

} // namespace

WordPieceTokenizer::WordPieceTokenizer(std::vector<std::string> vocab, WordPieceOptions options,
                                       const std::string& where)
    : tokens_(std::move(vocab)), options_(std::move(options)) {
    for (std::size_t id = 0; id < tokens_.size(); ++id) ids_[tokens_[id]] = int(id);
    const auto require = [&](const std::string& token) {
        const int id = idOf(token);
        if (id < 0) fail(where, "the vocabulary has no " + token + ", which BERT's input needs");
        return id;
    };
    cls_ = require(options_.cls), sep_ = require(options_.sep);
    unk_ = require(options_.unk), mask_ = require(options_.mask);
    for (const std::string* s :
         {&options_.cls, &options_.sep, &options_.unk, &options_.mask, &options_.pad})
        if (idOf(*s) >= 0 && !s->empty()) added_.emplace_back(*s, idOf(*s));
    std::stable_sort(added_.begin(), added_.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

int WordPieceTokenizer::idOf(const std::string& token) const {
    const auto found = ids_.find(token);
    return found == ids_.end() ? -1 : found->second;
}

std::unique_ptr<WordPieceTokenizer> WordPieceTokenizer::fromVocab(std::vector<std::string> vocab,
                                                                  WordPieceOptions options,
                                                                  const std::string& where) {
    if (vocab.empty()) fail(where, "the vocabulary is empty");
    return std::unique_ptr<WordPieceTokenizer>(
        new WordPieceTokenizer(std::move(vocab), std::move(options), where));
}

// Steps 2-4 of the header on one stretch of text between special tokens: code points with the
// bytes of the text each came from (`base` added), CJK ideographs between spaces.
void WordPieceTokenizer::normalize(std::string_view text, std::size_t base,
                                   std::vector<Char>& out) const {
    std::vector<Char> chars;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8Length(text, i);
        const char32_t cp = codePointAt(text, i, length);
        const std::size_t b = base + i, e = base + i + length;
        i += length;
        const WordPieceCharKind kind = wordPieceCharKind(cp);
        if (options_.cleanText && (cp == 0 || cp == 0xFFFD || kind == WordPieceCharKind::Control))
            continue;
        const bool space = options_.cleanText && kind == WordPieceCharKind::Whitespace;
        const bool cjk = options_.chineseChars && isChinese(cp);
        if (cjk) chars.push_back({U' ', b, b});
        chars.push_back({space ? U' ' : cp, b, e});
        if (cjk) chars.push_back({U' ', e, e});
    }
    const bool strip = options_.stripAccents.value_or(options_.lowercase);
    std::u32string scratch;
    out.clear();
    for (const Char& c : chars) {
        scratch.clear();
        if (strip)
            appendCanonicalDecomposition(c.cp, scratch);
        else
            scratch += c.cp;
        for (char32_t d : scratch) out.push_back({d, c.begin, c.end});
    }
    if (strip) { // NFD's canonical order: each run of marks sorted by combining class, stably
        for (std::size_t i = 0; i < out.size();) {
            std::size_t j = i;
            while (j < out.size() && combiningClass(out[j].cp) != 0) ++j;
            std::stable_sort(out.begin() + i, out.begin() + j, [](const Char& a, const Char& b) {
                return combiningClass(a.cp) < combiningClass(b.cp);
            });
            i = j == i ? i + 1 : j;
        }
        std::erase_if(
            out, [](const Char& c) { return wordPieceCharKind(c.cp) == WordPieceCharKind::Mark; });
    }
    if (!options_.lowercase) return;
    chars.clear();
    for (const Char& c : out) {
        scratch.clear();
        appendLowercase(c.cp, scratch);
        for (char32_t l : scratch) chars.push_back({l, c.begin, c.end});
    }
    out.swap(chars);
}

// Step 6 on one word.
void WordPieceTokenizer::wordPieces(const std::vector<Char>& word, std::vector<Piece>& out) const {
    if (word.empty()) return;
    const std::size_t n = word.size();
    const Piece whole{unk_, word.front().begin, word.back().end};
    if (int(n) > options_.maxInputChars) {
        out.push_back(whole);
        return;
    }
    std::vector<std::string> utf8(n);
    for (std::size_t i = 0; i < n; ++i) appendUtf8(utf8[i], word[i].cp);
    const std::size_t first = out.size();
    for (std::size_t start = 0; start < n;) {
        std::string candidate = start > 0 ? options_.prefix : "";
        for (std::size_t i = start; i < n; ++i) candidate += utf8[i];
        int id = -1;
        std::size_t end = n;
        for (; end > start; --end) {
            if ((id = idOf(candidate)) >= 0) break;
            candidate.resize(candidate.size() - utf8[end - 1].size());
        }
        if (id < 0) { // one part no entry matches: the whole word is unknown
            out.resize(first);
            out.push_back(whole);
            return;
        }
        out.push_back({id, word[start].begin, word[end - 1].end});
        start = end;
    }
}

void WordPieceTokenizer::tokenize(std::string_view text, std::vector<Piece>& out) const {
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw std::invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(bad) +
                                    ")");
    std::vector<Char> chars, word;
    const auto ordinary = [&](std::size_t begin, std::size_t end) {
        normalize(text.substr(begin, end - begin), begin, chars);
        for (const Char& c : chars) {
            const WordPieceCharKind kind = wordPieceCharKind(c.cp);
            if (kind == WordPieceCharKind::Whitespace || kind == WordPieceCharKind::Punctuation) {
                wordPieces(word, out);
                word.clear();
                if (kind == WordPieceCharKind::Punctuation) wordPieces({c}, out);
                continue;
            }
            word.push_back(c);
        }
        wordPieces(word, out);
        word.clear();
    };
    std::size_t done = 0;
    while (done < text.size()) { // special tokens first, leftmost and then longest
        std::size_t at = std::string_view::npos;
        const std::pair<std::string, int>* found = nullptr;
        for (const auto& added : added_) {
            const std::size_t p = text.find(added.first, done);
            if (p < at) at = p, found = &added;
        }
        ordinary(done, found ? at : text.size());
        if (!found) break;
        out.push_back({found->second, at, at + found->first.size()});
        done = at + found->first.size();
    }
}

std::vector<int> WordPieceTokenizer::encodeText(std::string_view utf8) const {
    std::vector<Piece> pieces;
    tokenize(utf8, pieces);
    std::vector<int> ids;
    for (const Piece& p : pieces) ids.push_back(p.id);
    return ids;
}

std::string WordPieceTokenizer::readable(int id) const {
    if (id < 0 || id >= vocabSize())
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    return tokens_[std::size_t(id)];
}

std::string WordPieceTokenizer::describe() const {
    std::string text = "WordPiece: ";
    text += options_.lowercase ? "lower-cased" : "cased";
    if (options_.stripAccents.value_or(options_.lowercase)) text += ", accents stripped";
    return text + ", [CLS] text [SEP]";
}

} // namespace core::models

namespace core::models {

Encoding WordPieceTokenizer::encode(std::string_view text, const std::string* pair,
                                    int maxTokens) const {
    std::vector<Piece> a, b;
    tokenize(text, a);
    if (pair) tokenize(*pair, b);
    Encoding e;
    const std::size_t specials = pair ? 3 : 2;
    if (a.size() + b.size() + specials > std::size_t(std::max(maxTokens, 0))) {
        const std::size_t total = a.size() + b.size() + specials;
        if (pair || maxTokens < 3)
            throw std::invalid_argument(
                "the pair has " + std::to_string(total) + " tokens with [CLS] and [SEP], more " +
                "than the model's " + std::to_string(maxTokens) + " positions");
        e.warnings.push_back("the text has " + std::to_string(total) + " tokens; kept the first " +
                             std::to_string(maxTokens) + " (the model's context)");
        a.resize(std::size_t(maxTokens) - 2);
    }
    e.tokens.text = std::string(text);
    const auto add = [&](int id, std::size_t begin, std::size_t end, int type, bool special) {
        e.ids.push_back(id);
        e.types.push_back(options_.tokenTypes ? type : 0);
        e.tokens.tokens.push_back({readable(id), begin, end});
        e.special.push_back(special ? 1 : 0);
    };
    add(cls_, 0, 0, 0, true);
    for (const Piece& p : a) add(p.id, p.begin, p.end, 0, false);
    add(sep_, text.size(), text.size(), 0, true);
    if (pair) {
        e.pairStart = int(e.ids.size());
        for (const Piece& p : b) add(p.id, p.begin, p.end, 1, false); // bytes of the pair's text
        add(sep_, pair->size(), pair->size(), 1, true);
    }
    return e;
}

namespace {

std::vector<std::string> tokenizerJsonVocab(const std::string& path, const nlohmann::json& model) {
    const nlohmann::json& vocab = model.value("vocab", nlohmann::json());
    if (!vocab.is_object() || vocab.empty())
        fail(path, "model.vocab is not an object of token: id");
    std::vector<std::string> tokens(vocab.size());
    std::vector<char> seen(vocab.size());
    for (const auto& [token, id] : vocab.items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
            id.get<std::int64_t>() >= std::int64_t(tokens.size()))
            fail(path, "token \"" + token.substr(0, 40) + "\" has id " + id.dump() +
                           ", not one of 0.." + std::to_string(tokens.size() - 1));
        const auto at = std::size_t(id.get<std::int64_t>());
        if (seen[at]) fail(path, "id " + std::to_string(at) + " is given to two tokens");
        seen[at] = 1;
        tokens[at] = token;
    }
    return tokens;
}

// tokenizer.json's WordPiece model and BertNormalizer into options; anything else is refused
// rather than tokenized differently.
std::vector<std::string> readWordPieceJson(const std::string& path, WordPieceOptions& o) {
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(readFile(path));
    } catch (const nlohmann::json::parse_error& e) {
        fail(path, "not JSON (error at byte " + std::to_string(e.byte) + ")");
    }
    const auto typeOf = [](const nlohmann::json& j) {
        return j.is_object() && j.contains("type") && j["type"].is_string()
                   ? j["type"].get<std::string>()
                   : std::string(j.is_null() ? "none" : "?");
    };
    if (!root.is_object() || !root.contains("model") || typeOf(root["model"]) != "WordPiece")
        fail(path, "not a WordPiece tokenizer (BERT's)");
    const nlohmann::json& model = root["model"];
    o.unk = model.value("unk_token", o.unk);
    o.prefix = model.value("continuing_subword_prefix", o.prefix);
    o.maxInputChars = model.value("max_input_chars_per_word", o.maxInputChars);
    const nlohmann::json normalizer = root.value("normalizer", nlohmann::json());
    if (typeOf(normalizer) == "BertNormalizer") {
        o.cleanText = normalizer.value("clean_text", true);
        o.chineseChars = normalizer.value("handle_chinese_chars", true);
        o.lowercase = normalizer.value("lowercase", true);
        const nlohmann::json strip = normalizer.value("strip_accents", nlohmann::json());
        if (strip.is_boolean()) o.stripAccents = strip.get<bool>();
    } else if (!normalizer.is_null()) {
        fail(path, "normalizer " + typeOf(normalizer) + " is not BERT's (BertNormalizer)");
    } else {
        o.cleanText = o.chineseChars = o.lowercase = false;
    }
    const nlohmann::json pre = root.value("pre_tokenizer", nlohmann::json());
    if (typeOf(pre) != "BertPreTokenizer")
        fail(path, "pre_tokenizer " + typeOf(pre) + " is not BERT's (BertPreTokenizer)");
    return tokenizerJsonVocab(path, model);
}

// readWordPieceJson, with a value of the wrong kind (a number where a name belongs) or a number
// no double holds named as the file's problem.
std::vector<std::string> readTokenizerJson(const std::string& path, WordPieceOptions& o) {
    try {
        return readWordPieceJson(path, o);
    } catch (const nlohmann::json::exception& e) {
        fail(path, std::string("unexpected content: ") + e.what());
    }
}

} // namespace

std::unique_ptr<WordPieceTokenizer> WordPieceTokenizer::open(const HfFiles& files,
                                                             bool tokenTypes) {
    const TokenizerConfig config = readTokenizerConfig(files.tokenizerConfig);
    WordPieceOptions o;
    o.tokenTypes = tokenTypes;
    std::vector<std::string> vocab;
    const std::string where = !files.vocabTxt.empty() ? files.vocabTxt : files.tokenizerJson;
    if (!files.vocabTxt.empty())
        vocab = vocabLines(files.vocabTxt);
    else if (!files.tokenizerJson.empty())
        vocab = readTokenizerJson(files.tokenizerJson, o);
    else
        fail(files.config, "no BERT tokenizer: the folder needs vocab.txt or tokenizer.json");
    // tokenizer_config.json wins, as BertTokenizerFast rebuilds its normalizer from it.
    o.lowercase = config.doLowerCase.value_or(o.lowercase);
    if (config.stripAccents) o.stripAccents = config.stripAccents;
    o.chineseChars = config.tokenizeChineseChars.value_or(o.chineseChars);
    o.cls = config.token("cls_token", o.cls), o.sep = config.token("sep_token", o.sep);
    o.unk = config.token("unk_token", o.unk), o.mask = config.token("mask_token", o.mask);
    o.pad = config.token("pad_token", o.pad);
    return fromVocab(std::move(vocab), std::move(o), where);
}

} // namespace core::models
