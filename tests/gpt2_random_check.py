#!/usr/bin/env python3
"""GPT-2 ids of random text: the C++ tokenizer (tests/gpt2_tokenize.cpp) against the JavaScript
reference of the npm package gpt-3-encoder 1.1.4 (tests/gpt2_reference_ids.js).

    gpt2_random_check.py GPT2_TOKENIZE NPM_PACKAGE_DIR [COUNT] [SEED]

The package is installed by `bash cmake/setup.sh test`; without it the check fails and says
so, unless MHA_NO_GPT2_REFERENCE=1 (then it exits 77, which ctest counts as skipped).
"""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Pieces the random text is made of. Left out, because the JavaScript reference is not the
# Python one there: U+0085 (White_Space, so Python's \s, but not JavaScript's \s) and U+FEFF
# (JavaScript's \s, but not White_Space). Code points assigned after Unicode 15.0 (the tables
# come from Debian 12's unicode-data, node's ICU is newer) are avoided too. U+001C..U+001F are
# kept: Python's `re` counts them as \s, but the reference uses `regex`, where they are not.
PIECES = [
    "a", "b", "e", "the", "The", "HELLO", "x", "Q", "z", "ing", "tion",
    "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "''", "'x",
    "0", "1", "7", "42", "1000", "3.14",
    " ", " ", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f",
    "\u00a0", "\u2003", "\u3000", "\u2028", "\u180e", "\u200b",
    ".", ",", "!", "?", "-", "_", "(", ")", "[", "]", "{", "}", "<", ">", "/", "\\", "\"",
    "#", "$", "%", "&", "*", "+", "=", "@", "^", "`", "|", "~", ";", ":", "...", "!!!",
    "é", "ñ", "ß", "ü", "Å", "ª", "º", "²", "¼", "×", "¿", "\u00ad", "©", "µ",
    "\u0301", "\u0308", "\u0327", "\u20dd",
    "日本語", "中文", "の", "テキスト", "한국어", "안녕", "ㄱ",
    "Привет", "Ωμέγα", "مرحبا", "٣", "שלום", "नमस्ते", "ไทย",
    "Ⅻ", "①", "⁴", "½", "𝟘", "𝔸",
    "😀", "👍", "🏽", "\u200d", "👨", "👩", "👧", "\ufe0f", "❤", "🇫🇷", "🫠",
    "\u0000", "\x7f", "\u0080", "\u009f", "\U0010fffd", "\ue000",
]


def random_text(rng):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 24)))


def ids_of(command, texts):
    lines = "".join(json.dumps(t) + "\n" for t in texts)
    result = subprocess.run(command, input=lines, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed: {result.stderr.strip()}")
    return [json.loads(line) for line in result.stdout.splitlines()]


def main():
    exe, package = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 20240611
    if not os.path.isfile(os.path.join(package, "Encoder.js")):
        if os.environ.get("MHA_NO_GPT2_REFERENCE") == "1":
            print("MHA_NO_GPT2_REFERENCE=1: skipped")
            sys.exit(77)
        sys.exit(f"{package} has no gpt-3-encoder: run `bash cmake/setup.sh test` "
                 "(or set MHA_NO_GPT2_REFERENCE=1 to skip this check)")
    rng = random.Random(seed)
    texts = [random_text(rng) for _ in range(count)]
    ours = ids_of([exe, os.path.join(package, "encoder.json"),
                   os.path.join(package, "vocab.bpe")], texts)
    theirs = ids_of(["node", os.path.join(HERE, "gpt2_reference_ids.js"), package], texts)
    wrong = [(t, a, b) for t, a, b in zip(texts, ours, theirs) if a != b]
    for text, a, b in wrong[:10]:
        print(f"{text!r}\n  C++: {a}\n  JS:  {b}")
    if wrong or len(ours) != count or len(theirs) != count:
        sys.exit(f"{len(wrong)} of {count} texts differ (seed {seed})")
    print(f"{count} random texts, same ids (seed {seed})")


if __name__ == "__main__":
    main()
