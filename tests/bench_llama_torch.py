#!/usr/bin/python3
"""PyTorch's Llama forward on a checkpoint folder, the peer of `mha-viz --bench-forward`.

Run: /usr/bin/python3 tests/bench_llama_torch.py DIR [--mha-viz build/app/mha-viz] [--tokens 128]
DIR is a Llama folder of BF16 or F32 safetensors shards, e.g. the random Llama 3.2 1B of
`tests/make_llama_fixtures.py --bench /tmp/llama1b-bench`. The weights are widened to float32
once, before the clock starts (the peer as users run it on a CPU: float32), then Debian's
python3-torch runs the forward in float32 on 2 threads, the logits included, under no_grad: as
Hugging Face's modeling_llama.py writes it (F.linear, repeat_kv, rotate_half) and with plain
matmuls on pre-transposed weights; the faster one's median counts. With --mha-viz, mha-viz's
--bench-forward runs first on the same folder. OPENBLAS_CORETYPE is dropped from the
environment: OpenBLAS picks its kernels for this CPU.
"""
import os
import sys

if "OPENBLAS_CORETYPE" in os.environ:  # must go before OpenBLAS loads: re-run without it
    os.environ.pop("OPENBLAS_CORETYPE")
    os.execv(sys.executable, [sys.executable] + sys.argv)

import argparse  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import struct  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

from bench_gpt2_torch import THREADS, mha_viz_ms, report  # noqa: E402
from make_llama_fixtures import cos_sin  # noqa: E402

RUNS = 5  # timed runs after one warm-up; the median counts
DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}


def read_folder(folder):
    """Every tensor of the folder's safetensors files as float32, names without "model."."""
    tensors = {}
    for path in sorted(folder.glob("*.safetensors")):
        data = path.read_bytes()
        size = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + size])
        for name, e in header.items():
            if name == "__metadata__":
                continue
            begin, end = e["data_offsets"]
            raw = torch.frombuffer(bytearray(data[8 + size + begin:8 + size + end]),
                                   dtype=DTYPES[e["dtype"]])
            tensors[name.removeprefix("model.")] = raw.view(e["shape"]).float()
        del data
    return tensors


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rms(x, w, eps):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def forward(s, c, ids, cos, sin, linear, unembed):
    n, H, G = len(ids), c["num_attention_heads"], c["num_key_value_heads"]
    hd, eps = c.get("head_dim") or c["hidden_size"] // H, c["rms_norm_eps"]
    x = s["embed_tokens.weight"][ids]
    mask = torch.full((n, n), torch.finfo(torch.float32).min).triu(1)
    for l in range(c["num_hidden_layers"]):
        p = f"layers.{l}."
        h = rms(x, s[p + "input_layernorm.weight"], eps)
        q = linear(h, s[p + "self_attn.q_proj.weight"]).view(n, H, hd).transpose(0, 1)
        k = linear(h, s[p + "self_attn.k_proj.weight"]).view(n, G, hd).transpose(0, 1)
        v = linear(h, s[p + "self_attn.v_proj.weight"]).view(n, G, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // G, dim=0), v.repeat_interleave(H // G, dim=0)
        w = torch.softmax(q @ k.transpose(1, 2) * hd ** -0.5 + mask, dim=-1)
        x = x + linear((w @ v).transpose(0, 1).reshape(n, H * hd), s[p + "self_attn.o_proj.weight"])
        m = rms(x, s[p + "post_attention_layernorm.weight"], eps)
        gate = torch.nn.functional.silu(linear(m, s[p + "mlp.gate_proj.weight"]))
        x = x + linear(gate * linear(m, s[p + "mlp.up_proj.weight"]), s[p + "mlp.down_proj.weight"])
    x = rms(x, s["norm.weight"], eps)
    return unembed(x, s.get("lm_head.weight", s["embed_tokens.weight"]))


def median_ms(s, c, ids, cos, sin, way):
    if way == "hugging-face":
        linear, unembed = torch.nn.functional.linear, torch.nn.functional.linear
        weights = s
    else:  # plain matmuls on weights transposed once, outside the clock
        weights = {k: (v.t().contiguous() if v.dim() == 2 and "embed" not in k else v)
                   for k, v in s.items()}
        linear, unembed = (lambda x, w: x @ w), (lambda x, head: x @ head.t())
    times = []
    with torch.no_grad():
        for run in range(RUNS + 1):
            start = time.perf_counter()
            forward(weights, c, ids, cos, sin, linear, unembed)
            if run >= 1:
                times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def forward_flops(c, n):
    """The FLOPs mha-viz's --bench-forward counts (real_model_cli.cpp's realForwardFlops)."""
    d, H, G, inner = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], \
        c["intermediate_size"]
    hd = c.get("head_dim") or d // H
    q, kv = H * hd, G * hd
    per_layer = 2 * n * d * (q + 2 * kv) + 2 * 2 * n * n * q + 2 * n * q * d + 3 * 2 * n * d * inner
    return c["num_hidden_layers"] * per_layer + 2 * n * d * c["vocab_size"]


def rope_tables(c, n):
    """cos and sin of n positions, as the fixtures' reference makes them (llama3 scaling)."""
    hd = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    scaling = c.get("rope_scaling") or {}
    r = {"theta": c.get("rope_theta", 10000.0), "type": scaling.get("rope_type", "default"),
         "factor": scaling.get("factor"), "low": scaling.get("low_freq_factor"),
         "high": scaling.get("high_freq_factor"),
         "original": scaling.get("original_max_position_embeddings")}
    return cos_sin(r, hd, c["max_position_embeddings"], n)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--mha-viz", help="mha-viz binary: run its --bench-forward first")
    args = parser.parse_args()
    ours = mha_viz_ms(args.mha_viz, args.folder, args.tokens) if args.mha_viz else None
    torch.set_num_threads(THREADS)
    c = json.loads((args.folder / "config.json").read_text())
    start = time.perf_counter()
    s = read_folder(args.folder)
    print(f"torch load: {(time.perf_counter() - start) * 1e3:.0f} ms (widened to float32)")
    ids = torch.tensor([i % 256 for i in range(args.tokens)])  # ids do not change the work
    cos, sin = rope_tables(c, args.tokens)
    flops = forward_flops(c, args.tokens)
    best = None
    for way in ("hugging-face", "plain-matmul"):
        ms = median_ms(s, c, ids, cos, sin, way)
        print(f"torch {way}: {ms:.2f} ms ({flops / (ms * 1e6):.1f} GFLOP/s, median of {RUNS})")
        best = ms if best is None else min(best, ms)
    report(best, ours, f"{args.tokens} tokens with the logits")


if __name__ == "__main__":
    main()
