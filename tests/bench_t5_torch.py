#!/usr/bin/python3
"""PyTorch's T5 on a checkpoint folder, teacher-forced and greedy: the peer of mha-viz's
encoder-decoder `--bench-forward`.

Run: /usr/bin/python3 tests/bench_t5_torch.py DIR [--mha-viz build/app/mha-viz] [--source 128]
[--target 32]
DIR is a T5 folder with one F32 model.safetensors, e.g. the random t5-base of
`tests/make_seq2seq_fixtures.py --bench /tmp/t5-bench`. Debian's python3-torch in float32 on 2
threads under no_grad runs the forward of make_seq2seq_fixtures.py (written from Hugging Face's
modeling_t5.py; the fixtures check it) two ways:
- teacher-forced: the encoder over --source ids, the decoder over --target ids (its start token
  first), every position's logits;
- greedy: the encoder, then --target steps of one token each on the key/value cache as
  Hugging Face's generate keeps it (each layer's self keys and values concatenated step by step,
  the cross keys and values made once), the end token suppressed (min_new_tokens) so every run
  writes exactly --target tokens, as mha-viz's does.
Each is timed with the linear layers as Hugging Face calls them (F.linear on out x in weights)
and as plain matmuls on weights transposed once, each with torch's own OpenMP threads at 2 (as
the other peers run) and at 1: OpenBLAS keeps its 2 threads either way, and on 2 cores torch's
2 OpenMP workers beside OpenBLAS's 2 spinning threads made the same T5 encoder 5-7x slower (the
small products and element-wise ops torch runs itself wait for a core). The fastest of the
four medians counts, for each of the two. With
--mha-viz, mha-viz's --bench-forward runs first on the same folder, so one run gives both sides
and the ratios. OPENBLAS_CORETYPE is dropped from the environment: OpenBLAS picks its kernels
for this CPU.
"""
import os
import sys

if "OPENBLAS_CORETYPE" in os.environ:  # must go before OpenBLAS loads: re-run without it
    os.environ.pop("OPENBLAS_CORETYPE")
    os.execv(sys.executable, [sys.executable] + sys.argv)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

import make_seq2seq_fixtures as t5  # noqa: E402
from bench_gpt2_torch import THREADS, read_safetensors  # noqa: E402
from torch_blas import blas_report  # noqa: E402

RUNS = 6  # timed runs after one warm-up; the median counts, as mha-viz's


def use_linear(s, way):
    """Sets the fixtures' linear layer (make_seq2seq_fixtures.lin, which every forward there
    calls) to one way of computing it."""
    if way == "hugging-face":
        t5.lin = lambda _, name, x: torch.nn.functional.linear(x, s[name + ".weight"])
    else:  # plain matmuls on weights transposed once, outside the clock
        wt = {k: v.t().contiguous() for k, v in s.items() if v.dim() == 2 and "Attention.relative" not in k
              and k != "shared.weight"}
        t5.lin = lambda _, name, x: x @ wt[name + ".weight"]


def teacher_forced(c, s, source, target):
    enc, _ = t5.encode(c, s, source)
    return t5.decode(c, s, target, 0, enc, {})[0]  # Nt x V


def greedy(c, s, source, steps):
    enc, _ = t5.encode(c, s, source)
    cache, ids = {}, [c["start"]]
    for step in range(steps):
        logits = t5.decode(c, s, [ids[-1]], step, enc, cache)[0][0]  # V: the new row's
        logits[c["eos"]] = -math.inf
        ids.append(int(logits.argmax()))
    return ids[1:]


def median_ms(work):
    times = []
    with torch.no_grad():
        for run in range(RUNS + 1):
            start = time.perf_counter()
            work()
            if run >= 1:
                times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def mha_viz_ms(binary, folder, n, m):
    out = subprocess.run([binary, "--model", str(folder), "--bench-forward", str(n), "--generate", str(m)],
                         check=True, capture_output=True, text=True).stdout
    print("mha-viz --bench-forward:\n  " + out.strip().replace("\n", "\n  "), flush=True)
    return (float(re.search(r"forward: ([\d.]+) ms", out).group(1)),
            float(re.search(r"generate: ([\d.]+) ms", out).group(1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--source", type=int, default=128, help="source tokens")
    parser.add_argument("--target", type=int, default=32, help="target tokens, and greedy steps")
    parser.add_argument("--mha-viz", help="mha-viz binary: run its --bench-forward first")
    args = parser.parse_args()
    ours = mha_viz_ms(args.mha_viz, args.folder, args.source, args.target) if args.mha_viz else None
    c = t5.internal(json.loads((args.folder / "config.json").read_text()))
    s = read_safetensors(args.folder / "model.safetensors", prefix="")
    source = [i % 256 + 3 for i in range(args.source)]  # ids do not change the work
    target = [c["start"]] + [i % 256 + 3 for i in range(args.target - 1)]
    best = {}
    for threads in (THREADS, 1):  # torch's OpenMP workers; OpenBLAS runs its own THREADS
        torch.set_num_threads(threads)
        for way in ("hugging-face", "plain-matmul"):
            use_linear(s, way)
            for what, work in (("forward", lambda: teacher_forced(c, s, source, target)),
                               ("generate", lambda: greedy(c, s, source, args.target))):
                ms = median_ms(work)
                print(f"torch {way} {what}, torch threads {threads}: {ms:.2f} ms (median of {RUNS})",
                      flush=True)
                best[what] = min(best.get(what, (ms, threads, way)), (ms, threads, way))
    for what, detail in (("forward", f"{args.source} source tokens, {args.target} target tokens "
                                     "teacher-forced, with the logits"),
                         ("generate", f"{args.target} tokens greedy on the cache, the encoder included")):
        ms, threads, way = best[what]
        print(f"torch best {what}: {ms:.2f} ms ({detail}; {way}, torch threads {threads})")
    best = {what: ms for what, (ms, _, _) in best.items()}
    if ours:
        for what, mine in zip(("forward", "generate"), ours):
            print(f"mha-viz {what} {mine:.2f} ms vs torch {best[what]:.2f} ms: "
                  f"speed-up {best[what] / mine:.2f}x")
    print(blas_report())


if __name__ == "__main__":
    main()
