#!/usr/bin/python3
"""Small random GPT-2 checkpoints in the Hugging Face layout, and PyTorch's forward on them.

Writes tests/fixtures/gpt2/<variant>/ (config.json, the safetensors file or shards with
model.safetensors.index.json, vocab.json + merges.txt or tokenizer.json) and
tests/fixtures/gpt2/reference.json: for each variant and each case, every layer's attention
[L][H][N][N] and the logits [N][V], computed in float32 by GPT-2's forward written as Hugging
Face's modeling_gpt2.py computes it (GPT2Attention with Conv1D c_attn / c_proj, scale
1/sqrt(d_head), causal mask, softmax, tanh GELU "gelu_new", pre-LayerNorm blocks, ln_f, logits
tied to wte unless the checkpoint has lm_head.weight). transformers is not a Debian package, so
the forward is written here in torch, operation for operation.

These are fixtures, not GPT-2: random weights, a 300-token toy vocabulary. Run with Debian's
python3 (python3-torch 1.13); the output is deterministic:

    /usr/bin/python3 tests/make_gpt2_fixtures.py

With --bench DIR it writes only a random checkpoint of GPT-2 small's shapes (500 MB, outside
the repository) for the forward's benchmark:

    /usr/bin/python3 tests/make_gpt2_fixtures.py --bench /tmp/gpt2-bench
"""
import argparse
import json
import math
import pathlib
import struct

import torch

OUT = pathlib.Path(__file__).resolve().parent / "fixtures" / "gpt2"
LAYERS, HEADS, D, POSITIONS = 2, 4, 32, 64


def bytes_to_unicode():
    """GPT-2's table: printable bytes stand for themselves, the rest move up past U+0100."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) +
                 list(range(0xAE, 0xFF + 1)))
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def toy_tokenizer():
    """256 byte tokens, a few merges (so words become one token), <|endoftext|> last."""
    table = bytes_to_unicode()
    vocab = {table[b]: b for b in range(256)}
    merges = []
    for word in ["the", "Ġthe", "Ġcat", "Ġsat", "Ġon", "Ġmat", "Ġdog", "Ġran", "The", "ing"]:
        pieces = list(word)
        while len(pieces) > 1:  # merge left to right: a, b -> ab
            merged = pieces[0] + pieces[1]
            if merged not in vocab:
                merges.append(f"{pieces[0]} {pieces[1]}")
                vocab[merged] = len(vocab)
            pieces = [merged] + pieces[2:]
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, merges


def random_state(vocab_size, generator, tied=True, layers=LAYERS, D=D, positions=POSITIONS):
    """GPT-2's parameters (names as GPT2LMHeadModel's transformer.*), random but lively."""
    def normal(*shape, std=0.3):
        return torch.randn(*shape, generator=generator) * std
    s = {"wte.weight": normal(vocab_size, D), "wpe.weight": normal(positions, D, std=0.1)}
    for l in range(layers):
        h = f"h.{l}."
        s[h + "ln_1.weight"] = 1 + normal(D, std=0.1)
        s[h + "ln_1.bias"] = normal(D, std=0.1)
        s[h + "attn.c_attn.weight"] = normal(D, 3 * D)
        s[h + "attn.c_attn.bias"] = normal(3 * D, std=0.1)
        s[h + "attn.c_proj.weight"] = normal(D, D, std=0.2)
        s[h + "attn.c_proj.bias"] = normal(D, std=0.1)
        s[h + "ln_2.weight"] = 1 + normal(D, std=0.1)
        s[h + "ln_2.bias"] = normal(D, std=0.1)
        s[h + "mlp.c_fc.weight"] = normal(D, 4 * D, std=0.2)
        s[h + "mlp.c_fc.bias"] = normal(4 * D, std=0.1)
        s[h + "mlp.c_proj.weight"] = normal(4 * D, D, std=0.1)
        s[h + "mlp.c_proj.bias"] = normal(D, std=0.1)
    s["ln_f.weight"] = 1 + normal(D, std=0.1)
    s["ln_f.bias"] = normal(D, std=0.1)
    if not tied:
        s["lm_head.weight"] = normal(vocab_size, D)
    return s


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def forward(s, ids, ablated=None):
    """GPT2LMHeadModel.forward in float32: the attentions of every layer and the logits."""
    ablated = ablated or {}
    n = len(ids)
    ln = torch.nn.functional.layer_norm
    x = s["wte.weight"][torch.tensor(ids)] + s["wpe.weight"][torch.arange(n)]
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    attentions = []
    for l in range(LAYERS):
        h = f"h.{l}."
        a = ln(x, (D,), s[h + "ln_1.weight"], s[h + "ln_1.bias"], 1e-5)
        qkv = torch.addmm(s[h + "attn.c_attn.bias"], a, s[h + "attn.c_attn.weight"])
        q, k, v = qkv.split(D, dim=1)
        split = lambda t: t.view(n, HEADS, D // HEADS).permute(1, 0, 2)  # H x N x d_head
        q, k, v = split(q), split(k), split(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / (v.size(-1) ** 0.5)
        w = torch.where(causal, w, torch.tensor(torch.finfo(w.dtype).min))
        w = torch.softmax(w, dim=-1)
        attentions.append(w)
        o = torch.matmul(w, v)  # H x N x d_head
        for head in ablated.get(l, []):
            o[head] = 0  # the head's output zeroed before c_proj
        o = o.permute(1, 0, 2).reshape(n, D)
        x = x + torch.addmm(s[h + "attn.c_proj.bias"], o, s[h + "attn.c_proj.weight"])
        m = ln(x, (D,), s[h + "ln_2.weight"], s[h + "ln_2.bias"], 1e-5)
        m = gelu_new(torch.addmm(s[h + "mlp.c_fc.bias"], m, s[h + "mlp.c_fc.weight"]))
        x = x + torch.addmm(s[h + "mlp.c_proj.bias"], m, s[h + "mlp.c_proj.weight"])
    x = ln(x, (D,), s["ln_f.weight"], s["ln_f.bias"], 1e-5)
    head = s.get("lm_head.weight", s["wte.weight"])
    return attentions, x @ head.T


DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.uint8: "U8",
          torch.int64: "I64",
          torch.bool: "BOOL"}


def write_safetensors(path, tensors, metadata=None):
    """The format by hand (the safetensors package is not in Debian 12): 8-byte header size,
    JSON header, the tensors' bytes back to back. Written tensor by tensor, so a 500 MB
    checkpoint is never held twice in memory. `metadata`: more __metadata__ strings."""
    header, offset = {"__metadata__": {"format": "pt", **(metadata or {})}}, 0
    raw = {name: (t.to(torch.uint8) if t.dtype == torch.bool else t).contiguous().reshape(-1)
           for name, t in tensors.items()}
    for name, t in tensors.items():
        size = raw[name].numel() * raw[name].element_size()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in raw.values():
            f.write(t.view(torch.uint8).numpy().data)


def config_json(vocab_size, tied=True, layers=LAYERS, heads=HEADS, D=D, positions=POSITIONS):
    return {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": layers,
            "n_head": heads, "n_embd": D, "n_positions": positions, "n_ctx": positions,
            "n_inner": None, "vocab_size": vocab_size, "layer_norm_epsilon": 1e-5,
            "activation_function": "gelu_new", "bos_token_id": vocab_size - 1,
            "eos_token_id": vocab_size - 1, "tie_word_embeddings": tied}


VARIANTS = [  # name, dtype, "transformer." prefix, shards, tied, tokenizer.json, mask buffers
    ("f32", torch.float32, True, 1, True, False, "F32"),
    ("f32_unprefixed_shards", torch.float32, False, 2, True, True, None),
    ("f16", torch.float16, True, 1, True, False, "BOOL"),
    ("bf16_shards", torch.bfloat16, True, 3, True, False, None),
    ("untied", torch.float32, False, 1, False, True, "U8"),
]


def cases(vocab):
    """A sentence of whole-word tokens, every 16th byte token then <|endoftext|>, a repeat."""
    words = [vocab[w] for w in ["The", "Ġcat", "Ġsat", "Ġon", "Ġthe", "Ġmat"]]
    eot = vocab["<|endoftext|>"]
    return [words, list(range(0, 256, 16)) + [eot], [eot] + words[1:4] * 3]

ABLATED = {0: [1], 1: [0, 3]}


def write_tokenizer(folder, vocab, merges, as_tokenizer_json):
    if as_tokenizer_json:
        tok = {"version": "1.0", "added_tokens": [{"id": vocab["<|endoftext|>"],
               "content": "<|endoftext|>", "special": True}],
               "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False},
               "model": {"type": "BPE", "vocab": vocab, "merges": merges}}
        (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
    else:
        (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
        (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")


def write_weights(folder, state, dtype, prefixed, shards, mask):
    named = {}
    for name, t in state.items():
        full = ("transformer." + name) if prefixed and not name.startswith("lm_head") else name
        named[full] = t.to(dtype)
        if mask and name.endswith("ln_1.weight"):  # the causal-mask buffers old files hold
            buffer = torch.tril(torch.ones(1, 1, POSITIONS, POSITIONS))
            named[full.replace("ln_1.weight", "attn.bias")] = buffer.to(DTYPES_BACK[mask])
            named[full.replace("ln_1.weight", "attn.masked_bias")] = torch.tensor(-1e4)
    write_shards(folder, named, shards)


def write_shards(folder, named, shards):
    """model.safetensors, or `shards` files (tensor k in shard k mod shards) with the index
    Hugging Face writes beside them: every fixture script's checkpoints."""
    if shards == 1:
        write_safetensors(folder / "model.safetensors", named)
        return
    names = list(named)
    weight_map = {}
    for k in range(shards):
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: named[n] for n in names[k::shards]}
        write_safetensors(folder / file, part)
        weight_map.update({n: file for n in part})
    index = {"metadata": {"total_size": sum(t.numel() * t.element_size() for t in named.values())},
             "weight_map": dict(sorted(weight_map.items()))}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))


DTYPES_BACK = {"F32": torch.float32, "BOOL": torch.bool, "U8": torch.uint8}


def rounded(values, digits=7):
    return [[round(float(v), digits) for v in row] for row in values]


def write_bench(folder):
    """A random checkpoint of GPT-2 small's shapes (12 layers, 12 heads, d 768, vocab 50257,
    1024 positions, F32, tied) for the forward's benchmarks (tests/bench_gpt2_torch.py). The
    toy tokenizer is enough: the benchmark repeats one sentence's ids, all below 300."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab, merges = toy_tokenizer()
    g = torch.Generator().manual_seed(7)
    state = random_state(50257, g, layers=12, D=768, positions=1024)
    config = config_json(50257, layers=12, heads=12, D=768, positions=1024)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    write_tokenizer(folder, vocab, merges, False)
    write_weights(folder, state, torch.float32, True, 1, None)
    print(f"wrote a GPT-2 small shaped checkpoint (random weights) to {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", metavar="DIR",
                        help="write only a GPT-2 small shaped benchmark checkpoint into DIR")
    args = parser.parse_args()
    if args.bench:
        return write_bench(args.bench)
    torch.manual_seed(0)
    vocab, merges = toy_tokenizer()
    reference = {"note": "random fixture weights, not GPT-2", "layers": LAYERS, "heads": HEADS,
                 "ablated": {str(k): v for k, v in ABLATED.items()}, "variants": {}}
    for name, dtype, prefixed, shards, tied, tok_json, mask in VARIANTS:
        folder = OUT / name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        g = torch.Generator().manual_seed(len(reference["variants"]) + 1)
        state = random_state(len(vocab), g, tied)
        # The reference runs on the very values the file holds, read back as float32.
        state = {k: v.to(dtype).to(torch.float32) for k, v in state.items()}
        (folder / "config.json").write_text(json.dumps(config_json(len(vocab), tied), indent=2))
        write_tokenizer(folder, vocab, merges, tok_json)
        write_weights(folder, state, dtype, prefixed, shards, mask)
        results = []
        with torch.no_grad():
            for ids in cases(vocab):
                attentions, logits = forward(state, ids)
                _, ablated_logits = forward(state, ids, ABLATED)
                results.append({"ids": ids,
                              "attention": [[rounded(head) for head in layer] for layer in attentions],
                              "logits": rounded(logits, 6),
                              "ablated_logits": rounded(ablated_logits, 6)})
        reference["variants"][name] = results
    (OUT / "reference.json").write_text(json.dumps(reference, separators=(",", ":")))
    print(f"wrote {len(VARIANTS)} checkpoints and reference.json to {OUT}")


if __name__ == "__main__":
    main()
