#!/usr/bin/python3
"""Small random encoder-decoder checkpoints in the Hugging Face layout (T5 v1.0, Flan-T5, mT5,
BART, Marian), their tokenizer files, and PyTorch's forward on them as the reference the C++
forward is checked against.

Writes tests/fixtures/seq2seq/<name>/ (config.json, model.safetensors, the tokenizer files) and
tests/fixtures/seq2seq/reference.json: per fixture and case (source ids, target ids) every
encoder self-attention map [L][H][Ns][Ns], decoder self-attention [L][H][Nt][Nt] and
cross-attention [L][H][Nt][Ns], the logits' top 5 per target position (all logits for the first
case), the teacher-forced loss, and a greedy generation of up to 8 tokens computed with a
key/value cache as Hugging Face's generate keeps it (checked here to equal the recomputation
without a cache). The format: docs/seq2seq-fixtures.md.

transformers is not a Debian package, so the forwards are written here in torch from what
modeling_t5.py, modeling_bart.py and modeling_marian.py compute (float32, as they run).
sentencepiece (python3-sentencepiece) trains the tiny Unigram models on a generated English /
German corpus; BART's byte-level BPE is learned here on the same corpus.

    /usr/bin/python3 tests/make_seq2seq_fixtures.py            # write everything (deterministic)
    /usr/bin/python3 tests/make_seq2seq_fixtures.py --check    # the committed files: self-checks

Writing and --check both run the self-checks: T5's buckets and Marian's sinusoids against
values worked by hand, BART's position offset, rows summing to 1, causal zeros, cache = no
cache, BART and Marian against PyTorch's own post-LN layers, T5's layer-0 maps element by
element. --check then recomputes reference.json from the committed files (exit 1 on any
difference); it needs torch and numpy only, and re-checks the sentencepiece ids when
sentencepiece is installed.

With --bench DIR it writes only a random checkpoint of t5-base's shapes (12 + 12 layers, d_model
768, 12 heads, d_ff 3072, relu, vocab 32128, F32: 0.9 GB, outside the repository) for the
encoder-decoder benchmark (tests/bench_t5_torch.py):

    /usr/bin/python3 tests/make_seq2seq_fixtures.py --bench /tmp/t5-bench
"""
import argparse
import io
import json
import math
import pathlib
import random
import re
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_gpt2_fixtures import bytes_to_unicode, write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "fixtures" / "seq2seq"
MAX_NEW_TOKENS = 8
FINFO_MIN = torch.finfo(torch.float32).min


# ---- the forwards, written from Hugging Face's modeling files ----

def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket: rel = key position - query position. Half the
    buckets (bidirectional: per sign) hold exact distances, the rest grow logarithmically up
    to max_distance; the decoder's (unidirectional) maps every later key to bucket 0."""
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0).long() * num_buckets
        rel = rel.abs()
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    large = max_exact + (torch.log(rel.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(rel < max_exact, rel, large)


def t5_bias(c, weight, query_pos, n_keys, bidirectional):
    """compute_bias: the bucket of (key - query) looked up in layer 0's table, H x Nq x Nk."""
    rel = torch.arange(n_keys)[None, :] - query_pos[:, None]
    b = t5_bucket(rel, bidirectional, c["buckets"], c["max_distance"])
    return weight[b].permute(2, 0, 1)


def causal_mask(query_pos, n_keys):
    """Nq x Nk: 0 where the key is at or before the query, float32's lowest where after (HF
    adds finfo.min, so a masked weight is exactly 0 after the softmax)."""
    later = torch.arange(n_keys)[None, :] > query_pos[:, None]
    return torch.where(later, torch.tensor(FINFO_MIN), torch.tensor(0.0))


def split_heads(x, heads):
    return x.view(x.shape[0], heads, -1).permute(1, 0, 2)  # H x N x d_head


def attend(c, s, p, x, kv, bias):
    """One attention block: queries from x (N x d), keys/values kv = (K, V) already split
    (H x M x d_head). T5: no scaling, no biases; BART/Marian: q * d_head^-0.5 first, biases.
    Returns the output (N x d) and the weights (H x N x M)."""
    t5 = c["family"] == "t5"
    q = lin(s, p + ("q" if t5 else "q_proj"), x)
    if not t5:
        q = q * (c["d_head"] ** -0.5)
    w = torch.matmul(split_heads(q, c["heads"]), kv[0].transpose(1, 2)) + bias
    w = torch.softmax(w, dim=-1)
    o = torch.matmul(w, kv[1]).permute(1, 0, 2).reshape(x.shape[0], -1)
    return lin(s, p + ("o" if t5 else "out_proj"), o), w


def project_kv(c, s, p, x):
    t5 = c["family"] == "t5"
    k = lin(s, p + ("k" if t5 else "k_proj"), x)
    v = lin(s, p + ("v" if t5 else "v_proj"), x)
    return split_heads(k, c["heads"]), split_heads(v, c["heads"])


def lin(s, name, x):
    y = x @ s[name + ".weight"].T
    return y + s[name + ".bias"] if name + ".bias" in s else y


def rms(x, w, eps):
    """T5LayerNorm: no mean, no bias."""
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def ln(s, name, x, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), s[name + ".weight"], s[name + ".bias"], eps)


ACTS = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "swish": torch.nn.functional.silu,
        "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                                         (x + 0.044715 * torch.pow(x, 3.0))))}


def t5_ff(c, s, p, x):
    """T5DenseActDense (relu) or T5DenseGatedActDense (act(wi_0 x) * wi_1 x)."""
    h = x
    if c["gated"]:
        h = ACTS[c["act"]](lin(s, p + "wi_0", h)) * lin(s, p + "wi_1", h)
    else:
        h = ACTS[c["act"]](lin(s, p + "wi", h))
    return lin(s, p + "wo", h)


def bart_ff(c, s, p, x):
    return lin(s, p + "fc2", ACTS[c["act"]](lin(s, p + "fc1", x)))


def embed(c, s, ids, positions, stack):
    """Token embeddings and, for BART and Marian, the absolute positions: BART's learned rows
    at position + 2 (BartLearnedPositionalEmbedding's offset) and layernorm_embedding, Marian's
    sinusoidal rows at the position itself; embed_scale sqrt(d) when scale_embedding."""
    if c["family"] == "t5":
        return s["shared.weight"][ids]
    x = s["model.shared.weight"][ids] * (math.sqrt(c["d"]) if c["scale_embedding"] else 1.0)
    if c["family"] == "bart":
        x = x + s[f"model.{stack}.embed_positions.weight"][positions + 2]
        return ln(s, f"model.{stack}.layernorm_embedding", x, c["eps"])
    return x + c["sinusoids"][positions]


def encode(c, s, ids):
    """The encoder over the source ids (N): its output N x d and each layer's H x N x N."""
    n = len(ids)
    x = embed(c, s, torch.tensor(ids), torch.arange(n), "encoder")
    maps = []
    if c["family"] == "t5":
        bias = t5_bias(c, s["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"],
                       torch.arange(n), n, True)
    else:
        bias = torch.zeros(c["heads"], n, n)
    for l in range(c["enc_layers"]):
        x, w = encoder_layer(c, s, l, x, bias)
        maps.append(w)
    if c["family"] == "t5":
        x = rms(x, s["encoder.final_layer_norm.weight"], c["eps"])
    return x, maps


def encoder_layer(c, s, l, x, bias):
    if c["family"] == "t5":
        p = f"encoder.block.{l}.layer."
        h = rms(x, s[p + "0.layer_norm.weight"], c["eps"])
        a, w = attend(c, s, p + "0.SelfAttention.", h, project_kv(c, s, p + "0.SelfAttention.", h), bias)
        x = x + a
        x = x + t5_ff(c, s, p + "1.DenseReluDense.", rms(x, s[p + "1.layer_norm.weight"], c["eps"]))
        return x, w
    p = f"model.encoder.layers.{l}."  # post-LN: residual, then the norm
    a, w = attend(c, s, p + "self_attn.", x, project_kv(c, s, p + "self_attn.", x), bias)
    x = ln(s, p + "self_attn_layer_norm", x + a, c["eps"])
    x = ln(s, p + "final_layer_norm", x + bart_ff(c, s, p, x), c["eps"])
    return x, w


def decode(c, s, ids, start, enc, cache):
    """The decoder over ids (n new tokens at positions start..start+n-1) with a cache that holds
    each layer's self K/V of the earlier positions and the cross K/V of the encoder output (made
    on the first call, as EncoderDecoderCache does). Returns the logits n x V, each layer's
    self-attention H x n x (start+n) and cross-attention H x n x Ns."""
    n = len(ids)
    pos = torch.arange(start, start + n)
    x = embed(c, s, torch.tensor(ids), pos, "decoder")
    mask = causal_mask(pos, start + n)
    if c["family"] == "t5":
        table = s["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        self_bias = t5_bias(c, table, pos, start + n, False) + mask
    else:
        self_bias = mask.expand(c["heads"], n, start + n)
    selfs, crosses = [], []
    for l in range(c["dec_layers"]):
        x, ws, wc = decoder_layer(c, s, l, x, enc, cache, self_bias)
        selfs.append(ws)
        crosses.append(wc)
    return logits_of(c, s, x), selfs, crosses


def cached_kv(c, s, p, x, cache, key):
    """Self K/V: the cache's earlier rows, then this call's; cross K/V: made once."""
    if key[0] == "cross":
        if key not in cache:
            cache[key] = project_kv(c, s, p, x)
        return cache[key]
    k, v = project_kv(c, s, p, x)
    if key in cache:
        k, v = torch.cat([cache[key][0], k], 1), torch.cat([cache[key][1], v], 1)
    cache[key] = (k, v)
    return k, v


def decoder_layer(c, s, l, x, enc, cache, self_bias):
    ns = enc.shape[0]
    cross_bias = torch.zeros(c["heads"], x.shape[0], ns)  # T5: no position bias across
    if c["family"] == "t5":
        p = f"decoder.block.{l}.layer."
        h = rms(x, s[p + "0.layer_norm.weight"], c["eps"])
        a, ws = attend(c, s, p + "0.SelfAttention.", h,
                       cached_kv(c, s, p + "0.SelfAttention.", h, cache, ("self", l)), self_bias)
        x = x + a
        h = rms(x, s[p + "1.layer_norm.weight"], c["eps"])
        a, wc = attend(c, s, p + "1.EncDecAttention.", h,
                       cached_kv(c, s, p + "1.EncDecAttention.", enc, cache, ("cross", l)), cross_bias)
        x = x + a
        x = x + t5_ff(c, s, p + "2.DenseReluDense.", rms(x, s[p + "2.layer_norm.weight"], c["eps"]))
        return x, ws, wc
    p = f"model.decoder.layers.{l}."
    a, ws = attend(c, s, p + "self_attn.", x,
                   cached_kv(c, s, p + "self_attn.", x, cache, ("self", l)), self_bias)
    x = ln(s, p + "self_attn_layer_norm", x + a, c["eps"])
    a, wc = attend(c, s, p + "encoder_attn.", x,
                   cached_kv(c, s, p + "encoder_attn.", enc, cache, ("cross", l)), cross_bias)
    x = ln(s, p + "encoder_attn_layer_norm", x + a, c["eps"])
    x = ln(s, p + "final_layer_norm", x + bart_ff(c, s, p, x), c["eps"])
    return x, ws, wc


def logits_of(c, s, x):
    """T5: final RMS norm, times d^-0.5 when config.json's tie_word_embeddings is true (absent:
    true) for model_type t5, never for mt5; then lm_head.weight, or shared.weight when the file
    has no lm_head. BART/Marian: shared (tied) plus final_logits_bias."""
    if c["family"] == "t5":
        x = rms(x, s["decoder.final_layer_norm.weight"], c["eps"])
        if c["scale_output"]:
            x = x * c["d"] ** -0.5
        return x @ s.get("lm_head.weight", s["shared.weight"]).T
    return x @ s["model.shared.weight"].T + s["final_logits_bias"][0]


def greedy(c, s, enc, suppressed):
    """Hugging Face's greedy search: the decoder start token, then one token per step fed
    alone with the cache, argmax of the last logits (suppressed ids set to -inf, as
    bad_words_ids does), stopping after eos or MAX_NEW_TOKENS. Each step's logits and cross
    rows are checked against the decoder run without a cache over the whole prefix (float32
    sums in another order: within 5e-5, the same argmax)."""
    cache, ids, steps = {}, [c["start"]], []
    for step in range(MAX_NEW_TOKENS):
        logits, _, cross = decode(c, s, [ids[-1]], step, enc, cache)
        full, _, full_cross = decode(c, s, ids, 0, enc, {})
        diff = float((logits[0] - full[-1]).abs().max())
        assert diff < 5e-5, f"cache != no cache: {diff} at step {step}, logits up to {float(full.abs().max())}"
        for a, b in zip(cross, full_cross):
            assert torch.allclose(a[:, 0], b[:, -1], atol=1e-6), "cached cross row differs"
        assert int(logits[0].argmax()) == int(full[-1].argmax()), "cache changed the argmax"
        row = logits[0].clone()
        row[suppressed] = -math.inf
        top = torch.topk(row, 2)
        ids.append(int(top.indices[0]))
        steps.append({"margin": float(top.values[0] - top.values[1]),
                      "cross": [w[:, 0] for w in cross]})
        if ids[-1] == c["eos"]:
            break
    return ids[1:], steps


# ---- the fixtures' weights and configs ----

def gen_normal(g, shape, std, mean=0.0):
    return torch.randn(*shape, generator=g) * std + mean


def t5_state(c, g):
    d, inner, ff, V = c["d"], c["heads"] * c["d_head"], c["ff"], c["vocab_size"]
    st = {"shared.weight": gen_normal(g, (V, d), 1.0)}
    for stack, n_layers in (("encoder", c["enc_layers"]), ("decoder", c["dec_layers"])):
        for l in range(n_layers):
            p = f"{stack}.block.{l}.layer."
            subs = ["0.SelfAttention."] + (["1.EncDecAttention."] if stack == "decoder" else [])
            for sub in subs:
                for m, shape in (("q", (inner, d)), ("k", (inner, d)), ("v", (inner, d)), ("o", (d, inner))):
                    st[p + sub + m + ".weight"] = gen_normal(g, shape, 0.25 if m in "qk" else 0.25)
            if l == 0:
                st[p + "0.SelfAttention.relative_attention_bias.weight"] = gen_normal(g, (c["buckets"], c["heads"]), 1.0)
            ffp = p + ("2" if stack == "decoder" else "1") + ".DenseReluDense."
            for m in (["wi_0", "wi_1"] if c["gated"] else ["wi"]):
                st[ffp + m + ".weight"] = gen_normal(g, (ff, d), d ** -0.5)
            st[ffp + "wo.weight"] = gen_normal(g, (d, ff), ff ** -0.5)
            for k in range(len(subs) + 1):
                st[p + f"{k}.layer_norm.weight"] = gen_normal(g, (d,), 0.1, 1.0)
        st[f"{stack}.final_layer_norm.weight"] = gen_normal(g, (d,), 0.1, 1.0)
    if not c["tied"]:
        st["lm_head.weight"] = gen_normal(g, (V, d), d ** -0.5)
    return st


def bart_state(c, g):
    d, ff, V = c["d"], c["ff"], c["vocab_size"]
    st = {"model.shared.weight": gen_normal(g, (V, d), 0.5 if c["family"] == "bart" else 0.15)}
    for stack, n_layers in (("encoder", c["enc_layers"]), ("decoder", c["dec_layers"])):
        if c["family"] == "bart":
            st[f"model.{stack}.embed_positions.weight"] = gen_normal(g, (c["max_positions"] + 2, d), 0.5)
            layer_norm(st, f"model.{stack}.layernorm_embedding", d, g)
        else:  # what 2020's opus-mt conversions hold: the table HF computes (see the doc)
            st[f"model.{stack}.embed_positions.weight"] = c["sinusoids"].clone()
        for l in range(n_layers):
            p = f"model.{stack}.layers.{l}."
            attns = ["self_attn"] + (["encoder_attn"] if stack == "decoder" else [])
            for a in attns:
                for m in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    st[f"{p}{a}.{m}.weight"] = gen_normal(g, (d, d), 0.35 if m[0] in "qk" else 0.2)
                    st[f"{p}{a}.{m}.bias"] = gen_normal(g, (d,), 0.1)
                layer_norm(st, f"{p}{a}_layer_norm", d, g)
            st[p + "fc1.weight"], st[p + "fc1.bias"] = gen_normal(g, (ff, d), d ** -0.5), gen_normal(g, (ff,), 0.1)
            st[p + "fc2.weight"], st[p + "fc2.bias"] = gen_normal(g, (d, ff), ff ** -0.5), gen_normal(g, (d,), 0.1)
            layer_norm(st, p + "final_layer_norm", d, g)
    st["final_logits_bias"] = gen_normal(g, (1, V), 0.5)
    if c["family"] == "marian":  # the converted opus-mt models add <pad> as a zero row, zero bias
        st["model.shared.weight"][c["pad"]] = 0.0
        st["final_logits_bias"][0, c["pad"]] = 0.0
    return st


def layer_norm(st, name, d, g):
    st[name + ".weight"] = gen_normal(g, (d,), 0.1, 1.0)
    st[name + ".bias"] = gen_normal(g, (d,), 0.1)


def marian_sinusoids(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: angle pos / 10000^(2*(j//2)/dim) in
    float64; sin of the even j in the first half, cos of the odd j in the second; then float32."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = np.zeros((n_pos, dim))
    half = dim // 2 + dim % 2
    out[:, :half] = np.sin(enc[:, 0::2])
    out[:, half:] = np.cos(enc[:, 1::2])
    return torch.tensor(out, dtype=torch.float32)


def t5_config(name, vocab_size):
    """config.json as the real checkpoints spell it (t5-small, flan-t5-small, mt5-small)."""
    gated = name != "t5_relu"
    cfg = {"architectures": ["T5ForConditionalGeneration"], "model_type": "mt5" if name == "mt5" else "t5",
           "d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_decoder_layers": 2,
           "num_heads": 4, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
           "dropout_rate": 0.1, "layer_norm_epsilon": 1e-6, "initializer_factor": 1.0,
           "feed_forward_proj": "gated-gelu" if gated else "relu", "is_encoder_decoder": True,
           "use_cache": True, "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0,
           "vocab_size": vocab_size}
    if gated:
        cfg["tie_word_embeddings"] = False  # t5_relu leaves it out: the default, true
    if name == "flan_t5_gated":
        cfg.update({"dense_act_fn": "gelu_new", "is_gated_act": True})
    if name == "mt5":
        cfg["tokenizer_class"] = "T5Tokenizer"
    return cfg


def bart_config(family, vocab_size, pad):
    cfg = {"architectures": ["BartForConditionalGeneration" if family == "bart" else "MarianMTModel"],
           "model_type": family, "d_model": 32, "encoder_layers": 2, "decoder_layers": 2,
           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
           "decoder_ffn_dim": 64, "max_position_embeddings": 64, "dropout": 0.1,
           "attention_dropout": 0.0, "activation_dropout": 0.0, "init_std": 0.02,
           "is_encoder_decoder": True, "use_cache": True, "vocab_size": vocab_size}
    if family == "bart":
        cfg.update({"activation_function": "gelu", "scale_embedding": False, "normalize_before": False,
                    "add_final_layer_norm": False, "normalize_embedding": True, "add_bias_logits": False,
                    "static_position_embeddings": False, "bos_token_id": 0, "pad_token_id": 1,
                    "eos_token_id": 2, "decoder_start_token_id": 2})
    else:
        cfg.update({"activation_function": "swish", "scale_embedding": True, "normalize_before": False,
                    "normalize_embedding": False, "static_position_embeddings": True,
                    "add_bias_logits": False, "share_encoder_decoder_embeddings": True,
                    "decoder_vocab_size": vocab_size, "pad_token_id": pad, "eos_token_id": 0,
                    "decoder_start_token_id": pad, "bad_words_ids": [[pad]]})
    return cfg


def internal(cfg):
    """What the forwards read, from a config.json's fields (the way HF's config classes
    derive them: gated and the activation from feed_forward_proj; T5 tied by default, mT5
    not; the output scale as T5Config's scale_decoder_outputs / v4's tie_word_embeddings)."""
    mt = cfg["model_type"]
    if mt in ("t5", "mt5"):
        proj = cfg["feed_forward_proj"]
        gated = proj.startswith("gated-")
        act = proj.split("-")[-1]
        return {"family": "t5", "d": cfg["d_model"], "heads": cfg["num_heads"], "d_head": cfg["d_kv"],
                "ff": cfg["d_ff"], "enc_layers": cfg["num_layers"], "dec_layers": cfg["num_decoder_layers"],
                "buckets": cfg["relative_attention_num_buckets"],
                "max_distance": cfg["relative_attention_max_distance"], "gated": gated,
                "act": "gelu_new" if act == "gelu" and gated else act, "eps": cfg["layer_norm_epsilon"],
                "scale_output": mt == "t5" and cfg.get("tie_word_embeddings", True) is True,
                "tied": cfg.get("tie_word_embeddings", mt == "t5"), "vocab_size": cfg["vocab_size"],
                "start": cfg["decoder_start_token_id"], "eos": cfg["eos_token_id"], "pad": cfg["pad_token_id"]}
    c = {"family": mt, "d": cfg["d_model"], "heads": cfg["encoder_attention_heads"],
         "d_head": cfg["d_model"] // cfg["encoder_attention_heads"], "ff": cfg["encoder_ffn_dim"],
         "enc_layers": cfg["encoder_layers"], "dec_layers": cfg["decoder_layers"],
         "act": cfg["activation_function"], "eps": 1e-5, "scale_embedding": cfg["scale_embedding"],
         "max_positions": cfg["max_position_embeddings"], "tied": True, "vocab_size": cfg["vocab_size"],
         "start": cfg["decoder_start_token_id"], "eos": cfg["eos_token_id"], "pad": cfg["pad_token_id"]}
    if mt == "marian":
        c["sinusoids"] = marian_sinusoids(cfg["max_position_embeddings"], cfg["d_model"])
    return c


# ---- the tokenizers: a generated English / German corpus, SentencePiece Unigram models,
# a byte-level BPE ----

EN = {"det": ["the", "a", "this", "that", "my", "your", "every", "one"],
      "adj": ["small", "old", "green", "happy", "quiet", "bright", "heavy", "young", "tired", "clever",
              "yellow", "strange", "warm", "little", "famous", "patient"],
      "noun": ["dog", "cat", "house", "garden", "teacher", "river", "window", "city", "book", "child",
               "bird", "doctor", "letter", "mountain", "kitchen", "farmer", "bridge", "student",
               "picture", "train"],
      "verb": ["sees", "finds", "likes", "opens", "paints", "follows", "reads", "visits", "watches",
               "carries", "remembers", "builds", "writes", "closes", "answers", "forgets"],
      "end": [".", "!", "?", " today.", " again.", " slowly.", " at night.", " in the morning."]}
DE = {"det": ["der", "die", "das", "ein", "eine", "mein", "dein", "jeder"],
      "adj": ["kleine", "alte", "grüne", "fröhliche", "ruhige", "helle", "schwere", "junge", "müde",
              "kluge", "gelbe", "seltsame", "warme", "berühmte", "geduldige", "große"],
      "noun": ["Hund", "Katze", "Haus", "Garten", "Lehrer", "Fluss", "Fenster", "Stadt", "Buch", "Kind",
               "Vogel", "Ärztin", "Brief", "Berg", "Küche", "Bauer", "Brücke", "Studentin", "Bild", "Zug"],
      "verb": ["sieht", "findet", "mag", "öffnet", "malt", "folgt", "liest", "besucht", "beobachtet",
               "trägt", "erinnert", "baut", "schreibt", "schließt", "beantwortet", "vergisst"],
      "end": [".", "!", "?", " heute.", " wieder.", " langsam.", " in der Nacht.", " am Straßenrand."]}
FR = {"det": ["le", "la", "un", "une", "mon", "ma", "chaque"],
      "adj": ["petit", "vieux", "vert", "heureux", "calme", "lourd", "jeune", "fatigué", "célèbre"],
      "noun": ["chien", "chat", "maison", "jardin", "rivière", "fenêtre", "ville", "livre", "oiseau",
               "médecin", "lettre", "montagne", "cuisine", "pont", "élève", "train"],
      "verb": ["voit", "trouve", "aime", "ouvre", "peint", "suit", "lit", "visite", "regarde", "écrit"],
      "end": [".", "!", "?", " encore.", " à côté.", " ce soir."]}


def sentences(words, n, seed):
    """n template sentences: determiner, adjective, noun, verb, determiner, noun, ending."""
    r = random.Random(seed)
    out = []
    for _ in range(n):
        w = [r.choice(words["det"]), r.choice(words["adj"]), r.choice(words["noun"]),
             r.choice(words["verb"]), r.choice(words["det"]), r.choice(words["noun"])]
        if r.random() < 0.1:
            w.insert(4, str(r.randint(2, 99)))
        text = " ".join(w) + r.choice(words["end"])
        out.append(text[0].upper() + text[1:] if r.random() < 0.5 else text)
    return out


def train_spm(lines, vocab_size, t5_ids):
    """A Unigram model in memory. T5's layout: <pad> 0, </s> 1, <unk> 2 and no <s> (its
    spiece.model); Marian's: sentencepiece's defaults (<unk> 0, <s> 1, </s> 2), its pieces
    mapped through vocab.json."""
    import sentencepiece as spm
    model = io.BytesIO()
    ids = dict(pad_id=0, eos_id=1, unk_id=2, bos_id=-1) if t5_ids else {}
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                   vocab_size=vocab_size, model_type="unigram", character_coverage=1.0,
                                   num_threads=1, seed_sentencepiece_size=100000, shuffle_input_sentence=False,
                                   minloglevel=2, **ids)
    return model.getvalue()


def spm_pieces(model_bytes, text):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_proto=model_bytes)
    return sp.encode(text, out_type=str), sp.encode(text)


def pretokens(text):
    """GPT-2's split (contractions, ' ?letters', ' ?digits', ' ?other', spaces) with re's
    classes for \\p{L} and \\p{N} (the corpus has no character where they differ)."""
    pattern = r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"
    table = bytes_to_unicode()
    return ["".join(table[b] for b in t.encode("utf-8")) for t in re.findall(pattern, text)]


def train_bpe(lines, n_merges):
    """Byte-level BPE merges: the most frequent adjacent pair (ties: the smaller pair) merged,
    n_merges times, over the corpus's pre-tokens."""
    words = {}
    for line in lines:
        for t in pretokens(line):
            words[tuple(t)] = words.get(tuple(t), 0) + 1
    merges = []
    for _ in range(n_merges):
        pairs = {}
        for w, n in words.items():
            for pair in zip(w, w[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = {merge_word(w, best): n for w, n in words.items()}
    return merges


def merge_word(w, pair):
    out, i = [], 0
    while i < len(w):
        if i + 1 < len(w) and (w[i], w[i + 1]) == pair:
            out.append(w[i] + w[i + 1])
            i += 2
        else:
            out.append(w[i])
            i += 1
    return tuple(out)


def bpe_encode(text, vocab, merges):
    """GPT-2's encoder: per pre-token, merge the lowest-ranked adjacent pair until none is left."""
    ranks = {tuple(m): i for i, m in enumerate(merges)}
    ids = []
    for t in pretokens(text):
        w = tuple(t)
        while len(w) > 1:
            best = min(zip(w, w[1:]), key=lambda p: ranks.get(p, math.inf))
            if best not in ranks:
                break
            w = merge_word(w, best)
        ids += [vocab[p] for p in w]
    return ids


def bart_vocab(merges):
    """RoBERTa's order: <s> 0, <pad> 1, </s> 2, <unk> 3, the 256 bytes, the merged pieces, and
    <mask> last."""
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    table = bytes_to_unicode()
    for b in range(256):
        vocab[table[b]] = len(vocab)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<mask>"] = len(vocab)
    return vocab


def marian_vocab(source_model, target_model):
    """Marian's shared vocab.json: </s> 0, <unk> 1, the pieces of both spm models (source
    first, each once), <pad> last (the pad and decoder start token)."""
    import sentencepiece as spm
    vocab = {"</s>": 0, "<unk>": 1}
    for model in (source_model, target_model):
        sp = spm.SentencePieceProcessor(model_proto=model)
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)):
                vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    return vocab


# ---- the fixtures ----

EN_TEXTS = ["The small dog sees the old house.", "a young child reads my green book again."]
DE_TEXTS = ["Der kleine Hund sieht das alte Haus.", "ein junges Kind liest mein grünes Buch wieder."]
EXTRA_TEXTS = ["Zoë's 42 cats!", "  two  spaces, ß and Ä"]  # an unknown character; odd spaces
FIXTURES = ["t5_relu", "flan_t5_gated", "mt5", "bart", "marian"]


def corpus(langs, n=1500):
    tables = {"en": EN, "de": DE, "fr": FR}
    return [line for k, lang in enumerate(langs) for line in sentences(tables[lang], n, 7 + k)]


# T5's sentinels and special tokens typed in a source (span corruption, how T5 was trained):
# spaces around them, none, two in a row, <extra_id_1> against <extra_id_10>, a number past the
# 100, a sentinel's whitespace (tab, ideographic space), </s> inside and at the end, <pad> and
# <unk> typed, an unknown character beside one. T5 fixtures only, after the texts above (the
# cases read the first two sources).
SPECIAL_TEXTS = ["The <extra_id_0> walks in <extra_id_1> park.", "<extra_id_0>the old house<extra_id_99>",
                 "a young<extra_id_10>child <extra_id_1>  reads", "<extra_id_0><extra_id_1> and <extra_id_100>",
                 " \u3000<extra_id_2>\tthe river\n<extra_id_3>", "my book </s> a <pad><unk> dog",
                 "the house ends here </s>", "Zoë<extra_id_4>Ä <extra_id_5 is text"]


def t5_split(text, specials):
    """transformers' Trie.split: the leftmost added token, the longest there; the stretches
    between them (never empty) and the tokens, in order, as (string, id or None)."""
    out, at, start = [], 0, 0
    while at < len(text):
        found = [s for s in specials if text.startswith(s[0], at)]
        if not found:
            at += 1
            continue
        content, token_id, strip = max(found, key=lambda s: len(s[0]))
        if start < at:
            out.append((text[start:at], None, False))
        out.append((content, token_id, strip))
        at = start = at + len(content)
    if start < len(text):
        out.append((text[start:], None, False))
    return out


def t5_ids(model_bytes, text, extra, fast):
    """What T5's tokenizer gives for a text, its special tokens typed in it split out first.
    The spiece.model folder (fast False) is T5Tokenizer in its default legacy mode: the added
    tokens are </s>, <pad>, <unk> (no strip) and the extra ids (AddedToken lstrip and rstrip:
    PreTrainedTokenizer.tokenize strips the neighbouring stretches with str.lstrip / rstrip),
    each stretch left non-empty is sp.encode'd alone, and _add_eos_if_not_present appends </s>
    unless the ids end with it. The tokenizer.json folder (fast True) is the Rust library's
    AddedVocabulary with the file's flags (all false: no strip), each stretch through
    Precompiled, WhitespaceSplit, Metaspace and the Unigram model: for these texts the stretch's
    sp.encode (split_by_whitespace keeps every piece inside one word); the post-processor's
    </s> always. spm_hf_check.py checks the second against the Rust library itself."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_proto=model_bytes)
    size = sp.get_piece_size()
    specials = [(t, sp.piece_to_id(t), False) for t in ("</s>", "<pad>", "<unk>")]
    specials += [(f"<extra_id_{k}>", size + extra - 1 - k, not fast) for k in range(extra)]
    parts = t5_split(text, specials)
    for i, (content, token_id, strip) in enumerate(parts):
        if token_id is None or not strip:
            continue
        if i + 1 < len(parts) and parts[i + 1][1] is None:
            parts[i + 1] = (parts[i + 1][0].lstrip(), None, False)
        if i > 0 and parts[i - 1][1] is None:
            parts[i - 1] = (parts[i - 1][0].rstrip(), None, False)
    ids = []
    for content, token_id, _ in parts:
        ids += [token_id] if token_id is not None else sp.encode(content) if content else []
    eos = sp.piece_to_id("</s>")
    return ids if not fast and ids and ids[-1] == eos else ids + [eos]


def t5_tokenizer_json(model_bytes, extra):
    """The tokenizer.json of t5-small on the hub, as transformers' T5Converter wrote it: the
    Unigram vocabulary with the extra ids after the pieces (<extra_id_99> first, score 0), unk_id;
    normalizer Precompiled (the model's charsmap); pre-tokenizer WhitespaceSplit then Metaspace
    (add_prefix_space); <pad>, </s>, <unk> and the extra ids as special added tokens (lstrip,
    rstrip, single_word, normalized false); post-processor $A </s>."""
    import base64
    from make_spm_fixtures import Piece, fields
    pieces, charsmap = [], b""
    for number, _, value in fields(model_bytes):
        if number == 1:
            pieces.append(Piece(value))
        elif number == 3:
            charsmap = b"".join(v for n, _, v in fields(value) if n == 2)
    vocab = [[p.piece, p.score] for p in pieces] + [[f"<extra_id_{k}>", 0.0] for k in range(extra - 1, -1, -1)]
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    added = [{"id": i, "content": p.piece, **flags} for i, p in enumerate(pieces) if p.type in (2, 3)]
    added += [{"id": len(pieces) + i, "content": v[0], **flags} for i, v in enumerate(vocab[len(pieces):])]
    eos = [i for i, p in enumerate(pieces) if p.piece == "</s>"][0]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True}
    single = [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}]
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
        "post_processor": {"type": "TemplateProcessing", "single": single,
                           "pair": single + [{"Sequence": {"id": "B", "type_id": 0}},
                                             {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": [i for i, p in enumerate(pieces) if p.type == 2][0], "vocab": vocab},
    }, ensure_ascii=False)


def t5_files(name):
    """spiece.model (T5's piece layout, the same file for the three: the nmt_nfkc charsmap makes
    it 240 KB) and tokenizer_config.json; T5 adds 100 extra ids after the pieces (<extra_id_0>
    is the last: T5Tokenizer's vocab_size - 1 - N), mT5 none. t5_relu also has the hub's
    tokenizer.json (t5-small has both; AutoTokenizer, and the app, read tokenizer.json then)."""
    model = train_spm(corpus(["en", "de", "fr"]), 300, True)
    extra = 0 if name == "mt5" else 100
    files = {"spiece.model": model,
             "tokenizer_config.json": json.dumps({"tokenizer_class": "T5Tokenizer", "extra_ids": extra,
                                                  "eos_token": "</s>", "unk_token": "<unk>",
                                                  "pad_token": "<pad>", "model_max_length": 512}, indent=2)}
    if name == "t5_relu":
        files["tokenizer.json"] = t5_tokenizer_json(model, extra)
    size = spm_size(model) + extra
    vocab_size = (size + 7) // 8 * 8  # padded like t5-small's 32100 -> 32128
    texts = []
    for side, text in ([("source", t) for t in EN_TEXTS + EXTRA_TEXTS] + [("target", t) for t in DE_TEXTS]
                       + [("source", t) for t in SPECIAL_TEXTS]):
        pieces, ids = spm_pieces(model, text)
        texts.append({"text": text, "side": side, "pieces": pieces, "spm_ids": ids,
                      "ids": t5_ids(model, text, extra, name == "t5_relu")})
    return files, vocab_size, texts, {"extra_ids": extra, "spm_pieces": spm_size(model)}


def spm_size(model):
    import sentencepiece as spm
    return spm.SentencePieceProcessor(model_proto=model).get_piece_size()


def marian_files():
    """source.spm (English), target.spm (German), the shared vocab.json; MarianTokenizer maps
    each spm piece through vocab.json (<unk> when missing) and appends </s>."""
    source, target = train_spm(corpus(["en"]), 150, False), train_spm(corpus(["de"]), 160, False)
    vocab = marian_vocab(source, target)
    files = {"source.spm": source, "target.spm": target,
             "vocab.json": json.dumps(vocab, ensure_ascii=False, indent=0),
             "tokenizer_config.json": json.dumps({"tokenizer_class": "MarianTokenizer", "source_lang": "en",
                                                  "target_lang": "de", "separate_vocabs": False,
                                                  "eos_token": "</s>", "unk_token": "<unk>",
                                                  "pad_token": "<pad>", "model_max_length": 512}, indent=2)}
    texts = []
    for side, text in [("source", t) for t in EN_TEXTS + EXTRA_TEXTS] + [("target", t) for t in DE_TEXTS]:
        pieces, spm_ids = spm_pieces(source if side == "source" else target, text)
        ids = [vocab.get(p, vocab["<unk>"]) for p in pieces] + [vocab["</s>"]]
        texts.append({"text": text, "side": side, "pieces": pieces, "spm_ids": spm_ids, "ids": ids})
    return files, len(vocab), texts, {"spm_pieces": [spm_size(source), spm_size(target)]}


def bart_files():
    """vocab.json and merges.txt of a byte-level BPE learned on the corpus; BartTokenizer wraps
    a text in <s> ... </s> (targets too)."""
    merges = train_bpe(corpus(["en", "de"]), 150)
    vocab = bart_vocab(merges)
    files = {"vocab.json": json.dumps(vocab, ensure_ascii=False),
             "merges.txt": "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges)}
    texts = []
    for side, text in [("source", t) for t in EN_TEXTS + EXTRA_TEXTS] + [("target", t) for t in DE_TEXTS]:
        ids = bpe_encode(text, vocab, merges)
        texts.append({"text": text, "side": side, "bpe_ids": ids, "ids": [0] + ids + [2]})
    return files, len(vocab), texts, {"merges": len(merges)}


def tokenizer_for(name):
    if name == "bart":
        return bart_files()
    if name == "marian":
        return marian_files()
    return t5_files(name)


def cases(c, texts, seed):
    """Two text cases (the tokenizer's ids of an English source and its German target) and one
    of random ids long enough for T5's logarithmic buckets (source 20, target 18: distances
    past 8 across and 16 back). labels are
    the target's ids as the tokenizer gives them; the decoder reads the start token, then
    labels[:-1] (shift_tokens_right / _shift_right)."""
    src = [t for t in texts if t["side"] == "source"]
    tgt = [t for t in texts if t["side"] == "target"]
    out = [(f"text {k}", src[k]["text"], src[k]["ids"], tgt[k]["text"], tgt[k]["ids"]) for k in range(2)]
    r = random.Random(seed)
    low = 4 if c["family"] == "bart" else 3
    high = c["vocab_size"] - 2 if c["family"] == "marian" else min(c["vocab_size"], 290) - 1
    words = lambda n: [r.randint(low, high) for _ in range(n)]
    wrap = (lambda ids: [0] + ids + [2]) if c["family"] == "bart" else (lambda ids: ids + [c["eos"]])
    out.append(("random long", None, wrap(words(18 if c["family"] == "bart" else 19)), None,
                wrap(words(16 if c["family"] == "bart" else 17))))
    return out


def rounded(t, digits=7):
    if t.dim() == 0:
        return round(float(t), digits)
    return [rounded(x, digits) for x in t]


def reference_case(c, s, case, full_logits):
    """Everything the C++ forward is checked against for one (source, target) pair."""
    name, src_text, src, tgt_text, labels = case
    dec_in = [c["start"]] + labels[:-1]
    enc, enc_maps = encode(c, s, src)
    logits, selfs, crosses = decode(c, s, dec_in, 0, enc, {})
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(labels))
    top = torch.topk(logits, 5, dim=-1)
    suppressed = [c["pad"]] if c["family"] == "marian" else []
    gen, steps = greedy(c, s, enc, suppressed)
    entry = {"name": name, "source_text": src_text, "target_text": tgt_text, "source_ids": src,
             "labels": labels, "decoder_input_ids": dec_in,
             "encoder_attention": [rounded(m, 6) for m in enc_maps],
             "decoder_self_attention": [rounded(m, 6) for m in selfs],
             "cross_attention": [rounded(m, 6) for m in crosses],
             "top5_ids": top.indices.tolist(), "top5_logits": rounded(top.values, 5),
             "loss": round(float(loss), 7),
             "generation": {"ids": gen, "margins": [round(st["margin"], 6) for st in steps],
                            "suppressed_ids": suppressed,
                            "cross_attention": [rounded(torch.stack([st["cross"][l] for st in steps], 1), 6)
                                                for l in range(c["dec_layers"])]}}
    if full_logits:
        entry["logits"] = rounded(logits, 5)
    check_maps(entry)
    return entry


def check_maps(entry):
    """Every attention row sums to 1 (within 3e-5: each of up to 24 weights rounded to 6
    decimals); the decoder's self-attention is 0 above the diagonal."""
    for key in ("encoder_attention", "decoder_self_attention", "cross_attention"):
        for layer in entry[key]:
            for head in layer:
                for row in head:
                    assert abs(sum(row) - 1.0) < 3e-5, f"{entry['name']} {key}: a row sums to {sum(row)}"
    for layer in entry["decoder_self_attention"]:
        for head in layer:
            for i, row in enumerate(head):
                assert all(v == 0.0 for v in row[i + 1:]), f"{entry['name']}: a decoder row sees ahead"


def fixture_reference(name, cfg, s, texts, extra):
    c = internal(cfg)
    if c["family"] == "bart":
        check_bart_offset(c, s)
    if c["family"] == "marian":
        check_sinusoids(s, c)
    all_cases = cases(c, texts, FIXTURES.index(name))
    references = [reference_case(c, s, case, k == 0) for k, case in enumerate(all_cases)]
    for ref in references:
        if c["family"] == "t5":
            check_t5_by_loops(c, s, ref["source_ids"], ref["decoder_input_ids"],
                              [ref["encoder_attention"][0], ref["decoder_self_attention"][0]])
        else:
            check_with_torch_layers(c, s, ref["source_ids"], ref["decoder_input_ids"])
    return {"model_type": cfg["model_type"], "family": c["family"], "vocab_size": c["vocab_size"],
            "decoder_start_token_id": c["start"], "eos_token_id": c["eos"], "pad_token_id": c["pad"],
            "encoder_layers": c["enc_layers"], "decoder_layers": c["dec_layers"], "heads": c["heads"],
            "tokenizer": {**extra, "texts": texts},
            "cases": references}


def tune_eos(c, s, src):
    """BART: raise final_logits_bias[eos] so that the first text case's greedy output ends with
    eos at a step from 2 on, by a margin of at least 0.25 both ways, and a fixture exercises the
    stop. The steps before keep their tokens (eos was not their argmax). (Marian's random
    decoder repeats one token with eos far below: no bias gives it a clear step.)"""
    enc, _ = encode(c, s, src)
    cache, ids, deficits = {}, [c["start"]], []
    for step in range(MAX_NEW_TOKENS):
        row = decode(c, s, [ids[-1]], step, enc, cache)[0][0].clone()
        row[[c["pad"]] if c["family"] == "marian" else []] = -math.inf
        eos = float(row[c["eos"]])
        row[c["eos"]] = -math.inf
        deficits.append(float(row.max()) - eos)
        ids.append(int(row.argmax()))
    for k in range(2, MAX_NEW_TOKENS):
        low, high = deficits[k] + 0.25, min(deficits[:k]) - 0.25
        if low < high:
            s["final_logits_bias"][0, c["eos"]] += (low + high) / 2
            return True
    return False


def make(name):
    """Writes one fixture folder and returns its reference entry."""
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    files, vocab_size, texts, extra = tokenizer_for(name)
    if name == "bart":
        cfg = bart_config("bart", vocab_size, 1)
    elif name == "marian":
        cfg = bart_config("marian", vocab_size, vocab_size - 1)
    else:
        cfg = t5_config(name, vocab_size)
    c = internal(cfg)
    for attempt in range(20):  # BART: the first weights where eos can be made to stop case 0
        g = torch.Generator().manual_seed(3900 + 100 * attempt + FIXTURES.index(name))
        state = t5_state(c, g) if c["family"] == "t5" else bart_state(c, g)
        if name != "bart":
            break
        with torch.no_grad():
            if tune_eos(c, state, cases(c, texts, FIXTURES.index(name))[0][2]):
                break
    else:
        raise AssertionError("no BART weights where eos can stop the first case")
    stored = dict(state)
    if name == "mt5":  # the tied copies some conversions keep beside shared.weight
        stored["encoder.embed_tokens.weight"] = state["shared.weight"]
        stored["decoder.embed_tokens.weight"] = state["shared.weight"]
    write_safetensors(folder / "model.safetensors", stored)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    for file, data in files.items():
        (folder / file).write_bytes(data if isinstance(data, bytes) else (data + "\n").encode())
    with torch.no_grad():
        return fixture_reference(name, cfg, state, texts, extra)


def write_bench(folder):
    """t5-base's shapes with random F32 weights, scaled as T5's initialisation scales them (q by
    (d_model d_kv)^-1/2, k, v and o by their fan-in^-1/2) so the activations stay finite; the
    t5_relu fixture's spiece.model is enough, as the benchmark repeats one sentence's ids."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cfg = t5_config("t5_relu", 32128)
    cfg.update({"d_model": 768, "d_kv": 64, "d_ff": 3072, "num_layers": 12, "num_decoder_layers": 12,
                "num_heads": 12, "architectures": ["T5ForConditionalGeneration"]})
    c = internal(cfg)
    state = t5_state(c, torch.Generator().manual_seed(3939))
    for name, t in state.items():
        if "Attention." in name and name.endswith(("q.weight", "k.weight", "v.weight", "o.weight")):
            fan_in = t.shape[1] * (c["d_head"] if name.endswith("q.weight") else 1)
            t.mul_(fan_in ** -0.5 / 0.25)
    write_safetensors(folder / "model.safetensors", state)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    for file in ("spiece.model", "tokenizer_config.json"):
        (folder / file).write_bytes((OUT / "t5_relu" / file).read_bytes())
    print(f"wrote a t5-base shaped checkpoint to {folder}")


# ---- the self-checks ----

# (key - query, bidirectional) -> bucket with 32 buckets and max distance 128, worked by hand:
# bidirectional: 16 per sign (later keys from 16 on), exact below 8, then
# 8 + floor(log(|r| / 8) / log(128 / 8) * 8), at most 15; unidirectional: later keys 0, exact
# below 16, then 16 + floor(log(-r / 16) / log(128 / 16) * 16), at most 31.
BUCKETS = [(0, True, 0), (-3, True, 3), (3, True, 19), (-7, True, 7), (-8, True, 8),
           (-12, True, 9),    # log(1.5)/log(16)*8 = 1.17
           (20, True, 26),    # 16 + 8 + floor(log(2.5)/log(16)*8 = 2.64)
           (-64, True, 14),   # 8 + floor(log(8)/log(16)*8 = 6)
           (-200, True, 15), (127, True, 31), (128, True, 31),
           (5, False, 0), (0, False, 0), (-5, False, 5), (-15, False, 15), (-16, False, 16),
           (-20, False, 17),  # 16 + floor(log(1.25)/log(8)*16 = 1.72)
           (-64, False, 26),  # 16 + floor(log(4)/log(8)*16 = 10.67)
           (-127, False, 31), (-1000, False, 31)]


def check_buckets():
    """The hand table; then every distance in [-2000, 2000]: torch's float32 arithmetic (HF's)
    and the formula in double (hand_bucket) give the same bucket, so a C++ port may use either."""
    for rel, bidirectional, want in BUCKETS:
        got = int(t5_bucket(torch.tensor([rel]), bidirectional, 32, 128)[0])
        assert got == want, f"T5 bucket of {rel} ({'bi' if bidirectional else 'uni'}): {got}, want {want}"
    for bidirectional in (True, False):
        rel = torch.arange(-2000, 2001)
        for r, got in zip(rel.tolist(), t5_bucket(rel, bidirectional, 32, 128).tolist()):
            assert got == hand_bucket(r, bidirectional), f"T5 bucket of {r}: float32 and double differ"


def check_sinusoids(s, c):
    """Marian's table: sin in the first half, cos in the second, position 0 first (no offset);
    values worked by hand for d 32 (the inverse frequency of pair k is 10000^(-2k/32))."""
    t = c["sinusoids"]
    half = c["d"] // 2
    assert torch.equal(t[0, :half], torch.zeros(half)) and torch.equal(t[0, half:], torch.ones(half))
    hand = [(1, 0, 0.8414709848), (1, half, 0.5403023059),  # sin 1, cos 1
            (2, 1, 0.9021307), (2, half + 1, 0.4314628),  # 2 / 10000^(2/32) = 2 / 10^0.25 = 1.1246827
            (5, half - 1, 0.0008891396)]  # sin(5 / 10^3.75) ~ 5 / 5623.41
    for pos, j, want in hand:
        assert abs(float(t[pos, j]) - want) < 1e-6, f"Marian sinusoid [{pos}][{j}] = {float(t[pos, j])}"
    for stack in ("encoder", "decoder"):
        assert torch.equal(s[f"model.{stack}.embed_positions.weight"], t), "stored sinusoids differ"


def check_bart_offset(c, s):
    """BART reads row position + 2: rows 0 and 1 are never read (NaN there changes nothing),
    and moving row 2 changes position 0's output."""
    ids = [0, 10, 11, 12, 2]
    enc, _ = encode(c, s, ids)
    poisoned = dict(s)
    for stack in ("encoder", "decoder"):
        w = s[f"model.{stack}.embed_positions.weight"].clone()
        w[:2] = math.nan
        poisoned[f"model.{stack}.embed_positions.weight"] = w
    assert torch.equal(encode(c, poisoned, ids)[0], enc), "BART read position rows 0 or 1"
    assert torch.equal(decode(c, poisoned, [2, 0, 5], 0, enc, {})[0], decode(c, s, [2, 0, 5], 0, enc, {})[0])
    w = s["model.encoder.embed_positions.weight"].clone()
    w[2] += 1.0
    assert not torch.equal(encode(c, {**s, "model.encoder.embed_positions.weight": w}, ids)[0][0], enc[0])


def check_with_torch_layers(c, s, src, dec_in):
    """BART / Marian against PyTorch's own post-LN layers: nn.TransformerEncoderLayer and
    nn.TransformerDecoderLayer (norm_first False) compute self-attention (q scaled by
    d_head^-0.5, biases), add, norm, [cross-attention, add, norm,] fc1, act, fc2, add, norm, as
    BartEncoderLayer / BartDecoderLayer do. Same embeddings in, logits within 5e-5 (float32
    sums in another order)."""
    act = ACTS[c["act"]]
    kw = dict(d_model=c["d"], nhead=c["heads"], dim_feedforward=c["ff"], dropout=0.0,
              activation=act, layer_norm_eps=c["eps"], batch_first=True)
    x = embed(c, s, torch.tensor(src), torch.arange(len(src)), "encoder")[None]
    for l in range(c["enc_layers"]):
        layer = torch.nn.TransformerEncoderLayer(**kw).eval()
        load_torch_layer(layer, s, f"model.encoder.layers.{l}.", [("self_attn", "self_attn", "norm1")])
        x = layer(x)
    y = embed(c, s, torch.tensor(dec_in), torch.arange(len(dec_in)), "decoder")[None]
    causal = torch.triu(torch.full((len(dec_in), len(dec_in)), -math.inf), 1)
    for l in range(c["dec_layers"]):
        layer = torch.nn.TransformerDecoderLayer(**kw).eval()
        load_torch_layer(layer, s, f"model.decoder.layers.{l}.",
                         [("self_attn", "self_attn", "norm1"), ("multihead_attn", "encoder_attn", "norm2")])
        y = layer(y, x, tgt_mask=causal)
    mine = decode(c, s, dec_in, 0, encode(c, s, src)[0], {})[0]
    diff = float((logits_of(c, s, y[0]) - mine).abs().max())
    assert diff < 5e-5, f"{c['family']}: logits differ from PyTorch's layers by {diff}"


def load_torch_layer(layer, s, p, attentions):
    """Copies a Hugging Face layer's weights into torch's layer (q, k, v stacked in in_proj)."""
    for mine, hf, norm in attentions:
        m = getattr(layer, mine)
        m.in_proj_weight.data = torch.cat([s[f"{p}{hf}.{x}_proj.weight"] for x in "qkv"])
        m.in_proj_bias.data = torch.cat([s[f"{p}{hf}.{x}_proj.bias"] for x in "qkv"])
        m.out_proj.weight.data, m.out_proj.bias.data = s[f"{p}{hf}.out_proj.weight"], s[f"{p}{hf}.out_proj.bias"]
        getattr(layer, norm).weight.data = s[f"{p}{hf}_layer_norm.weight"]
        getattr(layer, norm).bias.data = s[f"{p}{hf}_layer_norm.bias"]
    last = "norm3" if len(attentions) == 2 else "norm2"
    getattr(layer, last).weight.data, getattr(layer, last).bias.data = s[p + "final_layer_norm.weight"], s[p + "final_layer_norm.bias"]
    layer.linear1.weight.data, layer.linear1.bias.data = s[p + "fc1.weight"], s[p + "fc1.bias"]
    layer.linear2.weight.data, layer.linear2.bias.data = s[p + "fc2.weight"], s[p + "fc2.bias"]


def hand_bucket(rel, bidirectional, num_buckets=32, max_distance=128):
    """The bucket formula again, for one integer, in plain Python floats."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        offset = num_buckets if rel > 0 else 0
        rel = abs(rel)
    else:
        rel = max(-rel, 0)
    exact = num_buckets // 2
    if rel < exact:
        return offset + rel
    return offset + min(exact + int(math.log(rel / exact) / math.log(max_distance / exact) * (num_buckets - exact)),
                        num_buckets - 1)


def check_t5_by_loops(c, s, src, dec_in, maps):
    """T5's layer-0 maps element by element: score(h, i, j) = q_i . k_j (no scaling) +
    table[bucket(j - i)][h], decoder keys after i dropped; against the reference's maps."""
    for stack, ids, bidirectional, got in (("encoder", src, True, maps[0]), ("decoder", dec_in, False, maps[1])):
        p = f"{stack}.block.0.layer.0."
        x = rms(s["shared.weight"][torch.tensor(ids)], s[p + "layer_norm.weight"], c["eps"]).double()
        q, k = (x @ s[p + f"SelfAttention.{m}.weight"].double().T for m in "qk")
        table = s[p + "SelfAttention.relative_attention_bias.weight"].double()
        dk = c["d_head"]
        for h in range(c["heads"]):
            for i in range(len(ids)):
                keys = range(len(ids)) if bidirectional else range(i + 1)
                scores = [float(q[i, h * dk:(h + 1) * dk] @ k[j, h * dk:(h + 1) * dk]) +
                          float(table[hand_bucket(j - i, bidirectional), h]) for j in keys]
                top = max(scores)
                z = sum(math.exp(v - top) for v in scores)
                for j, v in zip(keys, scores):
                    assert abs(math.exp(v - top) / z - float(got[h][i][j])) < 1e-5, f"T5 {stack} map [{h}][{i}][{j}]"


def read_safetensors(path):
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", f"{path}: {name} is {t['dtype']}"
        a, b = t["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(raw[8 + n + a:8 + n + b], dtype="<f4").copy()).view(t["shape"])
    return out


def compare(got, want, where, tol):
    """Recursive: equal structure, ints and strings equal, floats within tol."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), f"{where}: keys {sorted(got)} vs {sorted(want)}"
        for k in want:
            compare(got[k], want[k], f"{where}.{k}", tol)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: lengths differ"
        for k, (a, b) in enumerate(zip(got, want)):
            compare(a, b, f"{where}[{k}]", tol)
    elif isinstance(want, float):
        assert abs(got - want) <= tol, f"{where}: {got} vs {want}"
    else:
        assert got == want, f"{where}: {got} vs {want}"


def check_committed():
    """The committed fixtures: their reference recomputed from the files equals reference.json
    (1e-5), the tokenizer ids re-made by sentencepiece when it is installed."""
    check_buckets()
    reference = json.loads((OUT / "reference.json").read_text())
    for name in FIXTURES:
        folder = OUT / name
        cfg = json.loads((folder / "config.json").read_text())
        state = read_safetensors(folder / "model.safetensors")
        want = reference["fixtures"][name]
        with torch.no_grad():
            got = fixture_reference(name, cfg, state, want["tokenizer"]["texts"],
                                    {k: v for k, v in want["tokenizer"].items() if k != "texts"})
        compare(got, want, name, 1e-5)
        check_tokenizer(name, folder, want["tokenizer"]["texts"])
    print(f"checked {len(FIXTURES)} fixtures in {OUT}")


def check_tokenizer(name, folder, texts):
    """The recorded ids made again from the committed files (sentencepiece's when installed)."""
    if name == "bart":
        vocab = json.loads((folder / "vocab.json").read_text())
        lines = (folder / "merges.txt").read_text().splitlines()[1:]
        merges = [tuple(line.split(" ")) for line in lines]
        for t in texts:
            assert [0] + bpe_encode(t["text"], vocab, merges) + [2] == t["ids"], f"bart: {t['text']}"
        return
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        print(f"{name}: sentencepiece not installed, its ids not re-checked")
        return
    if name == "marian":
        vocab = json.loads((folder / "vocab.json").read_text())
        for t in texts:
            assert [vocab.get(p, 1) for p in t["pieces"]] + [0] == t["ids"], f"marian vocab: {t['text']}"
    for t in texts:
        file = "spiece.model" if name != "marian" else ("source.spm" if t["side"] == "source" else "target.spm")
        pieces, ids = spm_pieces((folder / file).read_bytes(), t["text"])
        assert pieces == t["pieces"] and ids == t["spm_ids"], f"{name}: {t['text']}: {pieces}"
        if name != "marian":
            config = json.loads((folder / "tokenizer_config.json").read_text())
            ids = t5_ids((folder / file).read_bytes(), t["text"], config["extra_ids"],
                         (folder / "tokenizer.json").exists())
            assert ids == t["ids"], f"{name}: {t['text']}: {ids}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check the committed fixtures")
    parser.add_argument("--bench", metavar="DIR",
                        help="write only a t5-base shaped benchmark checkpoint into DIR")
    args = parser.parse_args()
    if args.bench:
        return write_bench(args.bench)
    torch.set_num_threads(1)
    if args.check:
        check_committed()
        return
    check_buckets()
    reference = {"note": "random fixture weights, not real models; see docs/seq2seq-fixtures.md",
                 "max_new_tokens": MAX_NEW_TOKENS, "fixtures": {}}
    for name in FIXTURES:
        reference["fixtures"][name] = make(name)
    (OUT / "reference.json").write_text(json.dumps(reference, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {len(FIXTURES)} fixtures to {OUT}")


if __name__ == "__main__":
    main()
