// tokenizer.json's BPE model (bpe_model.h).
#include "models/tokenizers/bpe_model.h"

#include "models/tokenizers/byte_level_bpe.h"
#include "text/utf8.h"

#include <algorithm>
#include <cstdio>
#include <queue>
#include <stdexcept>

namespace core::models {
namespace {

constexpr std::int64_t kMaxId = (1 << 24) - 1; // far above any real vocabulary; bounds the table

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::invalid_argument(path + ": " + what);
}

std::string shown(std::string_view text) {
    return quotedToken(text);
}

std::string optionalString(const std::string& path, const nlohmann::json& model, const char* key) {
    if (!model.contains(key) || model[key].is_null()) return {};
    if (!model[key].is_string()) fail(path, std::string("model.") + key + " is not a string");
    return model[key].get<std::string>();
}

bool optionalSwitch(const std::string& path, const nlohmann::json& model, const char* key) {
    if (!model.contains(key) || model[key].is_null()) return false;
    if (!model[key].is_boolean()) fail(path, std::string("model.") + key + " is not true or false");
    return model[key].get<bool>();
}

} // namespace

BpeModel BpeModel::read(TokenizerJsonFile& file, const nlohmann::json& model) {
    BpeModel bpe;
    if (model.contains("dropout") && !model["dropout"].is_null() &&
        !(model["dropout"].is_number() && model["dropout"].get<double>() == 0.0))
        fail(file.path, "model.dropout makes the ids random; only null or 0 is supported");
    if (model.contains("unk_token") && !model["unk_token"].is_null())
        bpe.unk_ = optionalString(file.path, model, "unk_token");
    bpe.prefix_ = optionalString(file.path, model, "continuing_subword_prefix");
    bpe.suffix_ = optionalString(file.path, model, "end_of_word_suffix");
    bpe.fuseUnk_ = optionalSwitch(file.path, model, "fuse_unk");
    bpe.byteFallback_ = optionalSwitch(file.path, model, "byte_fallback");
    bpe.ignoreMerges_ = optionalSwitch(file.path, model, "ignore_merges");
    bpe.readVocab(file);
    bpe.readMerges(file);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        bpe.byteIds_[b] = bpe.idOf(name);
    }
    return bpe;
}

void BpeModel::readVocab(const TokenizerJsonFile& file) {
    if (!file.hasVocab) fail(file.path, "model.vocab is not an object of token: id");
    ids_.reserve(file.vocab.size());
    for (const auto& [token, id] : file.vocab) {
        if (id == INT64_MIN)
            fail(file.path,
                 "model.vocab: " + shown(token) + " has an id that is not a whole number");
        if (id < 0 || id > kMaxId)
            fail(file.path, "model.vocab: " + shown(token) + " has id " + std::to_string(id) +
                                ", outside 0.." + std::to_string(kMaxId));
        if (std::size_t(id) >= tokens_.size()) tokens_.resize(std::size_t(id) + 1);
        if (tokens_[std::size_t(id)].empty()) tokens_[std::size_t(id)] = token;
        ids_.set(token, int(id)); // a key given twice: the later, as a JSON map reads
    }
    if (ids_.size() == 0) fail(file.path, "model.vocab is empty");
}

void BpeModel::readMerges(TokenizerJsonFile& file) {
    if (!file.hasMerges) fail(file.path, "model.merges is not a list");
    if (file.badMerge)
        fail(file.path,
             "merge " + std::to_string(file.badMerge) + " is neither \"a b\" nor [\"a\", \"b\"]");
    merges_.reserve(file.merges.size());
    std::string joined;
    for (std::size_t i = 0; i < file.merges.size(); ++i) {
        const auto& [left, right] = file.merges[i];
        const auto require = [&](std::string_view token) {
            const int id = idOf(token);
            if (id < 0)
                fail(file.path, "merge " + std::to_string(i + 1) + ": " + shown(token) +
                                    " is not in the vocabulary");
            return id;
        };
        const int a = require(left), b = require(right);
        // The join drops the right part's continuing_subword_prefix, as tokenizers does.
        const std::size_t skip =
            right.compare(0, prefix_.size(), prefix_) == 0 ? prefix_.size() : 0;
        joined.assign(left).append(right, skip);
        const int result = require(joined);
        merges_.set(a, b, Merge{std::uint32_t(i), result});
    }
    file.merges.clear();
    file.merges.shrink_to_fit();
}

int BpeModel::idOf(std::string_view token) const {
    return ids_.find(token);
}

const std::string& BpeModel::tokenOf(int id) const {
    static const std::string none;
    return id >= 0 && id < size() ? tokens_[std::size_t(id)] : none;
}

const BpeModel::Merge* BpeModel::mergeOf(int left, int right) const {
    return merges_.find(left, right);
}

void BpeModel::addUnknown(std::vector<Symbol>& symbols, std::optional<Symbol>& unk) const {
    if (unk) symbols.push_back(*unk);
    unk.reset();
}

// The symbols before merging: each character's entry, its bytes, or the unknown token.
void BpeModel::characters(std::string_view word, std::vector<Symbol>& symbols) const {
    std::optional<Symbol> unk;
    std::string affixed;
    for (std::size_t i = 0; i < word.size();) {
        std::size_t length = utf8Length(word, i);
        if (length == 0) length = 1;
        const bool first = i == 0, last = i + length == word.size();
        std::string_view piece = word.substr(i, length);
        if ((!first && !prefix_.empty()) || (last && !suffix_.empty())) {
            affixed.assign(first ? std::string() : prefix_).append(piece);
            if (last) affixed += suffix_;
            piece = affixed;
        }
        const std::uint32_t begin = std::uint32_t(i), end = std::uint32_t(i + length);
        i += length;
        if (const int id = idOf(piece); id >= 0) {
            addUnknown(symbols, unk);
            symbols.push_back({id, 0, 0, begin, end});
            continue;
        }
        if (byteFallback_ && std::all_of(piece.begin(), piece.end(), [&](char c) {
                return byteIds_[static_cast<unsigned char>(c)] >= 0;
            })) { // as tokenizers: an unknown token waiting before them stays waiting
            for (std::size_t k = 0; k < piece.size(); ++k)
                symbols.push_back({byteIds_[static_cast<unsigned char>(piece[k])], 0, 0,
                                   std::uint32_t(std::min<std::size_t>(begin + k, end - 1)),
                                   std::uint32_t(std::min<std::size_t>(begin + k + 1, end))});
            continue;
        }
        if (!unk_) continue; // no unk_token: the character is dropped
        const int unkId = idOf(*unk_);
        if (unkId < 0)
            throw std::invalid_argument("the unk_token " + shown(*unk_) +
                                        " is not in the vocabulary");
        if (unk && fuseUnk_) {
            unk->end = end;
            continue;
        }
        addUnknown(symbols, unk);
        unk = Symbol{unkId, 0, 0, begin, end};
    }
    addUnknown(symbols, unk);
}

// Lowest rank first, then leftmost; a queued pair no longer in the word is skipped.
void BpeModel::mergeAll(std::vector<Symbol>& symbols) const {
    const int n = int(symbols.size());
    for (int k = 0; k < n; ++k)
        symbols[std::size_t(k)].prev = k - 1, symbols[std::size_t(k)].next = k + 1 < n ? k + 1 : -1;
    struct Queued {
        std::uint32_t rank;
        int pos, result;
        bool operator<(const Queued& o) const { // std::priority_queue takes the largest
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    std::priority_queue<Queued> queue;
    const auto enqueue = [&](int pos) {
        const Symbol& s = symbols[std::size_t(pos)];
        if (s.next < 0) return;
        if (const Merge* m = mergeOf(s.id, symbols[std::size_t(s.next)].id))
            queue.push({m->rank, pos, m->result});
    };
    for (int k = 0; k + 1 < n; ++k) enqueue(k);
    while (!queue.empty()) {
        const Queued top = queue.top();
        queue.pop();
        Symbol& s = symbols[std::size_t(top.pos)];
        if (s.end == s.begin || s.next < 0) continue; // merged away, or last
        Symbol& right = symbols[std::size_t(s.next)];
        const Merge* m = mergeOf(s.id, right.id);
        if (!m || m->result != top.result) continue; // out of date
        s.id = top.result, s.end = right.end, s.next = right.next;
        right.end = right.begin; // removed
        if (s.next >= 0) symbols[std::size_t(s.next)].prev = top.pos;
        if (s.prev >= 0) enqueue(s.prev);
        enqueue(top.pos);
    }
    std::erase_if(symbols, [](const Symbol& s) { return s.end == s.begin; });
}

void BpeModel::tokenize(std::string_view word, std::vector<BpeToken>& out) const {
    if (word.empty()) return;
    if (ignoreMerges_)
        if (const int id = idOf(word); id >= 0) {
            out.push_back({id, 0, std::uint32_t(word.size())});
            return;
        }
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    characters(word, symbols);
    mergeAll(symbols);
    for (const Symbol& s : symbols) out.push_back({s.id, s.begin, s.end});
}

} // namespace core::models
