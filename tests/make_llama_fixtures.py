#!/usr/bin/python3
"""Small random checkpoints of the modern decoders in the Hugging Face layout, and PyTorch's
forward on them.

Writes tests/fixtures/llama/<variant>/ (config.json, tokenizer.json, tokenizer_config.json, the
safetensors file or shards with model.safetensors.index.json) and tests/fixtures/llama/
reference.json: per variant and case, every layer's attention [L][H][N][N] and the logits
[N][V], computed in float32 by the forward written here as Hugging Face's modeling_llama.py,
modeling_mistral.py, modeling_qwen2.py, modeling_qwen3.py, modeling_gemma.py,
modeling_gemma2.py, modeling_gemma3.py, modeling_phi3.py and modeling_olmo2.py compute it, and
the inverse frequencies as modeling_rope_utils.py makes them (default, linear, dynamic, llama3,
yarn, longrope). transformers is not a Debian package, so the forward is written here in torch,
operation for operation, on the weights as stored (BF16 and F16 files: their values in float32).

These are fixtures, not the real models: random weights, a toy vocabulary of a few hundred
tokens. Run with Debian's python3 (python3-torch 1.13); the output is deterministic:

    /usr/bin/python3 tests/make_llama_fixtures.py

With --bench DIR it writes only a random BF16 checkpoint of Llama 3.2 1B's shapes (2.5 GB,
outside the repository) for the forward's benchmark (tests/bench_llama_torch.py).
"""
import argparse
import json
import math
import pathlib

import torch

from make_gpt2_fixtures import bytes_to_unicode, write_safetensors, write_shards

OUT = pathlib.Path(__file__).resolve().parent / "fixtures" / "llama"
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"
                r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "The", "ing", "when", "Mary", "John"]


# ---- tokenizers: a byte-level BPE (Llama 3, Qwen) and a SentencePiece-style BPE with byte
# fallback (Llama 2, Mistral, Gemma, Phi-3), as tokenizer.json files ----

def merges_for(words, vocab, prefix):
    merges = []
    for word in words:
        pieces = list(prefix + word)
        while len(pieces) > 1:
            merged = pieces[0] + pieces[1]
            if merged not in vocab:
                merges.append([pieces[0], pieces[1]])
                vocab[merged] = len(vocab)
            pieces = [merged] + pieces[2:]
    return merges


def special(token_id, content):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def template(bos):
    if bos is None:
        return None
    return {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos[0], "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos[0], "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": bos[0], "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {bos[0]: {"id": bos[0], "ids": [bos[1]], "tokens": [bos[0]]}}}


def byte_level_tokenizer(bos_text, eos_text, nfc):
    """Llama 3's layout (Qwen's with nfc and no BOS): Split by the regex, ByteLevel, BPE."""
    table = bytes_to_unicode()
    vocab = {table[b]: b for b in range(256)}
    merges = merges_for(WORDS, vocab, "") + merges_for(WORDS, vocab, "Ġ")
    specials = [bos_text, eos_text]
    added = []
    for text in specials:
        vocab[text] = len(vocab)
        added.append(special(vocab[text], text))
    bos = (bos_text, vocab[bos_text]) if bos_text and nfc is False else None
    tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": {"type": "NFC"} if nfc else None,
           "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
               {"type": "Split", "pattern": {"Regex": LLAMA3_SPLIT}, "behavior": "Isolated",
                "invert": False},
               {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                "use_regex": False}]},
           "post_processor": template(bos),
           "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                       "use_regex": True},
           "model": {"type": "BPE", "dropout": None, "unk_token": None,
                     "continuing_subword_prefix": None, "end_of_word_suffix": None,
                     "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                     "vocab": vocab, "merges": merges}}
    return tok, vocab


def sentencepiece_tokenizer(bos_text, eos_text):
    """Llama 2's layout: "▁" prepended and for spaces, BPE with byte fallback, <s> first."""
    vocab = {"<unk>": 0, bos_text: 1, eos_text: 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for ch in "▁abcdefghijklmnopqrstuvwxyzTMJ":
        vocab.setdefault(ch, len(vocab))
    merges = merges_for(WORDS, vocab, "▁")
    added = [special(0, "<unk>"), special(1, bos_text), special(2, eos_text)]
    tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": {"type": "Sequence", "normalizers": [
               {"type": "Prepend", "prepend": "▁"},
               {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
           "pre_tokenizer": None,
           "post_processor": template((bos_text, 1)),
           "decoder": {"type": "Sequence", "decoders": [
               {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
               {"type": "ByteFallback"}, {"type": "Fuse"},
               {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
           "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                     "continuing_subword_prefix": None, "end_of_word_suffix": None,
                     "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                     "vocab": vocab, "merges": merges}}
    return tok, vocab


def tokenizer_for(kind):
    if kind == "llama3":
        return byte_level_tokenizer("<|begin_of_text|>", "<|end_of_text|>", False)
    if kind == "qwen":
        return byte_level_tokenizer("<|endoftext|>", "<|im_end|>", True)
    if kind == "gemma":
        return sentencepiece_tokenizer("<bos>", "<eos>")
    return sentencepiece_tokenizer("<s>", "</s>")


# ---- rotary positions, as modeling_rope_utils.py ----

def rope_inv_freq(r, dim, max_pos, seq_len):
    """(inverse frequencies float32 [dim/2], attention factor) of a rope dict."""
    base, kind = r["theta"], r.get("type", "default")
    arange = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    if kind == "dynamic" and seq_len > max_pos:
        base = base * ((r["factor"] * seq_len / max_pos) - (r["factor"] - 1)) ** (dim / (dim - 2))
    inv = 1.0 / (base ** arange)
    if kind == "linear":
        return inv / r["factor"], 1.0
    if kind == "llama3":
        factor, low, high, old = r["factor"], r["low"], r["high"], r["original"]
        low_wave, high_wave = old / low, old / high
        wave = 2 * math.pi / inv
        scaled = torch.where(wave > low_wave, inv / factor, inv)
        smooth = (old / wave - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wave < high_wave) * ~(wave > low_wave)
        return torch.where(medium, smoothed, scaled), 1.0
    if kind == "yarn":
        return yarn(r, dim, max_pos)
    if kind == "longrope":
        original = r["original"]
        factor = r.get("factor") or max_pos / original
        attention = math.sqrt(1 + math.log(factor) / math.log(original)) if factor > 1 else 1.0
        ext = torch.tensor(r["long"] if seq_len > original else r["short"], dtype=torch.float32)
        return 1.0 / (ext * base ** arange), attention
    return inv, 1.0


def yarn(r, dim, max_pos):
    base, factor = r["theta"], r["factor"]
    original = r.get("original") or max_pos

    def mscale(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    attention = mscale(factor)

    def correction(rot):
        return dim * math.log(original / (rot * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(correction(r.get("beta_fast", 32))), 0)
    high = min(math.ceil(correction(r.get("beta_slow", 1))), dim - 1)
    if low == high:
        high += 0.001
    pos = base ** (torch.arange(0, dim, 2).float() / dim)
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    keep = 1 - ramp
    return (1.0 / (factor * pos)) * (1 - keep) + (1.0 / pos) * keep, attention


def cos_sin(r, dim, max_pos, n):
    inv, attention = rope_inv_freq(r, dim, max_pos, n)
    freqs = torch.arange(n).float()[:, None] @ inv[None, :].float()  # n x dim/2, float32
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * attention, emb.sin() * attention


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, cos, sin):  # x: heads x n x hd; cos, sin: n x rotary dims
    dims = cos.shape[-1]
    turned, kept = x[..., :dims], x[..., dims:]
    return torch.cat((turned * cos + rotate_half(turned) * sin, kept), dim=-1)


# ---- the forward ----

def rms(x, w, eps, one_plus):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return y * (1.0 + w) if one_plus else y * w


ACT = {"silu": torch.nn.functional.silu,
       "gelu_pytorch_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}


def attention(c, s, p, h, n, layer, ablated):
    H, G, hd = c["heads"], c["kv"], c["head_dim"]
    lin = lambda x, name: x @ s[p + name + ".weight"].T + s.get(p + name + ".bias", 0)
    if c.get("fused"):
        qkv = lin(h, "self_attn.qkv_proj")
        q, k, v = qkv[:, :H * hd], qkv[:, H * hd:(H + G) * hd], qkv[:, (H + G) * hd:]
    else:
        q, k, v = lin(h, "self_attn.q_proj"), lin(h, "self_attn.k_proj"), lin(h, "self_attn.v_proj")
    if c.get("qk_norm") == "whole":
        q = rms(q, s[p + "self_attn.q_norm.weight"], c["eps"], False)
        k = rms(k, s[p + "self_attn.k_norm.weight"], c["eps"], False)
    q, k, v = (t.view(n, -1, hd).transpose(0, 1) for t in (q, k, v))  # heads x n x hd
    if c.get("qk_norm") == "head":
        q = rms(q, s[p + "self_attn.q_norm.weight"], c["eps"], c.get("gemma", False))
        k = rms(k, s[p + "self_attn.k_norm.weight"], c["eps"], c.get("gemma", False))
    local = c.get("local_layers") and c["local_layers"][layer]
    rope = c["local_rope"] if local else c["rope"]
    cos, sin = cos_sin(rope, int(hd * c.get("partial", 1.0)), c["positions"], n)
    q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
    k, v = k.repeat_interleave(H // G, dim=0), v.repeat_interleave(H // G, dim=0)  # repeat_kv
    scores = (q @ k.transpose(1, 2)) * c.get("scale", hd ** -0.5)
    if c.get("attn_cap"):
        scores = torch.tanh(scores / c["attn_cap"]) * c["attn_cap"]
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    masked = j > i
    window = c["windows"][layer]
    if window:
        masked = masked | (j <= i - window)
    scores = scores.masked_fill(masked, torch.finfo(torch.float32).min)
    weights = torch.softmax(scores, dim=-1, dtype=torch.float32)
    out = (weights @ v).transpose(0, 1).clone()  # n x H x hd
    for head in ablated:
        out[:, head] = 0
    return weights, lin(out.reshape(n, H * hd), "self_attn.o_proj")


def mlp(c, s, p, x):
    lin = lambda x, name: x @ s[p + name + ".weight"].T + s.get(p + name + ".bias", 0)
    if c.get("fused"):
        gate_up = lin(x, "mlp.gate_up_proj")
        gate, up = gate_up.chunk(2, dim=-1)
    else:
        gate, up = lin(x, "mlp.gate_proj"), lin(x, "mlp.up_proj")
    return lin(ACT[c["act"]](gate) * up, "mlp.down_proj")


def forward(c, s, ids, ablated=None):
    pre, eps, gemma = c["prefix"], c["eps"], c.get("gemma", False)
    norm = lambda x, name: rms(x, s[name], eps, gemma)
    x = s[pre + "embed_tokens.weight"][ids]
    if gemma:
        x = x * torch.tensor(c["d"] ** 0.5, dtype=torch.float32)
    maps, n = [], len(ids)
    for layer in range(c["layers"]):
        p = f"{pre}layers.{layer}."
        after, sandwich = c.get("norm_after", False), c.get("sandwich", False)
        h = x if after else norm(x, p + "input_layernorm.weight")
        weights, a = attention(c, s, p, h, n, layer, (ablated or {}).get(layer, []))
        maps.append(weights)
        x = x + (norm(a, p + "post_attention_layernorm.weight") if after or sandwich else a)
        if after:
            h = x
        else:
            h = norm(x, p + ("pre_feedforward_layernorm.weight" if sandwich
                             else "post_attention_layernorm.weight"))
        m = mlp(c, s, p, h)
        x = x + (norm(m, p + "post_feedforward_layernorm.weight") if after or sandwich else m)
    x = norm(x, pre + "norm.weight")
    logits = x @ s[c.get("head", pre + "embed_tokens.weight")].T
    if c.get("final_cap"):
        logits = torch.tanh(logits / c["final_cap"]) * c["final_cap"]
    return maps, logits


# ---- the variants: config.json, the reference's reading of it, weights, files ----

L, D, POSITIONS = 2, 32, 64


def variant(name, model_type, tokenizer, dtype=torch.float32, shards=1, heads=4, kv=2,
            head_dim=None, inner=64, tied=True, extra=None, spec=None):
    hd = head_dim or D // heads
    config = {"model_type": model_type, "num_hidden_layers": L, "num_attention_heads": heads,
              "num_key_value_heads": kv, "hidden_size": D, "intermediate_size": inner,
              "max_position_embeddings": POSITIONS, "rms_norm_eps": 1e-6,
              "hidden_act": "silu", "tie_word_embeddings": tied, "rope_theta": 10000.0}
    if head_dim or model_type.startswith(("gemma", "qwen3")):  # their classes' default is not d / H
        config["head_dim"] = hd
    config.update(extra or {})
    c = {"layers": L, "heads": heads, "kv": kv, "head_dim": hd, "d": D, "inner": inner,
         "eps": 1e-6, "act": "silu", "positions": POSITIONS, "prefix": "model.",
         "rope": {"theta": config["rope_theta"]}, "windows": [0] * L, "tied": tied}
    c.update(spec or {})
    return {"name": name, "config": config, "c": c, "dtype": dtype, "shards": shards,
            "tokenizer": tokenizer}


def variants():
    llama3_rope = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                   "high_freq_factor": 4.0, "original_max_position_embeddings": 16}
    gemma = {"gemma": True, "act": "gelu_pytorch_tanh"}
    return [
        variant("llama3_gqa_f32", "llama", "llama3",
                extra={"rope_theta": 500000.0, "rope_scaling": llama3_rope},
                spec={"rope": {"theta": 500000.0, "type": "llama3", "factor": 8.0, "low": 1.0,
                               "high": 4.0, "original": 16}}),
        variant("llama2_mha_bf16_shards", "llama", "llama2", torch.bfloat16, 3, kv=4, tied=False,
                extra={"attention_bias": True, "mlp_bias": True}, spec={"bias": True}),
        variant("mistral_mqa_f16", "mistral", "llama2", torch.float16, kv=1, head_dim=16,
                tied=False, extra={"sliding_window": 4}, spec={"windows": [4, 4]}),
        variant("qwen2_yarn_unprefixed", "qwen2", "qwen",
                extra={"use_sliding_window": True, "max_window_layers": 1, "sliding_window": 3,
                       "rope_scaling": {"type": "yarn", "factor": 4.0,
                                        "original_max_position_embeddings": 16}},
                spec={"prefix": "", "qkv_bias": True, "windows": [0, 3],
                      "rope": {"theta": 10000.0, "type": "yarn", "factor": 4.0, "original": 16}}),
        variant("qwen3_bf16", "qwen3", "qwen", torch.bfloat16, head_dim=16, tied=False,
                extra={"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}},
                spec={"qk_norm": "head", "rope": {"theta": 10000.0, "type": "dynamic",
                                                  "factor": 2.0}}),
        variant("gemma_mqa", "gemma", "gemma", kv=1, head_dim=16,
                extra={"hidden_act": "gelu", "hidden_activation": "gelu_pytorch_tanh"},
                spec=gemma),
        variant("gemma2_bf16", "gemma2", "gemma", torch.bfloat16,
                extra={"hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 24,
                       "attn_logit_softcapping": 3.0, "final_logit_softcapping": 5.0,
                       "sliding_window": 3},
                spec={**gemma, "sandwich": True, "scale": 24 ** -0.5, "attn_cap": 3.0,
                      "final_cap": 5.0, "windows": [3, 0]}),
        gemma3("gemma3_text", False),
        gemma3("gemma3_multimodal", True),
        variant("phi3_longrope", "phi3", "llama2", tied=False,
                extra={"partial_rotary_factor": 0.5, "sliding_window": 5,
                       "original_max_position_embeddings": 8,
                       "rope_scaling": {"type": "longrope", "short_factor": [1.0, 1.5],
                                        "long_factor": [2.0, 3.5]}},
                spec={"fused": True, "partial": 0.5, "windows": [5, 5],
                      "rope": {"theta": 10000.0, "type": "longrope", "original": 8,
                               "short": [1.0, 1.5], "long": [2.0, 3.5]}}),
        variant("olmo2", "olmo2", "llama3", tied=False, extra={"rope_theta": 500000.0},
                spec={"norm_after": True, "qk_norm": "whole", "rope": {"theta": 500000.0}}),
    ]


def gemma3(name, multimodal):
    text = {"hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 16,
            "sliding_window": 3, "sliding_window_pattern": 2, "rope_theta": 1000000.0,
            "rope_local_base_freq": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    v = variant(name, "gemma3_text", "gemma", head_dim=16, extra=text,
                spec={"gemma": True, "act": "gelu_pytorch_tanh", "qk_norm": "head",
                      "scale": 16 ** -0.5, "sandwich": True, "windows": [3, 0],
                      "local_layers": [True, False], "local_rope": {"theta": 10000.0},
                      "rope": {"theta": 1000000.0, "type": "linear", "factor": 8.0}})
    if multimodal:
        v["config"] = {"model_type": "gemma3", "text_config": v["config"],
                       "vision_config": {"model_type": "siglip_vision_model"}}
        v["c"]["prefix"] = "language_model.model."
    return v


def random_state(c, vocab_size, g):
    normal = lambda *shape, std=0.3: torch.randn(*shape, generator=g) * std
    norm_w = lambda n: normal(n, std=0.2) + (0.0 if c.get("gemma") else 1.0)
    d, H, G, hd, inner, pre = c["d"], c["heads"], c["kv"], c["head_dim"], c["inner"], c["prefix"]
    s = {pre + "embed_tokens.weight": normal(vocab_size, d, std=0.5), pre + "norm.weight": norm_w(d)}
    for layer in range(c["layers"]):
        p = f"{pre}layers.{layer}."
        norms = ["post_attention_layernorm"]
        norms += [] if c.get("norm_after") else ["input_layernorm"]
        norms += ["pre_feedforward_layernorm", "post_feedforward_layernorm"] if c.get("sandwich") else []
        norms += ["post_feedforward_layernorm"] if c.get("norm_after") else []
        for n in norms:
            s[p + n + ".weight"] = norm_w(d)
        a, m = p + "self_attn.", p + "mlp."
        if c.get("fused"):
            s[a + "qkv_proj.weight"] = normal((H + 2 * G) * hd, d)
            s[m + "gate_up_proj.weight"] = normal(2 * inner, d)
        else:
            for proj, rows in (("q_proj", H * hd), ("k_proj", G * hd), ("v_proj", G * hd)):
                s[a + proj + ".weight"] = normal(rows, d)
                if c.get("bias") or c.get("qkv_bias"):
                    s[a + proj + ".bias"] = normal(rows)
            s[m + "gate_proj.weight"], s[m + "up_proj.weight"] = normal(inner, d), normal(inner, d)
        s[a + "o_proj.weight"], s[m + "down_proj.weight"] = normal(d, H * hd), normal(d, inner)
        if c.get("bias"):
            s[a + "o_proj.bias"] = normal(d)
            for proj, rows in (("gate_proj", inner), ("up_proj", inner), ("down_proj", d)):
                s[m + proj + ".bias"] = normal(rows)
        if c.get("qk_norm"):
            whole = c["qk_norm"] == "whole"
            s[a + "q_norm.weight"] = norm_w(H * hd if whole else hd)
            s[a + "k_norm.weight"] = norm_w(G * hd if whole else hd)
    if not c["tied"]:
        head = "language_model.lm_head.weight" if pre.startswith("language_model") else "lm_head.weight"
        s[head] = normal(vocab_size, d, std=0.5)
        c["head"] = head
    return s


def write_weights(folder, state, dtype, shards, extra=None):
    named = {n: t.to(dtype) for n, t in state.items()}
    named.update(extra or {})
    write_shards(folder, named, shards)


def cases(vocab, tokenizer):
    """Ids straight into the model: a short sentence, then a longer one past every window and
    past LongRoPE's original context (its long factors), each starting as the model's text does."""
    start = [vocab[t] for t in ("<|begin_of_text|>", "<s>", "<bos>") if t in vocab][:1]
    pieces = [k for k in vocab if len(k) > 2 and not k.startswith("<")][:12]
    words = [vocab[p] for p in pieces]
    return [start + words[:6], start + (words * 2)[:20]]


ABLATED = {0: [1], 1: [0, 3]}
TEXT = "the cat sat on the mat"


def text_ids(vocab, tokenizer):
    """TEXT's ids as the fixture's tokenizer.json gives them: every word is one merged token
    ("the", then "Ġcat" ... for the byte-level files; "▁the", "▁cat" ... for the SentencePiece
    ones), after the start token the post-processor adds (none for Qwen)."""
    words = TEXT.split(" ")
    if tokenizer in ("llama2", "gemma"):
        pieces = ["▁" + w for w in words]
    else:
        pieces = [words[0]] + ["Ġ" + w for w in words[1:]]
    start = {"llama3": "<|begin_of_text|>", "llama2": "<s>", "gemma": "<bos>"}.get(tokenizer)
    return ([vocab[start]] if start else []) + [vocab[p] for p in pieces]


def rounded(values, digits=7):
    return [[round(float(v), digits) for v in row] for row in values]


def make(v, index, reference):
    folder = OUT / v["name"]
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.safetensors*"):
        old.unlink()
    tok, vocab = tokenizer_for(v["tokenizer"])
    config, c = v["config"], v["c"]
    text = config.get("text_config", config)
    text["vocab_size"] = len(vocab)
    text["bos_token_id"] = next((vocab[t] for t in ("<|begin_of_text|>", "<s>", "<bos>") if t in vocab),
                                None)
    g = torch.Generator().manual_seed(100 + index)
    state = random_state(c, len(vocab), g)
    extra = {"vision_tower.patch_embedding.weight": torch.zeros(2, 2)} if "text_config" in config else None
    write_weights(folder, state, v["dtype"], v["shards"], extra)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
    sentencepiece = v["tokenizer"] in ("llama2", "gemma")
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"add_bos_token": sentencepiece, "add_eos_token": False} if sentencepiece else {}))
    s = {n: t.to(v["dtype"]).float() for n, t in state.items()}  # the stored values
    results = []
    for case, ids in enumerate(cases(vocab, v["tokenizer"]) + [text_ids(vocab, v["tokenizer"])]):
        entry = {"ids": ids}
        for key, ablated in (("", None), ("ablated_", ABLATED)):
            if ablated and case:
                continue
            with torch.no_grad():
                maps, logits = forward(c, s, torch.tensor(ids), ablated)
            entry[key + "attention"] = [[rounded(m) for m in layer] for layer in maps]
            entry[key + "logits"] = rounded(logits)
        results.append(entry)
    reference["variants"][v["name"]] = {"cases": results[:-1], "text": {"text": TEXT, **results[-1]},
                                        "dtype": str(v["dtype"]).split(".")[1],
                                        "vocab_size": len(vocab)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", metavar="DIR", help="write only a Llama 3.2 1B shaped checkpoint")
    parser.add_argument("--bench-8b", metavar="DIR",
                        help="write only a Llama 3.1 8B shaped checkpoint (16 GB)")
    args = parser.parse_args()
    if args.bench:
        write_bench(pathlib.Path(args.bench), LLAMA_1B)
        return
    if args.bench_8b:
        write_bench(pathlib.Path(args.bench_8b), LLAMA_8B)
        return
    reference = {"note": "random fixture weights, not real models", "ablated": ABLATED,
                 "variants": {}}
    for index, v in enumerate(variants()):
        make(v, index, reference)
    (OUT / "reference.json").write_text(json.dumps(reference, separators=(",", ":")))
    print(f"wrote {len(reference['variants'])} variants to {OUT}")


# name, layers, d, MLP, heads, K/V heads, head_dim, tied, rope factor
LLAMA_1B = ("Llama 3.2 1B", 16, 2048, 8192, 32, 8, 64, True, 32.0)
LLAMA_8B = ("Llama 3.1 8B", 32, 4096, 14336, 32, 8, 128, False, 8.0)


def write_bench(folder, shape):
    """A random BF16 checkpoint of a real Llama's shapes (vocab 128256, llama3 rope) for the
    forward's benchmark (tests/bench_llama_torch.py). Written four layers to a shard, so memory
    stays at a shard's tensors."""
    name, layers, d, inner, H, G, hd, tied, factor = shape
    folder.mkdir(parents=True, exist_ok=True)
    tok, vocab = tokenizer_for("llama3")
    V = 128256
    config = {"model_type": "llama", "num_hidden_layers": layers, "num_attention_heads": H,
              "num_key_value_heads": G, "hidden_size": d, "intermediate_size": inner,
              "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "hidden_act": "silu",
              "tie_word_embeddings": tied, "rope_theta": 500000.0, "vocab_size": V,
              "head_dim": hd, "bos_token_id": 128000, "torch_dtype": "bfloat16",
              "rope_scaling": {"rope_type": "llama3", "factor": factor, "low_freq_factor": 1.0,
                               "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
    g = torch.Generator().manual_seed(5)
    normal = lambda *shape, std=0.02: (torch.randn(*shape, generator=g) * std).to(torch.bfloat16)
    ones = lambda: torch.ones(d, dtype=torch.bfloat16)
    shards, weight_map = layers // 4 + 1, {}
    for k in range(shards):
        part = {}
        if k == 0:
            part["model.embed_tokens.weight"] = normal(V, d)
            part["model.norm.weight"] = ones()
            if not tied:
                part["lm_head.weight"] = normal(V, d)
        for layer in range(max(0, (k - 1) * 4), k * 4):
            p = f"model.layers.{layer}."
            part[p + "input_layernorm.weight"] = ones()
            part[p + "post_attention_layernorm.weight"] = ones()
            for proj, size in (("q_proj", (H * hd, d)), ("k_proj", (G * hd, d)),
                               ("v_proj", (G * hd, d)), ("o_proj", (d, H * hd))):
                part[p + "self_attn." + proj + ".weight"] = normal(*size)
            for proj, size in (("gate_proj", (inner, d)), ("up_proj", (inner, d)),
                               ("down_proj", (d, inner))):
                part[p + "mlp." + proj + ".weight"] = normal(*size)
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(folder / file, part)
        weight_map.update({n: file for n in part})
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": weight_map}, indent=2))
    print(f"wrote a {name} shaped checkpoint (random BF16 weights) to {folder}")


if __name__ == "__main__":
    main()
