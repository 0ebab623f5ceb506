#!/usr/bin/python3
"""Attention files (docs/attention-files.md) as a notebook would save them, made with PyTorch
from a small random attention computation: per layer and head, softmax(q k^T / sqrt(d)) of
random q and k, causal for the decoder's layers. Not any model's attention: random numbers in
the contract's shapes and dtypes.

Writes tests/fixtures/attention/:
  f32.safetensors            F32 [H][N][N], the tokens in the header's __metadata__
  bf16_batch/attention.safetensors + tokens.json
                             BF16 [1][H][N][N] (transformers' shape), the tokens beside it
  f16_bidirectional.safetensors
                             F16 [H][N][N] without a mask, a token repeated (the detectors)
  encoder_decoder.safetensors
                             F32 layers.* (causal), encoder.* and cross.* [H][N][N_s], the
                             encoder's tokens under source_tokens
  reference.json             per file and tensor the values as float32 (the 16-bit ones
                             widened), which the reader must give back exactly

The safetensors package is not in Debian 12: the files are written by hand
(make_gpt2_fixtures.write_safetensors). Deterministic; run with Debian's python3:

    /usr/bin/python3 tests/make_attention_fixtures.py
"""
import json
import math
import pathlib

import torch

from make_gpt2_fixtures import write_safetensors

OUT = pathlib.Path(__file__).resolve().parent / "fixtures" / "attention"
TOKENS = ["The", " cat", " sat", " on", " the", " mat", " because", " it"]
REPEATED = ["[CLS]", "the", "cat", "saw", "the", "cat", "[SEP]"]
SOURCE = ["Le", " chat", " dort", "</s>"]
TARGET = ["<pad>", "The", " cat", " sleeps", "</s>"]


def attention(layers, heads, queries, keys, causal, d=8):
    """[L][H][Nq][Nk]: softmax(q k^T / sqrt(d)) of random q and k per layer and head, the keys
    after each query masked when causal (their weights exactly 0)."""
    maps = []
    for _ in range(layers):
        q = torch.randn(heads, queries, d)
        k = torch.randn(heads, keys, d) * 1.5
        scores = q @ k.transpose(1, 2) / math.sqrt(d)
        if causal:
            later = torch.ones(queries, keys).triu(1).bool()
            scores = scores.masked_fill(later, float("-inf"))
        maps.append(torch.softmax(scores, dim=-1))
    return maps


def save(path, named, metadata, reference):
    """The file, and its tensors' values as float32 in `reference` under its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_safetensors(path, named, metadata)
    reference[str(path.relative_to(OUT))] = {
        name: t.to(torch.float32).reshape(-1).double().tolist() for name, t in named.items()}


def main():
    torch.manual_seed(0)
    reference = {}
    maps = attention(3, 4, len(TOKENS), len(TOKENS), causal=True)
    save(OUT / "f32.safetensors", {f"layers.{l}": m for l, m in enumerate(maps)},
         {"tokens": json.dumps(TOKENS)}, reference)

    maps = attention(2, 3, len(TOKENS), len(TOKENS), causal=True)
    batch = OUT / "bf16_batch" / "attention.safetensors"
    save(batch, {f"layers.{l}": m.unsqueeze(0).to(torch.bfloat16) for l, m in enumerate(maps)},
         None, reference)
    (batch.parent / "tokens.json").write_text(json.dumps(TOKENS) + "\n")

    maps = attention(2, 2, len(REPEATED), len(REPEATED), causal=False)
    save(OUT / "f16_bidirectional.safetensors",
         {f"layers.{l}": m.to(torch.float16) for l, m in enumerate(maps)},
         {"tokens": json.dumps(REPEATED)}, reference)

    named = {f"layers.{l}": m for l, m in enumerate(attention(2, 2, len(TARGET), len(TARGET), True))}
    named.update({f"encoder.{l}": m for l, m in
                  enumerate(attention(2, 2, len(SOURCE), len(SOURCE), causal=False))})
    named.update({f"cross.{l}": m for l, m in
                  enumerate(attention(2, 2, len(TARGET), len(SOURCE), causal=False))})
    save(OUT / "encoder_decoder.safetensors", named,
         {"tokens": json.dumps(TARGET), "source_tokens": json.dumps(SOURCE)}, reference)

    (OUT / "reference.json").write_text(json.dumps(reference) + "\n")
    print("wrote", ", ".join(sorted(reference)), "and reference.json in", OUT)


if __name__ == "__main__":
    main()
