#!/usr/bin/python3
"""PyTorch's GPT-2 forward on a checkpoint folder, the peer of `mha-viz --bench-forward`.

Run: /usr/bin/python3 tests/bench_gpt2_torch.py DIR [--mha-viz build/app/mha-viz] [--tokens 128]
DIR is a GPT-2 folder with one F32 model.safetensors, e.g. the random GPT-2 small of
`tests/make_gpt2_fixtures.py --bench /tmp/gpt2-bench`. Debian's python3-torch in float32 on 2
threads, the logits included, under no_grad. The forward is timed written two ways, as Hugging
Face's modeling_gpt2.py writes it (torch.addmm for Conv1D, a linear unembedding) and with plain
matmuls; the faster one's median counts. With --mha-viz, mha-viz's --bench-forward runs first on
the same folder (before torch's BLAS threads have worked), so one run gives both and the ratio.
OPENBLAS_CORETYPE is dropped from the environment: OpenBLAS picks its kernels for this CPU.
"""
import os
import sys

if "OPENBLAS_CORETYPE" in os.environ:  # must go before OpenBLAS loads: re-run without it
    os.environ.pop("OPENBLAS_CORETYPE")
    os.execv(sys.executable, [sys.executable] + sys.argv)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import mmap  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import struct  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

from torch_blas import blas_report  # noqa: E402

THREADS = 2
RUNS = 7  # timed runs after two warm-up ones; the median counts


def read_safetensors(path, prefix="transformer."):
    """The F32 tensors of a safetensors file, read by hand (no safetensors package in Debian),
    memory-mapped as mha-viz maps them (copy-on-write: torch.frombuffer wants a writable one);
    names without `prefix`."""
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        begin, end = entry["data_offsets"]
        flat = torch.frombuffer(data, dtype=torch.float32, count=(end - begin) // 4,
                                offset=8 + size + begin)
        tensors[name.removeprefix(prefix)] = flat.view(entry["shape"])
    return tensors


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def attention(a, w, b, heads, causal, proj_w, proj_b, linear):
    """GPT2Attention: c_attn, split into heads, causal softmax(q k^T / sqrt(d_head)) v, c_proj."""
    n, d = a.shape
    q, k, v = linear(a, w, b).split(d, dim=1)
    split = lambda t: t.view(n, heads, d // heads).permute(1, 0, 2)  # H x N x d_head
    q, k, v = split(q), split(k), split(v)
    scores = torch.matmul(q, k.transpose(-1, -2)) / (v.size(-1) ** 0.5)
    scores = torch.where(causal, scores, torch.tensor(torch.finfo(scores.dtype).min))
    o = torch.matmul(torch.softmax(scores, dim=-1), v).permute(1, 0, 2).reshape(n, d)
    return linear(o, proj_w, proj_b)


def forward(s, config, ids, linear, unembed):
    """GPT2LMHeadModel's forward with the logits; `linear` is Conv1D, `unembed` the lm head."""
    d, eps, n = config["n_embd"], config.get("layer_norm_epsilon", 1e-5), len(ids)
    ln = torch.nn.functional.layer_norm
    x = s["wte.weight"][ids] + s["wpe.weight"][:n]
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for l in range(config["n_layer"]):
        h = f"h.{l}."
        a = ln(x, (d,), s[h + "ln_1.weight"], s[h + "ln_1.bias"], eps)
        x = x + attention(a, s[h + "attn.c_attn.weight"], s[h + "attn.c_attn.bias"],
                          config["n_head"], causal, s[h + "attn.c_proj.weight"],
                          s[h + "attn.c_proj.bias"], linear)
        m = ln(x, (d,), s[h + "ln_2.weight"], s[h + "ln_2.bias"], eps)
        m = gelu_new(linear(m, s[h + "mlp.c_fc.weight"], s[h + "mlp.c_fc.bias"]))
        x = x + linear(m, s[h + "mlp.c_proj.weight"], s[h + "mlp.c_proj.bias"])
    x = ln(x, (d,), s["ln_f.weight"], s["ln_f.bias"], eps)
    return unembed(x, s.get("lm_head.weight", s["wte.weight"]))


WAYS = {  # name: (Conv1D, unembedding)
    "hugging-face": (lambda x, w, b: torch.addmm(b, x, w),
                     lambda x, head: torch.nn.functional.linear(x, head)),
    "plain-matmul": (lambda x, w, b: x @ w + b, lambda x, head: x @ head.t()),
}


def median_ms(s, config, ids, way):
    linear, unembed = WAYS[way]
    times = []
    with torch.no_grad():
        for run in range(RUNS + 2):
            start = time.perf_counter()
            forward(s, config, ids, linear, unembed)
            if run >= 2:
                times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def forward_flops(config, n):
    """The FLOPs mha-viz's --bench-forward counts (real_model_cli.cpp's realForwardFlops)."""
    d, inner = config["n_embd"], config.get("n_inner") or 4 * config["n_embd"]
    per_layer = 2 * n * d * 3 * d + 2 * 2 * n * n * d + 2 * n * d * d + 2 * 2 * n * d * inner
    return config["n_layer"] * per_layer + 2 * n * d * config["vocab_size"]


def mha_viz_ms(binary, folder, n):
    out = subprocess.run([binary, "--model", str(folder), "--bench-forward", str(n)],
                         check=True, capture_output=True, text=True).stdout
    print("mha-viz --bench-forward:\n  " + out.strip().replace("\n", "\n  "), flush=True)
    return float(re.search(r"forward: ([\d.]+) ms", out).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--mha-viz", help="mha-viz binary: run its --bench-forward first")
    args = parser.parse_args()
    ours = mha_viz_ms(args.mha_viz, args.folder, args.tokens) if args.mha_viz else None
    torch.set_num_threads(THREADS)
    config = json.loads((args.folder / "config.json").read_text())
    start = time.perf_counter()
    s = read_safetensors(args.folder / "model.safetensors")
    print(f"torch load: {(time.perf_counter() - start) * 1e3:.0f} ms (mapped)")
    ids = torch.tensor([i % 256 for i in range(args.tokens)])  # ids do not change the work
    flops = forward_flops(config, args.tokens)
    best = None
    for way in WAYS:
        ms = median_ms(s, config, ids, way)
        print(f"torch {way}: {ms:.2f} ms ({flops / (ms * 1e6):.1f} GFLOP/s, median of {RUNS})")
        best = ms if best is None else min(best, ms)
    report(best, ours, f"{args.tokens} tokens with the logits")


def report(best, ours, what):
    """The peer's best time, mha-viz's against it, and the BLAS torch ran (after the runs, so
    every library torch loads lazily is mapped): every peer script's last lines."""
    print(f"torch best: {best:.2f} ms, {what}, {torch.get_num_threads()} threads")
    if ours:
        print(f"mha-viz {ours:.2f} ms vs torch {best:.2f} ms: speed-up {best / ours:.2f}x")
    print(blas_report())


if __name__ == "__main__":
    main()
