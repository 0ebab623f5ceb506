#!/usr/bin/python3
"""One training step of mha-viz train in PyTorch, the yardstick for mha_bench's BM_TrainStep.

Run: /usr/bin/python3 tests/bench_train_torch.py   (Debian's python3-torch; 2 threads)
     ./build/tests/mha_bench --benchmark_filter=TrainStep   (the same steps in mha-viz)

The same model (docs/run-folder.md, "The model"): x0 = embed[tokens] + pos; per layer
x = x + MHA(x), causal, scale 1/sqrt(d_head), no biases, no LayerNorm; logits = x_L * unembed;
mean cross-entropy of logits[b][t] against tokens[b][t+1] where loss_mask[b][t]; Adam with
torch's defaults, lr 1e-3. Batches like the induction task's (random tokens with a segment
repeated, scored on its second copy), made before the clock starts, as in BM_TrainStep. A step
is zero_grad + forward + backward + optimizer.step. Prints steps/s (the median and the best of
5 runs of 2 s; compare with BM_TrainStep's median of --benchmark_repetitions=5) and the BLAS
that torch really uses: the library mapped into this process, not only what the build says,
and for OpenBLAS the kernels it picked for this CPU (OPENBLAS_CORETYPE=SkylakeX overrides its
choice when it does not know the CPU and falls back to old SSE3 kernels).
"""
import math
import random
import time

import torch

from torch_blas import blas_report

THREADS = 2
SHAPES = [(2, 64, 4, 32, 32), (1, 64, 4, 32, 32)]  # layers, d_model, heads, seq, batch
VOCAB = 64  # the induction task's (core/train/tasks.h, kRandomVocab)
RUNS, SECONDS_PER_RUN = 5, 2.0


def induction_batch(rng, batch, seq):
    """Random tokens with a segment of length 2 .. seq/2 repeated; mask on its second copy."""
    tokens = torch.randint(0, VOCAB, (batch, seq), generator=rng)
    mask = torch.zeros(batch, seq, dtype=torch.bool)
    for b in range(batch):
        length = random.randint(2, seq // 2)
        first = random.randint(0, seq - 2 * length)
        second = random.randint(first + length, seq - length)
        tokens[b, second:second + length] = tokens[b, first:first + length].clone()
        mask[b, second:second + length - 1] = True
    return tokens, mask


class AttentionOnly(torch.nn.Module):
    """The attention-only transformer, row-vector convention (q = x @ w_q) like core/train."""

    def __init__(self, layers, d_model, heads, seq):
        super().__init__()
        self.heads, self.d_head = heads, d_model // heads

        def param(*shape):
            return torch.nn.Parameter(torch.randn(*shape) / math.sqrt(shape[0]))

        self.embed, self.pos = param(VOCAB, d_model), param(seq, d_model)
        self.w = torch.nn.ParameterList(param(d_model, d_model) for _ in range(4 * layers))
        self.unembed = param(d_model, VOCAB)
        self.register_buffer("causal", torch.ones(seq, seq, dtype=torch.bool).triu(1))

    def split(self, m, batch, n):  # (B, n, D) -> (B, H, n, d_head)
        return m.view(batch, n, self.heads, self.d_head).transpose(1, 2)

    def forward(self, tokens):
        batch, n = tokens.shape
        x = self.embed[tokens] + self.pos[:n]  # (B, n, D)
        for l in range(len(self.w) // 4):
            w_q, w_k, w_v, w_o = self.w[4 * l:4 * l + 4]
            q, k, v = (self.split(x @ w, batch, n) for w in (w_q, w_k, w_v))
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)  # (B, H, n, n)
            weights = scores.masked_fill(self.causal[:n, :n], float("-inf")).softmax(-1)
            concat = (weights @ v).transpose(1, 2).reshape(batch, n, -1)  # (B, n, D)
            x = x + concat @ w_o
        return x @ self.unembed  # (B, n, V)


def loss_of(model, tokens, mask):
    logits = model(tokens)
    picked = mask[:, :-1]  # position t predicts tokens[t+1]
    return torch.nn.functional.cross_entropy(logits[:, :-1][picked], tokens[:, 1:][picked])


def steps_per_second(layers, d_model, heads, seq, batch):
    torch.manual_seed(1)
    random.seed(1)
    rng = torch.Generator().manual_seed(7)
    batches = [induction_batch(rng, batch, seq) for _ in range(16)]
    model = AttentionOnly(layers, d_model, heads, seq)
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(i):
        tokens, mask = batches[i % len(batches)]
        adam.zero_grad()
        loss_of(model, tokens, mask).backward()
        adam.step()

    for i in range(10):  # warm-up: allocator, thread pool, Adam's state
        step(i)
    rates = []
    for _ in range(RUNS):
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < SECONDS_PER_RUN:
            step(steps)
            steps += 1
        rates.append(steps / (time.perf_counter() - start))
    return sorted(rates)[RUNS // 2], max(rates)


def main():
    torch.set_num_threads(THREADS)
    results = [(shape, steps_per_second(*shape)) for shape in SHAPES]
    print(blas_report())  # after the steps, so every library torch loads lazily is mapped
    print(f"torch threads {torch.get_num_threads()}")
    for (layers, d_model, heads, seq, batch), (median, best) in results:
        print(f"torch train step layers={layers} d_model={d_model} heads={heads} seq={seq} "
              f"batch={batch}: {median:.1f} steps/s (median; best {best:.1f})")


if __name__ == "__main__":
    main()
