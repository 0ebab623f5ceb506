#!/usr/bin/python3
"""PyTorch's CPU nn.MultiheadAttention on mha_bench's shapes, for README's comparison.

Run: /usr/bin/python3 tests/bench_torch.py   (Debian's python3-torch; 2 threads)
Same work as BM_Forward: B = 1 self-attention, per-head weights and the output.
"""
import time

import torch

torch.set_num_threads(2)
SHAPES = [(10, 64, 8), (128, 512, 8), (128, 512, 16), (512, 512, 8), (1024, 1024, 16)]

for n, d, h in SHAPES:
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
        per_call = (time.perf_counter() - start) / reps
    print(f"torch N={n} d_model={d} H={h}: {per_call * 1e6:.1f} us")
