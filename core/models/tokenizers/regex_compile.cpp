// The pattern of a CodePointRegex (code_point_regex.h) parsed into a tree and compiled into
// the backtracking program: Char (one class), Split (try a, then b), Jump, Look (a lookahead's
// body, run on its own) and Match.
#include "models/tokenizers/code_point_regex.h"

#include "models/tokenizers/tokenizer_unicode.h"
#include "text/utf8.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace core::models {
namespace {

constexpr int kUnbounded = -1;
constexpr int kMaxCount = 1000;              // {m,n} bounds
constexpr std::size_t kMaxProgram = 1 << 16; // instructions, after {m,n} copies
constexpr int kMaxDepth = 64;                // nested groups

struct Node {
    enum Kind { Empty, Set, Concat, Alternate, Repeat, Look } kind = Empty;
    std::vector<int> children;
    int set = -1, min = 0, max = 0;
    bool greedy = true, negated = false;
};

std::uint32_t categoryBits(std::initializer_list<GeneralCategory> list) {
    std::uint32_t bits = 0;
    for (GeneralCategory c : list) bits |= 1u << unsigned(c);
    return bits;
}

// A property name as Oniguruma compares them: case, spaces, '_' and '-' ignored.
std::string looseName(std::u32string_view name) {
    std::string out;
    for (char32_t c : name)
        if (c != ' ' && c != '_' && c != '-') out += char(c < 0x80 ? std::tolower(int(c)) : '?');
    return out;
}

using GC = GeneralCategory;

// The General Category (or property) a \p{NAME} names; false when unknown.
bool propertyItem(const std::string& name, CodePointRegex::Item& item) {
    struct Named {
        const char *shortName, *longName;
        std::uint32_t bits;
    };
    static const Named kNames[] = {
        {"l", "letter", categoryBits({GC::Lu, GC::Ll, GC::Lt, GC::Lm, GC::Lo})},
        {"lu", "uppercaseletter", categoryBits({GC::Lu})},
        {"ll", "lowercaseletter", categoryBits({GC::Ll})},
        {"lt", "titlecaseletter", categoryBits({GC::Lt})},
        {"lm", "modifierletter", categoryBits({GC::Lm})},
        {"lo", "otherletter", categoryBits({GC::Lo})},
        {"lc", "casedletter", categoryBits({GC::Lu, GC::Ll, GC::Lt})},
        {"m", "mark", categoryBits({GC::Mn, GC::Mc, GC::Me})},
        {"mn", "nonspacingmark", categoryBits({GC::Mn})},
        {"mc", "spacingmark", categoryBits({GC::Mc})},
        {"me", "enclosingmark", categoryBits({GC::Me})},
        {"n", "number", categoryBits({GC::Nd, GC::Nl, GC::No})},
        {"nd", "decimalnumber", categoryBits({GC::Nd})},
        {"nl", "letternumber", categoryBits({GC::Nl})},
        {"no", "othernumber", categoryBits({GC::No})},
        {"p", "punctuation",
         categoryBits({GC::Pc, GC::Pd, GC::Ps, GC::Pe, GC::Pi, GC::Pf, GC::Po})},
        {"pc", "connectorpunctuation", categoryBits({GC::Pc})},
        {"pd", "dashpunctuation", categoryBits({GC::Pd})},
        {"ps", "openpunctuation", categoryBits({GC::Ps})},
        {"pe", "closepunctuation", categoryBits({GC::Pe})},
        {"pi", "initialpunctuation", categoryBits({GC::Pi})},
        {"pf", "finalpunctuation", categoryBits({GC::Pf})},
        {"po", "otherpunctuation", categoryBits({GC::Po})},
        {"s", "symbol", categoryBits({GC::Sm, GC::Sc, GC::Sk, GC::So})},
        {"sm", "mathsymbol", categoryBits({GC::Sm})},
        {"sc", "currencysymbol", categoryBits({GC::Sc})},
        {"sk", "modifiersymbol", categoryBits({GC::Sk})},
        {"so", "othersymbol", categoryBits({GC::So})},
        {"z", "separator", categoryBits({GC::Zs, GC::Zl, GC::Zp})},
        {"zs", "spaceseparator", categoryBits({GC::Zs})},
        {"zl", "lineseparator", categoryBits({GC::Zl})},
        {"zp", "paragraphseparator", categoryBits({GC::Zp})},
        {"c", "other", categoryBits({GC::Cc, GC::Cf, GC::Cs, GC::Co, GC::Cn})},
        {"cc", "control", categoryBits({GC::Cc})},
        {"cf", "format", categoryBits({GC::Cf})},
        {"cs", "surrogate", categoryBits({GC::Cs})},
        {"co", "privateuse", categoryBits({GC::Co})},
        {"cn", "unassigned", categoryBits({GC::Cn})},
    };
    for (const Named& n : kNames)
        if (name == n.shortName || name == n.longName) {
            item.kind = CodePointRegex::Item::Categories, item.categories = n.bits;
            return true;
        }
    if (name == "alphabetic" || name == "alpha")
        return item.kind = CodePointRegex::Item::Alphabetic, true;
    if (name == "whitespace" || name == "wspace" || name == "space")
        return item.kind = CodePointRegex::Item::WhiteSpace, true;
    return false;
}

} // namespace

// Parses the pattern into Nodes, then emits the program. Every refusal names the construct.
class RegexCompiler {
  public:
    RegexCompiler(CodePointRegex& regex, std::string_view pattern)
        : regex_(regex), pattern_(pattern) {
        if (firstInvalidUtf8(pattern) != std::string_view::npos) fail("is not valid UTF-8");
        text_ = decodeUtf8(pattern);
    }

    void compile() {
        const int root = alternation(0);
        if (at_ < text_.size()) fail("has an unmatched ')'");
        emit(root);
        add({CodePointRegex::Instruction::Match});
        for (CodePointRegex::CharSet& set : regex_.sets_)
            for (char32_t cp = 0; cp < 128; ++cp)
                if (set.matchesUncached(cp)) set.ascii[cp >> 6] |= std::uint64_t(1) << (cp & 63);
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        std::string shown(pattern_.substr(0, 60));
        for (char& c : shown)
            if (static_cast<unsigned char>(c) < 0x20) c = '?';
        throw std::invalid_argument("the regex \"" + shown + (pattern_.size() > 60 ? "..." : "") +
                                    "\" " + what);
    }
    [[noreturn]] void unsupported(const std::string& construct) const {
        fail("uses " + construct + ", which this tokenizer cannot run");
    }

    bool more() const { return at_ < text_.size(); }
    char32_t peek(std::size_t ahead = 0) const {
        return at_ + ahead < text_.size() ? text_[at_ + ahead] : 0;
    }
    bool take(char32_t c) {
        if (!more() || text_[at_] != c) return false;
        ++at_;
        return true;
    }

    int node(Node n) {
        nodes_.push_back(std::move(n));
        return int(nodes_.size()) - 1;
    }
    int setNode(CodePointRegex::CharSet set) {
        set.caseless = caseless_;
        regex_.sets_.push_back(std::move(set));
        Node n{Node::Set};
        n.set = int(regex_.sets_.size()) - 1;
        return node(std::move(n));
    }
    int literal(char32_t cp) {
        CodePointRegex::CharSet set;
        set.items.push_back({CodePointRegex::Item::Range, false, cp, cp});
        return setNode(std::move(set));
    }

    int alternation(int depth) {
        if (depth > kMaxDepth) fail("nests groups too deeply");
        const bool outerCaseless = caseless_; // (?i) lasts to the end of its group
        Node alt{Node::Alternate};
        alt.children.push_back(concatenation(depth));
        while (take(U'|')) alt.children.push_back(concatenation(depth));
        caseless_ = outerCaseless;
        return alt.children.size() == 1 ? alt.children[0] : node(std::move(alt));
    }

    int concatenation(int depth) {
        Node seq{Node::Concat};
        while (more() && peek() != U'|' && peek() != U')') {
            const int atom = this->atom(depth);
            if (atom >= 0) seq.children.push_back(quantified(atom));
        }
        if (seq.children.empty()) return node(Node{Node::Empty});
        return seq.children.size() == 1 ? seq.children[0] : node(std::move(seq));
    }

    // {m}, {m,}, {m,n}, {,n} at at_ (after '{'); false (nothing taken) when it is a literal.
    bool interval(int& min, int& max) {
        std::size_t i = at_;
        const auto number = [&](int& out) {
            const std::size_t start = i;
            long value = 0;
            while (i < text_.size() && text_[i] >= U'0' && text_[i] <= U'9')
                value = std::min<long>(value * 10 + long(text_[i++] - U'0'), kMaxCount + 1);
            out = int(value);
            return i > start;
        };
        const bool low = number(min);
        max = min;
        if (i < text_.size() && text_[i] == U',') {
            ++i;
            if (!number(max)) max = kUnbounded;
        } else if (!low) {
            return false;
        }
        if (i >= text_.size() || text_[i] != U'}' || (!low && max == kUnbounded)) return false;
        if (!low) min = 0;
        if (min > kMaxCount || max > kMaxCount) fail("repeats more than 1000 times");
        if (max != kUnbounded && max < min) fail("has a {m,n} with n below m");
        at_ = i + 1;
        return true;
    }

    int quantified(int atom) {
        bool quantifiedOnce = false;
        while (more()) {
            int min = 0, max = 0;
            const char32_t c = peek();
            if (c == U'?' || c == U'*' || c == U'+') {
                ++at_;
                min = c == U'+' ? 1 : 0, max = c == U'?' ? 1 : kUnbounded;
            } else if (c == U'{') {
                ++at_;
                if (!interval(min, max)) {
                    --at_;
                    break;
                }
            } else {
                break;
            }
            if (quantifiedOnce) unsupported("a quantifier after a quantifier (possessive?)");
            quantifiedOnce = true;
            Node repeat{Node::Repeat};
            repeat.children = {atom}, repeat.min = min, repeat.max = max;
            repeat.greedy = !take(U'?');
            if (more() && peek() == U'+') unsupported("a possessive quantifier");
            atom = node(std::move(repeat));
        }
        return atom;
    }

    int group(int depth) {
        if (!take(U'?')) return groupBody(depth, Node::Empty);
        if (take(U':')) return groupBody(depth, Node::Empty);
        if (take(U'=')) return groupBody(depth, Node::Look, false);
        if (take(U'!')) return groupBody(depth, Node::Look, true);
        if (peek() == U'<' && (peek(1) == U'=' || peek(1) == U'!')) unsupported("a lookbehind");
        if (peek() == U'i' && (peek(1) == U':' || peek(1) == U')')) {
            ++at_;
            if (take(U')')) { // (?i): case-insensitive to the end of the enclosing group
                caseless_ = true;
                return -1;
            }
            take(U':');
            const bool outer = caseless_;
            caseless_ = true;
            const int body = groupBody(depth, Node::Empty);
            caseless_ = outer;
            return body;
        }
        unsupported("the group \"(?" + utf8Name(text_.substr(at_, 1)) +
                    "\" (only (?:, (?i:, (?i), (?= and (?! are supported)");
    }

    int groupBody(int depth, Node::Kind kind, bool negated = false) {
        const int body = alternation(depth + 1);
        if (!take(U')')) fail("has an unclosed '('");
        if (kind != Node::Look) return body;
        Node look{Node::Look};
        look.children = {body}, look.negated = negated;
        return node(std::move(look));
    }

    int atom(int depth) {
        const char32_t c = text_[at_++];
        switch (c) {
        case U'(':
            return group(depth);
        case U'[':
            return setNode(charClass());
        case U'.': {
            CodePointRegex::CharSet set;
            set.negated = true;
            set.items.push_back({CodePointRegex::Item::Range, false, U'\n', U'\n'});
            return setNode(std::move(set));
        }
        case U'^':
        case U'$':
            unsupported(std::string("the anchor ") + char(c));
        case U'\\': {
            CodePointRegex::CharSet set;
            set.items.push_back(escape(false));
            return setNode(std::move(set));
        }
        case U'*':
        case U'+':
        case U'?':
            fail("has a quantifier with nothing before it");
        default:
            return literal(c);
        }
    }

    char32_t hexValue(std::size_t digits, bool braced) {
        char32_t value = 0;
        std::size_t count = 0;
        while (more() && (braced ? peek() != U'}' : count < digits)) {
            const char32_t h = peek();
            const int d = h >= U'0' && h <= U'9'   ? int(h - U'0')
                          : h >= U'a' && h <= U'f' ? int(h - U'a' + 10)
                          : h >= U'A' && h <= U'F' ? int(h - U'A' + 10)
                                                   : -1;
            if (d < 0 || count >= 8) fail("has a bad hexadecimal escape");
            value = value * 16 + char32_t(d), ++count, ++at_;
        }
        if ((braced && !take(U'}')) || (!braced && count != digits) || count == 0 ||
            value > 0x10FFFF)
            fail("has a bad hexadecimal escape");
        return value;
    }

    CodePointRegex::Item property(bool negated) {
        CodePointRegex::Item item{CodePointRegex::Item::Categories, negated};
        std::u32string name;
        if (take(U'{')) {
            if (take(U'^')) item.negated = !item.negated;
            while (more() && peek() != U'}') name += text_[at_++];
            if (!take(U'}')) fail("has an unclosed \\p{");
        } else if (more()) {
            name = text_.substr(at_++, 1);
        }
        if (!propertyItem(looseName(name), item))
            unsupported("the property \\p{" + utf8Name(name) +
                        "} (General Categories, Alphabetic and White_Space are supported)");
        return item;
    }

    // A piece of the pattern for a message: control characters as '?', so it stays one line.
    static std::string utf8Name(std::u32string_view name) {
        std::string out;
        for (char32_t c : name.substr(0, 30)) appendUtf8(out, c < 0x20 || c == 0x7F ? U'?' : c);
        return out;
    }

    // The escape after '\' (taken): a literal, a class, or a property.
    CodePointRegex::Item escape(bool inClass) {
        using Item = CodePointRegex::Item;
        if (!more()) fail("ends with '\\'");
        const char32_t c = text_[at_++];
        const auto single = [](char32_t cp) { return Item{Item::Range, false, cp, cp}; };
        switch (c) {
        case U't':
            return single(U'\t');
        case U'n':
            return single(U'\n');
        case U'r':
            return single(U'\r');
        case U'f':
            return single(U'\f');
        case U'v':
            return single(U'\v');
        case U'a':
            return single(7);
        case U'e':
            return single(0x1B);
        case U'0':
            return single(0);
        case U'x':
            return single(take(U'{') ? hexValue(8, true) : hexValue(2, false));
        case U'u':
            return single(hexValue(4, false));
        case U's':
            return Item{Item::WhiteSpace};
        case U'S':
            return Item{Item::WhiteSpace, true};
        case U'w':
            return Item{Item::Word};
        case U'W':
            return Item{Item::Word, true};
        case U'd':
            return Item{Item::Categories, false, 0, 0, categoryBits({GC::Nd})};
        case U'D':
            return Item{Item::Categories, true, 0, 0, categoryBits({GC::Nd})};
        case U'p':
            return property(false);
        case U'P':
            return property(true);
        default:
            break;
        }
        if (c < 0x80 && !std::isalnum(int(c))) return single(c);
        if (inClass && c == U'b') return single(8);
        unsupported(std::string("the escape \\") + (c < 0x80 ? char(c) : '?'));
    }

    // A class [...] after its '['.
    CodePointRegex::CharSet charClass() {
        using Item = CodePointRegex::Item;
        CodePointRegex::CharSet set;
        set.negated = take(U'^');
        bool first = true;
        while (true) {
            if (!more()) fail("has an unclosed '['");
            const char32_t c = text_[at_++];
            if (c == U']' && !first) break;
            first = false;
            if (c == U'[') unsupported(peek() == U':' ? "a POSIX class [:...:]" : "a nested class");
            if (c == U'&' && peek() == U'&') unsupported("a class intersection &&");
            Item item = c == U'\\' ? escape(true) : Item{Item::Range, false, c, c};
            if (item.kind == Item::Range && peek() == U'-' && peek(1) != U']' && peek(1) != 0) {
                ++at_;
                const char32_t d = text_[at_++];
                const Item high = d == U'\\' ? escape(true) : Item{Item::Range, false, d, d};
                if (high.kind != Item::Range) fail("has a range ending in a class");
                if (high.low < item.low) fail("has a range out of order");
                item.high = high.low;
            }
            set.items.push_back(item);
        }
        return set;
    }

    // Emitting: the program for node n, appended.
    std::uint32_t add(CodePointRegex::Instruction instruction) {
        if (regex_.program_.size() >= kMaxProgram) fail("is too large once its repeats are copied");
        regex_.program_.push_back(instruction);
        return std::uint32_t(regex_.program_.size() - 1);
    }
    std::uint32_t here() const { return std::uint32_t(regex_.program_.size()); }

    void emit(int n) {
        using I = CodePointRegex::Instruction;
        const Node& node = nodes_[std::size_t(n)];
        switch (node.kind) {
        case Node::Empty:
            return;
        case Node::Set:
            add({I::Char, false, std::uint32_t(node.set)});
            return;
        case Node::Concat:
            for (int child : node.children) emit(child);
            return;
        case Node::Alternate:
            return emitAlternate(node);
        case Node::Repeat:
            return emitRepeat(node);
        case Node::Look: {
            const std::uint32_t look = add({I::Look, node.negated, here() + 1});
            emit(node.children[0]);
            add({I::Match});
            regex_.program_[look].b = here();
            return;
        }
        }
    }

    void emitAlternate(const Node& node) {
        using I = CodePointRegex::Instruction;
        std::vector<std::uint32_t> jumps;
        for (std::size_t i = 0; i + 1 < node.children.size(); ++i) {
            const std::uint32_t split = add({I::Split, false, here() + 1});
            emit(node.children[i]);
            jumps.push_back(add({I::Jump}));
            regex_.program_[split].b = here();
        }
        emit(node.children.back());
        for (std::uint32_t j : jumps) regex_.program_[j].a = here();
    }

    // A Split that tries the body first (greedy) or the way out first (lazy), patched once the
    // way out is known.
    std::uint32_t addChoice() { return add({CodePointRegex::Instruction::Split}); }
    void patchChoice(std::uint32_t split, bool greedy, std::uint32_t body, std::uint32_t out) {
        regex_.program_[split].a = greedy ? body : out;
        regex_.program_[split].b = greedy ? out : body;
    }

    void emitRepeat(const Node& node) {
        using I = CodePointRegex::Instruction;
        const int child = node.children[0];
        for (int i = 0; i < node.min; ++i) emit(child);
        if (node.max == kUnbounded) {
            const std::uint32_t split = addChoice();
            emit(child);
            add({I::Jump, false, split});
            patchChoice(split, node.greedy, split + 1, here());
            return;
        }
        std::vector<std::uint32_t> splits;
        for (int i = node.min; i < node.max; ++i) {
            splits.push_back(addChoice());
            emit(child);
        }
        for (std::uint32_t split : splits) patchChoice(split, node.greedy, split + 1, here());
    }

    CodePointRegex& regex_;
    std::string_view pattern_;
    std::u32string text_;
    std::size_t at_ = 0;
    bool caseless_ = false;
    std::vector<Node> nodes_;
};

CodePointRegex::CodePointRegex(std::string_view pattern) {
    RegexCompiler(*this, pattern).compile();
}

} // namespace core::models
