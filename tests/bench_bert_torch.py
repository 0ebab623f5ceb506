#!/usr/bin/python3
"""PyTorch's BERT forward with the MLM head on a checkpoint folder, the peer of
`mha-viz --bench-forward` for encoders.

Run: /usr/bin/python3 tests/bench_bert_torch.py DIR [--mha-viz build/app/mha-viz] [--tokens 128]
DIR is a BERT folder with one F32 model.safetensors (names with "bert."), e.g. the random
BERT-base of `tests/make_bert_fixtures.py --bench /tmp/bert-bench`. Debian's python3-torch in
float32 on 2 threads, under no_grad, the MLM head's logits included. The forward is timed
written two ways, as Hugging Face's modeling_bert.py writes it (torch.nn.functional.linear,
eager attention) and with plain matmuls; the faster one's median counts. With --mha-viz,
mha-viz's --bench-forward runs first on the same folder, so one run gives both and the ratio.
OPENBLAS_CORETYPE is dropped from the environment (bench_gpt2_torch.py does it on import).
"""
import argparse
import json
import pathlib
import time

import torch
import torch.nn.functional as F

from bench_gpt2_torch import RUNS, THREADS, mha_viz_ms, read_safetensors, report


def forward(s, c, ids, linear):
    """BertForMaskedLM's forward: embeddings, post-LN layers, the MLM head's logits."""
    d, eps, n, heads = c["hidden_size"], c.get("layer_norm_eps", 1e-12), len(ids), c["num_attention_heads"]
    ln = lambda x, name: F.layer_norm(x, (d,), s[name + ".weight"], s[name + ".bias"], eps)
    lin = lambda x, name: linear(x, s[name + ".weight"], s[name + ".bias"])
    x = s["embeddings.word_embeddings.weight"][ids] + s["embeddings.token_type_embeddings.weight"][0]
    x = ln(x + s["embeddings.position_embeddings.weight"][:n], "embeddings.LayerNorm")
    split = lambda t: t.view(n, heads, d // heads).permute(1, 0, 2)  # H x N x d_head
    for l in range(c["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        q, k, v = (split(lin(x, p + "attention.self." + w)) for w in ("query", "key", "value"))
        w = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / (d // heads) ** 0.5, dim=-1)
        o = torch.matmul(w, v).permute(1, 0, 2).reshape(n, d)
        a = ln(lin(o, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        x = ln(lin(F.gelu(lin(a, p + "intermediate.dense")), p + "output.dense") + a,
               p + "output.LayerNorm")
    t = ln(F.gelu(lin(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
    return linear(t, s["embeddings.word_embeddings.weight"], s["cls.predictions.bias"])


WAYS = {"hugging-face": F.linear, "plain-matmul": lambda x, w, b: x @ w.t() + b}


def median_ms(s, c, ids, way):
    times = []
    with torch.no_grad():
        for run in range(RUNS + 2):
            start = time.perf_counter()
            forward(s, c, ids, WAYS[way])
            if run >= 2:
                times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def forward_flops(c, n):
    """The FLOPs mha-viz's --bench-forward counts (real_model_cli.cpp's realForwardFlops)."""
    d, inner = c["hidden_size"], c["intermediate_size"]
    per_layer = 2 * n * d * 3 * d + 2 * 2 * n * n * d + 2 * n * d * d + 2 * 2 * n * d * inner
    return c["num_hidden_layers"] * per_layer + 2 * n * d * c["vocab_size"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--mha-viz", help="mha-viz binary: run its --bench-forward first")
    args = parser.parse_args()
    ours = mha_viz_ms(args.mha_viz, args.folder, args.tokens) if args.mha_viz else None
    torch.set_num_threads(THREADS)
    config = json.loads((args.folder / "config.json").read_text())
    s = read_safetensors(args.folder / "model.safetensors", prefix="bert.")
    ids = torch.tensor([1000 + i % 256 for i in range(args.tokens)])  # ids do not change the work
    flops = forward_flops(config, args.tokens)
    best = None
    for way in WAYS:
        ms = median_ms(s, config, ids, way)
        print(f"torch {way}: {ms:.2f} ms ({flops / (ms * 1e6):.1f} GFLOP/s, median of {RUNS})")
        best = ms if best is None else min(best, ms)
    report(best, ours, f"{args.tokens} tokens with the MLM head")


if __name__ == "__main__":
    main()
