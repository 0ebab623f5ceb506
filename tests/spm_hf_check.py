#!/usr/bin/env python3
"""The tokenizer.json engine (tests/tokenizer_json_tokenize.cpp) against Hugging Face's own Rust
library (the npm package `tokenizers` 0.23.2) on the tokenizer.json files
tests/make_spm_fixtures.py writes as transformers' SpmConverter would from its SentencePiece
models, for the 2,031 texts of each; and the Rust library against sentencepiece's ids there:

- tokenizer.json (nmt), tokenizer_bytes.json (byte_fallback): the converter's files give
  sentencepiece's ids, then </s>;
- tokenizer_legacy.json (the older converters' normalizer, no Strip): sentencepiece's ids, or
  with one more U+2581 before the </s> where the text ends in whitespace;
- tokenizer_rules.json, tokenizer_user.json, tokenizer_identity.json: the converter's file is
  not the model (Precompiled per grapheme cluster, Metaspace's prefix after each added token, no
  remove_extra_whitespaces switch): how many texts differ from sentencepiece is printed.

The engine must give the Rust library's ids on every text of every file. Last, the hub-style
tokenizer.json of the seq2seq fixture t5_relu (tests/make_seq2seq_fixtures.py) must give, in the
Rust library, the ids reference.json records for its texts: T5's sentinels and special tokens
typed in the text included (the script derives them from sentencepiece and the library's rule).

    spm_hf_check.py TOKENIZE NODE_MODULES FIXTURE_DIR

Without the npm package it fails and says so, unless MHA_NO_GPT2_REFERENCE=1 (exit 77).
"""
import json
import os
import sys

from tokenizer_random_check import ids_of  # the filters' JSON-lines exchange

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = [("tokenizer.json", "nmt", "same"), ("tokenizer_bytes.json", "bytes", "same"),
         ("tokenizer_legacy.json", "nmt", "trailing"), ("tokenizer_rules.json", "rules", None),
         ("tokenizer_user.json", "user", None), ("tokenizer_identity.json", "identity", None)]


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: spm_hf_check.py TOKENIZE NODE_MODULES FIXTURE_DIR")
    tokenize, modules, fixtures = sys.argv[1:]
    if not os.path.isfile(os.path.join(modules, "tokenizers", "index.js")):
        if os.environ.get("MHA_NO_GPT2_REFERENCE") == "1":
            print("MHA_NO_GPT2_REFERENCE=1: skipped")
            sys.exit(77)
        sys.exit(f"{modules} lacks the npm package tokenizers: run `bash cmake/setup.sh test` "
                 "(or set MHA_NO_GPT2_REFERENCE=1 to skip this check)")
    failures = 0
    for file, model, expect in FILES:
        path = os.path.join(fixtures, file)
        with open(os.path.join(fixtures, model + ".json"), encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        texts = [c["text"] for c in cases]
        rust = ids_of(["node", os.path.join(HERE, "tokenizer_json_reference_ids.mjs"), "rust",
                       modules, path, os.devnull], texts)
        ours = ids_of([tokenize, path], texts)
        with open(path, encoding="utf-8") as f:
            tokenizer = json.load(f)
        eos = [t["id"] for t in tokenizer["added_tokens"] if t["content"] == "</s>"][0]
        mark = [i for i, p in enumerate(tokenizer["model"]["vocab"]) if p[0] == "\u2581"][0]
        wrong = [(t, a, b) for t, a, b in zip(texts, ours, rust) if a != b]
        for text, a, b in wrong[:5]:
            print(f"{file}: {text!r}\n  C++:  {a}\n  Rust: {b}")
        unlike = 0
        for c, r in zip(cases, rust):
            spm = c["ids"] + [eos]
            if r == spm:
                continue
            unlike += 1
            allowed = expect == "trailing" and r == c["ids"] + [mark, eos]
            if expect is not None and not allowed:
                failures += 1
                if failures <= 5:
                    print(f"{file}: {c['text']!r}\n  Rust:          {r}\n  sentencepiece: {spm}")
        failures += len(wrong) + abs(len(ours) - len(rust))
        print(f"{file}: {len(texts)} texts, the engine's ids differ from the Rust library's on "
              f"{len(wrong)}, the Rust library's from sentencepiece's (+ </s>) on {unlike}")
    failures += check_t5_fixture(modules)
    if failures:
        sys.exit(f"spm_hf_check.py: {failures} failures")


def check_t5_fixture(modules):
    """t5_relu's tokenizer.json through the Rust library against reference.json's ids."""
    folder = os.path.join(HERE, "fixtures", "seq2seq")
    with open(os.path.join(folder, "reference.json"), encoding="utf-8") as f:
        texts = json.load(f)["fixtures"]["t5_relu"]["tokenizer"]["texts"]
    rust = ids_of(["node", os.path.join(HERE, "tokenizer_json_reference_ids.mjs"), "rust", modules,
                   os.path.join(folder, "t5_relu", "tokenizer.json"), os.devnull],
                  [t["text"] for t in texts])
    wrong = [(t, r) for t, r in zip(texts, rust) if r != t["ids"]]
    for t, r in wrong[:5]:
        print(f"t5_relu: {t['text']!r}\n  Rust:      {r}\n  reference: {t['ids']}")
    print(f"t5_relu tokenizer.json: {len(texts)} texts, the Rust library differs from "
          f"reference.json on {len(wrong)}")
    return len(wrong)


if __name__ == "__main__":
    main()
