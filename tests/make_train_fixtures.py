#!/usr/bin/python3
"""PyTorch autograd fixtures for the training engine (core/train, `mha-viz train`).

Writes tests/fixtures/train_<case>.json: for each case a model config, float32
parameters, three batches (tokens and loss mask), and what PyTorch computes from
them with the training model (docs/run-folder.md, "The model"):
  * "loss_float64", "gradients": the loss on batches[0] and d loss / d every
    parameter by autograd in float64, from the float32 parameters converted to
    float64 (the reference the C++ float gradients are measured against);
  * "loss_float32", "float32_autograd_error": the same loss by autograd in
    float32, and per tensor max|g32 - g64| / max|g64| of its gradients: how far
    PyTorch's own float32 lands from the reference (a yardstick for the C++);
  * "sgd": the float32 parameters after one torch.optim.SGD(lr) step on
    batches[0] (w -= lr * g, g the float32 autograd gradient);
  * "adam": the float32 parameters after three torch.optim.Adam(lr) steps with
    its defaults (betas 0.9, 0.999, eps 1e-8, no weight decay; torch 1.13 takes
    its single-tensor path on CPU), step s on batches[s] with the gradient of the
    float32 model at the parameters of the step before. Three different batches
    (not one batch three times), so the moments mix different gradients; in
    `masked_short` they also differ in length, so the pos rows past a short batch
    get a zero gradient while their moments still move them.

CI does not need torch: the fixtures are committed and tests/train_torch_test.cpp
only reads the JSON. Regenerate (overwrites every train_*.json; the output is
deterministic, one CPU thread, seeded legacy NumPy streams) with Debian's python,
which has torch 1.13 (the pyenv `python3` does not):

    /usr/bin/python3 tests/make_train_fixtures.py

Model (the contract; tensor names are the checkpoints'): x0 = embed[tokens] +
pos[:n] with embed [V, D], pos [N, D]; per layer l, row vectors q = x @ w_q with
layers.{l}.w_q/w_k/w_v/w_o [D, D]; heads split as (B, n, D) -> (B, n, H, d_head)
-> (B, H, n, d_head), so head h uses columns [h*d_head, (h+1)*d_head); scores
q k^T / sqrt(d_head) with key j > query i masked (causal); softmax; the heads'
outputs merged back the same way; x = x + concat @ w_o; no biases, no LayerNorm.
logits = x_L @ unembed [D, V]. loss = mean cross-entropy of logits[b][t] against
tokens[b][t+1] over the (b, t) with loss_mask[b][t] true (never at t = n-1).
A batch is B sequences of one length n <= N (N = config "seq").

Number format (as make_torch_fixtures.py): float32 values (params, sgd, adam)
are written with the shortest decimal that round-trips as float32, asserted for
every value, so `json double -> static_cast<float>` gives back the exact bits.
The parameters are drawn uniform and rounded to 4 decimals before float32, which
keeps the files small and changes nothing the test checks. float64 values
(losses) are written with repr(), which round-trips as double; the float64
gradients with 10 significant digits (relative error <= 5e-10, 100x below
float32's resolution; full repr() would make the files ~1.4x as large, and the
three stay under 200 KB this way).

Self-checks (each case): an independent NumPy float64 forward pass, its attention
layer being make_torch_fixtures.numpy_mha, gives torch's float64 loss to 1e-12,
and each layer's attention also equals torch.nn.MultiheadAttention's (the
explorer's fixtures' reference) to 1e-12; central differences of the NumPy loss
at a few entries of every tensor give the float64 autograd gradient to 1e-6 of
the tensor's largest gradient.
"""

import json
import math
import os
import sys

import numpy as np
import torch

from make_torch_fixtures import array_text, bool_text, f32_text, numpy_mha, torch_mha

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_DIR = os.path.join(HERE, "fixtures")

SGD_LR = 0.1
ADAM_LR = 1e-2
ADAM_STEPS = 3

# L layers, D d_model, H heads, V vocab, N seq (rows of pos), B sequences per batch,
# lengths: n of batches[0..2]; mask: which t < n-1 the loss counts
# ("all"; "random": each with probability 0.6, at least one in and one out; "from2": t >= 2).
CASES = [
    dict(name="one_layer", seed=2001, L=1, D=8, H=2, V=7, N=5, B=3, lengths=[5, 5, 5],
         mask="all"),
    dict(name="masked_short", seed=2002, L=2, D=16, H=4, V=11, N=9, B=2, lengths=[7, 9, 6],
         mask="random"),
    dict(name="three_layers", seed=2003, L=3, D=9, H=3, V=6, N=7, B=2, lengths=[7, 7, 7],
         mask="from2"),
]


def tensor_names(layers):
    """The order of core::train::namedTensors (and of the checkpoints)."""
    names = ["embed", "pos"]
    for l in range(layers):
        names += [f"layers.{l}.{m}" for m in ("w_q", "w_k", "w_v", "w_o")]
    return names + ["unembed"]


def draw_params(c, rng):
    """float32 parameters, uniform in [-a, a) rounded to 4 decimals.

    a is the engine's initial range (model.h, initParams), doubled for w_q, w_k and
    unembed: sharper attention and larger logits than at initialisation, so the
    softmax backward and the cross-entropy are exercised away from their
    near-uniform start (doubling w_v and w_o too would grow the residual stream
    layer by layer until the loss is ~30 nats and the softmaxes saturate).
    """
    D, V = c["D"], c["V"]
    shapes = {"embed": (V, D), "pos": (c["N"], D), "unembed": (D, V)}
    params = {}
    for name in tensor_names(c["L"]):
        shape = shapes.get(name, (D, D))
        a = math.sqrt(6.0 / (D + V)) if name == "unembed" else math.sqrt(3.0 / D)
        if name == "unembed" or name.endswith(("w_q", "w_k")):
            a *= 2
        params[name] = np.round(rng.uniform(-a, a, shape), 4).astype(np.float32)
    return params


def draw_batch(c, n, rng):
    B, V = c["B"], c["V"]
    tokens = rng.randint(0, V, (B, n))
    mask = np.zeros((B, n), dtype=bool)
    if c["mask"] == "all":
        mask[:, :n - 1] = True
    elif c["mask"] == "from2":
        mask[:, 2:n - 1] = True
    else:
        while mask.all() or not mask.any() or mask[:, :n - 1].all():
            mask = np.zeros((B, n), dtype=bool)
            mask[:, :n - 1] = rng.uniform(size=(B, n - 1)) < 0.6
    assert mask.any() and not mask[:, n - 1].any()
    return dict(tokens=tokens, loss_mask=mask)


# ---------------------------------------------------------------------------
# The model in torch (any dtype) and, independently, in NumPy float64
# ---------------------------------------------------------------------------

def torch_loss(params, batch, c):
    """Mean masked next-token cross-entropy of the contract's model; params are torch tensors."""
    tokens = torch.from_numpy(batch["tokens"])                # (B, n) int64
    mask = torch.from_numpy(batch["loss_mask"])               # (B, n) bool
    B, n = tokens.shape
    D, H = c["D"], c["H"]
    dh = D // H
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)  # key j > query i
    x = params["embed"][tokens] + params["pos"][:n]           # (B, n, D)
    for l in range(c["L"]):
        w = {m: params[f"layers.{l}.{m}"] for m in ("w_q", "w_k", "w_v", "w_o")}
        split = lambda t: t.reshape(B, n, H, dh).transpose(1, 2)  # (B, H, n, dh)
        q, k, v = split(x @ w["w_q"]), split(x @ w["w_k"]), split(x @ w["w_v"])
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(dh)   # (B, H, n, n)
        weights = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
        concat = (weights @ v).transpose(1, 2).reshape(B, n, D)  # merge: head h -> its columns
        x = x + concat @ w["w_o"]
    logits = x @ params["unembed"]                            # (B, n, V)
    selected = mask[:, :-1]                                   # t = n-1 has no next token
    return torch.nn.functional.cross_entropy(logits[:, :-1][selected], tokens[:, 1:][selected])


def numpy_loss(params, batch, c, layer_outputs=None):
    """The same loss in NumPy float64; attention by make_torch_fixtures.numpy_mha.

    layer_outputs, if a list, receives each layer's (input x, attention output).
    """
    tokens, mask = batch["tokens"], batch["loss_mask"]
    n = tokens.shape[1]
    p = {k: np.asarray(v, np.float64) for k, v in params.items()}
    x = p["embed"][tokens] + p["pos"][:n]
    for l in range(c["L"]):
        w = [p[f"layers.{l}.{m}"] for m in ("w_q", "w_k", "w_v", "w_o")]
        out = numpy_mha(x, None, *w, c["H"], None, True)["output"]
        if layer_outputs is not None:
            layer_outputs.append((x, out))
        x = x + out
    logits = x @ p["unembed"]
    total, count = 0.0, 0
    for b, t in zip(*np.nonzero(mask)):
        row = logits[b, t]
        top = row.max()
        total += top + math.log(np.exp(row - top).sum()) - row[tokens[b, t + 1]]
        count += 1
    return total / count


def autograd(params, batch, c, dtype):
    """(loss, {name: gradient}) by torch autograd in dtype, from the float32 params."""
    leaves = {k: torch.tensor(v, dtype=dtype, requires_grad=True) for k, v in params.items()}
    loss = torch_loss(leaves, batch, c)
    loss.backward()
    return float(loss), {k: t.grad.numpy().astype(np.float64) for k, t in leaves.items()}


def run_optimizer(params, batches, c, make_optimizer, steps):
    """float32 params after `steps` steps of torch.optim, step s on batches[s]."""
    leaves = {k: torch.tensor(v, dtype=torch.float32, requires_grad=True)
              for k, v in params.items()}
    optimizer = make_optimizer(list(leaves.values()))
    for s in range(steps):
        optimizer.zero_grad()
        torch_loss(leaves, batches[s], c).backward()
        optimizer.step()
    return {k: t.detach().numpy().copy() for k, t in leaves.items()}


# ---------------------------------------------------------------------------
# Self-checks
# ---------------------------------------------------------------------------

def self_check(params, batch, c, loss64, grads64, rng):
    """NumPy forward == torch float64; per-layer attention == nn.MultiheadAttention;
    central differences == autograd. Returns the worst normalized difference seen."""
    layers = []
    loss_np = numpy_loss(params, batch, c, layers)
    assert abs(loss_np - loss64) <= 1e-12 * max(1.0, abs(loss64)), (loss_np, loss64)
    worst_mha = 0.0
    for l, (x, out) in enumerate(layers):
        w = [params[f"layers.{l}.{m}"] for m in ("w_q", "w_k", "w_v", "w_o")]
        _, torch_out, _ = torch_mha(x, None, *w, c["H"], None, True)
        worst_mha = max(worst_mha, float(np.abs(torch_out - out).max()))
    assert worst_mha <= 1e-12, worst_mha

    worst_fd = 0.0
    h = 1e-6
    for name, g in grads64.items():
        scale = np.abs(g).max()
        for _ in range(4):
            i = tuple(rng.randint(0, s) for s in g.shape)
            plus = {k: np.asarray(v, np.float64).copy() for k, v in params.items()}
            minus = {k: v.copy() for k, v in plus.items()}
            plus[name][i] += h
            minus[name][i] -= h
            fd = (numpy_loss(plus, batch, c) - numpy_loss(minus, batch, c)) / (2 * h)
            err = abs(fd - g[i]) / max(scale, 1e-30)
            assert err <= 1e-6, (name, i, fd, g[i])
            worst_fd = max(worst_fd, err)
    return max(abs(loss_np - loss64), worst_mha), worst_fd


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def f64_text(v):
    v = float(v)
    assert math.isfinite(v)
    return repr(v)


def gradient_text(v):
    """10 significant digits: within 5e-10 of the float64 value, 100x below float32's
    resolution (6e-8) and far below the test's tolerance; repr() would make the files ~1.4x
    as large."""
    v = float(v)
    assert math.isfinite(v)
    return f"{v:.10g}"


def tensors_text(tensors, fmt, indent):
    pad = " " * (indent + 2)
    items = (f"{pad}{json.dumps(k)}: {array_text(v, fmt, indent + 2)}" for k, v in tensors.items())
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def batches_text(batches):
    rows = (f'    {{"tokens": {array_text(b["tokens"], str, 4)},\n'
            f'     "loss_mask": {array_text(b["loss_mask"], bool_text, 4)}}}' for b in batches)
    return "[\n" + ",\n".join(rows) + "\n  ]"


def fixture_text(c, params, batches, results):
    config = dict(vocab=c["V"], d_model=c["D"], heads=c["H"], layers=c["L"], seq=c["N"])
    errors = ", ".join(f"{json.dumps(k)}: {v:.3e}"
                       for k, v in results["float32_autograd_error"].items())
    fields = [
        ("name", json.dumps(c["name"])),
        ("seed", str(c["seed"])),
        ("config", json.dumps(config)),
        ("batches", batches_text(batches)),
        ("params", tensors_text(params, f32_text, 2)),
        ("loss_float64", f64_text(results["loss64"])),
        ("loss_float32", f64_text(results["loss32"])),
        ("gradients", tensors_text(results["grads64"], gradient_text, 2)),
        ("float32_autograd_error", "{" + errors + "}"),
        ("sgd", f'{{"lr": {SGD_LR!r}, "steps": 1, "params": '
                + tensors_text(results["sgd"], f32_text, 2) + "}"),
        ("adam", f'{{"lr": {ADAM_LR!r}, "steps": {ADAM_STEPS}, "params": '
                 + tensors_text(results["adam"], f32_text, 2) + "}"),
    ]
    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {v}" for k, v in fields) + "\n}\n"


def check_round_trip(text, params, batches, results):
    """What was written reads back exactly: float32 bits, float64 values, ints, bools."""
    data = json.loads(text)
    for key, tensors in (("params", params), ("sgd", results["sgd"]), ("adam", results["adam"])):
        written = data[key] if key == "params" else data[key]["params"]
        assert list(written) == list(tensors), key
        for name, arr in tensors.items():
            back = np.asarray(written[name], np.float64).astype(np.float32)
            assert back.shape == arr.shape, (key, name)
            assert np.array_equal(back.view(np.uint32), arr.view(np.uint32)), (key, name)
            direct = np.array([np.float32(f32_text(v)) for v in arr.ravel()], np.float32)
            assert np.array_equal(direct.view(np.uint32), arr.ravel().view(np.uint32)), (key, name)
    for name, g in results["grads64"].items():
        back = np.asarray(data["gradients"][name])
        assert back.shape == g.shape and (np.abs(back - g) <= 5e-10 * np.abs(g)).all(), name
    assert data["loss_float64"] == results["loss64"]
    for b, written in zip(batches, data["batches"]):
        assert np.array_equal(np.asarray(written["tokens"]), b["tokens"])
        assert np.array_equal(np.asarray(written["loss_mask"]), b["loss_mask"])


def make_case(c):
    assert c["D"] % c["H"] == 0 and len(c["lengths"]) == ADAM_STEPS
    assert max(c["lengths"]) <= c["N"]
    rng = np.random.RandomState(c["seed"])  # legacy generator: its stream is frozen
    params = draw_params(c, rng)
    batches = [draw_batch(c, n, rng) for n in c["lengths"]]

    loss64, grads64 = autograd(params, batches[0], c, torch.float64)
    loss32, grads32 = autograd(params, batches[0], c, torch.float32)
    f32_error = {k: float(np.abs(grads32[k] - g).max() / max(np.abs(g).max(), 1e-300))
                 for k, g in grads64.items()}
    sgd = run_optimizer(params, batches, c, lambda p: torch.optim.SGD(p, lr=SGD_LR), 1)
    adam = run_optimizer(params, batches, c, lambda p: torch.optim.Adam(p, lr=ADAM_LR),
                         ADAM_STEPS)
    results = dict(loss64=loss64, loss32=loss32, grads64=grads64,
                   float32_autograd_error=f32_error, sgd=sgd, adam=adam)
    loss_err, fd_err = self_check(params, batches[0], c, loss64, grads64, rng)

    text = fixture_text(c, params, batches, results)
    check_round_trip(text, params, batches, results)
    path = os.path.join(FIXTURE_DIR, f"train_{c['name']}.json")
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    size = os.path.getsize(path)
    positions = int(batches[0]["loss_mask"].sum())
    print(f"{os.path.relpath(path, os.path.dirname(HERE))}: L={c['L']} D={c['D']} H={c['H']}"
          f" V={c['V']} N={c['N']} B={c['B']} n={c['lengths']} loss positions={positions}"
          f" | loss {loss64:.6f} (ln V {math.log(c['V']):.3f}), float32 {loss32:.6f}"
          f" | torch float32 grad err {max(f32_error.values()):.1e}"
          f" | numpy-vs-torch {loss_err:.1e}, finite diff {fd_err:.1e} | {size} bytes")
    return size


def main():
    torch.set_num_threads(1)  # one summation order: the same bits on every run
    torch.use_deterministic_algorithms(True)
    os.makedirs(FIXTURE_DIR, exist_ok=True)
    total = sum(make_case(c) for c in CASES)
    print(f"{len(CASES)} fixtures, {total} bytes total"
          f" (torch {torch.__version__}, numpy {np.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
