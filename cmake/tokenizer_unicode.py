#!/usr/bin/env python3
"""Writes the C++ tables behind core/models/tokenizers/tokenizer_unicode.h from the Unicode Character Database.

    python3 cmake/tokenizer_unicode.py UCD_DIR OUT.cpp

The tokenizer.json engine needs, per code point: its General Category (the regex classes
\\p{L}, \\p{Lu}, \\p{N}, ...), the White_Space property (\\s, Strip, Metaspace) and Alphabetic
(\\w), its simple case folding (the regex's case-insensitive groups, (?i:'s|...)), and for the
NFC / NFKC normalizers the compatibility decompositions (fully expanded, NFKD) and the primary
composites (canonical pairs that are not Full_Composition_Exclusion). The canonical
decompositions and combining classes are wordpiece_unicode.py's. Read from UCD_DIR (Debian's
unicode-data: UnicodeData.txt, PropList.txt, DerivedCoreProperties.txt, CaseFolding.txt,
DerivedNormalizationProps.txt) at build time: nothing third-party is copied into the
repository and no ICU is linked (the app also targets WebAssembly).
"""
import os
import sys

from wordpiece_unicode import unicode_data  # (first, last, fields) of UnicodeData.txt

CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
              "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs",
              "Co", "Cn"]
WHITE_SPACE, ALPHABETIC = 1, 2


def property_ranges(path, wanted):
    """Yields (first, last) for each line of a UCD property file whose property is `wanted`."""
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            data = line.split("#")[0].split(";")
            if len(data) < 2 or data[1].strip() != wanted:
                continue
            bounds = data[0].strip().split("..")
            yield int(bounds[0], 16), int(bounds[-1], 16)


def category_ranges(ucd):
    """Merged (first, last, category index, flags) ranges; code points in none are Cn."""
    category, flags = {}, {}
    for first, last, fields in unicode_data(os.path.join(ucd, "UnicodeData.txt")):
        for cp in range(first, last + 1):
            category[cp] = CATEGORIES.index(fields[2])
    for name, flag, file in (("White_Space", WHITE_SPACE, "PropList.txt"),
                             ("Alphabetic", ALPHABETIC, "DerivedCoreProperties.txt")):
        for first, last in property_ranges(os.path.join(ucd, file), name):
            for cp in range(first, last + 1):
                flags[cp] = flags.get(cp, 0) | flag
    merged = []
    for cp in sorted(set(category) | set(flags)):
        value = (category.get(cp, CATEGORIES.index("Cn")), flags.get(cp, 0))
        if merged and merged[-1][1] == cp - 1 and merged[-1][2:] == list(value):
            merged[-1][1] = cp
        else:
            merged.append([cp, cp, *value])
    return merged


def case_folding(ucd):
    """{cp: folded cp} from the C (common) and S (simple) lines of CaseFolding.txt."""
    fold = {}
    with open(os.path.join(ucd, "CaseFolding.txt"), encoding="utf-8") as lines:
        for line in lines:
            data = [f.strip() for f in line.split("#")[0].split(";")]
            if len(data) >= 3 and data[1] in ("C", "S"):
                fold[int(data[0], 16)] = int(data[2], 16)
    return fold


def decompositions(ucd):
    """({cp: full compatibility decomposition}, {(a, b): primary composite})."""
    canonical, compatibility = {}, {}
    for first, last, fields in unicode_data(os.path.join(ucd, "UnicodeData.txt")):
        if first != last or not fields[5]:
            continue
        parts = fields[5].split()
        mapping = [int(c, 16) for c in parts if not c.startswith("<")]
        (compatibility if parts[0].startswith("<") else canonical)[first] = mapping
    excluded = set()
    for first, last in property_ranges(os.path.join(ucd, "DerivedNormalizationProps.txt"),
                                       "Full_Composition_Exclusion"):
        excluded.update(range(first, last + 1))
    composites = {tuple(m): cp for cp, m in canonical.items()
                  if len(m) == 2 and cp not in excluded}
    every = {**canonical, **compatibility}

    def expand(cp, table):
        return [x for part in table[cp] for x in (expand(part, table) if part in table
                                                  else [part])]
    # Only the code points whose NFKD is not their NFD (the canonical table has those).
    return {cp: d for cp in every if (d := expand(cp, every)) !=
            (expand(cp, canonical) if cp in canonical else None)}, composites


def flat_table(name, table):
    """A sorted {cp, offset, length} index into one flat array of code points."""
    flat, rows = [], []
    for cp in sorted(table):
        rows.append(f"{{0x{cp:X}, {len(flat)}, {len(table[cp])}}}")
        flat.extend(table[cp])
    values = ", ".join(f"0x{c:X}" for c in flat)
    body = ",\n    ".join(rows)
    return (f"constexpr char32_t k{name}Values[] = {{{values}}};\n"
            f"constexpr Sequence k{name}[] = {{\n    {body}}};\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tokenizer_unicode.py UCD_DIR OUT.cpp")
    ucd, out_path = sys.argv[1:]
    ranges = category_ranges(ucd)
    fold = case_folding(ucd)
    compatibility, composites = decompositions(ucd)
    with open(os.path.join(ucd, "DerivedCoreProperties.txt"), encoding="utf-8") as f:
        version = f.readline().strip("# \n")
    enum = ", ".join(CATEGORIES)
    range_rows = "\n".join(f"    {{0x{a:X}, 0x{b:X}, {c}, {f}}}," for a, b, c, f in ranges)
    fold_rows = ",\n    ".join(f"{{0x{a:X}, 0x{b:X}}}" for a, b in sorted(fold.items()))
    unfold_rows = ",\n    ".join(f"{{0x{b:X}, 0x{a:X}}}"
                                 for a, b in sorted(fold.items(), key=lambda x: (x[1], x[0])))
    pair_rows = ",\n    ".join(f"{{0x{(a << 21) | b:X}ull, 0x{c:X}}}"
                               for (a, b), c in sorted(composites.items()))
    seconds = sorted({b for (_, b) in composites})
    second_rows = ", ".join(f"0x{c:X}" for c in seconds)
    out = f"""// Generated by cmake/tokenizer_unicode.py from {version}: do not edit.
#include "models/tokenizers/tokenizer_unicode.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace core::models {{
namespace {{

// The order of the enum's values ({enum}).
struct Range {{
    char32_t first, last;
    unsigned char category, flags;
}};
struct Sequence {{
    char32_t cp;
    unsigned offset, length;
}};
struct Fold {{
    char32_t from, to;
}};
struct Pair {{
    std::uint64_t key; // first << 21 | second
    char32_t composite;
}};

constexpr Range kRanges[] = {{
{range_rows}
}};
constexpr Fold kFold[] = {{
    {fold_rows}}};
constexpr Fold kUnfold[] = {{ // sorted by the folded code point
    {unfold_rows}}};
{flat_table("Compatibility", compatibility)}
constexpr Pair kPairs[] = {{
    {pair_rows}}};
constexpr char32_t kSeconds[] = {{{second_rows}}};

const Range* rangeOf(char32_t cp) {{
    const Range* r = std::upper_bound(std::begin(kRanges), std::end(kRanges), cp,
                                      [](char32_t c, const Range& x) {{ return c < x.first; }});
    if (r == std::begin(kRanges)) return nullptr;
    --r;
    return cp <= r->last ? r : nullptr;
}}

}} // namespace

GeneralCategory generalCategory(char32_t cp) {{
    const Range* r = rangeOf(cp);
    return r ? GeneralCategory(r->category) : GeneralCategory::Cn;
}}

bool isWhiteSpace(char32_t cp) {{
    const Range* r = rangeOf(cp);
    return r && (r->flags & {WHITE_SPACE});
}}

bool isAlphabetic(char32_t cp) {{
    const Range* r = rangeOf(cp);
    return r && (r->flags & {ALPHABETIC});
}}

char32_t simpleCaseFold(char32_t cp) {{
    const Fold* f = std::lower_bound(std::begin(kFold), std::end(kFold), cp,
                                     [](const Fold& x, char32_t c) {{ return x.from < c; }});
    return f != std::end(kFold) && f->from == cp ? f->to : cp;
}}

void appendCaseVariants(char32_t cp, std::u32string& out) {{
    const char32_t folded = simpleCaseFold(cp);
    out += folded;
    const Fold* f = std::lower_bound(std::begin(kUnfold), std::end(kUnfold), folded,
                                     [](const Fold& x, char32_t c) {{ return x.from < c; }});
    for (; f != std::end(kUnfold) && f->from == folded; ++f) out += f->to;
}}

bool appendCompatibilityDecomposition(char32_t cp, std::u32string& out) {{
    const Sequence* s =
        std::lower_bound(std::begin(kCompatibility), std::end(kCompatibility), cp,
                         [](const Sequence& x, char32_t c) {{ return x.cp < c; }});
    if (s == std::end(kCompatibility) || s->cp != cp) return false;
    out.append(kCompatibilityValues + s->offset, s->length);
    return true;
}}

char32_t composePair(char32_t first, char32_t second) {{
    const std::uint64_t key = (std::uint64_t(first) << 21) | second;
    const Pair* p = std::lower_bound(std::begin(kPairs), std::end(kPairs), key,
                                     [](const Pair& x, std::uint64_t k) {{ return x.key < k; }});
    return p != std::end(kPairs) && p->key == key ? p->composite : 0;
}}

bool composesWithPrevious(char32_t cp) {{
    return std::binary_search(std::begin(kSeconds), std::end(kSeconds), cp);
}}

const char* tokenizerUnicodeVersion() {{ return "{version}"; }}

}} // namespace core::models
"""
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(out)


if __name__ == "__main__":
    main()
