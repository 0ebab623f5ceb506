// Running a CodePointRegex (code_point_regex.h): classes, and the backtracking search with its
// memory of the states tried.
#include "models/tokenizers/code_point_regex.h"

#include "models/tokenizers/tokenizer_unicode.h"

#include <unordered_set>

namespace core::models {
namespace {

bool itemMatches(const CodePointRegex::Item& item, char32_t cp) {
    using Item = CodePointRegex::Item;
    bool in = false;
    switch (item.kind) {
    case Item::Range:
        in = cp >= item.low && cp <= item.high;
        break;
    case Item::Categories:
        in = (item.categories >> unsigned(generalCategory(cp))) & 1u;
        break;
    case Item::WhiteSpace:
        in = isWhiteSpace(cp);
        break;
    case Item::Word:
        in = isWordCharacter(cp);
        break;
    case Item::Alphabetic:
        in = isAlphabetic(cp);
        break;
    }
    return in != item.negated;
}

} // namespace

bool isWordCharacter(char32_t cp) {
    if (cp == 0x200C || cp == 0x200D || isAlphabetic(cp)) return true;
    const GeneralCategory c = generalCategory(cp);
    return c == GeneralCategory::Mn || c == GeneralCategory::Mc || c == GeneralCategory::Me ||
           c == GeneralCategory::Nd || c == GeneralCategory::Pc;
}

bool CodePointRegex::CharSet::matchesUncached(char32_t cp) const {
    const auto any = [&](char32_t c) {
        for (const Item& item : items)
            if (itemMatches(item, c)) return true;
        return false;
    };
    bool in = any(cp);
    if (!in && caseless) {
        std::u32string variants;
        appendCaseVariants(cp, variants);
        for (char32_t v : variants) in = in || any(v);
    }
    return in != negated;
}

bool CodePointRegex::CharSet::matches(char32_t cp) const {
    if (cp < 128) return (ascii[cp >> 6] >> (cp & 63)) & 1u;
    return matchesUncached(cp);
}

// One search over one text: the states (instruction, position) already tried are failures
// (a state's outcome depends on nothing else), so each is tried at most once per search.
class RegexRun {
  public:
    RegexRun(const CodePointRegex& regex, std::u32string_view text)
        : regex_(regex), text_(text), width_(text.size() + 1) {
        const std::size_t states = regex.program_.size() * width_;
        if (states <= (std::size_t(1) << 26)) bits_.assign((states + 63) / 64, 0);
    }

    // The end of the first-priority match starting at `start`, or npos.
    std::size_t matchAt(std::uint32_t pc, std::size_t start) {
        std::vector<std::pair<std::uint32_t, std::size_t>> stack = {{pc, start}};
        while (!stack.empty()) {
            auto [at, pos] = stack.back();
            stack.pop_back();
            while (markNew(at, pos)) {
                const CodePointRegex::Instruction& in = regex_.program_[at];
                if (in.op == CodePointRegex::Instruction::Match) return pos;
                if (in.op == CodePointRegex::Instruction::Char) {
                    if (pos >= text_.size() || !regex_.sets_[in.a].matches(text_[pos])) break;
                    ++at, ++pos;
                } else if (in.op == CodePointRegex::Instruction::Split) {
                    stack.push_back({in.b, pos});
                    at = in.a;
                } else if (in.op == CodePointRegex::Instruction::Jump) {
                    at = in.a;
                } else { // Look: its body searched on its own, its states forgotten after
                    if (lookahead(in.a, pos) == in.negated) break;
                    at = in.b;
                }
            }
        }
        return npos;
    }

    // Forgets every state tried (after a match, whose path was no failure).
    void forget() {
        for (std::size_t index : touched_) clear(index);
        touched_.clear();
        visited_.clear();
    }

    static constexpr std::size_t npos = std::size_t(-1);

  private:
    bool lookahead(std::uint32_t body, std::size_t pos) {
        std::vector<std::size_t> outer;
        outer.swap(touched_);
        const bool found = matchAt(body, pos) != npos;
        for (std::size_t index : touched_) clear(index);
        touched_.swap(outer);
        return found;
    }

    bool markNew(std::uint32_t pc, std::size_t pos) {
        const std::size_t index = pc * width_ + pos;
        if (!bits_.empty()) {
            std::uint64_t& word = bits_[index >> 6];
            const std::uint64_t bit = std::uint64_t(1) << (index & 63);
            if (word & bit) return false;
            word |= bit;
        } else if (!visited_.insert(index).second) {
            return false;
        }
        touched_.push_back(index);
        return true;
    }
    void clear(std::size_t index) {
        if (!bits_.empty())
            bits_[index >> 6] &= ~(std::uint64_t(1) << (index & 63));
        else
            visited_.erase(index);
    }

    const CodePointRegex& regex_;
    std::u32string_view text_;
    std::size_t width_;
    std::vector<std::uint64_t> bits_;         // one bit per state, when that is small enough
    std::unordered_set<std::size_t> visited_; // else the states tried
    std::vector<std::size_t> touched_;        // the states marked, to forget them
};

std::vector<std::pair<std::size_t, std::size_t>>
CodePointRegex::findAll(std::u32string_view text) const {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    RegexRun run(*this, text);
    std::size_t from = 0, lastEnd = RegexRun::npos;
    while (from <= text.size()) {
        std::size_t start = from, end = RegexRun::npos;
        for (; start <= text.size(); ++start) // every start shares the failures tried
            if ((end = run.matchAt(0, start)) != RegexRun::npos) break;
        run.forget();
        if (end == RegexRun::npos) break;
        if (start == end) { // empty: step on; none right where the last match ended
            from = end + 1;
            if (end == lastEnd) continue;
        } else {
            from = end;
        }
        matches.emplace_back(start, end);
        lastEnd = end;
    }
    return matches;
}

} // namespace core::models
