#!/usr/bin/python3
"""PyTorch reference fixtures for the mha-viz attention engine.

Writes tests/fixtures/torch_<case>.json: for each case, float32 inputs (x,
x_source, W_Q, W_K, W_V, W_O, key padding, mask) and the float64 reference
attention weights and output of torch.nn.MultiheadAttention(d_model, heads,
bias=False, batch_first=True) on those exact inputs.

CI does not need torch: the fixtures are committed and the C++ tests only read
the JSON. Regenerate (overwrites every fixture; the output is deterministic)
with Debian's python, which has torch 1.13 (the pyenv `python3` does not):

    /usr/bin/python3 tests/make_torch_fixtures.py

Conventions (the project's contract):
  * row vectors: Q = X . W_Q with W_Q (d_model x d_model); in torch terms
    in_proj_weight = cat([W_Q^T, W_K^T, W_V^T]) and out_proj.weight = W_O^T;
  * scale 1/sqrt(d_head) (torch's own), no biases;
  * key_padding[b][j] is true where key j of sentence b is padding; causal
    masks key j > query i; masked attention entries are exactly 0;
  * padded query rows (i >= that sentence's length) have x = 0, as in the app;
    no case has a query row whose keys are all masked (torch gives NaN there,
    the engine gives 0).

Number format: the inputs are float32 values written with the shortest decimal
that round-trips *as float32* (<= 9 significant digits). Parsing them with
strtof, or as double and then converting to float (what a JSON library +
static_cast<float> does), gives back exactly the float32 the reference was
computed from -- the script asserts both for every value it writes. In Python
read them with np.asarray(v, np.float32). (Writing the float64 repr of each
float32 instead would also be exact but makes the d_model = 128 case alone
about 1.5 MB.) The reference outputs ("attention", "output") are float64
written with repr(), which round-trips as double.

Self-check: the attention weights and outputs are recomputed with a plain NumPy
float64 implementation of the same conventions and must equal torch's to
1e-12 (this catches convention mistakes such as a transposed weight).
"""

import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_DIR = os.path.join(HERE, "fixtures")

# name, seed, B, N, M, d_model, H, causal, cross, query lengths, key (source) lengths.
# For self-attention the key lengths are the query lengths; None = no padding.
CASES = [
    dict(name="self", seed=1001, B=1, N=7, d=16, H=4),
    dict(name="causal", seed=1002, B=1, N=9, d=32, H=8, causal=True),
    dict(name="padded_batch", seed=1003, B=3, N=8, d=24, H=6, lengths=[5, 8, 3]),
    dict(name="padded_batch_causal", seed=1004, B=3, N=8, d=24, H=6, lengths=[5, 8, 3], causal=True),
    dict(name="cross", seed=1005, B=2, N=5, M=7, d=16, H=2, cross=True,
         lengths=[5, 4], source_lengths=[7, 6]),
    dict(name="cross_causal", seed=1006, B=1, N=4, M=6, d=16, H=4, cross=True, causal=True),
    dict(name="single_head", seed=1007, B=1, N=6, d=16, H=1),
    dict(name="head_per_dim", seed=1008, B=1, N=5, d=8, H=8),
    dict(name="wide", seed=1009, B=1, N=20, d=128, H=8),
]


# ---------------------------------------------------------------------------
# Reference implementations (also used by tests/check_trace_with_torch.py)
# ---------------------------------------------------------------------------

def causal_mask(n, m):
    """(N, M) bool, True where key j > query i."""
    return np.triu(np.ones((n, m), dtype=bool), k=1)


def torch_mha(x, x_source, w_q, w_k, w_v, w_o, heads, key_padding, causal):
    """Float64 torch.nn.MultiheadAttention on row-vector-convention weights.

    x (B,N,d), x_source (B,M,d) or None for self-attention, w_* (d,d),
    key_padding (B,M) bool or None, causal bool.
    Returns (attention (B,H,N,M), output (B,N,d), module) as numpy float64
    (the module is returned so callers can reuse its weights).
    """
    x = np.asarray(x, dtype=np.float64)
    b, n, d = x.shape
    mha = torch.nn.MultiheadAttention(d, heads, dropout=0.0, bias=False, batch_first=True)
    mha = mha.double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(
            np.concatenate([np.asarray(w, np.float64).T for w in (w_q, w_k, w_v)], axis=0)))
        mha.out_proj.weight.copy_(torch.from_numpy(np.asarray(w_o, np.float64).T))
    # Deliberately left in TRAINING mode: in torch 1.13, eval mode + no_grad
    # takes the "fast path" (torch._native_multi_head_attention), which crashes
    # with bias=False ("qkv_bias must be Tensor"). With dropout=0.0 training
    # mode computes exactly the same thing through the ordinary (slow) path.
    mha.train()

    xt = torch.from_numpy(x)
    if x_source is None:
        src = xt  # query is key is value: self-attention
    else:
        src = torch.from_numpy(np.asarray(x_source, dtype=np.float64))
    m = src.shape[1]
    kpm = None
    if key_padding is not None:
        kpm = torch.from_numpy(np.asarray(key_padding, dtype=bool).copy())
    am = torch.from_numpy(causal_mask(n, m)) if causal else None
    with torch.no_grad():
        out, attn = mha(xt, src, src, key_padding_mask=kpm, attn_mask=am,
                        need_weights=True, average_attn_weights=False)
    return attn.numpy().copy(), out.numpy().copy(), mha


def numpy_mha(x, x_source, w_q, w_k, w_v, w_o, heads, key_padding, causal):
    """Independent float64 NumPy implementation of the same conventions.

    Returns dict with q, k, v (B,*,d), scores (B,H,N,M, scaled, before the
    mask), attention (B,H,N,M), head_outputs (B,H,N,d_head), concat (B,N,d),
    output (B,N,d). Rows whose keys are all masked get attention 0.
    """
    x = np.asarray(x, np.float64)
    src = x if x_source is None else np.asarray(x_source, np.float64)
    b, n, d = x.shape
    m = src.shape[1]
    dh = d // heads
    q = x @ np.asarray(w_q, np.float64)
    k = src @ np.asarray(w_k, np.float64)
    v = src @ np.asarray(w_v, np.float64)
    split = lambda t: t.reshape(b, t.shape[1], heads, dh).transpose(0, 2, 1, 3)
    qh, kh, vh = split(q), split(k), split(v)
    scores = qh @ kh.transpose(0, 1, 3, 2) / math.sqrt(dh)
    masked = np.zeros((b, n, m), dtype=bool)
    if key_padding is not None:
        masked |= np.asarray(key_padding, bool)[:, None, :]
    if causal:
        masked |= causal_mask(n, m)[None]
    s = np.where(masked[:, None], -np.inf, scores)
    mx = s.max(axis=-1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.where(masked[:, None], 0.0, np.exp(s - mx))
    den = e.sum(axis=-1, keepdims=True)
    attn = np.divide(e, den, out=np.zeros_like(e), where=den > 0)
    head_out = attn @ vh
    concat = head_out.transpose(0, 2, 1, 3).reshape(b, n, d)
    output = concat @ np.asarray(w_o, np.float64)
    return dict(q=q, k=k, v=v, scores=scores, attention=attn, head_outputs=head_out,
                concat=concat, output=output, masked=masked)


# ---------------------------------------------------------------------------
# Fixture generation
# ---------------------------------------------------------------------------

def f32_text(v):
    """Shortest decimal that round-trips as float32."""
    return np.format_float_positional(np.float32(v), unique=True, trim="-")


def f64_text(v):
    v = float(v)
    assert math.isfinite(v)
    return repr(v)


def array_text(a, fmt, indent=2):
    """Nested JSON array; innermost rows on one line each."""
    a = np.asarray(a)
    if a.ndim == 1:
        return "[" + ",".join(fmt(v) for v in a) + "]"
    pad = " " * (indent + 2)
    inner = (",\n" + pad).join(array_text(s, fmt, indent + 2) for s in a)
    return "[\n" + pad + inner + "\n" + " " * indent + "]"


def bool_text(v):
    return "true" if bool(v) else "false"


def make_case(c):
    name, B, N, d, H = c["name"], c["B"], c["N"], c["d"], c["H"]
    cross = c.get("cross", False)
    causal = c.get("causal", False)
    M = c.get("M", N) if cross else N
    assert d % H == 0
    lengths = c.get("lengths", [N] * B)
    src_lengths = c.get("source_lengths", [M] * B) if cross else lengths
    assert len(lengths) == B and len(src_lengths) == B
    assert max(lengths) == N and max(src_lengths) == M

    rng = np.random.RandomState(c["seed"])  # legacy generator: stream is frozen
    x = rng.standard_normal((B, N, d)).astype(np.float32)
    x_source = rng.standard_normal((B, M, d)).astype(np.float32) if cross else None
    lim = math.sqrt(3.0 / d)  # Glorot uniform, fan_in = fan_out = d
    w_q, w_k, w_v, w_o = (rng.uniform(-lim, lim, (d, d)).astype(np.float32) for _ in range(4))

    # Padding: zero rows past each sentence's length (as the app pads).
    for b in range(B):
        x[b, lengths[b]:] = 0.0
        if cross:
            x_source[b, src_lengths[b]:] = 0.0
    key_padding = np.zeros((B, M), dtype=bool)
    for b in range(B):
        key_padding[b, src_lengths[b]:] = True

    masked = key_padding[:, None, :] | (causal_mask(N, M)[None] if causal else False)
    assert not masked.all(axis=-1).any(), f"{name}: a query row has every key masked"

    attn, out, _ = torch_mha(x, x_source, w_q, w_k, w_v, w_o, H, key_padding, causal)
    assert attn.shape == (B, H, N, M) and out.shape == (B, N, d)
    assert np.isfinite(attn).all() and np.isfinite(out).all()
    # Masked entries must be exactly 0 (softmax of -inf).
    assert (attn[np.broadcast_to(masked[:, None], attn.shape)] == 0.0).all()

    ref = numpy_mha(x, x_source, w_q, w_k, w_v, w_o, H, key_padding, causal)
    err_a = np.abs(ref["attention"] - attn).max()
    err_o = np.abs(ref["output"] - out).max()
    assert err_a <= 1e-12 and err_o <= 1e-12, f"{name}: numpy vs torch {err_a:.3g} {err_o:.3g}"

    xs = x if x_source is None else x_source
    fields = [
        ("name", json.dumps(name)),
        ("d_model", str(d)),
        ("heads", str(H)),
        ("batch", str(B)),
        ("query_len", str(N)),
        ("key_len", str(M)),
        ("causal", bool_text(causal)),
        ("cross", bool_text(cross)),
        ("x", array_text(x, f32_text)),
        ("x_source", array_text(xs, f32_text)),
        ("key_padding", array_text(key_padding, bool_text)),
        ("w_q", array_text(w_q, f32_text)),
        ("w_k", array_text(w_k, f32_text)),
        ("w_v", array_text(w_v, f32_text)),
        ("w_o", array_text(w_o, f32_text)),
        ("attention", array_text(attn, f64_text)),
        ("output", array_text(out, f64_text)),
    ]
    text = "{\n" + ",\n".join(f"  {json.dumps(k)}: {v}" for k, v in fields) + "\n}\n"

    # Round-trip check of what was written: float32 inputs come back exactly
    # when parsed as double and converted to float32, and when parsed directly
    # as float32 (np.float32(str) is a correctly rounded strtof); float64
    # references come back exactly as double.
    data = json.loads(text)
    for key, arr in (("x", x), ("x_source", xs), ("w_q", w_q), ("w_k", w_k),
                     ("w_v", w_v), ("w_o", w_o)):
        back = np.asarray(data[key], dtype=np.float64).astype(np.float32)
        assert back.shape == arr.shape and np.array_equal(back.view(np.uint32), arr.view(np.uint32)), key
        direct = np.array([np.float32(f32_text(v)) for v in arr.ravel()], dtype=np.float32)
        assert np.array_equal(direct.view(np.uint32), arr.ravel().view(np.uint32)), key
    assert np.array_equal(np.asarray(data["attention"]), attn)
    assert np.array_equal(np.asarray(data["output"]), out)
    assert np.array_equal(np.asarray(data["key_padding"]), key_padding)

    path = os.path.join(FIXTURE_DIR, f"torch_{name}.json")
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    size = os.path.getsize(path)
    print(f"{os.path.relpath(path, os.path.dirname(HERE))}: B={B} N={N} M={M} d={d} H={H}"
          f" d_head={d // H} causal={causal} cross={cross}"
          f" lengths={lengths if lengths != [N] * B else '-'}"
          f" source_lengths={src_lengths if cross and src_lengths != [M] * B else '-'}"
          f" | numpy-vs-torch max err attn {err_a:.1e} out {err_o:.1e} | {size} bytes")
    return size


def main():
    os.makedirs(FIXTURE_DIR, exist_ok=True)
    total = sum(make_case(c) for c in CASES)
    print(f"{len(CASES)} fixtures, {total} bytes total (torch {torch.__version__}, numpy {np.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
