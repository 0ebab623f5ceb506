#include "models/tokenizers/byte_level_bpe.h"
#include "io/text_file.h"

#include "models/tokenizers/unicode_classes.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace core::models {
namespace {

constexpr int kNoRank = INT_MAX;
constexpr int kMaxId = (1 << 24) - 1; // far above any real vocabulary; bounds the id table

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::invalid_argument(path + ": " + what);
}

std::string shown(std::string_view text) {
    return quotedToken(text);
}

std::string readFile(const std::string& path) {
    TextFile file = readTextFile(path, kTokenizerFileCap);
    if (!file.ok()) fail(path, describeProblem(file.problem, kTokenizerFileCap));
    return std::move(file.text);
}

// The byte each code point of the byte-level alphabet stands for (-1: not in the alphabet).
// The printable bytes '!'..'~', '¡'..'¬', '®'..'ÿ' stand for themselves; the other 68 bytes
// are U+0100 + n in byte order, so that every byte is a visible character in vocab.json.
const std::array<int, 0x144>& alphabetBytes() {
    static const std::array<int, 0x144> table = [] {
        std::array<int, 0x144> t;
        t.fill(-1);
        int next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            t[printable ? b : next++] = b;
        }
        return t;
    }();
    return table;
}

// A vocabulary entry's raw bytes: each character of the byte-level alphabet is its byte. An
// entry with other characters cannot come out of encode; it keeps its own UTF-8 text.
std::string entryBytes(const std::string& token) {
    std::string raw;
    for (std::size_t i = 0; i < token.size();) {
        const std::size_t length = utf8Length(token, i);
        const char32_t cp = length ? codePointAt(token, i, length) : 0x144;
        if (cp >= 0x144 || alphabetBytes()[cp] < 0) return token;
        raw += static_cast<char>(alphabetBytes()[cp]);
        i += length;
    }
    return raw;
}

struct CodePoints {
    std::vector<CharClass> classes;
    std::vector<char32_t> values;
    std::vector<std::size_t> offsets; // byte offset of each, then the text's size
};

// Decodes text already checked to be valid UTF-8.
void decode(std::string_view text, CodePoints& out) {
    out.classes.clear(), out.values.clear(), out.offsets.clear();
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8Length(text, i);
        const char32_t cp = codePointAt(text, i, length);
        out.values.push_back(cp);
        out.classes.push_back(charClass(cp));
        out.offsets.push_back(i);
        i += length;
    }
    out.offsets.push_back(text.size());
}

// Where the pre-token starting at code point i ends: the first alternative of GPT-2's pattern
// that matches there, as Python's `regex` tries them. Its \s is the White_Space property (the
// reference's meaning for str patterns): JavaScript's \s also has U+FEFF and lacks U+0085.
std::size_t preTokenEnd(const CodePoints& text, std::size_t i) {
    const std::vector<char32_t>& cp = text.values;
    const std::vector<CharClass>& kind = text.classes;
    const std::size_t n = cp.size();
    if (cp[i] == U'\'' && i + 1 < n) { // 's 't 're 've 'm 'll 'd, lower case only
        const char32_t a = cp[i + 1], b = i + 2 < n ? cp[i + 2] : 0;
        if (a == U's' || a == U't' || a == U'm' || a == U'd') return i + 2;
        if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l'))
            return i + 3;
    }
    // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": one U+0020 joins the run after it.
    const std::size_t start =
        cp[i] == U' ' && i + 1 < n && kind[i + 1] != CharClass::Space ? i + 1 : i;
    std::size_t end = start + 1;
    if (kind[start] != CharClass::Space) {
        while (end < n && kind[end] == kind[start]) ++end;
        return end;
    }
    // "\s+(?!\S)": a whitespace run gives its last character to the word after it (if that
    // leaves any); "\s+": a single whitespace character before a word.
    while (end < n && kind[end] == CharClass::Space) ++end;
    return end == n || end - 1 == i ? end : end - 1;
}

} // namespace

nlohmann::json readTokenizerJson(const std::string& path) {
    try {
        return nlohmann::json::parse(readFile(path));
    } catch (const nlohmann::json::parse_error& e) {
        fail(path, "not JSON (error at byte " + std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::out_of_range&) { // e.g. 1e999: no double holds it
        fail(path, "a number is too large to read");
    }
}

// Fills a tokenizer from parsed files, checking what Hugging Face's `tokenizers` checks.
struct ByteLevelBpe::Builder {
    ByteLevelBpe t;
    std::unordered_map<std::string, int> ids; // vocabulary entry (byte-level form) -> id
    int merges = 0;

    void addEntry(const std::string& where, const std::string& token, int id) {
        if (id < 0 || id > kMaxId)
            fail(where, shown(token) + " has id " + std::to_string(id) + ", outside 0.." +
                            std::to_string(kMaxId));
        if (static_cast<std::size_t>(id) >= t.bytes_.size()) {
            t.bytes_.resize(id + 1), t.present_.resize(id + 1), t.special_.resize(id + 1);
        }
        if (t.present_[id])
            fail(where, "id " + std::to_string(id) + " is given to two tokens, " + shown(token) +
                            " and another");
        t.present_[id] = 1;
        t.bytes_[id] = entryBytes(token);
        ids.emplace(token, id);
    }

    void addVocab(const std::string& where, const nlohmann::json& vocab) {
        if (!vocab.is_object()) fail(where, "the vocabulary is not an object of token: id");
        for (const auto& [token, id] : vocab.items()) {
            if (!id.is_number_integer())
                fail(where, shown(token) + " has id " + shown(id.dump()) + ", not a whole number");
            const auto value = id.get<std::int64_t>();
            addEntry(where, token, static_cast<int>(std::clamp<std::int64_t>(value, -1, INT_MAX)));
        }
        if (ids.empty()) fail(where, "the vocabulary is empty");
    }

    // One merge, the next rank. `what` names it in messages ("line 5", "merge 5").
    void addMerge(const std::string& where, const std::string& what, std::string_view left,
                  std::string_view right) {
        const int rank = merges++;
        const auto idOf = [&](const std::string& token) {
            const auto found = ids.find(token);
            if (found == ids.end())
                fail(where, what + ": " + shown(token) + " is not in the vocabulary");
            return found->second;
        };
        const int a = idOf(std::string(left)), b = idOf(std::string(right));
        const int result = idOf(std::string(left) + std::string(right));
        const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | static_cast<unsigned>(b);
        t.merges_[key] = Merge{rank, result}; // a repeated pair takes its later rank
    }

    // A merge written "a b": exactly one space between two tokens.
    void addMergeLine(const std::string& where, const std::string& what, std::string_view line) {
        const std::size_t space = line.find(' ');
        if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string_view::npos)
            fail(where, what + " is not two tokens separated by one space: " + shown(line));
        addMerge(where, what, line.substr(0, space), line.substr(space + 1));
    }

    void addSpecial(const std::string& where, const std::string& text, int id, bool lstrip = false,
                    bool rstrip = false) {
        if (text.empty()) fail(where, "added token " + std::to_string(id) + " is empty");
        const auto found = ids.find(text);
        if (found != ids.end() && found->second != id)
            fail(where, "added token " + shown(text) + " has id " + std::to_string(id) +
                            " but the vocabulary gives it " + std::to_string(found->second));
        if (found == ids.end()) addEntry(where, text, id);
        t.bytes_[id] = text; // added tokens are raw text, not the byte-level alphabet
        t.special_[id] = 1;
        for (Special& s : t.specials_)
            if (s.text == text) { // listed twice (vocab.json and a config): one entry
                s = Special{text, id, lstrip, rstrip};
                return;
            }
        t.specials_.push_back(Special{text, id, lstrip, rstrip});
    }

    ByteLevelBpe finish(const std::string& where) {
        for (int b = 0; b < 256; ++b) {
            const int cp =
                static_cast<int>(std::find(alphabetBytes().begin(), alphabetBytes().end(), b) -
                                 alphabetBytes().begin());
            std::string token;
            appendUtf8(token, static_cast<char32_t>(cp));
            const auto found = ids.find(token);
            if (found == ids.end()) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "%02X", b);
                fail(where, std::string("the vocabulary has no token for byte 0x") + hex + " (" +
                                shown(token) + "), which a byte-level BPE needs");
            }
            t.byteIds_[b] = found->second;
        }
        std::stable_sort(
            t.specials_.begin(), t.specials_.end(),
            [](const Special& x, const Special& y) { return x.text.size() > y.text.size(); });
        for (const Special& s : t.specials_)
            if (s.text == "<|endoftext|>") t.endOfText_ = s.id;
        return std::move(t);
    }
};

ByteLevelBpe ByteLevelBpe::fromVocabAndMerges(const std::string& vocabJsonPath,
                                              const std::string& mergesPath,
                                              const std::vector<AddedToken>& added) {
    Builder builder;
    builder.addVocab(vocabJsonPath, readTokenizerJson(vocabJsonPath));
    const std::string merges = readFile(mergesPath);
    std::size_t lineNumber = 0;
    for (std::size_t start = 0; start < merges.size();) {
        std::size_t end = merges.find('\n', start);
        if (end == std::string::npos) end = merges.size();
        std::string_view line(merges.data() + start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        start = end + 1;
        ++lineNumber;
        if (lineNumber == 1 && line.substr(0, 8) == "#version") continue; // the header
        if (line.empty()) continue; // a blank line (one at the end, often) merges nothing
        builder.addMergeLine(mergesPath, "line " + std::to_string(lineNumber), line);
    }
    // vocab.json has no list of added tokens; GPT-2's one is in it.
    const auto endOfText = builder.ids.find("<|endoftext|>");
    if (endOfText != builder.ids.end())
        builder.addSpecial(vocabJsonPath, endOfText->first, endOfText->second);
    for (const AddedToken& token : added) {
        const auto found = builder.ids.find(token.text);
        if (found == builder.ids.end())
            fail(vocabJsonPath, "the special token " + shown(token.text) + " is not in it");
        builder.addSpecial(vocabJsonPath, token.text, found->second, token.lstrip, token.rstrip);
    }
    return builder.finish(vocabJsonPath);
}

namespace {

// The length of the whitespace run that ends at `end` / starts at `begin` (an added token's
// lstrip / rstrip take it).
std::size_t spaceBefore(std::string_view text, std::size_t end) {
    std::size_t start = end;
    while (start > 0) {
        std::size_t lead = start - 1;
        while (lead > 0 && (static_cast<unsigned char>(text[lead]) & 0xC0) == 0x80) --lead;
        const std::size_t length = utf8Length(text, lead);
        if (charClass(codePointAt(text, lead, length)) != CharClass::Space) break;
        start = lead;
    }
    return end - start;
}

std::size_t spaceAfter(std::string_view text, std::size_t begin) {
    std::size_t end = begin;
    while (end < text.size()) {
        const std::size_t length = utf8Length(text, end);
        if (charClass(codePointAt(text, end, length)) != CharClass::Space) break;
        end += length;
    }
    return end - begin;
}

} // namespace

std::vector<int> ByteLevelBpe::encode(std::string_view utf8) const {
    if (const std::size_t bad = firstInvalidUtf8(utf8); bad != std::string_view::npos)
        throw std::invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(bad) +
                                    ")");
    std::vector<int> ids;
    // Added tokens first, leftmost and then longest, as Hugging Face splits them out.
    std::size_t done = 0;
    while (done < utf8.size()) {
        std::size_t at = std::string_view::npos;
        const Special* found = nullptr;
        for (const Special& s : specials_) {
            const std::size_t p = utf8.find(s.text, done);
            if (p < at) at = p, found = &s;
        }
        std::size_t end = at == std::string_view::npos ? utf8.size() : at;
        if (found && found->lstrip) end -= spaceBefore(utf8.substr(done, end - done), end - done);
        encodeOrdinary(utf8.substr(done, end - done), ids);
        if (!found) break;
        ids.push_back(found->id);
        done = at + found->text.size();
        if (found->rstrip) done += spaceAfter(utf8, done);
    }
    return ids;
}

int ByteLevelBpe::idOf(std::string_view token) const {
    for (const Special& s : specials_)
        if (s.text == token) return s.id;
    for (int id = 0; id < vocabSize(); ++id)
        if (present_[id] && !special_[id] && bytes_[id] == token) return id;
    return -1;
}

void ByteLevelBpe::encodeOrdinary(std::string_view text, std::vector<int>& ids) const {
    if (text.empty()) return;
    std::string prefixed;
    if (addPrefixSpace_ && text.front() != ' ') { // as tokenizers' ByteLevel, per stretch
        prefixed = " " + std::string(text);
        text = prefixed;
    }
    CodePoints points;
    decode(text, points);
    std::vector<int> word;
    std::vector<Merge> pairs;
    for (std::size_t i = 0; i < points.values.size();) {
        const std::size_t end = preTokenEnd(points, i);
        word.clear();
        for (std::size_t b = points.offsets[i]; b < points.offsets[end]; ++b)
            word.push_back(byteIds_[static_cast<unsigned char>(text[b])]);
        applyMerges(word, pairs);
        ids.insert(ids.end(), word.begin(), word.end());
        i = end;
    }
}

ByteLevelBpe::Merge ByteLevelBpe::mergeOf(int left, int right) const {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(left) << 32) | static_cast<unsigned>(right);
    const auto found = merges_.find(key);
    return found == merges_.end() ? Merge{kNoRank, -1} : found->second;
}

// encoder.py's loop: the adjacent pair of lowest rank is merged wherever it occurs, left to
// right without overlap, until no pair has a rank. pairs[k] is the merge of word[k], word[k+1];
// after a round only the pairs touching a new symbol are looked up again.
void ByteLevelBpe::applyMerges(std::vector<int>& word, std::vector<Merge>& pairs) const {
    std::size_t n = word.size();
    if (n < 2) return;
    pairs.resize(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) pairs[k] = mergeOf(word[k], word[k + 1]);
    constexpr std::size_t kMerged = SIZE_MAX;
    std::vector<std::size_t> origin(n); // a symbol's index before the round, or kMerged
    while (n > 1) {
        int best = kNoRank;
        for (std::size_t k = 0; k + 1 < n; ++k) best = std::min(best, pairs[k].rank);
        if (best == kNoRank) break;
        std::size_t w = 0;
        for (std::size_t k = 0; k < n; ++w) {
            const bool merge = k + 1 < n && pairs[k].rank == best; // ranks are unique per pair
            word[w] = merge ? pairs[k].result : word[k];
            origin[w] = merge ? kMerged : k;
            k += merge ? 2 : 1;
        }
        // In place: origin[q] >= q, so pairs[origin[q]] is not yet overwritten.
        for (std::size_t q = 0; q + 1 < w; ++q) {
            const bool kept = origin[q] != kMerged && origin[q + 1] != kMerged;
            pairs[q] = kept ? pairs[origin[q]] : mergeOf(word[q], word[q + 1]);
        }
        n = w;
    }
    word.resize(n);
}

const std::string& ByteLevelBpe::entry(int id) const {
    if (id < 0 || id >= vocabSize() || !present_[id])
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    return bytes_[id];
}

std::string ByteLevelBpe::bytesOf(int id) const {
    return entry(id);
}

std::string ByteLevelBpe::readable(int id) const {
    const std::string& bytes = entry(id);
    return special_[id] ? bytes : readableBytes(bytes);
}

std::string quotedToken(std::string_view text) {
    std::string out = "\"";
    for (char c : text.substr(0, 40)) out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    return out + (text.size() > 40 ? "...\"" : "\"");
}

std::string readableBytes(std::string_view bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        const unsigned char c = static_cast<unsigned char>(bytes[i]);
        const std::size_t length = utf8Length(bytes, i);
        const bool control =
            c < 0x20 || c == 0x7F ||
            (c == 0xC2 && length == 2 && static_cast<unsigned char>(bytes[i + 1]) < 0xA0);
        if (c == ' ')
            out += "\u2423";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\r')
            out += "\\r";
        else if (length == 0 || control) { // a piece of a character, or a C0 / C1 control
            char hex[8];
            std::snprintf(hex, sizeof hex, "<%02X>", c);
            out += hex;
            i += 1;
            continue;
        } else
            out.append(bytes, i, length);
        i += length;
    }
    return out;
}

std::string decodeTokens(const ByteLevelBpe& tokenizer, const std::vector<int>& ids) {
    std::string bytes;
    for (int id : ids) bytes += tokenizer.bytesOf(id);
    return sanitizeUtf8(bytes);
}

} // namespace core::models
