#!/usr/bin/python3
"""PyTorch references for the engine's attention as today's models run it.

Writes tests/fixtures/torch_<case>.json like make_torch_fixtures.py (same number formats, same
base fields, read by tests/torch_reference_test.cpp), for what nn.MultiheadAttention cannot do:
  * grouped-query attention: H query heads, H_kv K/V heads (H_kv divides H; query head h reads
    K/V head h // (H / H_kv), Hugging Face's repeat_kv), multi-query (H_kv = 1);
  * a head size of its own: W_Q d x (H*d_head), W_K and W_V d x (H_kv*d_head), W_O (H*d_head) x d;
  * biases on the projections (Qwen2's q, k, v; GPT-2's four);
  * rotary positions on q and k after the projections: cos/sin tables (N x r/2, float32, made as
    Hugging Face's LlamaRotaryEmbedding makes them) applied as q*cos + rotate_half(q)*sin, or on
    adjacent pairs (interleaved), or on the first r < d_head dimensions only;
  * an additive score bias (H*N x M, after the scale, before the mask: T5's relative positions)
    and a scale of the model's own.

The reference is float64 torch written from those definitions (torch 1.13 has no GQA in its
attention), checked against an independent NumPy float64 version to 1e-12. Extra fields:
kv_heads, d_head, b_q, b_k, b_v, b_o (absent: no bias), rotary_cos, rotary_sin,
rotary_interleaved (absent: no rotation), score_bias (absent: none), scale (absent:
1/sqrt(d_head)).

    /usr/bin/python3 tests/make_torch_gqa_fixtures.py
"""

import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_torch_fixtures import FIXTURE_DIR, array_text, bool_text, causal_mask, f32_text, f64_text  # noqa: E402

# H_kv = kv, d_head = dh; r: rotary dimensions (0: none); biases: which of "qkvo"
CASES = [
    dict(name="gqa_biases", seed=2001, B=2, N=7, d=32, H=8, kv=2, dh=4, causal=True,
         lengths=[7, 5], biases="qkv"),
    dict(name="mqa", seed=2002, B=1, N=6, d=24, H=6, kv=1, dh=4),
    dict(name="head_size", seed=2003, B=2, N=5, d=24, H=4, kv=2, dh=10, biases="qkvo",
         lengths=[5, 3]),
    dict(name="rotary", seed=2004, B=1, N=9, d=32, H=4, kv=2, dh=8, r=8, causal=True),
    dict(name="rotary_interleaved_partial", seed=2005, B=1, N=8, d=32, H=2, kv=2, dh=16, r=8,
         interleaved=True),
    dict(name="score_bias", seed=2006, B=2, N=5, d=16, H=4, kv=4, dh=4, bias=True, scale=1.0,
         lengths=[5, 4]),
    dict(name="gqa_rotary_long", seed=2007, B=1, N=70, d=32, H=4, kv=1, dh=8, r=8, causal=True,
         bias=True, biases="qkvo"),
]


def rotary_tables(n, r, base=10000.0):
    """cos, sin (N, r/2) float32 as LlamaRotaryEmbedding: inv_freq from arange(0, r, 2)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, r, 2, dtype=torch.int64).float() / r))
    freqs = torch.arange(n, dtype=torch.int64).float()[:, None] * inv_freq[None, :]
    return freqs.cos().numpy(), freqs.sin().numpy()


def torch_rotate(t, cos, sin, interleaved):
    """t (B, heads, N, d_head) float64; the first r = 2 * cos.shape[1] dims turned."""
    half = cos.shape[1]
    r = 2 * half
    c = torch.from_numpy(np.asarray(cos, np.float64))
    s = torch.from_numpy(np.asarray(sin, np.float64))
    turned, rest = t[..., :r], t[..., r:]
    if interleaved:  # pairs (2j, 2j + 1)
        a, b = turned[..., 0::2], turned[..., 1::2]
        out = torch.stack([a * c - b * s, b * c + a * s], dim=-1).flatten(-2)
    else:  # rotate_half: pairs (j, j + r/2), q * cos + rotate_half(q) * sin
        cc, ss = torch.cat([c, c], dim=-1), torch.cat([s, s], dim=-1)
        rot = torch.cat([-turned[..., half:], turned[..., :half]], dim=-1)
        out = turned * cc + rot * ss
    return torch.cat([out, rest], dim=-1)


def torch_attention(t, case, masked):
    """Float64 torch from the definitions; returns attention (B,H,N,M), output (B,N,d)."""
    T = {k: (None if v is None else torch.from_numpy(np.asarray(v, np.float64))) for k, v in t.items()}
    B, N, H, kv, dh = case["B"], case["N"], case["H"], case["kv"], case["dh"]

    def proj(x, w, b):
        y = x @ w
        return y if b is None else y + b

    q = proj(T["x"], T["w_q"], T["b_q"]).view(B, N, H, dh).transpose(1, 2)
    k = proj(T["x"], T["w_k"], T["b_k"]).view(B, N, kv, dh).transpose(1, 2)
    v = proj(T["x"], T["w_v"], T["b_v"]).view(B, N, kv, dh).transpose(1, 2)
    if t["rotary_cos"] is not None:
        q = torch_rotate(q, t["rotary_cos"], t["rotary_sin"], case.get("interleaved", False))
        k = torch_rotate(k, t["rotary_cos"], t["rotary_sin"], case.get("interleaved", False))
    k = k.repeat_interleave(H // kv, dim=1)  # repeat_kv
    v = v.repeat_interleave(H // kv, dim=1)
    scores = q @ k.transpose(-1, -2) * case_scale(case)
    if T["score_bias"] is not None:
        scores = scores + T["score_bias"].view(1, H, N, N)
    scores = scores.masked_fill(torch.from_numpy(masked)[:, None], float("-inf"))
    attn = torch.softmax(scores, dim=-1)
    concat = (attn @ v).transpose(1, 2).reshape(B, N, H * dh)
    return attn.numpy().copy(), proj(concat, T["w_o"], T["b_o"]).numpy().copy()


def numpy_attention(t, case, masked):
    """The same in plain NumPy float64, head by head, pair by pair."""
    B, N, H, kv, dh = case["B"], case["N"], case["H"], case["kv"], case["dh"]
    f = {k: (None if v is None else np.asarray(v, np.float64)) for k, v in t.items()}
    add = lambda y, b: y if b is None else y + b
    q, k, v = (add(f["x"] @ f[w], f[b]) for w, b in (("w_q", "b_q"), ("w_k", "b_k"), ("w_v", "b_v")))
    if f["rotary_cos"] is not None:
        half = f["rotary_cos"].shape[1]
        for m, heads in ((q, H), (k, kv)):
            for h in range(heads):
                for j in range(half):
                    a = h * dh + (2 * j if case.get("interleaved") else j)
                    b = a + 1 if case.get("interleaved") else a + half
                    c, s = f["rotary_cos"][:, j][None], f["rotary_sin"][:, j][None]
                    xa, xb = m[:, :, a].copy(), m[:, :, b].copy()
                    m[:, :, a], m[:, :, b] = xa * c - xb * s, xb * c + xa * s
    attn = np.zeros((B, H, N, N))
    concat = np.zeros((B, N, H * dh))
    for b in range(B):
        for h in range(H):
            g = h // (H // kv)
            s = q[b][:, h * dh:(h + 1) * dh] @ k[b][:, g * dh:(g + 1) * dh].T * case_scale(case)
            if f["score_bias"] is not None:
                s = s + f["score_bias"][h * N:(h + 1) * N]
            s = np.where(masked[b], -np.inf, s)
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            attn[b, h] = e / e.sum(axis=-1, keepdims=True)
            concat[b][:, h * dh:(h + 1) * dh] = attn[b, h] @ v[b][:, g * dh:(g + 1) * dh]
    return attn, add(concat @ f["w_o"], f["b_o"])


def case_scale(case):
    return case.get("scale", 1.0 / math.sqrt(case["dh"]))


def inputs(case):
    B, N, d, H, kv, dh = case["B"], case["N"], case["d"], case["H"], case["kv"], case["dh"]
    rng = np.random.RandomState(case["seed"])
    f32 = lambda shape, lim=None: (rng.standard_normal(shape) if lim is None
                                   else rng.uniform(-lim, lim, shape)).astype(np.float32)
    x = f32((B, N, d))
    t = dict(x=x, w_q=f32((d, H * dh), math.sqrt(3.0 / d)), w_k=f32((d, kv * dh), math.sqrt(3.0 / d)),
             w_v=f32((d, kv * dh), math.sqrt(3.0 / d)), w_o=f32((H * dh, d), math.sqrt(3.0 / (H * dh))))
    for p, width in (("q", H * dh), ("k", kv * dh), ("v", kv * dh), ("o", d)):
        t["b_" + p] = (0.5 * rng.standard_normal(width)).astype(np.float32) if p in case.get("biases", "") else None
    t["rotary_cos"] = t["rotary_sin"] = None
    if case.get("r"):
        t["rotary_cos"], t["rotary_sin"] = rotary_tables(N, case["r"])
    t["score_bias"] = f32((H * N, N)) if case.get("bias") else None
    lengths = case.get("lengths", [N] * B)
    for b in range(B):
        x[b, lengths[b]:] = 0.0
    padding = np.zeros((B, N), dtype=bool)
    for b in range(B):
        padding[b, lengths[b]:] = True
    return t, padding


def make_case(case):
    name, B, N, d, H, kv, dh = (case[k] for k in ("name", "B", "N", "d", "H", "kv", "dh"))
    causal = case.get("causal", False)
    t, padding = inputs(case)
    masked = padding[:, None, :] | (causal_mask(N, N)[None] if causal else False)
    assert not masked.all(axis=-1).any(), name
    attn, out = torch_attention(t, case, masked)
    ref_attn, ref_out = numpy_attention(t, case, masked)
    err_a, err_o = np.abs(ref_attn - attn).max(), np.abs(ref_out - out).max()
    assert err_a <= 1e-12 and err_o <= 1e-12, f"{name}: numpy vs torch {err_a:.3g} {err_o:.3g}"
    assert (attn[np.broadcast_to(masked[:, None], attn.shape)] == 0.0).all()
    fields = [("name", json.dumps(name)), ("d_model", str(d)), ("heads", str(H)),
              ("kv_heads", str(kv)), ("d_head", str(dh)), ("batch", str(B)),
              ("query_len", str(N)), ("key_len", str(N)), ("causal", bool_text(causal)),
              ("cross", "false"), ("x", array_text(t["x"], f32_text)),
              ("x_source", array_text(t["x"], f32_text)),
              ("key_padding", array_text(padding, bool_text))]
    for key in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o", "rotary_cos",
                "rotary_sin", "score_bias"):
        if t[key] is not None:
            fields.append((key, array_text(t[key], f32_text)))
    if case.get("r"):
        fields.append(("rotary_interleaved", bool_text(case.get("interleaved", False))))
    if "scale" in case:
        fields.append(("scale", f64_text(case["scale"])))
    fields += [("attention", array_text(attn, f64_text)), ("output", array_text(out, f64_text))]
    text = "{\n" + ",\n".join(f"  {json.dumps(k)}: {v}" for k, v in fields) + "\n}\n"
    data = json.loads(text)  # what was written comes back exactly
    for key, value in t.items():
        if value is not None:
            back = np.asarray(data[key], np.float64).astype(np.float32)
            assert np.array_equal(back.view(np.uint32), value.view(np.uint32)), key
    assert np.array_equal(np.asarray(data["attention"]), attn)
    assert np.array_equal(np.asarray(data["output"]), out)
    path = os.path.join(FIXTURE_DIR, f"torch_{name}.json")
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    print(f"torch_{name}.json: B={B} N={N} d={d} H={H} H_kv={kv} d_head={dh} r={case.get('r', 0)}"
          f" | numpy-vs-torch attn {err_a:.1e} out {err_o:.1e} | {os.path.getsize(path)} bytes")


def main():
    for case in CASES:
        make_case(case)
    print(f"{len(CASES)} fixtures (torch {torch.__version__}, numpy {np.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
