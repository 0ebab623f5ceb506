#!/usr/bin/python3
"""Small SentencePiece Unigram models and the ids sentencepiece itself gives, for
sentencepiece_tokenizer_test (core/models/tokenizers/sentencepiece_tokenizer.h):

- nmt:      nmt_nfkc normalizer (T5's), the defaults otherwise;
- identity: no normalization rules, remove_extra_whitespaces off;
- bytes:    nmt_nfkc with byte_fallback (unknown characters become <0xXX> pieces);
- user:     nmt_nfkc with user_defined_symbols;
- rules:    a charsmap of a few hand-written rules (normalization_rule_tsv), some of whose keys
            are prefixes of others ("12" and "123"), so the longest must win.

Each is trained by sentencepiece.SentencePieceTrainer (Debian's python3-sentencepiece) on a
seeded generated corpus, written as OUT_DIR/<name>.model, with OUT_DIR/<name>.json: the chosen
texts and COUNT seeded random texts, each with EncodeAsIds's ids and EncodeAsPieces's pieces.
It also writes the tokenizer.json transformers' SpmConverter makes from each model
(tokenizer.json for nmt, tokenizer_<name>.json for the others; byte_fallback on for bytes, as
the converters that handle it write it): a Unigram [piece, score] vocab, unk_id, byte_fallback;
normalizer Sequence[Precompiled(base64 charsmap) when there is one, Strip(right),
Replace(" {2,}", U+2581)]; Metaspace pre-tokenizer and decoder, prepend_scheme always; control
and user-defined pieces as added tokens (control and unknown ones special); T5Converter's
"$A </s>". And tokenizer_legacy.json, nmt with the older converters' normalizer
Sequence[Precompiled, Replace(" {2,}", " ")].

    make_spm_fixtures.py OUT_DIR [COUNT] [SEED]
    make_spm_fixtures.py --fuzz-seeds DIR     (the seeds of fuzz_spm: tests/fuzz/corpus/spm)

Without the sentencepiece module it fails and says so, unless MHA_NO_SENTENCEPIECE=1 (exit 77).
"""
import base64
import io
import json
import os
import random
import struct
import sys

try:
    import sentencepiece as spm
except ImportError:
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)  # pyenv's has none
    if os.environ.get("MHA_NO_SENTENCEPIECE") == "1":
        sys.exit(77)
    sys.exit("make_spm_fixtures.py: no sentencepiece module "
             "(apt-get install python3-sentencepiece)")

WORDS = ("the of and to in is was for on that with as by at from his her an were which this "
         "are be had it not or have they one but their all new more two first after who time "
         "year also been its other into some over used only would these most well city town "
         "school under world during between state country house water river music language "
         "café résumé naïve façade über straße ﬁnance ﬂow ｆｕｌｌ ＡＢＣ １２３ 東京 日本語 "
         "中文 한국어 Ελληνικά русский 2024 3.14 42 1,000 can't don't e-mail U.S.A. ").split()
RARE = ["𝔘", "🙂", "☃", "ǅ", "Å", "ｶﾀｶﾅ", "⑳", "½", "™", "\u00ad", "e\u0301", "ㄱ", "ꙮ", "\u200b"]
ALPHABET = (list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?'\"-()")
            + list("éèêëàâäôöûüçñßøåæœ") + ["ﬁ", "ﬂ", "ｆ", "Ａ", "１", "　", "東", "京", "日", "本",
            "語", "中", "文", "한", "국", "🙂", "😀", "\t", "\n", "  ", "   ", "½", "™", "e\u0301",
            "\u0301", "☃", "𝔘", "ꙮ", "\u00a0", "\u200b", "\r", "@@", "foo", "<sep>", "ｆｏｏ",
            "ｆｏ", "12", "123", "1", "A"])
CHOSEN = [
    "", " ", "   ", "Hello world", "Hello  world", "  leading", "trailing  ", "  both  ",
    "tab\tseparated", "new\nline", "carriage\r\nreturn", "digits 0123456789 and 3.14159",
    "café résumé naïve", "e\u0301 composed later", "ﬁnance ﬂow ﬃ", "ｆｕｌｌ　ｗｉｄｔｈ ＡＢＣ １２３",
    "東京は日本の首都です", "中文字符", "한국어 텍스트", "emoji 🙂😀 here", "unknown ꙮ char",
    "ꙮꙮꙮ run of unknowns ꙮ𝔘", "½ ™ ⑳", "soft\u00adhyphen zero\u200bwidth", "nbsp\u00a0space",
    "user foo symbols <sep> and @@ here", "foofoo<sep><sep>", "ｆｏｏ as typed, ｆｏ normalized",
    "ǅ Å ｶﾀｶﾅ", "U.S.A. can't e-mail", "1 12 123 1234 121212 AAA ™ e\u0301",
]


def corpus(rng):
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["é", "ü", "ß"]
    words = WORDS + ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))
                     for _ in range(20000)]
    lines = []
    for _ in range(40000):
        lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(3, 14))))
    lines += RARE[:4]  # seen once: below the character coverage, so unknown
    return lines


def random_text(rng):
    parts = []
    for _ in range(rng.randint(0, 12)):
        parts.append(rng.choice(WORDS) if rng.random() < 0.5 else rng.choice(ALPHABET))
        parts.append(rng.choice([" ", " ", " ", "", "  ", "\t"]))
    return "".join(parts)


# code points -> code points, as normalization_rule_tsv spells them.
RULES = [("41", "61"), ("FB01", "66 69"), ("3000", "20"), ("FF21", "61"), ("65 301", "E9"),
         ("31 32", "74 77 65 6C 76 65"), ("31 32 33", "6F 6E 65"), ("2122", "")]


def rules_file(folder):
    path = os.path.join(folder, "rules.tsv")
    with open(path, "w", encoding="ascii") as f:
        f.writelines(f"{key}\t{value}\n" for key, value in RULES)
    return path


def fuzz_seeds(folder):
    """A mode byte, a part and a text (tests/fuzz/fuzz_spm.cpp): a whole tiny model with a
    hand-made charsmap (mode 0), that charsmap alone (mode 1), piece lines (mode 2); the model
    again run as T5Tokenizer too (bit 5) on a text of typed sentinels and special tokens."""
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(1)
    lines = [" ".join(rng.choice(["ab", "ba", "abc", "é", "a1", "ﬁ", "bca", "cab"])
                      for _ in range(6)) for _ in range(200)]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                   vocab_size=30, hard_vocab_limit=False, num_threads=1,
                                   normalization_rule_tsv=rules_file(folder), minloglevel=2,
                                   user_defined_symbols=["<sep>"])
    os.remove(os.path.join(folder, "rules.tsv"))
    model = model.getvalue()
    charsmap = b"".join(v for n, _, v in fields(model) if n == 3)
    charsmap = b"".join(v for n, _, v in fields(charsmap) if n == 2)
    text = "Aﬁ\u3000ab  <sep>x 123 12 e\u0301 ™".encode()
    seeds = {"model": b"\x00" + model, "charsmap": b"\x01" + charsmap,
             "pieces": b"\x12" + b"\x00\x10ab\n\x03\x00<c>\n\x04\x00xy\n\x04\x20b\n\x05\x00ba",
             "t5": b"\x21" + model}  # bit 5: also as T5Tokenizer, sentinels typed
    t5_text = "a <extra_id_1>x\u3000</s> <extra_id_0><extra_id_2> <pad>".encode()
    for name, part in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(part + b"\n==\n" + (t5_text if name == "t5" else text))


def train(lines, **options):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                   vocab_size=8000, model_type="unigram", num_threads=1,
                                   hard_vocab_limit=False,
                                   minloglevel=2, **options)
    return model.getvalue()


def fields(data):
    """(number, wire type, value) of a protobuf message: Debian's python3-sentencepiece has no
    protobuf module to parse the model with, and these three fields are all the converter reads."""
    at = 0

    def varint():
        nonlocal at
        value = shift = 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while at < len(data):
        key = varint()
        kind = key & 7
        if kind == 0:
            value = varint()
        elif kind == 1:
            value, at = data[at:at + 8], at + 8
        elif kind == 2:
            n = varint()
            value, at = data[at:at + n], at + n
        else:
            value, at = struct.unpack("<f", data[at:at + 4])[0], at + 4
        yield key >> 3, kind, value


class Piece:
    def __init__(self, data):
        self.piece, self.score, self.type = "", 0.0, 1
        for number, _, value in fields(data):
            if number == 1:
                self.piece = value.decode("utf-8")
            elif number == 2:
                self.score = value
            elif number == 3:
                self.type = value


def tokenizer_json(proto_bytes, legacy, byte_fallback=False):
    """What transformers' SpmConverter (with T5Converter's post-processor) writes."""
    pieces, charsmap, unk_id = [], b"", 0
    for number, _, value in fields(proto_bytes):
        if number == 1:
            pieces.append(Piece(value))
        elif number == 3:
            charsmap = b"".join(v for n, _, v in fields(value) if n == 2)
    unk_id = [i for i, p in enumerate(pieces) if p.type == 2][0]
    charsmap = base64.b64encode(charsmap).decode()
    precompiled = [{"type": "Precompiled", "precompiled_charsmap": charsmap}] if charsmap else []
    if legacy:
        steps = precompiled + [{"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]
    else:
        steps = precompiled + [{"type": "Strip", "strip_left": False, "strip_right": True},
                               {"type": "Replace", "pattern": {"Regex": " {2,}"},
                                "content": "\u2581"}]
    added = [{"id": i, "content": p.piece, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": p.type in (2, 3)}
             for i, p in enumerate(pieces) if p.type in (2, 3, 4)]
    eos = [i for i, p in enumerate(pieces) if p.piece == "</s>"][0]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                 "split": True}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": steps},
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": unk_id,
                  "vocab": [[p.piece, p.score] for p in pieces], "byte_fallback": byte_fallback},
    }


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: make_spm_fixtures.py OUT_DIR [COUNT] [SEED] | --fuzz-seeds DIR")
    if sys.argv[1] == "--fuzz-seeds":
        return fuzz_seeds(sys.argv[2])
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 39
    os.makedirs(out, exist_ok=True)
    lines = corpus(random.Random(seed))
    models = {
        "nmt": train(lines, normalization_rule_name="nmt_nfkc"),
        "identity": train(lines, normalization_rule_name="identity",
                          remove_extra_whitespaces=False),
        "bytes": train(lines, normalization_rule_name="nmt_nfkc", byte_fallback=True),
        "user": train(lines, normalization_rule_name="nmt_nfkc",
                      user_defined_symbols=["foo", "<sep>", "@@", "ｆｏｏ"]),
        "rules": train(lines, normalization_rule_tsv=rules_file(out)),
    }
    rng = random.Random(seed + 1)
    texts = CHOSEN + [random_text(rng) for _ in range(count)]
    for name, model in models.items():
        with open(os.path.join(out, name + ".model"), "wb") as f:
            f.write(model)
        sp = spm.SentencePieceProcessor(model_proto=model)
        cases = [{"text": t, "ids": sp.encode_as_ids(t), "pieces": sp.encode_as_pieces(t)}
                 for t in texts]
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
            json.dump({"chosen": len(CHOSEN), "cases": cases}, f, ensure_ascii=False)
    for model, legacy, file in (("nmt", False, "tokenizer.json"),
                                ("nmt", True, "tokenizer_legacy.json"),
                                ("bytes", False, "tokenizer_bytes.json"),
                                ("rules", False, "tokenizer_rules.json"),
                                ("user", False, "tokenizer_user.json"),
                                ("identity", False, "tokenizer_identity.json")):
        with open(os.path.join(out, file), "w", encoding="utf-8") as f:
            json.dump(tokenizer_json(models[model], legacy, model == "bytes"), f,
                      ensure_ascii=False)
    print(f"make_spm_fixtures.py: {len(models)} models, {len(texts)} texts each, in {out}")


if __name__ == "__main__":
    main()
