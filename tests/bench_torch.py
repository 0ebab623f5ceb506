#!/usr/bin/python3
"""PyTorch's CPU nn.MultiheadAttention on mha_bench's shapes, for docs/performance.md.

Run: /usr/bin/python3 tests/bench_torch.py [--mha-bench build/tests/mha_bench]
Debian's python3-torch, 2 threads. Same work as BM_Forward: B = 1 self-attention, per-head
weights and the output. With --mha-bench, each shape's BM_Forward runs right after torch's
(the median of 3 repetitions), so the ratio is taken in one run on a machine in one state.
Prints the BLAS torch really runs on (tests/torch_blas.py): compare with an optimised one.
"""
import argparse
import json
import subprocess
import time

import torch

from torch_blas import blas_report

THREADS = 2
SHAPES = [(10, 64, 8), (128, 512, 8), (128, 512, 16), (512, 512, 8), (1024, 1024, 16)]


def torch_seconds(n, d, h):
    """Mean time of one call over at least 2 s, after 3 warm-up calls."""
    # Training mode (dropout 0.0 gives the same result): torch 1.13's eval fast path
    # crashes with bias=False ("qkv_bias must be Tensor").
    mha = torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True)
    x = torch.randn(1, n, d)
    with torch.no_grad():
        def once():
            return mha(x, x, x, need_weights=True, average_attn_weights=False)
        for _ in range(3):
            once()
        reps, start = 0, time.perf_counter()
        while reps < 3 or time.perf_counter() - start < 2.0:
            once()
            reps += 1
        return (time.perf_counter() - start) / reps


def mha_bench_seconds(binary, n, d, h):
    """BM_Forward's median of 3 repetitions on this shape."""
    out = subprocess.run(
        [binary, f"--benchmark_filter=^BM_Forward/N:{n}/d_model:{d}/H:{h}/",
         "--benchmark_repetitions=3", "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    runs = json.loads(out)["benchmarks"]
    median = next(r for r in runs if r.get("aggregate_name") == "median")
    return median["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[median["time_unit"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mha-bench", help="mha_bench binary: time BM_Forward too")
    args = parser.parse_args()
    torch.set_num_threads(THREADS)
    for n, d, h in SHAPES:
        theirs = torch_seconds(n, d, h)
        line = f"torch N={n} d_model={d} H={h}: {theirs * 1e6:.1f} us"
        if args.mha_bench:
            ours = mha_bench_seconds(args.mha_bench, n, d, h)
            line += f"   mha-viz: {ours * 1e6:.1f} us   speed-up {theirs / ours:.2f}x"
        print(line, flush=True)
    print(blas_report())  # after the runs, so every library torch loads lazily is mapped
    print(f"torch threads {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
