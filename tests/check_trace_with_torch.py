#!/usr/bin/python3
"""Check the app's --json trace against PyTorch, end to end.

    /usr/bin/python3 tests/check_trace_with_torch.py build/app/mha-viz
    /usr/bin/python3 tests/check_trace_with_torch.py --trace some_trace.json
    /usr/bin/python3 tests/check_trace_with_torch.py --self-test

For each command line in CASES the app is run with `--json -`; the trace's own
inputs (x, x_source, w_q w_k w_v w_o, key_padding, config.mask) are fed to
float64 torch.nn.MultiheadAttention(d_model, heads, bias=False,
batch_first=True) with in_proj_weight = [W_Q^T; W_K^T; W_V^T] and
out_proj.weight = W_O^T (row-vector convention, Q = X . W_Q), and the trace's
q, k, v, scores, attention, head_outputs, concat and output must agree to
ABS_TOL. q/k/v come from torch's in_proj_weight; scores, head_outputs and
concat (the per-head softmax(Q K^T / sqrt(d_head)) V, merged, i.e. what torch
feeds out_proj) are computed in float64 torch from those and cross-checked
against torch's own attention weights and output. Query rows whose keys are
all masked are not compared (torch gives NaN there, the engine 0).

Grouped-query attention (config.kv_heads < heads: W_K and W_V d x (H_kv*d_head)) and rotary
positions (config.rope: {theta, dims, layout}) are beyond nn.MultiheadAttention (and torch 1.13
has no enable_gqa): there the reference is float64 torch written from the definitions, as
Hugging Face's Llama computes them -- q, k, v projected, split into H and H_kv heads, q and k
turned (cos/sin of position x theta^(-2j/r), rotate_half or interleaved pairs, the first r
dimensions of each head), each K/V head repeated H / H_kv times (repeat_kv), then the same
softmax(Q K^T / sqrt(d_head)) V, merge and W_O. It is cross-checked to 1e-12 against an
independent NumPy version (pairs turned as complex numbers, K/V head h // (H / H_kv) read in
place) and, without rotation, against nn.MultiheadAttention on W_K and W_V with each K/V head's
columns repeated for its query heads.

Exit status: 0 all cases pass, 1 any failure, 77 skipped (torch missing; this
is the ctest/automake "skipped" code). Needs Debian's /usr/bin/python3, which
has torch; the pyenv `python3` does not.

--self-test needs no app binary: it runs the same pipeline against a fake app
(this script with --fake-app, a float32 NumPy engine that writes a trace per
the contract) and checks that clean traces pass and perturbed ones fail.
"""

import json
import math
import os
import stat
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError as e:  # e.g. the pyenv python3; only Debian's has numpy + torch
    if __name__ == "__main__" and "--fake-app" not in sys.argv:
        print(f"skipped: cannot import numpy ({e}); use /usr/bin/python3", file=sys.stderr)
        sys.exit(77)
    raise

ABS_TOL = 1e-5
HERE = os.path.dirname(os.path.abspath(__file__))

SENT = "The cat sat on the mat ."
# (name, arguments before `--json -`, what the trace's config must say)
CASES = [
    ("single", ["--sentence", SENT], dict(batch=1, mask="none", cross=False)),
    ("causal", ["--sentence", SENT, "--mask", "causal"], dict(batch=1, mask="causal", cross=False)),
    ("padded_batch", ["--sentence", SENT, "--sentence", "A dog barked .",
                      "--sentence", "Birds sing at dawn in the tall green trees ."],
     dict(batch=3, mask="none", cross=False, padded=True)),
    ("cross", ["--sentence", SENT, "--source", "Le chat est assis sur le tapis ."],
     dict(batch=1, mask="none", cross=True)),
    ("d_head_1", ["--d-model", "32", "--heads", "32", "--sentence", "tiny heads here"],
     dict(batch=1, mask="none", cross=False, d_model=32, heads=32)),
    # Designed heads are ordinary weights: PyTorch must reproduce them like any others.
    ("designed", ["--weights", "designed", "--sentence", "The black cat sat on the mat because it was tired ."],
     dict(batch=1, mask="none", cross=False)),
    # Grouped-query attention: H_kv K/V heads, each repeated for H / H_kv query heads.
    ("gqa", ["--sentence", SENT, "--kv-heads", "2"], dict(batch=1, mask="none", cross=False, kv_heads=2)),
    ("mqa_causal_batch", ["--sentence", SENT, "--sentence", "A dog barked .", "--kv-heads", "1",
                          "--mask", "causal"],
     dict(batch=2, mask="causal", cross=False, padded=True, kv_heads=1)),
    ("gqa_cross", ["--sentence", SENT, "--source", "Le chat est assis sur le tapis .", "--kv-heads", "4"],
     dict(batch=1, mask="none", cross=True, kv_heads=4)),
    ("gqa_designed", ["--weights", "designed", "--d-model", "128", "--kv-heads", "4",
                      "--sentence", "The black cat sat on the mat because it was tired ."],
     dict(batch=1, mask="none", cross=False, kv_heads=4)),
    # Rotary positions (RoPE) on q and k, rotate_half, alone and with GQA, a batch, the causal
    # mask, another theta, and an odd d_head (its first 4 of 5 dimensions turned).
    ("rotary", ["--sentence", SENT, "--positional", "rotary"],
     dict(batch=1, mask="none", cross=False, rope=True)),
    ("rotary_gqa_causal_batch", ["--sentence", SENT, "--sentence", "Birds sing at dawn in the tall green trees .",
                                 "--positional", "rotary", "--rope-theta", "500", "--kv-heads", "2",
                                 "--mask", "causal"],
     dict(batch=2, mask="causal", cross=False, padded=True, kv_heads=2, rope=True)),
    ("rotary_odd_d_head", ["--d-model", "30", "--heads", "6", "--kv-heads", "3", "--positional", "rotary",
                           "--sentence", SENT],
     dict(batch=1, mask="none", cross=False, d_model=30, heads=6, kv_heads=3, rope=True)),
]

COMPARED = ["q", "k", "v", "scores", "attention", "head_outputs", "concat", "output"]


class TraceError(Exception):
    pass


def arr(trace, key, shape):
    if key not in trace:
        raise TraceError(f"trace has no '{key}'")
    try:
        a = np.asarray(trace[key], dtype=np.float64)
    except (ValueError, TypeError) as e:
        raise TraceError(f"'{key}' is not a rectangular number array: {e}")
    if a.shape != tuple(shape):
        raise TraceError(f"'{key}' has shape {a.shape}, expected {tuple(shape)}")
    if not np.isfinite(a).all():
        raise TraceError(f"'{key}' has non-finite values")
    return a


def torch_reference(x, x_source, w_q, w_k, w_v, w_o, heads, key_padding, causal):
    """Every compared quantity, float64, from torch."""
    import torch
    sys.dont_write_bytecode = True  # no tests/__pycache__
    sys.path.insert(0, HERE)
    from make_torch_fixtures import torch_mha

    attn, out, mha = torch_mha(x, x_source, w_q, w_k, w_v, w_o, heads, key_padding, causal)
    b, n, d = x.shape
    dh = d // heads
    src = x if x_source is None else x_source
    m = src.shape[1]
    F = torch.nn.functional
    with torch.no_grad():
        wq_t, wk_t, wv_t = mha.in_proj_weight.chunk(3)  # torch's (out, in) layout
        q = F.linear(torch.from_numpy(x), wq_t)
        k = F.linear(torch.from_numpy(src), wk_t)
        v = F.linear(torch.from_numpy(src), wv_t)
        split = lambda t: t.reshape(b, t.shape[1], heads, dh).transpose(1, 2)
        qh, kh, vh = split(q), split(k), split(v)
        scores = qh @ kh.transpose(-2, -1) / math.sqrt(dh)
        masked = torch.from_numpy(np.asarray(key_padding, bool))[:, None, None, :].expand(b, heads, n, m)
        if causal:
            masked = masked | torch.ones(n, m, dtype=torch.bool).triu(1)
        weights = torch.softmax(scores.masked_fill(masked, float("-inf")), dim=-1)
        head_out = weights @ vh
        concat = head_out.transpose(1, 2).reshape(b, n, d)
        output = mha.out_proj(concat)
    ref = dict(q=q.numpy(), k=k.numpy(), v=v.numpy(), scores=scores.numpy(), attention=attn,
               head_outputs=head_out.numpy(), concat=concat.numpy(), output=out)
    # Our own per-head path must reproduce torch's module (NaN rows aside).
    valid = ~masked[:, 0].numpy().all(axis=-1)  # (B, N)
    ea = np.abs(weights.numpy() - attn).transpose(0, 2, 1, 3)[valid].max(initial=0.0)
    eo = np.abs(output.numpy() - out)[valid].max(initial=0.0)
    assert ea <= 1e-12 and eo <= 1e-12, f"internal torch mismatch {ea} {eo}"
    return ref, valid


def rope_tables(positions, dims, theta):
    """cos, sin (positions, dims/2) float64, as Hugging Face's default rotary embedding makes
    them: inv_freq = 1 / theta^(arange(0, dims, 2) / dims), angle = position x inv_freq."""
    inv_freq = 1.0 / (float(theta) ** (np.arange(0, dims, 2, dtype=np.float64) / dims))
    angles = np.arange(positions, dtype=np.float64)[:, None] * inv_freq[None, :]
    return np.cos(angles), np.sin(angles)


def attention_mask(key_padding, causal, b, n, m):
    """(B, N, M) bool: padding keys, and keys after the query when causal."""
    masked = np.broadcast_to(np.asarray(key_padding, bool)[:, None, :], (b, n, m)).copy()
    if causal:
        masked |= np.triu(np.ones((n, m), dtype=bool), 1)[None]
    return masked


def torch_gqa_reference(x, x_source, w_q, w_k, w_v, w_o, heads, kv_heads, key_padding, causal, rope):
    """Every compared quantity, float64 torch, for H_kv K/V heads and optional rotary positions:
    Hugging Face's Llama attention (repeat_kv, rotate_half) without its biases and norms."""
    import torch
    sys.dont_write_bytecode = True
    sys.path.insert(0, HERE)
    from make_torch_gqa_fixtures import torch_rotate

    b, n, d = x.shape
    dh = w_q.shape[1] // heads
    src = x if x_source is None else x_source
    m = src.shape[1]
    T = lambda a: torch.from_numpy(np.asarray(a, np.float64))
    with torch.no_grad():
        q = (T(x) @ T(w_q)).view(b, n, heads, dh).transpose(1, 2)
        k = (T(src) @ T(w_k)).view(b, m, kv_heads, dh).transpose(1, 2)
        v = (T(src) @ T(w_v)).view(b, m, kv_heads, dh).transpose(1, 2)
        if rope is not None:  # positions 0..N-1 of every sentence (self-attention: M = N)
            cos, sin = rope_tables(max(n, m), rope["dims"], rope["theta"])
            interleaved = rope["layout"] == "interleaved"
            q = torch_rotate(q, cos[:n], sin[:n], interleaved)
            k = torch_rotate(k, cos[:m], sin[:m], interleaved)
        rep = heads // kv_heads  # repeat_kv: (B, H_kv, M, d_head) -> (B, H, M, d_head)
        k_rep = k[:, :, None].expand(b, kv_heads, rep, m, dh).reshape(b, heads, m, dh)
        v_rep = v[:, :, None].expand(b, kv_heads, rep, m, dh).reshape(b, heads, m, dh)
        scores = q @ k_rep.transpose(-2, -1) / math.sqrt(dh)
        masked = torch.from_numpy(attention_mask(key_padding, causal, b, n, m))[:, None]
        weights = torch.softmax(scores.masked_fill(masked, float("-inf")), dim=-1)
        head_out = weights @ v_rep
        concat = head_out.transpose(1, 2).reshape(b, n, heads * dh)
        output = concat @ T(w_o)
    merge = lambda t: t.transpose(1, 2).reshape(t.shape[0], t.shape[2], -1).numpy()
    return dict(q=merge(q), k=merge(k), v=merge(v), scores=scores.numpy(), attention=weights.numpy(),
                head_outputs=head_out.numpy(), concat=concat.numpy(), output=output.numpy())


def numpy_gqa_check(x, x_source, w_q, w_k, w_v, w_o, heads, kv_heads, key_padding, causal, rope):
    """attention, output of the same, independently: NumPy float64, query head h reading K/V
    head h // (H / H_kv) in place, each rotary pair turned as a complex number."""
    src = x if x_source is None else x_source
    (b, n, _), m = x.shape, src.shape[1]
    dh = w_q.shape[1] // heads
    q, k, v = x @ w_q, src @ w_k, src @ w_v
    if rope is not None:
        half = rope["dims"] // 2
        for t, count, length in ((q, heads, n), (k, kv_heads, m)):
            turn = np.exp(1j * np.arange(length)[:, None] *
                          float(rope["theta"]) ** (-2.0 * np.arange(half) / rope["dims"]))
            for h in range(count):
                a = h * dh + (2 * np.arange(half) if rope["layout"] == "interleaved" else np.arange(half))
                c = a + 1 if rope["layout"] == "interleaved" else a + half
                z = (t[:, :, a] + 1j * t[:, :, c]) * turn[None]
                t[:, :, a], t[:, :, c] = z.real, z.imag
    masked = attention_mask(key_padding, causal, b, n, m)
    attn = np.zeros((b, heads, n, m))
    concat = np.zeros((b, n, heads * dh))
    for bi in range(b):
        for h in range(heads):
            g = h // (heads // kv_heads)
            s = q[bi][:, h * dh:(h + 1) * dh] @ k[bi][:, g * dh:(g + 1) * dh].T / math.sqrt(dh)
            s = np.where(masked[bi], -np.inf, s)
            mx = s.max(axis=-1, keepdims=True)
            e = np.where(masked[bi], 0.0, np.exp(s - np.where(np.isfinite(mx), mx, 0.0)))
            den = e.sum(axis=-1, keepdims=True)
            attn[bi, h] = np.divide(e, den, out=np.zeros_like(e), where=den > 0)
            concat[bi][:, h * dh:(h + 1) * dh] = attn[bi, h] @ v[bi][:, g * dh:(g + 1) * dh]
    return attn, concat @ w_o


def gqa_reference(x, x_source, w_q, w_k, w_v, w_o, heads, kv_heads, key_padding, causal, rope):
    """torch_gqa_reference, cross-checked (see the module's docstring); returns (ref, valid)."""
    args = (x, x_source, w_q, w_k, w_v, w_o, heads, kv_heads, key_padding, causal, rope)
    ref = torch_gqa_reference(*args)
    b, n = x.shape[:2]
    m = (x if x_source is None else x_source).shape[1]
    valid = ~attention_mask(key_padding, causal, b, n, m).all(axis=-1)  # (B, N)
    attn, out = numpy_gqa_check(*args)
    checks = [("numpy", attn, out)]
    if rope is None:  # MHA with every K/V head's columns repeated for its query heads
        from make_torch_fixtures import torch_mha
        dh = w_q.shape[1] // heads
        cols = np.concatenate([np.arange(h // (heads // kv_heads) * dh, (h // (heads // kv_heads) + 1) * dh)
                               for h in range(heads)])
        mha_attn, mha_out, _ = torch_mha(x, x_source, w_q, w_k[:, cols], w_v[:, cols], w_o, heads,
                                         key_padding, causal)
        checks.append(("nn.MultiheadAttention", mha_attn, mha_out))
    for name, a, o in checks:
        ea = np.abs(a - ref["attention"]).transpose(0, 2, 1, 3)[valid].max(initial=0.0)
        eo = np.abs(o - ref["output"])[valid].max(initial=0.0)
        assert ea <= 1e-12 and eo <= 1e-12, f"internal mismatch with {name}: {ea} {eo}"
    return ref, valid


def check_trace(trace, expect=None):
    """Returns {quantity: max abs error}; raises TraceError on contract violations."""
    expect = expect or {}
    if trace.get("format") != "mha-trace" or trace.get("version") != 1:
        raise TraceError(f"not an mha-trace v1 (format={trace.get('format')!r}, version={trace.get('version')!r})")
    cfg = trace.get("config")
    if not isinstance(cfg, dict):
        raise TraceError("trace has no config")
    d, heads = cfg.get("d_model"), cfg.get("heads")
    if not isinstance(d, int) or not isinstance(heads, int) or heads <= 0 or d % heads:
        raise TraceError(f"bad d_model/heads {d!r}/{heads!r}")
    dh = d // heads
    if cfg.get("d_head") != dh:
        raise TraceError(f"config.d_head={cfg.get('d_head')!r}, expected {dh}")
    if cfg.get("scale") != "sqrt_d_head":
        raise TraceError(f"config.scale={cfg.get('scale')!r}: torch only does sqrt_d_head")
    mask = cfg.get("mask")
    if mask not in ("none", "causal"):
        raise TraceError(f"config.mask={mask!r}")
    causal = mask == "causal"
    cross = bool(cfg.get("cross"))
    if cross != ("x_source" in trace):
        raise TraceError(f"config.cross={cross} but x_source {'absent' if cross else 'present'}")
    for key in ("mask", "cross", "d_model", "heads", "kv_heads"):
        if key in expect and cfg.get(key) != expect[key]:
            raise TraceError(f"config.{key}={cfg.get(key)!r}, the command line asked for {expect[key]!r}")
    kv_heads = cfg.get("kv_heads", heads)  # older traces: every head its own K and V
    if not isinstance(kv_heads, int) or kv_heads <= 0 or heads % kv_heads:
        raise TraceError(f"config.kv_heads={kv_heads!r} does not divide heads {heads}")
    rope = cfg.get("rope")
    if rope is not None and (not isinstance(rope, dict) or rope.get("layout") not in ("rotate_half", "interleaved")
                             or not isinstance(rope.get("dims"), int) or rope["dims"] % 2 or rope["dims"] > dh
                             or not isinstance(rope.get("theta"), (int, float)) or rope["theta"] <= 0):
        raise TraceError(f"config.rope={rope!r} is not {{theta, dims (even, <= d_head), layout}}")
    if "rope" in expect and (rope is not None) != expect["rope"]:
        raise TraceError(f"config.rope={rope!r}, the command line asked for {'rotary' if expect['rope'] else 'no'} positions")
    if rope is not None and cross:
        raise TraceError("config.rope with cross-attention: rotary positions are for self-attention")

    x = np.asarray(trace.get("x", []), dtype=np.float64)
    if x.ndim != 3 or x.shape[2] != d or x.shape[0] < 1 or x.shape[1] < 1:
        raise TraceError(f"'x' has shape {x.shape}, expected (B, N, {d})")
    b, n, _ = x.shape
    if "batch" in expect and b != expect["batch"]:
        raise TraceError(f"batch {b}, the command line gave {expect['batch']} sentences")
    if len(trace.get("sentences", [])) != b:
        raise TraceError(f"{len(trace.get('sentences', []))} sentences for batch {b}")
    x_source = None
    m = n
    if cross:
        x_source = np.asarray(trace["x_source"], dtype=np.float64)
        if x_source.ndim != 3 or x_source.shape[0] != b or x_source.shape[2] != d:
            raise TraceError(f"'x_source' has shape {x_source.shape}, expected ({b}, M, {d})")
        m = x_source.shape[1]
        if len(trace.get("sources", [])) != b:
            raise TraceError(f"{len(trace.get('sources', []))} sources for batch {b}")
    if "key_padding" not in trace:
        raise TraceError("trace has no 'key_padding'")
    kp_raw = np.asarray(trace["key_padding"])
    if kp_raw.shape != (b, m) or kp_raw.dtype != np.bool_:
        raise TraceError(f"'key_padding' must be ({b}, {m}) booleans, got {kp_raw.shape} {kp_raw.dtype}")
    key_padding = kp_raw.astype(bool)
    if expect.get("padded") and not key_padding.any():
        raise TraceError("sentences of different lengths but no key padding")
    kv = kv_heads * dh  # W_K, W_V, K and V: H_kv heads of d_head
    w = [arr(trace, k, shape) for k, shape in (("w_q", (d, d)), ("w_k", (d, kv)), ("w_v", (d, kv)),
                                               ("w_o", (d, d)))]
    arr(trace, "x", (b, n, d))

    if kv_heads == heads and rope is None:
        ref, valid = torch_reference(x, x_source, *w, heads, key_padding, causal)
    else:
        ref, valid = gqa_reference(x, x_source, *w, heads, kv_heads, key_padding, causal, rope)
    shapes = dict(q=(b, n, d), k=(b, m, kv), v=(b, m, kv), scores=(b, heads, n, m),
                  attention=(b, heads, n, m), head_outputs=(b, heads, n, dh),
                  concat=(b, n, d), output=(b, n, d))
    errors = {}
    for key in COMPARED:
        got = arr(trace, key, shapes[key])
        diff = np.abs(got - ref[key])
        if key in ("attention", "head_outputs"):
            diff = diff.transpose(0, 2, 1, 3)[valid]  # (rows, H, ...)
        elif key in ("concat", "output"):
            diff = diff[valid]
        # q, k, v and scores (before the mask) are defined everywhere.
        errors[key] = float(diff.max(initial=0.0))
    return errors


def run_app(binary, args):
    cmd = [binary] + args + ["--json", "-"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if proc.returncode != 0:
        raise TraceError(f"exit status {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
    try:
        return json.loads(proc.stdout)
    except ValueError as e:
        raise TraceError(f"stdout is not JSON ({e}): {proc.stdout[:200]!r}")


def report(name, errors_or_exc, cmdline=None):
    """Prints one line; returns True when the case passed."""
    if cmdline:
        print(f"[{name}] {cmdline}")
    if isinstance(errors_or_exc, Exception):
        print(f"[{name}] FAIL: {errors_or_exc}")
        return False
    worst = max(errors_or_exc, key=errors_or_exc.get)
    ok = errors_or_exc[worst] <= ABS_TOL
    detail = " ".join(f"{k}={v:.2e}" for k, v in errors_or_exc.items())
    print(f"[{name}] {'ok' if ok else 'FAIL'}: max |trace - torch| = {errors_or_exc[worst]:.2e} ({worst})"
          f" <= {ABS_TOL:g}? {ok}; {detail}")
    return ok


def check_binary(binary):
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"error: {binary} is not an executable file", file=sys.stderr)
        return 1
    failures = 0
    for name, args, expect in CASES:
        cmdline = " ".join([binary] + [a if a.replace("-", "").isalnum() else json.dumps(a) for a in args]
                           + ["--json", "-"])
        try:
            result = check_trace(run_app(binary, args), expect)
        except (TraceError, subprocess.TimeoutExpired, OSError) as e:
            result = e
        failures += not report(name, result, cmdline)
    print(f"{len(CASES) - failures}/{len(CASES)} cases agree with torch {torch_version()}"
          f" to {ABS_TOL:g}")
    return 1 if failures else 0


def check_file(path):
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    try:
        result = check_trace(trace)
    except TraceError as e:
        result = e
    return 0 if report(os.path.basename(path), result) else 1


def torch_version():
    import torch
    return torch.__version__


# ---------------------------------------------------------------------------
# Fake app + self-test (no binary needed)
# ---------------------------------------------------------------------------

def fake_app(argv):
    """A float32 NumPy engine that prints a trace per the contract.

    MHA_FAKE_PERTURB=<key> adds 1e-4 to one entry of that array;
    MHA_FAKE_PERTURB=transpose_w_q writes W_Q transposed (a convention bug).
    """
    d, heads, mask, sents, srcs = 16, 4, "none", [], []
    kv_heads, positional, theta = None, "sinusoidal", 10000.0
    it = iter(argv)
    for a in it:
        if a == "--weights":
            next(it)  # the fake's weights are random whatever is asked: ordinary weights
        elif a == "--kv-heads":
            kv_heads = int(next(it))
        elif a == "--positional":
            positional = next(it)
        elif a == "--rope-theta":
            theta = float(next(it))
        elif a == "--sentence":
            sents.append(next(it))
        elif a == "--source":
            srcs.append(next(it))
        elif a == "--mask":
            mask = next(it)
        elif a == "--d-model":
            d = int(next(it))
        elif a == "--heads":
            heads = int(next(it))
        elif a == "--json":
            assert next(it) == "-"
        else:
            print(f"fake app: unknown argument {a}", file=sys.stderr)
            return 2
    cross = bool(srcs)
    assert not cross or len(srcs) == len(sents)
    rng = np.random.RandomState(7)
    vocab = {}

    def embed(texts):
        toks = [t.split() for t in texts]
        length = max(len(t) for t in toks)
        out = np.zeros((len(toks), length, d), np.float32)
        pad = np.ones((len(toks), length), bool)
        for bi, ts in enumerate(toks):
            for i, t in enumerate(ts):
                if t not in vocab:
                    vocab[t] = rng.standard_normal(d).astype(np.float32)
                out[bi, i] = vocab[t]
                pad[bi, i] = False
        return toks, out, pad

    tok_q, x, _ = embed(sents)
    tok_s, xs, key_padding = embed(srcs) if cross else (tok_q, x, None)
    if not cross:
        _, _, key_padding = embed(sents)
    lim = math.sqrt(3.0 / d)
    ws = [rng.uniform(-lim, lim, (d, d)).astype(np.float32) for _ in range(4)]
    b, n, _ = x.shape
    m = xs.shape[1]
    dh = d // heads
    kv_heads = kv_heads or heads
    ws[1], ws[2] = ws[1][:, :kv_heads * dh], ws[2][:, :kv_heads * dh]  # H_kv K/V heads
    q, k, v = x @ ws[0], xs @ ws[1], xs @ ws[2]
    rope = None
    if positional == "rotary" and not cross:  # rotate_half on every head's q and k
        rope = {"theta": theta, "dims": dh - dh % 2, "layout": "rotate_half"}
        cos, sin = (t.astype(np.float32) for t in rope_tables(max(n, m), rope["dims"], theta))
        half = rope["dims"] // 2
        for t, count in ((q, heads), (k, kv_heads)):
            for h in range(count):
                a = slice(h * dh, h * dh + half)
                c = slice(h * dh + half, h * dh + 2 * half)
                ta, tc = t[:, :, a].copy(), t[:, :, c].copy()
                t[:, :, a], t[:, :, c] = ta * cos[:n] - tc * sin[:n], tc * cos[:n] + ta * sin[:n]
    split = lambda t, count: t.reshape(b, t.shape[1], count, dh).transpose(0, 2, 1, 3)
    repeat = lambda t: np.repeat(split(t, kv_heads), heads // kv_heads, axis=1)  # repeat_kv
    scores = (split(q, heads) @ repeat(k).transpose(0, 1, 3, 2)) * np.float32(1 / math.sqrt(dh))
    masked = np.broadcast_to(key_padding[:, None, None, :], scores.shape).copy()
    if mask == "causal":
        masked |= np.triu(np.ones((n, m), bool), 1)
    s = np.where(masked, np.float32(-np.inf), scores)
    e = np.where(masked, np.float32(0), np.exp(s - s.max(axis=-1, keepdims=True)))
    attn = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
    head_out = attn @ repeat(v)
    concat = head_out.transpose(0, 2, 1, 3).reshape(b, n, d)
    output = concat @ ws[3]
    trace = {
        "format": "mha-trace", "version": 1,
        "config": {"d_model": d, "heads": heads, "d_head": dh, "mask": mask, "scale": "sqrt_d_head",
                   "seed": 7, "weights": "random", "positional": "none", "cross": cross,
                   "kv_heads": kv_heads, "rope": rope},
        "sentences": [{"text": t, "tokens": ts} for t, ts in zip(sents, tok_q)],
    }
    if cross:
        trace["sources"] = [{"text": t, "tokens": ts} for t, ts in zip(srcs, tok_s)]
    arrays = dict(x=x, w_q=ws[0], w_k=ws[1], w_v=ws[2], w_o=ws[3], q=q, k=k, v=v, scores=scores,
                  attention=attn, head_outputs=head_out, concat=concat, output=output)
    if cross:
        arrays["x_source"] = xs
    perturb = os.environ.get("MHA_FAKE_PERTURB")
    if perturb == "transpose_w_q":
        arrays["w_q"] = arrays["w_q"].T
    elif perturb:
        a = arrays[perturb].copy()
        a.reshape(-1)[a.size // 3] += np.float32(1e-4)  # row 0 of batch 0 is never fully masked
        arrays[perturb] = a
    trace.update({k: a.astype(np.float64).tolist() for k, a in arrays.items()})
    trace["key_padding"] = key_padding.tolist()
    json.dump(trace, sys.stdout)
    return 0


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fake-mha-viz")
        with open(fake, "w") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" "{os.path.abspath(__file__)}" --fake-app "$@"\n')
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        failures = 0

        def run(perturb):
            env = dict(os.environ)
            env.pop("MHA_FAKE_PERTURB", None)
            if perturb:
                env["MHA_FAKE_PERTURB"] = perturb
            p = subprocess.run([sys.executable, os.path.abspath(__file__), fake],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            return p.returncode, p.stdout

        rc, out = run(None)
        print(out, end="")
        print(f"self-test: clean fake traces -> exit {rc} (want 0)")
        failures += rc != 0
        for perturb in ["attention", "output", "q", "k", "v", "scores", "head_outputs", "concat",
                        "transpose_w_q"]:
            rc, out = run(perturb)
            lines = [l for l in out.splitlines() if "FAIL" in l]
            print(f"self-test: perturbed {perturb} -> exit {rc} (want 1), {len(lines)} failing case(s)"
                  + (f", e.g. {lines[0]}" if lines else ""))
            failures += rc != 1
    print("self-test " + ("passed" if not failures else f"FAILED ({failures})"))
    return 1 if failures else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--fake-app":
        return fake_app(argv[2:])
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print(f"skipped: cannot import torch ({e}); use /usr/bin/python3", file=sys.stderr)
        return 77
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 3 and argv[1] == "--trace":
        return check_file(argv[2])
    if len(argv) == 2 and not argv[1].startswith("--"):
        return check_binary(argv[1])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
