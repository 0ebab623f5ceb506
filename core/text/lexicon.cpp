// Word features from the embedded lexicon, with regular morphology and guesses.
//
// [SECTION] Parsing assets/lexicon.tsv (once, on first use)
// [SECTION] Character helpers
// [SECTION] Morphology: -s, -ed, -ing, -ly, -er/-est of listed lemmas
// [SECTION] Guesses for unknown words by suffix
// [SECTION] lookupWord, lexiconSize
#include "text/lexicon.h"

#include "base/prng.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace core {

namespace {

using Table = std::unordered_map<std::string, WordFeatures>;

PartOfSpeech parsePos(std::string_view code, std::string_view line) {
    const std::optional<PartOfSpeech> pos = parseEnum<PartOfSpeech>(code);
    if (!pos || *pos == PartOfSpeech::Unknown) // the table lists known words only
        throw std::logic_error("lexicon.tsv: bad part of speech in line: " + std::string(line));
    return *pos;
}

// "-" is the table's spelling of None; otherwise the code the enum's name table gives.
template <typename Enum>
Enum parseOptional(std::string_view code, std::string_view line) {
    if (code == "-") return Enum::None;
    const std::optional<Enum> value = parseEnum<Enum>(code);
    if (!value || *value == Enum::None)
        throw std::logic_error("lexicon.tsv: bad value '" + std::string(code) +
                               "' in line: " + std::string(line));
    return *value;
}

std::vector<std::string_view> splitTabs(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
        if (tab == std::string_view::npos) return fields;
        start = tab + 1;
    }
}

Table parseTable() {
    const std::string_view text = textAsset("lexicon.tsv");
    if (text.empty()) throw std::logic_error("lexicon.tsv is not embedded");
    Table table;
    std::vector<std::string_view> irregularLines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() == '#') continue;
        const auto fields = splitTabs(line);
        if (fields.size() != 5 && fields.size() != 7)
            throw std::logic_error("lexicon.tsv: expected 5 or 7 columns in line: " +
                                   std::string(line));
        const std::string word(fields[0]);
        for (char c : word)
            if (c >= 'A' && c <= 'Z')
                throw std::logic_error("lexicon.tsv: upper case in line: " + std::string(line));
        WordFeatures features;
        features.pos = parsePos(fields[1], line);
        features.number = parseOptional<GrammaticalNumber>(fields[2], line);
        features.animacy = parseOptional<Animacy>(fields[3], line);
        features.semanticClass = parseOptional<SemanticClass>(fields[4], line);
        features.known = true;
        if (fields.size() == 7) {
            features.lemma = std::string(fields[5]);
            features.derivation = std::string(fields[6]);
            features.irregular = true;
            irregularLines.push_back(line);
        } else {
            features.lemma = word;
        }
        features.identity = fnv1a64(features.lemma);
        if (!table.emplace(word, std::move(features)).second)
            throw std::logic_error("lexicon.tsv: duplicate word '" + word + "'");
    }
    // An irregular form must point at a listed base word, or its identity would be orphaned.
    for (std::string_view line : irregularLines) {
        const auto fields = splitTabs(line);
        const auto lemma = table.find(std::string(fields[5]));
        if (lemma == table.end() || lemma->second.irregular)
            throw std::logic_error("lexicon.tsv: lemma not listed in line: " + std::string(line));
    }
    return table;
}

const Table& table() {
    static const Table parsed = parseTable(); // function-local static: thread-safe, parsed once
    return parsed;
}

// Lower-cases ASCII and reads the typographic apostrophe U+2019 as '.
std::string normalize(std::string_view token) {
    std::string key;
    key.reserve(token.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token.compare(i, 3, "\xE2\x80\x99") == 0) {
            key += '\'';
            i += 2;
            continue;
        }
        const char c = token[i];
        key += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    }
    return key;
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
bool isLower(char c) {
    return c >= 'a' && c <= 'z';
}
bool isVowel(char c) {
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}
bool isConsonant(char c) {
    return isLower(c) && !isVowel(c);
}

// "42", "3.14", "1,000" and ordinals "2nd", "21st"; a '.' or ',' must sit between digits, as
// the tokenizer only keeps it inside a number there.
bool isNumeral(std::string_view key) {
    std::size_t i = 0;
    while (i < key.size()) {
        if (isDigit(key[i])) {
            ++i;
        } else if ((key[i] == '.' || key[i] == ',') && i > 0 && i + 1 < key.size() &&
                   isDigit(key[i + 1])) {
            ++i;
        } else {
            break;
        }
    }
    if (i == 0) return false;
    const std::string_view rest = key.substr(i);
    return rest.empty() || rest == "st" || rest == "nd" || rest == "rd" || rest == "th";
}

bool isAsciiPunctuation(std::string_view key) {
    if (key.empty()) return false;
    for (char c : key) {
        const bool punct = (c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
                           (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
        if (!punct) return false;
    }
    return true;
}

bool hasAsciiAlnum(std::string_view key) {
    for (char c : key)
        if (isLower(c) || isDigit(c)) return true;
    return false;
}

// "stopp" -> "stop": undoes the doubled final consonant before -ed, -ing, -er, -est.
void addUndoubled(std::vector<std::string>& out, std::string_view stem) {
    const std::size_t n = stem.size();
    if (n >= 3 && stem[n - 1] == stem[n - 2] && isConsonant(stem[n - 1]))
        out.emplace_back(stem.substr(0, n - 1));
}

// Consonant-vowel-consonant ending ("hop", "mak"): the silent e was probably dropped, so
// "hoping" tries "hope" before "hop". w, x and y never double and rarely drop an e.
bool endsCvc(std::string_view stem) {
    const std::size_t n = stem.size();
    return n >= 2 && isConsonant(stem[n - 1]) && stem[n - 1] != 'w' && stem[n - 1] != 'x' &&
           stem[n - 1] != 'y' && isVowel(stem[n - 2]) && (n == 2 || !isVowel(stem[n - 3]));
}

std::string_view cut(std::string_view s, std::size_t n) {
    return s.substr(0, s.size() - n);
}

struct Rule {
    std::vector<std::string> candidates; // lemma spellings to try, in order
    std::vector<PartOfSpeech> accepts;   // an initializer_list member would dangle
    const char* derivation;
};

// The first candidate that is a listed base word of an accepted part of speech.
const WordFeatures* findLemma(const Rule& rule) {
    for (const std::string& candidate : rule.candidates) {
        if (candidate.size() < 2) continue;
        const auto it = table().find(candidate);
        if (it == table().end() || it->second.irregular) continue;
        for (PartOfSpeech pos : rule.accepts)
            if (it->second.pos == pos) return &it->second;
    }
    return nullptr;
}

WordFeatures inflect(const WordFeatures& lemma, const char* derivation) {
    WordFeatures features = lemma;
    features.derivation = derivation;
    const std::string_view d = derivation;
    if (d == "plural") {
        features.number = GrammaticalNumber::Plural;
    } else if (d == "3sg") {
        features.number = GrammaticalNumber::Singular;
    } else if (d == "ly") {
        features.pos = PartOfSpeech::Adverb;
    }
    return features;
}

// Regular inflection of a listed lemma; see lexicon.h for the rules.
std::optional<WordFeatures> derive(std::string_view key) {
    using P = PartOfSpeech;
    std::vector<Rule> rules;
    if (endsWith(key, "ing")) {
        const std::string_view stem = cut(key, 3);
        Rule rule{{}, {P::Verb}, "ing"};
        if (endsCvc(stem)) {
            rule.candidates = {std::string(stem) + "e", std::string(stem)};
        } else {
            rule.candidates = {std::string(stem), std::string(stem) + "e"};
        }
        addUndoubled(rule.candidates, stem);
        if (endsWith(stem, "y")) rule.candidates.push_back(std::string(cut(stem, 1)) + "ie");
        rules.push_back(std::move(rule));
    }
    if (endsWith(key, "ed")) {
        const std::string_view stem = cut(key, 2);
        Rule rule{{std::string(cut(key, 1)), std::string(stem)}, {P::Verb}, "past"};
        addUndoubled(rule.candidates, stem);
        if (endsWith(key, "ied")) rule.candidates.push_back(std::string(cut(key, 3)) + "y");
        rules.push_back(std::move(rule));
    }
    if (endsWith(key, "ly")) {
        Rule rule{{std::string(cut(key, 2)), std::string(cut(key, 1)),
                   std::string(cut(key, 1)) + "e", std::string(cut(key, 2)) + "e"},
                  {P::Adjective},
                  "ly"};
        if (endsWith(key, "ily")) rule.candidates.push_back(std::string(cut(key, 3)) + "y");
        if (endsWith(key, "ically")) rule.candidates.emplace_back(cut(key, 4));
        rules.push_back(std::move(rule));
    }
    for (const auto& [suffix, derivation] :
         {std::pair{"est", "superlative"}, std::pair{"er", "comparative"}}) {
        if (!endsWith(key, suffix)) continue;
        const std::string_view s = suffix;
        const std::string_view stem = cut(key, s.size());
        Rule rule{
            {std::string(stem), std::string(cut(key, s.size() - 1))}, {P::Adjective}, derivation};
        addUndoubled(rule.candidates, stem);
        if (endsWith(stem, "i")) rule.candidates.push_back(std::string(cut(stem, 1)) + "y");
        rules.push_back(std::move(rule));
    }
    if (endsWith(key, "s") && !endsWith(key, "ss")) {
        Rule rule{{std::string(cut(key, 1))}, {P::Noun, P::Verb, P::Number}, "plural"};
        if (endsWith(key, "es")) rule.candidates.emplace_back(cut(key, 2));
        if (endsWith(key, "ies")) rule.candidates.push_back(std::string(cut(key, 3)) + "y");
        if (endsWith(key, "ves")) {
            rule.candidates.push_back(std::string(cut(key, 3)) + "f");
            rule.candidates.push_back(std::string(cut(key, 3)) + "fe");
        }
        rules.push_back(std::move(rule));
    }
    for (const Rule& rule : rules) {
        const WordFeatures* lemma = findLemma(rule);
        if (!lemma) continue;
        // -s on a verb is the third person singular, not a plural.
        const char* derivation = rule.derivation;
        if (std::string_view(derivation) == "plural" && lemma->pos == P::Verb) derivation = "3sg";
        return inflect(*lemma, derivation);
    }
    return std::nullopt;
}

// Best guess from the ending alone, for words neither listed nor derivable.
WordFeatures guess(const std::string& key) {
    WordFeatures features;
    features.lemma = key;
    features.identity = fnv1a64(key);
    features.derivation = "guess";
    if (!hasAsciiAlnum(key)) return features; // other scripts, emoji, symbols: no English guess
    struct Suffix {
        std::string_view text;
        PartOfSpeech pos;
    };
    using P = PartOfSpeech;
    static constexpr std::array<Suffix, 30> suffixes = {{
        {"tion", P::Noun},      {"sion", P::Noun},      {"ness", P::Noun},
        {"ment", P::Noun},      {"ity", P::Noun},       {"ism", P::Noun},
        {"ance", P::Noun},      {"ence", P::Noun},      {"ship", P::Noun},
        {"hood", P::Noun},      {"dom", P::Noun},       {"ous", P::Adjective},
        {"ful", P::Adjective},  {"ive", P::Adjective},  {"able", P::Adjective},
        {"ible", P::Adjective}, {"less", P::Adjective}, {"ish", P::Adjective},
        {"al", P::Adjective},   {"ic", P::Adjective},   {"ize", P::Verb},
        {"ise", P::Verb},       {"ate", P::Verb},       {"ify", P::Verb},
        {"ing", P::Verb},       {"ed", P::Verb},        {"ly", P::Adverb},
        {"ss", P::Noun},        {"us", P::Noun},        {"is", P::Noun},
    }};
    features.pos = P::Noun;
    features.number = GrammaticalNumber::Singular;
    for (const Suffix& suffix : suffixes) {
        // The stem must keep two letters, so "bed"-like short words are not read as -ed.
        if (key.size() < suffix.text.size() + 2 || !endsWith(key, suffix.text)) continue;
        features.pos = suffix.pos;
        if (suffix.pos == P::Noun && suffix.text.size() >= 3) {
            features.animacy = Animacy::Inanimate;
            features.semanticClass = SemanticClass::Abstract;
        } else if (suffix.pos != P::Noun) {
            features.number = GrammaticalNumber::None;
        }
        return features;
    }
    // -s after anything but -ss/-us/-is (handled above): most likely a plural noun.
    if (key.size() >= 4 && endsWith(key, "s")) features.number = GrammaticalNumber::Plural;
    return features;
}

} // namespace

WordFeatures lookupWord(std::string_view token) {
    const std::string key = normalize(token);
    if (key.empty()) return guess(key);
    const auto it = table().find(key);
    if (it != table().end()) return it->second;
    if (isNumeral(key)) {
        WordFeatures features;
        features.pos = PartOfSpeech::Number;
        const bool one = key == "1" || key == "1st";
        features.number = one ? GrammaticalNumber::Singular : GrammaticalNumber::Plural;
        features.semanticClass = SemanticClass::Quantity;
        features.lemma = key;
        features.known = true;
        features.derivation = "numeral";
        features.identity = fnv1a64(key);
        return features;
    }
    if (isAsciiPunctuation(key)) {
        WordFeatures features;
        features.pos = PartOfSpeech::Punctuation;
        features.lemma = key;
        features.known = true;
        features.identity = fnv1a64(key);
        return features;
    }
    if (auto derived = derive(key)) return *derived;
    return guess(key);
}

std::size_t lexiconSize() {
    return table().size();
}

} // namespace core
