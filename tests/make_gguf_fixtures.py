#!/usr/bin/python3
"""GGUF files of the Llama family's fixtures, made as llama.cpp's convert_hf_to_gguf.py makes
them, and PyTorch's forward on what they hold.

Reads tests/fixtures/llama/<variant>/ (make_llama_fixtures.py: config.json, the safetensors,
tokenizer.json) and writes tests/fixtures/gguf/<name>.gguf (a split model as its parts
<name>-0000K-of-0000N.gguf) with tests/gguf_writer.py, then tests/fixtures/gguf/reference.json:
per file, every layer's attention [L][H][N][N] and the logits [N][V] of make_llama_fixtures.py's
forward on the values the file holds (dequantized, the q/k rows un-permuted, Gemma's norms
minus the 1 the converter added), with the switches llama.cpp reads from the file, where the
file cannot say what config.json said (no window for Qwen 2; Gemma 2's query scale from the
model's size; Gemma 3's window on five layers of six). Where the file says all config.json
said and holds the same values, the reference equals the folder's own (make_llama_fixtures.py's
reference.json): the script checks that it does.

What the converter does, variant by variant (its conversion modules, read, not run):
  - llama (LlamaModel): q_proj and k_proj rows (weights and biases) permuted per head into
    adjacent rotary pairs; Llama 3's rope scaling as the rope_freqs tensor (1 / the factor each
    pair's frequency is divided by; the original context from rope_scaling, which the converter
    reads from the top level and defaults to 8192); the vocabulary size and
    rope.dimension_count written;
  - gemma, gemma2, gemma3: every *norm.weight + 1, in the checkpoint's dtype; lm_head not
    written; Gemma and Gemma 2 write no rope.freq_base (llama.cpp's 10000), nor
    query_pre_attn_scalar; Gemma 2 its soft caps and window; Gemma 3 the window, the global
    rope_theta and its rope scaling;
  - phi3: qkv_proj and gate_up_proj kept fused (attn_qkv, ffn_up), rope.dimension_count from
    partial_rotary_factor, the window, LongRoPE's factors as rope_factors_long / _short with
    rope.scaling.attn_factor and original_context_length;
  - qwen2, qwen3, olmo2: the tensors as they are, rope scaling (yarn) as rope.scaling.*;
    dynamic NTK is not written (equal to the default below max_position_embeddings).
1-D tensors (norms, biases, rope factors) are F32; matrices keep the checkpoint's dtype (F32,
F16, BF16), or are quantized when ggml_quants.py (beside this script) is importable
(quantize(type, array)).

Run with Debian's python3 (torch, numpy); deterministic:

    /usr/bin/python3 tests/make_gguf_fixtures.py
"""
import json
import math
import pathlib
import struct
import sys

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_llama_fixtures as llama  # noqa: E402
from gguf_writer import FILE_TYPES, GgufWriter  # noqa: E402

try:
    import ggml_quants  # noqa: E402  (beside this script: quantize / dequantize)
except ImportError:
    ggml_quants = None

SOURCE = HERE / "fixtures" / "llama"
OUT = HERE / "fixtures" / "gguf"
ARCH = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3",
        "gemma": "gemma", "gemma2": "gemma2", "gemma3_text": "gemma3", "phi3": "phi3",
        "olmo2": "olmo2"}
DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


# ---- the Hugging Face folder ----

def read_safetensors(path):
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    data = raw[8 + size:]
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=DTYPES[entry["dtype"]])
        out[name] = t.reshape(entry["shape"])
    return out


def read_folder(variant):
    folder = SOURCE / variant
    state = {}
    for path in sorted(folder.glob("*.safetensors")):
        state.update(read_safetensors(path))
    config = json.loads((folder / "config.json").read_text())
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    tok_config = json.loads((folder / "tokenizer_config.json").read_text())
    return config.get("text_config", config), state, tokenizer, tok_config


# ---- metadata ----

def vocab_metadata(w, tokenizer, tok_config, config):
    """tokenizer.ggml.*: "gpt2" (byte-level BPE with merges) or "llama" (SentencePiece-style
    pieces with scores and byte tokens), as the converter writes them from tokenizer.json."""
    model = tokenizer["model"]
    by_id = {i: t for t, i in model["vocab"].items()}
    for added in tokenizer["added_tokens"]:
        by_id[added["id"]] = added["content"]
    tokens = [by_id.get(i, f"[PAD{i}]") for i in range(config["vocab_size"])]
    special = {a["id"] for a in tokenizer["added_tokens"] if a["special"]}
    spm = model.get("byte_fallback", False)
    types = [3 if i in special else 6 if spm and t.startswith("<0x") and len(t) == 6 else 1
             for i, t in enumerate(tokens)]
    w.add("tokenizer.ggml.model", "string", "llama" if spm else "gpt2")
    w.add("tokenizer.ggml.pre", "string", "default" if spm else
          "qwen2" if (tokenizer.get("normalizer") or {}).get("type") == "NFC" else "llama-bpe")
    w.add("tokenizer.ggml.tokens", ("array", "string"), tokens)
    if spm:  # the pieces' scores: a merged piece's rank, earlier merges higher
        w.add("tokenizer.ggml.scores", ("array", "f32"), [-float(i) for i in range(len(tokens))])
    w.add("tokenizer.ggml.token_type", ("array", "i32"), types)
    if not spm:
        w.add("tokenizer.ggml.merges", ("array", "string"),
              [" ".join(m) if isinstance(m, list) else m for m in model["merges"]])
    if config.get("bos_token_id") is not None:
        w.add("tokenizer.ggml.bos_token_id", "u32", config["bos_token_id"])
    if "add_bos_token" in tok_config:
        w.add("tokenizer.ggml.add_bos_token", "bool", tok_config["add_bos_token"])
        w.add("tokenizer.ggml.add_eos_token", "bool", tok_config["add_eos_token"])


def rope_metadata(w, arch, config):
    scaling = config.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type"))
    if arch not in ("gemma", "gemma2"):
        w.add(f"{arch}.rope.freq_base", "f32", config.get("rope_theta", 10000.0))
    if kind == "linear":
        w.add(f"{arch}.rope.scaling.type", "string", "linear")
        w.add(f"{arch}.rope.scaling.factor", "f32", scaling["factor"])
    elif kind == "yarn":
        w.add(f"{arch}.rope.scaling.type", "string", "yarn")
        w.add(f"{arch}.rope.scaling.factor", "f32", scaling["factor"])
        w.add(f"{arch}.rope.scaling.original_context_length", "u32",
              scaling["original_max_position_embeddings"])


def model_metadata(w, arch, config, file_type, quantized):
    """What set_gguf_parameters writes for the architecture."""
    w.add("general.architecture", "string", arch)
    w.add("general.name", "string", "mha-viz fixture")
    w.add("general.file_type", "u32", FILE_TYPES[file_type])
    if quantized:
        w.add("general.quantization_version", "u32", 2)
    heads, d = config["num_attention_heads"], config["hidden_size"]
    for key, kind, value in (
            ("block_count", "u32", config["num_hidden_layers"]),
            ("context_length", "u32", config["max_position_embeddings"]),
            ("embedding_length", "u32", d),
            ("feed_forward_length", "u32", config["intermediate_size"]),
            ("attention.head_count", "u32", heads),
            ("attention.head_count_kv", "u32", config.get("num_key_value_heads", heads)),
            ("attention.layer_norm_rms_epsilon", "f32", config["rms_norm_eps"])):
        w.add(f"{arch}.{key}", kind, value)
    if "head_dim" in config:
        w.add(f"{arch}.attention.key_length", "u32", config["head_dim"])
        w.add(f"{arch}.attention.value_length", "u32", config["head_dim"])
    rope_metadata(w, arch, config)
    head_dim = config.get("head_dim") or d // heads
    if arch == "llama":
        w.add("llama.vocab_size", "u32", config["vocab_size"])
        w.add("llama.rope.dimension_count", "u32", head_dim)
    if arch == "gemma2":
        w.add("gemma2.attn_logit_softcapping", "f32", config["attn_logit_softcapping"])
        w.add("gemma2.final_logit_softcapping", "f32", config["final_logit_softcapping"])
    if arch in ("gemma2", "gemma3", "phi3"):
        w.add(f"{arch}.attention.sliding_window", "u32", config.get("sliding_window") or 0)
    if arch == "phi3":
        w.add("phi3.rope.dimension_count", "u32",
              int(config.get("partial_rotary_factor", 1.0) * d) // heads)
        w.add("phi3.rope.scaling.original_context_length", "u32",
              config["original_max_position_embeddings"])
        scale = config["max_position_embeddings"] / config["original_max_position_embeddings"]
        w.add("phi3.rope.scaling.attn_factor", "f32",
              math.sqrt(1 + math.log(scale) / math.log(config["original_max_position_embeddings"]))
              if scale > 1 else 1.0)


# ---- tensors ----

BLOCK_NAMES = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
               "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
               "self_attn.o_proj": "attn_output", "self_attn.qkv_proj": "attn_qkv",
               "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm",
               "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
               "mlp.gate_up_proj": "ffn_up", "pre_feedforward_layernorm": "ffn_norm",
               "post_feedforward_layernorm": "post_ffw_norm"}


def gguf_name(arch, name):
    """llama.cpp's name of a Hugging Face tensor (gguf-py's tensor_mapping.py)."""
    name = name.removeprefix("model.")
    top = {"embed_tokens.weight": "token_embd.weight", "norm.weight": "output_norm.weight",
           "lm_head.weight": "output.weight"}
    if name in top:
        return top[name]
    _, layer, rest = name.split(".", 2)
    part, suffix = rest.rsplit(".", 1)
    if part == "post_attention_layernorm":  # after attention for Gemma 2 / 3 and OLMo 2
        mapped = "post_attention_norm" if arch in ("gemma2", "gemma3", "olmo2") else "ffn_norm"
    else:
        mapped = BLOCK_NAMES[part]
    return f"blk.{layer}.{mapped}.{suffix}"


def permute(t, heads):
    """LlamaModel.permute: each head's rows (i, i + hd/2) into adjacent pairs (2i, 2i + 1)."""
    half = t.shape[0] // heads // 2
    return t.reshape(heads, 2, half, *t.shape[1:]).swapaxes(1, 2).reshape(t.shape)


def written(arch, name):
    """Whether the converter writes the tensor: not Gemma's lm_head, nor a vision tower."""
    return not name.startswith("vision_tower") and not (arch.startswith("gemma") and
                                                        name == "lm_head.weight")


def converted(arch, config, state):
    """(gguf name, tensor in the checkpoint's dtype) as modify_tensors yields them."""
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads", heads)
    out = []
    for name, t in state.items():
        if not written(arch, name):
            continue
        if arch == "llama" and ".q_proj." in name:
            t = permute(t, heads)
        if arch == "llama" and ".k_proj." in name:
            t = permute(t, kv)
        if arch.startswith("gemma") and name.endswith("norm.weight"):
            t = t + 1  # in the checkpoint's dtype, as the converter adds it
        out.append((gguf_name(arch, name), t))
    return out


def llama3_rope_freqs(config):
    """LlamaModel.generate_extra_tensors: the factor each pair's frequency is divided by."""
    r = config["rope_scaling"]
    base, dim = config["rope_theta"], config.get("head_dim") or config["hidden_size"] // config[
        "num_attention_heads"]
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    factor, low, high = r["factor"], r["low_freq_factor"], r["high_freq_factor"]
    old = r["original_max_position_embeddings"]
    factors = []
    for freq in freqs:
        wave = 2 * math.pi / freq
        if wave < old / high:
            factors.append(1)
        elif wave > old / low:
            factors.append(factor)
        else:
            smooth = (old / wave - low) / (high - low)
            factors.append(1 / ((1 - smooth) / factor + smooth))
    return torch.tensor(factors, dtype=torch.float32)


def extra_tensors(arch, config):
    scaling = config.get("rope_scaling") or {}
    if arch == "llama" and scaling.get("rope_type") == "llama3":
        return [("rope_freqs.weight", llama3_rope_freqs(config))]
    if arch == "phi3" and scaling.get("long_factor"):
        return [("rope_factors_long.weight", torch.tensor(scaling["long_factor"])),
                ("rope_factors_short.weight", torch.tensor(scaling["short_factor"]))]
    return []


def stored(t, ggml_type):
    """(bytes, the float32 values they hold) of a tensor written as `ggml_type`."""
    a = t.float().numpy()
    if ggml_type in DTYPES:
        held = t.to(DTYPES[ggml_type])
        raw = held.view(torch.int16).numpy().tobytes() if ggml_type == "BF16" else \
            held.numpy().astype("<f4" if ggml_type == "F32" else "<f2").tobytes()
        return raw, held.float()
    rows = a.reshape(-1, a.shape[-1])
    raw = ggml_quants.quantize(ggml_type, rows)
    back = ggml_quants.dequantize(ggml_type, raw, rows.shape[0], rows.shape[1])
    return raw, torch.tensor(np.asarray(back, dtype=np.float32)).reshape(t.shape)


# ---- the files and their reference ----

def unconverted(arch, config, held):
    """The values the file holds, back in Hugging Face's names and layout (what the reference
    forward reads): un-permuted, Gemma's 1 taken off again."""
    heads = config["num_attention_heads"]
    kv = config.get("num_key_value_heads", heads)
    state = {}
    for (hf_name, gguf), t in held.items():
        if arch == "llama" and ".q_proj." in hf_name:
            t = unpermute(t, heads)
        if arch == "llama" and ".k_proj." in hf_name:
            t = unpermute(t, kv)
        if arch.startswith("gemma") and hf_name.endswith("norm.weight"):
            t = (t.double() - 1).float()
        state[hf_name] = t
    return state


def unpermute(t, heads):
    half = t.shape[0] // heads // 2
    return t.reshape(heads, half, 2, *t.shape[1:]).swapaxes(1, 2).reshape(t.shape)


def write_parts(writer_of, tensors, name, parts):
    """One file, or `parts` files split as llama.cpp's gguf-split writes them (every part with
    split.no, split.count and split.tensors.count; the metadata in the first)."""
    if parts == 1:
        w = writer_of(True)
        for n, shape, kind, raw in tensors:
            w.add_tensor(n, shape=shape, ggml_type=kind, raw=raw)
        w.write(OUT / f"{name}.gguf")
        return
    per = math.ceil(len(tensors) / parts)
    for k in range(parts):
        w = writer_of(k == 0)
        w.add("split.no", "u16", k)
        w.add("split.count", "u16", parts)
        w.add("split.tensors.count", "i32", len(tensors))
        for n, shape, kind, raw in tensors[k * per:(k + 1) * per]:
            w.add_tensor(n, shape=shape, ggml_type=kind, raw=raw)
        w.write(OUT / f"{name}-{k + 1:05d}-of-{parts:05d}.gguf")


def every_value_type(w):
    """Keys of every metadata value type the format has, which the reader's test reads back."""
    for kind, value in (("u8", 200), ("i8", -100), ("u16", 60000), ("i16", -30000),
                        ("u32", 4000000000), ("i32", -2000000000), ("u64", 2 ** 40),
                        ("i64", -2 ** 40), ("f32", 0.25), ("f64", 0.125), ("bool", True),
                        ("string", "héllo")):
        w.add(f"mha_viz.test.{kind}", kind, value)
    w.add("mha_viz.test.array_of_f64", ("array", "f64"), [0.5, -1.5])
    w.add("mha_viz.test.array_of_arrays", ("array", ("array", "i16")), [[1, 2], [3]])


def tensor_type(gguf, t, types):
    """F32 for 1-D tensors; a matrix's type from `types` (by its name's ending, else "*")."""
    if t.dim() == 1:
        return "F32"
    for ending, kind in types.items():
        if ending != "*" and gguf.endswith(ending):
            return kind
    return types["*"]


def spec_of(variant):
    """make_llama_fixtures.py's reading of the variant's config (the reference forward's c)."""
    for v in llama.variants():
        if v["name"] == variant:
            return dict(v["c"])
    raise KeyError(variant)


def kquant_source():
    """A Llama 3 shaped model whose matrices are 256 wide, so that every K-quant's 256-value
    blocks fit its rows: d 256, MLP 256, 4 query heads and 2 K/V heads of 64."""
    tok, vocab = llama.tokenizer_for("llama3")
    d, heads, kv, hd, inner = 256, 4, 2, 64, 256
    config = {"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": heads,
              "num_key_value_heads": kv, "hidden_size": d, "intermediate_size": inner,
              "max_position_embeddings": 64, "rms_norm_eps": 1e-6, "rope_theta": 500000.0,
              "vocab_size": len(vocab), "bos_token_id": vocab["<|begin_of_text|>"],
              "tie_word_embeddings": False}
    c = {"layers": 2, "heads": heads, "kv": kv, "head_dim": hd, "d": d, "inner": inner,
         "eps": 1e-6, "act": "silu", "positions": 64, "prefix": "model.",
         "rope": {"theta": 500000.0}, "windows": [0, 0], "tied": False}
    state = llama.random_state(c, len(vocab), torch.Generator().manual_seed(7))
    for name in state:  # smaller weights: a deeper stream stays in range
        if name.endswith("proj.weight"):
            state[name] = state[name] * 0.25
    return config, state, tok, {}, c


K_MIX = {"blk.0.attn_q.weight": "Q2_K", "blk.0.attn_k.weight": "Q3_K",
         "blk.0.attn_v.weight": "Q4_K", "blk.0.attn_output.weight": "Q5_K",
         "blk.0.ffn_gate.weight": "Q6_K", "blk.0.ffn_up.weight": "Q4_K",
         "blk.0.ffn_down.weight": "Q6_K", "blk.1.attn_q.weight": "Q3_K",
         "blk.1.attn_k.weight": "Q2_K", "blk.1.attn_v.weight": "Q5_K",
         "blk.1.attn_output.weight": "Q4_K", "blk.1.ffn_gate.weight": "Q2_K",
         "blk.1.ffn_up.weight": "Q3_K", "blk.1.ffn_down.weight": "Q5_K",
         "output.weight": "Q6_K", "*": "Q4_K"}
LEGACY_MIX = {"attn_q.weight": "Q4_0", "attn_k.weight": "Q4_1", "attn_v.weight": "Q5_0",
              "attn_output.weight": "Q5_1", "ffn_gate.weight": "Q8_0", "ffn_up.weight": "Q4_0",
              "ffn_down.weight": "Q5_1", "output.weight": "Q8_0", "*": "Q4_1"}

# name, source variant, file type, the matrices' types, options: version, alignment, parts, and
# "c": what the file makes llama.cpp (and mha-viz) compute unlike config.json.
FLOAT_FIXTURES = [
    ("llama3_gqa_f32", "llama3_gqa_f32", "F32", {"*": "F32"}, {"alignment": 64}),
    ("llama2_mha_bf16_split", "llama2_mha_bf16_shards", "BF16", {"*": "BF16"}, {"parts": 3}),
    ("qwen2_yarn_v2", "qwen2_yarn_unprefixed", "F32", {"*": "F32"},
     {"version": 2, "every_type": True, "c": {"windows": [0, 0]}}),
    ("qwen3_bf16", "qwen3_bf16", "BF16", {"*": "BF16"}, {}),
    ("gemma_mqa_f16", "gemma_mqa", "F16", {"*": "F16"}, {}),
    ("gemma2_bf16", "gemma2_bf16", "BF16", {"*": "BF16"}, {"c": {"scale": 8 ** -0.5}}),
    ("gemma3_text", "gemma3_text", "F32", {"*": "F32"},
     {"c": {"windows": [3, 3], "local_layers": [True, True]}}),
    ("phi3_longrope", "phi3_longrope", "F32", {"*": "F32"}, {}),
    ("olmo2", "olmo2", "F32", {"*": "F32"}, {}),
]
QUANT_FIXTURES = [
    ("llama3_q8_0", "llama3_gqa_f32", "Q8_0", {"*": "Q8_0"}, {}),
    ("olmo2_q4_q5_q8", "olmo2", "Q4_1", LEGACY_MIX, {}),
    ("llama_k_quants", None, "Q4_K_M", K_MIX, {}),
]


def case_ids(variant, vocab, tokenizer_kind):
    if variant is None:
        return llama.cases(vocab, tokenizer_kind)
    reference = json.loads((SOURCE / "reference.json").read_text())["variants"][variant]
    return [c["ids"] for c in reference["cases"]]


def make(name, variant, file_type, types, options, hf_reference):
    if variant is None:
        config, state, tokenizer, tok_config, c = kquant_source()
    else:
        config, state, tokenizer, tok_config = read_folder(variant)
        c = spec_of(variant)
    arch = ARCH[config["model_type"]]
    tensors, held = [], {}
    for (gguf, t), hf in zip(converted(arch, config, state),
                             [n for n in state if written(arch, n)]):
        kind = tensor_type(gguf, t, types)
        raw, values = stored(t, kind)
        tensors.append((gguf, list(t.shape), kind, raw))
        held[(hf, gguf)] = values
    for gguf, t in extra_tensors(arch, config):
        tensors.append((gguf, list(t.shape), "F32", t.numpy().astype("<f4").tobytes()))
    quantized = any(kind not in DTYPES for _, _, kind, _ in tensors)

    def writer_of(first):
        w = GgufWriter(options.get("version", 3), options.get("alignment", 32))
        if options.get("alignment", 32) != 32:
            w.add("general.alignment", "u32", options["alignment"])
        if first:
            model_metadata(w, arch, config, file_type, quantized)
            vocab_metadata(w, tokenizer, tok_config, config)
        if first and options.get("every_type"):
            every_value_type(w)
        return w

    for old in OUT.glob(f"{name}*.gguf"):
        old.unlink()
    write_parts(writer_of, tensors, name, options.get("parts", 1))
    c.update(options.get("c", {}))
    s = unconverted(arch, config, held)
    if not c["tied"]:
        c["head"] = next(n for n in s if n.endswith("lm_head.weight"))
    vocab = {t: i for t, i in tokenizer["model"]["vocab"].items()}
    vocab.update({a["content"]: a["id"] for a in tokenizer["added_tokens"]})
    kind = "llama3" if variant is None else None
    cases = []
    for ids in case_ids(variant, vocab, kind):
        with torch.no_grad():
            maps, logits = llama.forward(c, s, torch.tensor(ids))
        cases.append({"ids": ids,  # 6 decimals: the test's tolerance is 1e-4
                      "attention": [[llama.rounded(m, 6) for m in layer] for layer in maps],
                      "logits": llama.rounded(logits, 6)})
    same = {"float32": "F32", "float16": "F16", "bfloat16": "BF16"}
    if variant and not options.get("c") and not quantized and \
            same[hf_reference["variants"][variant]["dtype"]] == file_type:
        check_against_folder(name, cases, hf_reference["variants"][variant]["cases"])
        cases = "the folder's"  # the test reads fixtures/llama/reference.json's
    files = sorted(p.name for p in OUT.glob(f"{name}*.gguf"))
    return {"files": files, "source": variant or "random (make_gguf_fixtures.py)",
            "architecture": arch, "file_type": file_type,
            "types": sorted({k for _, _, k, _ in tensors}), "cases": cases}


def check_against_folder(name, cases, folder_cases):
    """Where the file says all config.json said, its numbers are the folder's."""
    worst = 0.0
    for mine, theirs in zip(cases, folder_cases):
        assert mine["ids"] == theirs["ids"], name
        worst = max(worst, float(np.max(np.abs(np.array(mine["logits"]) -
                                              np.array(theirs["logits"])))))
        for a, b in zip(mine["attention"], theirs["attention"]):
            worst = max(worst, float(np.max(np.abs(np.array(a) - np.array(b)))))
    if worst > 5e-5:  # the folder's reference was made by another run of torch (~1e-5)
        raise SystemExit(f"{name}: the GGUF's reference differs from the folder's by {worst}")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    hf_reference = json.loads((SOURCE / "reference.json").read_text())
    fixtures = FLOAT_FIXTURES + (QUANT_FIXTURES if ggml_quants else [])
    reference = {"note": "GGUF files of random fixture weights, not real models",
                 "variants": {}}
    for name, variant, file_type, types, options in fixtures:
        reference["variants"][name] = make(name, variant, file_type, types, options,
                                           hf_reference)
    (OUT / "reference.json").write_text(json.dumps(reference, separators=(",", ":")))
    fuzz_seeds()
    skipped = "" if ggml_quants else " (no ggml_quants.py: no quantized files)"
    print(f"wrote {len(fixtures)} GGUF models to {OUT}{skipped}")



def fuzz_seeds():
    """tests/fuzz/corpus/gguf: tiny whole models (a few KB, under fuzz_gguf's max_len) of three
    architectures, and one cut short, for the fuzzer to start from."""
    folder = HERE / "fuzz" / "corpus" / "gguf"
    folder.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(3)
    for arch, extra in (("llama", {}), ("qwen3", {"qk": True}), ("phi3", {"fused": True})):
        w = GgufWriter(3)
        w.add("general.architecture", "string", arch)
        for key, value in (("block_count", 1), ("context_length", 16), ("embedding_length", 8),
                           ("feed_forward_length", 8), ("attention.head_count", 2),
                           ("attention.head_count_kv", 1)):
            w.add(f"{arch}.{key}", "u32", value)
        w.add(f"{arch}.attention.layer_norm_rms_epsilon", "f32", 1e-6)
        w.add("tokenizer.ggml.model", "string", "gpt2")
        w.add("tokenizer.ggml.tokens", ("array", "string"), ["a", "b", "c", "d"])
        w.add("tokenizer.ggml.token_type", ("array", "i32"), [1, 1, 1, 3])
        shapes = {"token_embd.weight": (4, 8), "output_norm.weight": (8,),
                  "blk.0.attn_norm.weight": (8,), "blk.0.ffn_norm.weight": (8,),
                  "blk.0.attn_output.weight": (8, 8), "blk.0.ffn_down.weight": (8, 8)}
        if extra.get("fused"):
            shapes.update({"blk.0.attn_qkv.weight": (16, 8), "blk.0.ffn_up.weight": (16, 8)})
        else:
            shapes.update({"blk.0.attn_q.weight": (8, 8), "blk.0.attn_k.weight": (4, 8),
                           "blk.0.attn_v.weight": (4, 8), "blk.0.ffn_gate.weight": (8, 8),
                           "blk.0.ffn_up.weight": (8, 8)})
        if extra.get("qk"):
            shapes.update({"blk.0.attn_q_norm.weight": (4,), "blk.0.attn_k_norm.weight": (4,)})
        for name, shape in shapes.items():
            w.add_tensor(name, torch.randn(*shape, generator=g).numpy(),
                         "F16" if len(shape) == 2 else "F32")
        w.write(folder / f"tiny-{arch}.gguf")
    whole = (folder / "tiny-llama.gguf").read_bytes()
    (folder / "cut-short.gguf").write_bytes(whole[:len(whole) // 2])


if __name__ == "__main__":
    main()
