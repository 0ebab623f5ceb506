#!/usr/bin/python3
"""`mha-viz train` through the real binary, headless, as a user runs it:
  * the run folder holds what docs/run-folder.md lists: model.json, metrics.csv with
    rows at 0, every E and the last step, checkpoints at 0, every C and the last, the batches of
    every update, ablation.csv;
  * the checkpoints are valid safetensors (read here with the standard library only), and the
    loss of update 1's batch under checkpoint 0, computed here from the files by an independent
    pure-Python forward pass, is metrics.csv's train_loss at step 0;
  * the same command gives the same metrics.csv and checkpoints byte for byte;
  * a folder that is not empty is refused with exit 2, one line, and nothing written;
  * Ctrl+C stops cleanly: exit 0, the step it stopped at has its metrics row and checkpoint;
  * `mha-viz plot` draws the run's curves as SVG and PNG and refuses bad columns and formats.
Usage (ctest does this): tests/train_cli.py build/app/mha-viz
"""
import csv
import json
import math
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

binary = sys.argv[1]
TINY = ["--task", "induction", "--layers", "2", "--d-model", "8", "--heads", "2", "--seq", "8",
        "--batch", "2", "--lr", "0.01"]


def check(condition, message):
    if not condition:
        print("FAIL: " + message, file=sys.stderr)
        sys.exit(1)
    print("ok: " + message)


def train(out, *extra, **kwargs):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run([binary, "train", *TINY, "--out", out, *extra], env=env,
                          capture_output=True, text=True, timeout=600, **kwargs)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    check(size % 8 == 0, f"{os.path.basename(path)}: header padded to 8 bytes")
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    tensors, end = {}, 0
    for name, entry in sorted(((n, e) for n, e in header.items() if n != "__metadata__"),
                              key=lambda item: item[1]["data_offsets"][0]):
        begin, stop = entry["data_offsets"]
        rows, cols = entry["shape"]
        if entry["dtype"] != "F32" or begin != end or stop - begin != 4 * rows * cols:
            check(False, f"{path}: tensor {name} is F32, contiguous, {rows}x{cols}")
        values = struct.unpack(f"<{rows * cols}f", body[begin:stop])
        tensors[name] = [list(values[r * cols:(r + 1) * cols]) for r in range(rows)]
        end = stop
    check(end == len(body), f"{os.path.basename(path)}: tensors fill the data exactly")
    return header.get("__metadata__", {}), tensors


def matmul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def attention(x, w, layer, heads):
    """One causal layer of the contract's model: x + concat(heads) . w_o."""
    q, k, v = (matmul(x, w[f"layers.{layer}.w_{m}"]) for m in "qkv")
    n, d = len(x), len(x[0])
    dh = d // heads
    concat = [[0.0] * d for _ in range(n)]
    for h in range(heads):
        cols = range(h * dh, (h + 1) * dh)
        for i in range(n):
            scores = [sum(q[i][c] * k[j][c] for c in cols) / math.sqrt(dh) for j in range(i + 1)]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            for c in cols:
                concat[i][c] = sum(weights[j] / total * v[j][c] for j in range(i + 1))
    out = matmul(concat, w[f"layers.{layer}.w_o"])
    return [[a + b for a, b in zip(r, o)] for r, o in zip(x, out)]


def loss_of(weights, batch, layers, heads):
    total, count = 0.0, 0
    for tokens, mask in zip(batch["tokens"], batch["loss_mask"]):
        x = [[e + p for e, p in zip(weights["embed"][tok], weights["pos"][t])]
             for t, tok in enumerate(tokens)]
        for layer in range(layers):
            x = attention(x, weights, layer, heads)
        logits = matmul(x, weights["unembed"])
        for t, selected in enumerate(mask):
            if selected:
                top = max(logits[t])
                log_sum = top + math.log(sum(math.exp(z - top) for z in logits[t]))
                total += log_sum - logits[t][tokens[t + 1]]
                count += 1
    return total / count


def check_run_folder(out):
    files = sorted(os.listdir(out))
    expected = ["ablation.csv", "metrics.csv", "model.json"]
    expected += [f"checkpoint-{s:06d}.safetensors" for s in (0, 2, 4, 5)]
    expected += [f"batches-{s:06d}.json" for s in range(1, 6)]
    check(files == sorted(expected), f"the run folder holds exactly {len(expected)} files")
    model = json.load(open(os.path.join(out, "model.json")))
    check(model["format"] == "mha-model" and model["version"] == 1 and model["task"] == "induction"
          and len(model["vocab"]) == 64 and model["seed"] == 1, "model.json names the run")
    rows = list(csv.reader(open(os.path.join(out, "metrics.csv"))))
    check([r[0] for r in rows] == ["step", "0", "2", "4", "5"], "metrics rows at 0, E, 2E, last")
    check(rows[0][:4] == ["step", "train_loss", "heldout_loss", "accuracy"]
          and rows[0][-1] == "L2H2.induction" and len(rows[0]) == 4 + 2 * 2 * 2,
          "metrics columns follow the contract")
    meta, weights = read_safetensors(os.path.join(out, "checkpoint-000000.safetensors"))
    check(meta.get("step") == "0", "checkpoint 0 says its step")
    shapes = {n: (len(t), len(t[0])) for n, t in weights.items()}
    want = {"embed": (64, 8), "pos": (8, 8), "unembed": (8, 64)}
    want.update({f"layers.{l}.w_{m}": (8, 8) for l in range(2) for m in "qkvo"})
    check(shapes == want, "checkpoint tensors have the contract's names and shapes")
    batch = json.load(open(os.path.join(out, "batches-000001.json")))
    ours = loss_of(weights, batch, 2, 2)
    recorded = float(rows[1][1])
    check(abs(ours - recorded) <= 1e-5 * recorded,
          f"train_loss at step 0 ({recorded:.7f}) is update 1's batch under checkpoint 0 "
          f"recomputed from the files ({ours:.7f})")
    ablation = list(csv.reader(open(os.path.join(out, "ablation.csv"))))
    check([r[0] for r in ablation[1:]] == ["baseline"] + ["single"] * 4 + ["pruning"] * 4,
          "ablation.csv: a baseline, each head alone, the pruning curve")


def check_plot(run, tmp):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    svg, png = os.path.join(tmp, "loss.svg"), os.path.join(tmp, "heads.png")
    r = subprocess.run([binary, "plot", run, run, "--columns", "heldout_loss,train_loss",
                        "--out", svg], env=env, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "plot: two runs' losses as SVG" + ("" if r.returncode == 0 else r.stderr))
    root = ET.parse(svg).getroot()
    lines = [e for e in root.iter() if e.tag.endswith("polyline")]
    check(len(lines) >= 4 and all(len(e.get("points").split()) == 4 for e in lines[:4]),
          f"plot: 4 series of 4 rows each ({len(lines)} polylines)")
    r = subprocess.run([binary, "plot", run, "--columns", "L2*.induction", "--out", png],
                       env=env, capture_output=True, text=True, timeout=120)
    with open(png, "rb") as f:
        head = f.read(24)
    check(r.returncode == 0 and head[:8] == b"\x89PNG\r\n\x1a\n", "plot: head scores as PNG")
    for args, what in ((["--columns", "L9*.induction", "--out", png], "L9*.induction"),
                       (["--out", os.path.join(tmp, "x.gif")], "x.gif")):
        r = subprocess.run([binary, "plot", run, *args], env=env, capture_output=True, text=True)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and what in r.stderr,
              f"plot: {what} refused with exit 2 and one line")


def check_stop_with_ctrl_c(tmp):
    out = os.path.join(tmp, "stopped")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.Popen([binary, "train", *TINY, "--steps", "999999", "--eval-every", "50",
                             "--out", out], env=env, stderr=subprocess.PIPE, text=True)
    metrics = os.path.join(out, "metrics.csv")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # wait for a row after step 0: training is under way
        if os.path.exists(metrics) and open(metrics).read().count("\n") >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    check(proc.returncode == 0, f"Ctrl+C: exit 0 (got {proc.returncode})")
    last = list(csv.reader(open(metrics)))[-1][0]
    check(f"stopped at step {last}" in err, f"Ctrl+C: stopped at step {last}, said on stderr")
    check(os.path.exists(os.path.join(out, f"checkpoint-{int(last):06d}.safetensors")),
          "Ctrl+C: the last step's checkpoint is written")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        first, second = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        extra = ["--steps", "5", "--eval-every", "2", "--checkpoint-every", "2",
                 "--record-batches", "--ablation"]
        for out in (first, second):
            r = train(out, *extra)
            check(r.returncode == 0, f"train into {os.path.basename(out)} exits 0"
                  + ("" if r.returncode == 0 else f" ({r.stderr.strip()})"))
        check_run_folder(first)
        for name in ("metrics.csv", "checkpoint-000005.safetensors", "ablation.csv"):
            same = open(os.path.join(first, name), "rb").read() == \
                open(os.path.join(second, name), "rb").read()
            check(same, f"same seed, same {name} byte for byte")
        before = sorted(os.listdir(first))
        r = train(first, "--steps", "5")
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "not empty" in r.stderr,
              f"a folder that is not empty: exit 2, one line ({r.stderr.strip()})")
        check(sorted(os.listdir(first)) == before, "nothing written into it")
        r = train(os.path.join(tmp, "c"), "--heads", "3")
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and not os.path.exists(
            os.path.join(tmp, "c")), "a bad value: exit 2, one line, no folder created")
        edge = os.path.join(tmp, "edge")
        r = train(edge, "--steps", "3", "--eval-every", "100", "--checkpoint-every", "1")
        rows = [line.split(",")[0] for line in open(os.path.join(edge, "metrics.csv"))][1:]
        check(r.returncode == 0 and rows == ["0", "3"] and sorted(os.listdir(edge)) == sorted(
            ["model.json", "metrics.csv"] + [f"checkpoint-{s:06d}.safetensors" for s in range(4)]),
            "E beyond the last step: rows at 0 and the last; C = 1: a checkpoint per step")
        r = train(os.path.join(tmp, "zero"), "--steps", "0")
        check(r.returncode == 0 and sorted(os.listdir(os.path.join(tmp, "zero"))) == [
            "checkpoint-000000.safetensors", "metrics.csv", "model.json"], "--steps 0: the initial model")
        check_plot(first, tmp)
        check_stop_with_ctrl_c(tmp)


main()
