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
    for key in ("mask", "cross", "d_model", "heads"):
        if key in expect and cfg.get(key) != expect[key]:
            raise TraceError(f"config.{key}={cfg.get(key)!r}, the command line asked for {expect[key]!r}")

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
    w = [arr(trace, k, (d, d)) for k in ("w_q", "w_k", "w_v", "w_o")]
    arr(trace, "x", (b, n, d))

    ref, valid = torch_reference(x, x_source, *w, heads, key_padding, causal)
    shapes = dict(q=(b, n, d), k=(b, m, d), v=(b, m, d), scores=(b, heads, n, m),
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
    it = iter(argv)
    for a in it:
        if a == "--sentence":
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
    q, k, v = x @ ws[0], xs @ ws[1], xs @ ws[2]
    split = lambda t: t.reshape(b, t.shape[1], heads, dh).transpose(0, 2, 1, 3)
    scores = (split(q) @ split(k).transpose(0, 1, 3, 2)) * np.float32(1 / math.sqrt(dh))
    masked = np.broadcast_to(key_padding[:, None, None, :], scores.shape).copy()
    if mask == "causal":
        masked |= np.triu(np.ones((n, m), bool), 1)
    s = np.where(masked, np.float32(-np.inf), scores)
    e = np.where(masked, np.float32(0), np.exp(s - s.max(axis=-1, keepdims=True)))
    attn = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
    head_out = attn @ split(v)
    concat = head_out.transpose(0, 2, 1, 3).reshape(b, n, d)
    output = concat @ ws[3]
    trace = {
        "format": "mha-trace", "version": 1,
        "config": {"d_model": d, "heads": heads, "d_head": dh, "mask": mask, "scale": "sqrt_d_head",
                   "seed": 7, "weights": "random", "positional": "none", "cross": cross},
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
