#include "platform/astral_proxy.h"

#include "text/utf8.h"

#include <unordered_map>
#include <vector>

namespace app {

namespace {

constexpr char32_t kFirstStandIn = 0xE000, kLastStandIn = 0xF8FF;

bool needsStandIn(char32_t cp) {
    return cp > 0xFFFF || (cp >= kFirstStandIn && cp <= kLastStandIn);
}

// The stand-ins given so far; only the frame thread touches them.
struct StandIns {
    std::unordered_map<char32_t, char32_t> of; // character -> stand-in
    std::vector<char32_t> original;            // stand-in - kFirstStandIn -> character
};

StandIns& standIns() {
    static StandIns table;
    return table;
}

// The length of a well-formed character of U+E000 or beyond at `at` (lead byte EE to F4);
// 0 for anything else (ASCII, most scripts, invalid bytes), which callers copy as it is.
std::size_t sequenceLength(std::string_view s, std::size_t at) {
    const auto lead = static_cast<unsigned char>(s[at]);
    const std::size_t length = lead == 0xEE || lead == 0xEF   ? 3
                               : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                              : 0;
    if (length == 0 || at + length > s.size()) return 0;
    const std::u32string decoded = core::decodeUtf8(s.substr(at, length));
    const bool real = decoded.size() == 1 && (decoded[0] != core::kReplacementChar ||
                                              s.substr(at, length) == "\xEF\xBF\xBD");
    return real ? length : 0;
}

// Copies `text` with each well-formed character for which `map` gives another one replaced.
template <typename Map>
std::string mapChars(std::string_view text, Map map) {
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t length = sequenceLength(text, at);
        if (length == 0) {
            out += text[at++];
            continue;
        }
        const char32_t cp = core::decodeUtf8(text.substr(at, length))[0];
        core::appendUtf8(out, map(cp));
        at += length;
    }
    return out;
}

} // namespace

unsigned imguiChar(unsigned cp) {
    if (!needsStandIn(cp)) return cp;
    StandIns& table = standIns();
    if (const auto found = table.of.find(cp); found != table.of.end()) return found->second;
    if (table.original.size() > kLastStandIn - kFirstStandIn) return core::kReplacementChar;
    const char32_t standIn = kFirstStandIn + char32_t(table.original.size());
    table.original.push_back(cp);
    table.of.emplace(cp, standIn);
    return standIn;
}

std::string toImGuiText(std::string_view utf8) {
    return mapChars(utf8, [](char32_t cp) { return char32_t(imguiChar(cp)); });
}

std::string fromImGuiText(std::string_view text) {
    const StandIns& table = standIns();
    return mapChars(text, [&](char32_t cp) {
        const std::size_t index = cp - kFirstStandIn;
        const bool given = cp >= kFirstStandIn && index < table.original.size();
        return given ? table.original[index] : cp;
    });
}

} // namespace app
