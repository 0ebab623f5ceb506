#!/usr/bin/env python3
"""Writes the C++ tables behind core/models/tokenizers/wordpiece_unicode.h from the Unicode Character Database.

    python3 cmake/wordpiece_unicode.py UnicodeData.txt PropList.txt SpecialCasing.txt OUT.cpp

BERT's normalizer and pre-tokenizer (Hugging Face tokenizers' BertNormalizer and
BertPreTokenizer) need, per code point: whether it is a control character (General Category
C*, unassigned ones included, except tab, newline and carriage return), whitespace (the
White_Space property, but for the controls among it), punctuation (P*, or any ASCII symbol), a non-spacing mark (Mn, which
stripping accents drops); its lower-case form (UnicodeData's simple mapping, or SpecialCasing's
unconditional one: U+0130 becomes two code points); its canonical decomposition, fully expanded
(NFD; Hangul syllables are decomposed by the algorithm in the C++); and its canonical combining
class (NFD's reordering). Generated at build time from Debian's unicode-data: nothing third-party
is copied into the repository and no ICU is linked.
"""
import sys


def unicode_data(path):
    """Yields (first, last, fields) for each line or First/Last pair of UnicodeData.txt."""
    first = None
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split(";")
            if len(fields) < 15:
                continue
            code, name = int(fields[0], 16), fields[1]
            if name.endswith(", First>"):
                first = code
                continue
            yield (first if name.endswith(", Last>") else code), code, fields
            first = None


def white_space(path):
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            data = line.split("#")[0].split(";")
            if len(data) == 2 and data[1].strip() == "White_Space":
                bounds = data[0].strip().split("..")
                yield int(bounds[0], 16), int(bounds[-1], 16)


def special_lower(path):
    """Unconditional multi-code-point lower-case mappings: {cp: [cps]}."""
    out = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            data = [f.strip() for f in line.split("#")[0].split(";")]
            if len(data) < 5 or data[4]:  # a condition (Final_Sigma, a language) follows
                continue
            lower = [int(c, 16) for c in data[1].split()]
            if lower != [int(data[0], 16)]:
                out[int(data[0], 16)] = lower
    return out


def kinds(data_path, prop_path):
    """Merged (first, last, kind) ranges; code points in no range are Control (unassigned)."""
    kind = {}
    for first, last, fields in unicode_data(data_path):
        category = fields[2]
        k = ("Control" if category[0] == "C" else "Punctuation" if category[0] == "P"
             else "Mark" if category == "Mn" else "Other")
        for cp in range(first, last + 1):
            kind[cp] = k
    for first, last in white_space(prop_path):
        for cp in range(first, last + 1):
            if kind.get(cp) != "Control":  # \v, \f and U+0085 are removed, not spaces
                kind[cp] = "Whitespace"
    for cp in range(33, 127):  # BERT counts every ASCII symbol as punctuation
        if not chr(cp).isalnum():
            kind[cp] = "Punctuation"
    for cp in (9, 10, 13):
        kind[cp] = "Whitespace"
    merged = []
    for cp in sorted(kind):
        if merged and merged[-1][1] == cp - 1 and merged[-1][2] == kind[cp]:
            merged[-1][1] = cp
        else:
            merged.append([cp, cp, kind[cp]])
    return merged


def mappings(data_path, special_path):
    lower, decomposition, combining = {}, {}, {}
    for first, last, fields in unicode_data(data_path):
        if first != last:
            continue
        cp = first
        if fields[13]:
            lower[cp] = [int(fields[13], 16)]
        if fields[5] and not fields[5].startswith("<"):
            decomposition[cp] = [int(c, 16) for c in fields[5].split()]
        if fields[3] != "0":
            combining[cp] = int(fields[3])
    lower.update(special_lower(special_path))

    def expand(cp):
        return [x for part in decomposition[cp] for x in (expand(part) if part in decomposition
                                                         else [part])]
    return lower, {cp: expand(cp) for cp in decomposition}, combining


def sequence_table(name, table):
    """A sorted {cp, offset, length} index into one flat array of code points."""
    flat, rows = [], []
    for cp in sorted(table):
        rows.append(f"{{0x{cp:X}, {len(flat)}, {len(table[cp])}}}")
        flat.extend(table[cp])
    body = ",\n    ".join(rows)
    values = ", ".join(f"0x{c:X}" for c in flat)
    return (f"constexpr char32_t k{name}Values[] = {{{values}}};\n"
            f"constexpr Sequence k{name}[] = {{\n    {body}}};\n")


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: wordpiece_unicode.py UnicodeData.txt PropList.txt SpecialCasing.txt OUT")
    data, props, special, out_path = sys.argv[1:]
    merged = kinds(data, props)
    lower, decomposition, combining = mappings(data, special)
    with open(props, encoding="utf-8") as f:
        version = f.readline().strip("# \n")
    ranges = "\n".join(f"    {{0x{a:X}, 0x{b:X}, WordPieceCharKind::{k}}}," for a, b, k in merged)
    classes = ",\n    ".join(f"{{0x{cp:X}, {c}}}" for cp, c in sorted(combining.items()))
    out = f"""// Generated by cmake/wordpiece_unicode.py from {version}: do not edit.
#include "models/tokenizers/wordpiece_unicode.h"

#include <algorithm>
#include <iterator>

namespace core::models {{
namespace {{

struct Range {{
    char32_t first, last;
    WordPieceCharKind kind;
}};
struct Sequence {{
    char32_t cp;
    unsigned offset, length;
}};
struct Combining {{
    char32_t cp;
    unsigned char ccc;
}};

constexpr Range kRanges[] = {{
{ranges}
}};

{sequence_table("Lower", lower)}
{sequence_table("Decomposition", decomposition)}
constexpr Combining kCombining[] = {{
    {classes}}};

// The entry for cp in a table sorted by cp, or nullptr.
template <typename T, std::size_t N>
const T* lookUp(const T (&table)[N], char32_t cp) {{
    const T* end = std::end(table);
    const T* found = std::lower_bound(std::begin(table), end, cp,
                                      [](const T& x, char32_t c) {{ return x.cp < c; }});
    return found != end && found->cp == cp ? found : nullptr;
}}

}} // namespace

WordPieceCharKind wordPieceCharKind(char32_t cp) {{
    const Range* end = std::end(kRanges);
    const Range* r = std::upper_bound(std::begin(kRanges), end, cp,
                                      [](char32_t c, const Range& x) {{ return c < x.first; }});
    if (r == std::begin(kRanges)) return WordPieceCharKind::Control;
    --r;
    return cp <= r->last ? r->kind : WordPieceCharKind::Control; // unassigned: Cn
}}

void appendLowercase(char32_t cp, std::u32string& out) {{
    const Sequence* s = lookUp(kLower, cp);
    if (!s) {{
        out += cp;
        return;
    }}
    out.append(kLowerValues + s->offset, s->length);
}}

bool appendDecomposition(char32_t cp, std::u32string& out) {{
    const Sequence* s = lookUp(kDecomposition, cp);
    if (!s) return false;
    out.append(kDecompositionValues + s->offset, s->length);
    return true;
}}

int combiningClass(char32_t cp) {{
    const Combining* c = lookUp(kCombining, cp);
    return c ? c->ccc : 0;
}}

const char* wordPieceUnicodeVersion() {{ return "{version}"; }}

}} // namespace core::models
"""
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(out)


if __name__ == "__main__":
    main()
