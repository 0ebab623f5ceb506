#!/usr/bin/env python3
"""The counts README.md and docs/*.md state are the tree's: the number of fuzzers (the
tests/fuzz/fuzz_*.cpp files), of demo scenes (assets/scenes/*.json, also "keys 1-N" of the
Ctrl+O picker) and of the lexicon's lemmas and irregular forms (assets/lexicon.tsv: rows of 5
and of 7 columns). A count may be written in digits or in words ("seven fuzzers", "7 libFuzzer
targets", "1,109 lemmas"). Each fuzzer must also be named in docs/robustness.md, where each is
described. Usage: docs_counts_check.py ROOT"""
import pathlib
import re
import sys

from checks import check_all, fail

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"]
NUMBER = r"(\d[\d,]*|" + "|".join(WORDS) + r")"
# What each count is called in the docs, as a pattern whose first group is the number.
CLAIMS = {
    "fuzzers": [NUMBER + r"\s+(?:libFuzzer\s+targets|fuzz\s+targets|fuzzers)\b"],
    "demo scenes": [NUMBER + r"\s+demo\s+scenes\b",
                    r"demo\s+scenes[^.|]{0,40}?keys\s+1\s*[–-]\s*" + NUMBER],
    "lemmas": [NUMBER + r"\s+lemmas\b"],
    "irregular forms": [NUMBER + r"\s+irregular\s+forms\b"],
}


def value(text):
    """The number a count is written as: digits (commas allowed) or a word."""
    text = text.lower()
    return WORDS.index(text) if text in WORDS else int(text.replace(",", ""))


def lexicon_rows(root):
    """(lemmas, irregular forms): the lexicon's rows of 5 and of 7 tab-separated columns."""
    rows = [line.split("\t") for line in (root / "assets" / "lexicon.tsv").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    return sum(len(r) == 5 for r in rows), sum(len(r) == 7 for r in rows)


def tree_counts(root):
    """What each count is in the tree; fails when ROOT does not look like the repository."""
    fuzzers = sorted(p.stem for p in (root / "tests" / "fuzz").glob("fuzz_*.cpp"))
    scenes = sorted((root / "assets" / "scenes").glob("*.json"))
    if not fuzzers or not scenes:
        fail(f"no fuzzers or no demo scenes under {root}: is it the repository's root?")
    lemmas, irregular = lexicon_rows(root)
    counts = {"fuzzers": len(fuzzers), "demo scenes": len(scenes), "lemmas": lemmas,
              "irregular forms": irregular}
    return counts, fuzzers


def documents(root):
    """README.md and every docs/*.md file."""
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def stated_counts(path):
    """(line, what, number) for each count the file states; a count may run across a line
    break, so the text is searched with its newlines as spaces."""
    text = path.read_text()
    flat = text.replace("\n", " ")
    for what, patterns in CLAIMS.items():
        for pattern in patterns:
            for match in re.finditer(pattern, flat, re.IGNORECASE):
                yield text.count("\n", 0, match.start()) + 1, what, value(match.group(1))


def main(root):
    root = pathlib.Path(root)
    counts, fuzzers = tree_counts(root)
    problems, checked = [], 0
    for path in documents(root):
        for line, what, number in stated_counts(path):
            checked += 1
            if number != counts[what]:
                problems.append(f"{path}:{line}: says {number} {what}; the tree has "
                                f"{counts[what]}")
    robustness = (root / "docs" / "robustness.md").read_text()
    problems += [f"docs/robustness.md does not describe the fuzzer {name} (tests/fuzz/{name}.cpp)"
                 for name in fuzzers if f"`{name}`" not in robustness]
    summary = ", ".join(f"{n} {what}" for what, n in counts.items())
    check_all(problems, f"the {checked} counts README.md and docs/*.md state match the tree "
                        f"({summary})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: docs_counts_check.py ROOT")
    main(sys.argv[1])
