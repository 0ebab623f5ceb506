#!/usr/bin/python3
"""A GGUF file of a Llama checkpoint folder's shapes with random quantized blocks, for timing
`mha-viz --model FILE --bench-forward N` against the BF16 folder (docs/performance.md).

Run: /usr/bin/python3 tests/make_gguf_bench.py CONFIG_DIR OUT.gguf --type Q8_0|Q4_K_M
CONFIG_DIR holds the config.json of `tests/make_llama_fixtures.py --bench` (Llama 3.2 1B) or
`--bench-8b` (Llama 3.1 8B); only its shapes are read. Every block is random bytes with its
scales set to small finite halves, so the numbers mean nothing but each block costs what a
real one costs. Q4_K_M as llama.cpp mixes it: Q6_K for the output (tied: token_embd), attn_v
and ffn_down, Q4_K for the rest (llama.cpp keeps some attn_v / ffn_down layers at Q4_K; the
mix here is slightly heavier). Norms and rope_freqs are F32. A minimal byte-level vocabulary
(tokenizer.ggml.model gpt2, no merges) lets it open; the benchmark feeds ids, not text.
"""
import argparse
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gguf_writer import GGML_TYPES, GgufWriter  # noqa: E402
from make_gguf_fixtures import llama3_rope_freqs, model_metadata  # noqa: E402

# Where each type's fp16 scales sit in its block (ggml-common.h): (block bytes, offsets).
SCALES = {"Q8_0": (34, [0]), "Q4_K": (144, [0, 2]), "Q6_K": (210, [208])}


class Sized:
    """A tensor's size for the header; its bytes are made while the file is written."""

    def __init__(self, nbytes):
        self.nbytes = nbytes

    def __len__(self):
        return self.nbytes


def random_blocks(ggml_type, rows, cols, rng):
    """rows x cols values of random blocks with small finite scales."""
    size, offsets = SCALES[ggml_type]
    per_block = 32 if ggml_type == "Q8_0" else 256
    blocks = rows * cols // per_block
    data = rng.integers(0, 256, size=(blocks, size), dtype=np.uint8)
    scales = np.float16(1e-3) + rng.random(blocks, dtype=np.float32).astype(np.float16) * 1e-3
    for at in offsets:
        data[:, at:at + 2] = scales.view(np.uint8).reshape(blocks, 2)
    return data.tobytes()


def tensors(config, kind):
    """(gguf name, [rows, cols] or [n], ggml type) of the llama architecture."""
    d, inner, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
    hd = config.get("head_dim") or d // heads
    heavy = "Q8_0" if kind == "Q8_0" else "Q6_K"
    light = "Q8_0" if kind == "Q8_0" else "Q4_K"
    out = [("token_embd.weight", [vocab, d], heavy if config["tie_word_embeddings"] else light)]
    for layer in range(config["num_hidden_layers"]):
        b = f"blk.{layer}."
        out += [(b + "attn_norm.weight", [d], "F32"), (b + "ffn_norm.weight", [d], "F32"),
                (b + "attn_q.weight", [heads * hd, d], light),
                (b + "attn_k.weight", [kv * hd, d], light),
                (b + "attn_v.weight", [kv * hd, d], heavy),
                (b + "attn_output.weight", [d, heads * hd], light),
                (b + "ffn_gate.weight", [inner, d], light), (b + "ffn_up.weight", [inner, d], light),
                (b + "ffn_down.weight", [d, inner], heavy)]
    out.append(("output_norm.weight", [d], "F32"))
    if not config["tie_word_embeddings"]:
        out.append(("output.weight", [vocab, d], heavy))
    return out


def vocabulary(w, config):
    """A byte-level vocabulary of the config's size: 256 byte tokens, then placeholders."""
    byte_chars = [chr(c) for c in range(ord("!"), ord("~") + 1)] + \
        [chr(c) for c in range(ord("¡"), ord("¬") + 1)] + [chr(c) for c in range(ord("®"), ord("ÿ") + 1)]
    extra = [chr(256 + n) for n in range(256 - len(byte_chars))]
    tokens = byte_chars + extra + [f"<|bench_{i}|>" for i in range(config["vocab_size"] - 256)]
    w.add("tokenizer.ggml.model", "string", "gpt2")
    w.add("tokenizer.ggml.pre", "string", "default")
    w.add("tokenizer.ggml.tokens", ("array", "string"), tokens)
    w.add("tokenizer.ggml.token_type", ("array", "i32"), [1] * len(tokens))
    w.add("tokenizer.ggml.merges", ("array", "string"), ["! !"])  # one: an empty list is none
    w.add("tokenizer.ggml.bos_token_id", "u32", config.get("bos_token_id", 0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config_dir", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--type", choices=["Q8_0", "Q4_K_M"], required=True)
    args = parser.parse_args()
    config = json.loads((args.config_dir / "config.json").read_text())
    w = GgufWriter()
    model_metadata(w, "llama", config, args.type, True)
    vocabulary(w, config)
    specs = tensors(config, args.type)
    if (config.get("rope_scaling") or {}).get("rope_type") == "llama3":
        specs.append(("rope_freqs.weight", [config.get("head_dim", 64) // 2], "F32"))
    for name, shape, kind in specs:
        values = int(np.prod(shape))
        nbytes = values * 4 if kind == "F32" else \
            values // GGML_TYPES[kind][1] * GGML_TYPES[kind][2]
        w.add_tensor(name, shape=shape, ggml_type=kind, raw=Sized(nbytes))
    rng = np.random.default_rng(1)
    header = w.header()
    with open(args.out, "wb") as f:
        f.write(header + b"\0" * (-len(header) % w.alignment))
        for name, shape, kind, sized in w.tensors:
            if name == "rope_freqs.weight":
                data = llama3_rope_freqs(config).numpy().astype("<f4").tobytes()
            elif kind == "F32":
                data = np.ones(shape, dtype="<f4").tobytes()
            else:
                data = random_blocks(kind, shape[0], shape[1], rng)
            assert len(data) == len(sized), name
            f.write(data + b"\0" * (-len(data) % w.alignment))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e9:.2f} GB, {args.type})")


if __name__ == "__main__":
    main()
