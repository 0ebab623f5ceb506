#!/usr/bin/python3
"""Small random BERT, DistilBERT and RoBERTa checkpoints in the Hugging Face layout, and
PyTorch's forward on them.

Writes tests/fixtures/bert/<variant>/ (config.json, the safetensors file or shards with
model.safetensors.index.json, the tokenizer files, tokenizer_config.json) and
tests/fixtures/bert/reference.json: for each variant and case, the texts, the ids and token
types the tokenizer must give, every layer's attention [L][H][N][N] and, when the checkpoint has
an MLM head, the logits [N][V] (also with heads switched off). The forward is written here in
torch, operation for operation as Hugging Face's modeling_bert.py, modeling_roberta.py and
modeling_distilbert.py compute it in float32 (transformers is not a Debian package): word +
(token type +) position embeddings and LayerNorm; per layer Linear q, k, v, softmax of
q k^T / sqrt(d_head) (DistilBERT divides q first), the output dense, residual and LayerNorm,
the feed-forward with erf GELU, residual and LayerNorm; the MLM head (dense, GELU, LayerNorm,
the decoder tied to the word embeddings plus a bias). RoBERTa counts positions from
pad_token_id + 1.

These are fixtures, not BERT: random weights, toy vocabularies. Run with Debian's python3
(python3-torch 1.13); the output is deterministic:

    /usr/bin/python3 tests/make_bert_fixtures.py

With --bench DIR it writes only a random checkpoint of BERT-base's shapes (440 MB, outside the
repository) for the forward's benchmark (tests/bench_bert_torch.py):

    /usr/bin/python3 tests/make_bert_fixtures.py --bench /tmp/bert-bench
"""
import argparse
import json
import math
import pathlib
import re

import torch
import torch.nn.functional as F

from make_gpt2_fixtures import toy_tokenizer, write_safetensors, write_shards

OUT = pathlib.Path(__file__).resolve().parent / "fixtures" / "bert"
LAYERS, HEADS, D, INNER, POSITIONS = 2, 4, 32, 64, 64
ABLATED = {0: [1], 1: [0, 3]}

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "dog",
         "ran", "it", "was", "tired", "capital", "of", "france", "is", "paris", "un", "##aff",
         "##able", "run", "##ning", "##s", ".", ",", "!", "?", "cafe", "a", "b"]


def wordpiece(text):
    """BERT's uncased tokenizer for the fixture texts (ASCII words, punctuation, [MASK])."""
    ids = []
    for word in text.replace("[MASK]", " \0 ").split():
        if word == "\0":
            ids.append(WORDS.index("[MASK]"))
            continue
        for piece in "".join(f" {c} " if c in ".,!?" else c for c in word.lower()).split():
            start, out = 0, []
            while start < len(piece):
                end = len(piece)
                while end > start and (("##" if start else "") + piece[start:end]) not in WORDS:
                    end -= 1
                if end == start:
                    out = [WORDS.index("[UNK]")]
                    break
                out.append(WORDS.index(("##" if start else "") + piece[start:end]))
                start = end
            ids += out
    return ids


def roberta_vocab():
    """GPT-2's toy byte-level vocabulary (make_gpt2_fixtures.py) after RoBERTa's four special
    tokens, <mask> last."""
    vocab, merges = toy_tokenizer()
    del vocab["<|endoftext|>"]
    tokens = ["<s>", "<pad>", "</s>", "<unk>"] + sorted(vocab, key=vocab.get) + ["<mask>"]
    return {t: i for i, t in enumerate(tokens)}, merges


def roberta_ids(text, vocab, merges):
    """Byte-level BPE of the fixture texts (ASCII): GPT-2's pre-tokens (a space joins the word
    after it, punctuation apart), then the merges lowest rank first; <mask> takes the space
    before it (lstrip)."""
    ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
    ids = []
    for i, part in enumerate(text.split(" <mask>")):
        if i > 0:
            ids.append(vocab["<mask>"])
        for word in re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+", part):
            ids += [vocab[p] for p in bpe(word.replace(" ", "\u0120"), ranks)]
    return ids


def bpe(word, ranks):
    symbols = list(word)
    while len(symbols) > 1:
        pairs = [(ranks.get((a, b), 1 << 30), k) for k, (a, b) in enumerate(zip(symbols, symbols[1:]))]
        rank, k = min(pairs)
        if rank == 1 << 30:
            break
        symbols[k:k + 2] = [symbols[k] + symbols[k + 1]]
    return symbols


def normal(g, *shape, std=0.3):
    return torch.randn(*shape, generator=g) * std


def layer_norm_pair(g, D=D):
    return 1 + normal(g, D, std=0.1), normal(g, D, std=0.1)


def bert_state(g, vocab_size, types, positions, family, D=D, INNER=INNER, LAYERS=LAYERS):
    """Parameters under BERT's names (DistilBERT's are renamed when written)."""
    s = {"embeddings.word_embeddings.weight": normal(g, vocab_size, D),
         "embeddings.position_embeddings.weight": normal(g, positions, D, std=0.1)}
    if family != "distilbert":
        s["embeddings.token_type_embeddings.weight"] = normal(g, types, D, std=0.1)
    s["embeddings.LayerNorm.weight"], s["embeddings.LayerNorm.bias"] = layer_norm_pair(g, D)
    for l in range(LAYERS):
        p = f"encoder.layer.{l}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):
            s[p + name + ".weight"] = normal(g, D, D)
            s[p + name + ".bias"] = normal(g, D, std=0.1)
        s[p + "attention.output.LayerNorm.weight"], s[p + "attention.output.LayerNorm.bias"] = \
            layer_norm_pair(g, D)
        s[p + "intermediate.dense.weight"] = normal(g, INNER, D, std=0.2)
        s[p + "intermediate.dense.bias"] = normal(g, INNER, std=0.1)
        s[p + "output.dense.weight"] = normal(g, D, INNER, std=0.2)
        s[p + "output.dense.bias"] = normal(g, D, std=0.1)
        s[p + "output.LayerNorm.weight"], s[p + "output.LayerNorm.bias"] = layer_norm_pair(g, D)
    s["head.dense.weight"] = normal(g, D, D)
    s["head.dense.bias"] = normal(g, D, std=0.1)
    s["head.LayerNorm.weight"], s["head.LayerNorm.bias"] = layer_norm_pair(g, D)
    s["head.bias"] = normal(g, vocab_size, std=0.1)
    return s


def forward(s, family, ids, types, eps, pad=1, ablated=None, head=True):
    """The family's forward in float32: every layer's attention and, with a head, the logits."""
    ablated = ablated or {}
    n, dh = len(ids), D // HEADS
    ids_t = torch.tensor(ids)
    if family == "roberta":  # create_position_ids_from_input_ids
        mask = (ids_t != pad).int()
        positions = torch.cumsum(mask, 0) * mask + pad
    else:
        positions = torch.arange(n)
    x = s["embeddings.word_embeddings.weight"][ids_t]
    if family != "distilbert":
        x = x + s["embeddings.token_type_embeddings.weight"][torch.tensor(types)]
    x = x + s["embeddings.position_embeddings.weight"][positions]
    x = F.layer_norm(x, (D,), s["embeddings.LayerNorm.weight"], s["embeddings.LayerNorm.bias"], eps)
    attentions = []
    for l in range(LAYERS):
        p = f"encoder.layer.{l}."
        lin = lambda t, name: F.linear(t, s[p + name + ".weight"], s[p + name + ".bias"])
        split = lambda t: t.view(n, HEADS, dh).permute(1, 0, 2)  # H x N x d_head
        q = split(lin(x, "attention.self.query"))
        k = split(lin(x, "attention.self.key"))
        v = split(lin(x, "attention.self.value"))
        if family == "distilbert":
            w = torch.matmul(q / math.sqrt(dh), k.transpose(-1, -2))
        else:
            w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)
        w = torch.softmax(w, dim=-1)
        attentions.append(w)
        o = torch.matmul(w, v)
        for h in ablated.get(l, []):
            o[h] = 0  # the head's output zeroed before the output dense
        o = o.permute(1, 0, 2).reshape(n, D)
        a = F.layer_norm(lin(o, "attention.output.dense") + x, (D,),
                         s[p + "attention.output.LayerNorm.weight"],
                         s[p + "attention.output.LayerNorm.bias"], eps)
        m = F.gelu(lin(a, "intermediate.dense"))
        x = F.layer_norm(lin(m, "output.dense") + a, (D,), s[p + "output.LayerNorm.weight"],
                         s[p + "output.LayerNorm.bias"], eps)
    if not head:
        return attentions, None
    t = F.gelu(F.linear(x, s["head.dense.weight"], s["head.dense.bias"]))
    t = F.layer_norm(t, (D,), s["head.LayerNorm.weight"], s["head.LayerNorm.bias"], eps)
    return attentions, F.linear(t, s["embeddings.word_embeddings.weight"], s["head.bias"])


# name, family, dtype, prefixed, shards, head ("tied", "untied" decoder weight, or None),
# old LayerNorm names (gamma / beta), tokenizer.json instead of vocab files
VARIANTS = [
    ("bert_f32", "bert", torch.float32, True, 1, "tied", False, False),
    ("bert_f16_gamma_shards", "bert", torch.float16, False, 2, "untied", True, True),
    ("bert_bare_bf16", "bert", torch.bfloat16, False, 1, None, False, False),
    ("distilbert_f32", "distilbert", torch.float32, True, 1, "tied", False, False),
    ("distilbert_bare_f16", "distilbert", torch.float16, False, 1, None, False, True),
    ("roberta_f32", "roberta", torch.float32, True, 1, "tied", False, False),
    ("roberta_bf16_shards", "roberta", torch.bfloat16, True, 3, "untied", False, True),
]

BERT_CASES = [("The cat sat on the [MASK].", None), ("The cat sat.", "It was tired!"),
              ("The capital of France is [MASK], unaffable running cats!", None)]
ROBERTA_CASES = [("The cat sat on the <mask>.", None), ("The cat sat.", "The dog ran!")]

# DistilBERT's names for BERT's, in the order the replacements apply.
DISTIL_NAMES = [("encoder.layer.", "transformer.layer."), ("attention.self.query", "attention.q_lin"),
                ("attention.self.key", "attention.k_lin"), ("attention.self.value", "attention.v_lin"),
                ("attention.output.dense", "attention.out_lin"),
                ("attention.output.LayerNorm", "sa_layer_norm"), ("intermediate.dense", "ffn.lin1"),
                ("output.dense", "ffn.lin2"), ("output.LayerNorm", "output_layer_norm")]
HEAD_NAMES = {  # the MLM head: dense, LayerNorm, decoder, bias
    "bert": ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
             "cls.predictions.decoder", "cls.predictions.bias"),
    "roberta": ("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder", "lm_head.bias"),
    "distilbert": ("vocab_transform", "vocab_layer_norm", "vocab_projector", "vocab_projector.bias")}


def file_names(state, family, prefixed, head, gamma):
    """The state under the names the family's save_pretrained writes."""
    named = {}
    for name, t in state.items():
        if name.startswith("head."):
            if head is None:
                continue
            dense, norm, decoder, bias = HEAD_NAMES[family]
            rest = name[len("head."):]
            full = {"dense.weight": dense + ".weight", "dense.bias": dense + ".bias",
                    "LayerNorm.weight": norm + ".weight", "LayerNorm.bias": norm + ".bias",
                    "bias": bias}[rest]
            if head == "untied" and rest == "bias" and family != "distilbert":
                full = decoder + ".bias"  # the other place a file keeps the decoder's bias
        else:
            full = name
            if family == "distilbert":
                for bert, distil in DISTIL_NAMES:
                    full = full.replace(bert, distil)
            if prefixed:
                full = {"bert": "bert.", "roberta": "roberta.", "distilbert": "distilbert."}[family] + full
        if gamma and "LayerNorm" in full or gamma and "layer_norm" in full:
            full = full.replace(".weight", ".gamma").replace(".bias", ".beta")
        named[full] = t
    if head == "untied":  # the tied decoder saved as its own copy, as older files have it
        named[HEAD_NAMES[family][2] + ".weight"] = state["embeddings.word_embeddings.weight"].clone()
    if family == "bert" and prefixed:  # a buffer older files hold; never read
        named["bert.embeddings.position_ids"] = torch.arange(POSITIONS).unsqueeze(0)
    return named


def config_json(family, vocab_size):
    if family == "distilbert":
        return {"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"],
                "n_layers": LAYERS, "n_heads": HEADS, "dim": D, "hidden_dim": INNER,
                "max_position_embeddings": POSITIONS, "vocab_size": vocab_size,
                "activation": "gelu", "pad_token_id": 0, "sinusoidal_pos_embds": False}
    roberta = family == "roberta"
    return {"model_type": family, "architectures": [("Roberta" if roberta else "Bert") + "ForMaskedLM"],
            "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "hidden_size": D,
            "intermediate_size": INNER, "max_position_embeddings": POSITIONS + (2 if roberta else 0),
            "vocab_size": vocab_size, "hidden_act": "gelu", "type_vocab_size": 1 if roberta else 2,
            "layer_norm_eps": 1e-5 if roberta else 1e-12, "pad_token_id": 1 if roberta else 0,
            "position_embedding_type": "absolute"}


def write_tokenizer(folder, family, as_tokenizer_json):
    if family == "roberta":
        vocab, merges = roberta_vocab()
        if as_tokenizer_json:
            added = [{"id": vocab[t], "content": t, "lstrip": t == "<mask>", "rstrip": False,
                      "normalized": False, "special": True}
                     for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")]
            tok = {"version": "1.0", "added_tokens": added, "normalizer": None,
                   "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False},
                   "model": {"type": "BPE", "vocab": vocab, "merges": merges}}
            (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
        else:
            (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
            (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")
        (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": POSITIONS}))
        return len(vocab)
    if as_tokenizer_json:
        tok = {"version": "1.0", "added_tokens": [
                   {"id": i, "content": t, "normalized": False, "special": True}
                   for i, t in enumerate(WORDS[:5])],
               "normalizer": {"type": "BertNormalizer", "clean_text": True,
                              "handle_chinese_chars": True, "strip_accents": None,
                              "lowercase": True},
               "pre_tokenizer": {"type": "BertPreTokenizer"},
               "model": {"type": "WordPiece", "unk_token": "[UNK]",
                         "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                         "vocab": {t: i for i, t in enumerate(WORDS)}}}
        (folder / "tokenizer.json").write_text(json.dumps(tok))
    else:
        (folder / "vocab.txt").write_text("\n".join(WORDS) + "\n")
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))
    return len(WORDS)


def write_weights(folder, named, dtype, shards):
    named = {k: (v.to(dtype) if v.is_floating_point() else v) for k, v in named.items()}
    write_shards(folder, named, shards)


def rounded(values, digits=7):
    return [[round(float(v), digits) for v in row] for row in values]


def encode(family, text, pair):
    """The ids and token types the model is fed, specials included."""
    if family == "roberta":
        vocab, merges = roberta_vocab()
        a = [0] + roberta_ids(text, vocab, merges) + [2]
        b = [2] + roberta_ids(pair, vocab, merges) + [2] if pair else []
        return a + b, [0] * len(a + b)
    a = [2] + wordpiece(text) + [3]
    b = wordpiece(pair) + [3] if pair else []
    return a + b, [0] * len(a) + [1] * len(b)


def make_variant(index, variant):
    name, family, dtype, prefixed, shards, head, gamma, tok_json = variant
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    vocab_size = write_tokenizer(folder, family, tok_json)
    g = torch.Generator().manual_seed(index + 1)
    types = 1 if family == "roberta" else 2
    positions = POSITIONS + (2 if family == "roberta" else 0)
    state = bert_state(g, vocab_size, types, positions, family)
    state = {k: v.to(dtype).to(torch.float32) for k, v in state.items()}  # the file's values
    (folder / "config.json").write_text(json.dumps(config_json(family, vocab_size), indent=2))
    write_weights(folder, file_names(state, family, prefixed, head, gamma), dtype, shards)
    eps = 1e-5 if family == "roberta" else 1e-12
    results = []
    with torch.no_grad():
        for text, pair in (ROBERTA_CASES if family == "roberta" else BERT_CASES):
            ids, token_types = encode(family, text, pair)
            attentions, logits = forward(state, family, ids, token_types, eps, head=head is not None)
            case = {"text": text, "pair": pair or "", "ids": ids, "types": token_types,
                    "attention": [[rounded(h) for h in layer] for layer in attentions]}
            if head is not None:
                _, ablated = forward(state, family, ids, token_types, eps, ablated=ABLATED)
                case["logits"] = rounded(logits, 6)
                case["ablated_logits"] = rounded(ablated, 6)
            results.append(case)
    return results


def write_bench(folder):
    """A random checkpoint of BERT-base's shapes (12 layers, 12 heads, d 768, 3072 inner, vocab
    30522, 512 positions, F32, the MLM head tied) for the forward's benchmarks. The toy
    vocabulary is enough: the benchmark repeats one sentence's ids."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(WORDS + [f"[unused{i}]" for i in range(30522 - len(WORDS))]) + "\n")
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))
    g = torch.Generator().manual_seed(7)
    state = bert_state(g, 30522, 2, 512, "bert", D=768, INNER=3072, LAYERS=12)
    config = config_json("bert", 30522)
    config.update({"num_hidden_layers": 12, "num_attention_heads": 12, "hidden_size": 768,
                   "intermediate_size": 3072, "max_position_embeddings": 512})
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    write_weights(folder, file_names(state, "bert", True, "tied", False), torch.float32, 1)
    print(f"wrote a BERT-base shaped checkpoint (random weights) to {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", metavar="DIR",
                        help="write only a BERT-base shaped benchmark checkpoint into DIR")
    args = parser.parse_args()
    if args.bench:
        return write_bench(args.bench)
    torch.manual_seed(0)
    reference = {"note": "random fixture weights and toy vocabularies, not BERT",
                 "layers": LAYERS, "heads": HEADS,
                 "ablated": {str(k): v for k, v in ABLATED.items()}, "variants": {}}
    for index, variant in enumerate(VARIANTS):
        reference["variants"][variant[0]] = make_variant(index, variant)
    (OUT / "reference.json").write_text(json.dumps(reference, separators=(",", ":")))
    print(f"wrote {len(VARIANTS)} checkpoints and reference.json to {OUT}")


if __name__ == "__main__":
    main()
