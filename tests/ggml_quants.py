#!/usr/bin/python3
"""ggml's tensor types in numpy, written from ggml's ggml-common.h (the blocks' layouts) and
ggml-quants.c (quantize_row_*_ref and dequantize_row_*), for the tests' GGUF fixtures:

    import ggml_quants
    data = ggml_quants.quantize("Q4_K", weights)          # float32 [rows, cols] -> bytes
    values = ggml_quants.dequantize("Q4_K", data, rows, cols)  # -> float32 [rows, cols]
    ggml_quants.TYPES["Q4_K"]                             # (type number, values, bytes) per block
    ggml_quants.row_bytes("Q4_K", cols)

Types: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K; cols a
multiple of the type's block values (32, or 256 for the K types). Rows are quantized one after
the other, blocks back to back, as GGUF stores a tensor.

The quantizers follow ggml's reference ones step by step in float32 (each sum in ggml's order,
round-half-even where ggml uses nearest_int, half-away-from-zero where it uses roundf), so the
blocks are what `llama-quantize` without an importance matrix writes. The dequantizer computes
each value with ggml's float operations in ggml's order, each rounded on its own (no fused
multiply-add): mha-viz's C++ dequantizer (core/models/formats/ggml_quants.h) must give the same
bits.

    /usr/bin/python3 tests/ggml_quants.py --fixture tests/fixtures/ggml_quants.safetensors

writes the fixture tests/ggml_quants_test.cpp reads: for each type, blocks quantized from
varied rows and the floats this file's dequantizer makes of them; `--check FILE` says whether
FILE is what it would write (ctest runs that where numpy is installed).
"""
import argparse
import json
import pathlib
import struct
import sys
import tempfile

import numpy as np

F = np.float32
TYPES = {  # name: (ggml type number, values per block, bytes per block)
    "F32": (0, 1, 4), "F16": (1, 1, 2), "BF16": (30, 1, 2),
    "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24),
    "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110),
    "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210),
}
GROUP_MAX_EPS = F(1e-15)


def row_bytes(type_name, cols):
    _, values, size = TYPES[type_name]
    if cols % values:
        raise ValueError(f"{cols} values are not whole {type_name} blocks of {values}")
    return cols // values * size


# ---------------------------------------------------------------------------------- helpers

def half_bytes(v):
    """float32 values as IEEE halves (round to nearest even, as GGML_FP32_TO_FP16), [n, 2]."""
    return np.asarray(v, F).astype(np.float16).view(np.uint8).reshape(-1, 2)


def half_value(b):
    """The float32 of halves stored as [n, 2] little-endian bytes."""
    return np.ascontiguousarray(b).view(np.float16).reshape(-1).astype(F)


def nearest_int(v):
    """ggml's nearest_int: round half to even (exact for |v| < 2^22)."""
    return np.rint(np.asarray(v, F)).astype(np.int32)


def first_abs_max(x):
    """Per row: the value of largest magnitude (the first one on a tie) and that magnitude."""
    idx = np.argmax(np.abs(x), axis=1)
    value = x[np.arange(x.shape[0]), idx]
    return value, np.abs(value)


def seq_sum(terms):
    """Sum over the last axis in order, in float32, as a C loop accumulates."""
    total = np.zeros(terms.shape[:-1], F)
    for i in range(terms.shape[-1]):
        total = total + terms[..., i]
    return total


def pack2(L):
    """2-bit quants of [G, 256] as ggml packs them: per 128 values, byte l holds values l,
    l + 32, l + 64, l + 96 at bits 0, 2, 4, 6."""
    L = L.astype(np.uint8).reshape(-1, 2, 4, 32)
    return (L[:, :, 0] | L[:, :, 1] << 2 | L[:, :, 2] << 4 | L[:, :, 3] << 6).reshape(-1, 64)


# -------------------------------------------------------------- ggml's search for scales

def make_qkx2_quants(x, w, nmax, rmin, rdelta, nstep, use_mad):
    """Scale and (negated) min of each row of x [G, n] with weights w, and its quants
    (ggml's make_qkx2_quants): min/max start, then nstep + 1 trial scales, the least weighted
    error kept."""
    with np.errstate(all="ignore"):
        lo, hi = x.min(axis=1), x.max(axis=1)
        sum_w, sum_x = seq_sum(w), seq_sum(w * x)
        lo = np.minimum(lo, F(0))
        flat, first_lo = hi == lo, lo
        iscale = F(nmax) / np.where(flat, F(1), hi - lo)
        scale = F(1) / iscale
        L = np.clip(nearest_int(iscale[:, None] * (x - lo[:, None])), 0, nmax)

        def error(s, m, q):
            diff = s[:, None] * q.astype(F) + m[:, None] - x
            return seq_sum(w * (np.abs(diff) if use_mad else diff * diff))

        best = error(scale, lo, L)
        for step in range(nstep + 1):
            # over the span from the best min so far, as ggml's loop reads its `min`
            iscale = (F(rmin) + F(rdelta) * F(step) + F(nmax)) / np.where(flat, F(1), hi - lo)
            laux = np.clip(nearest_int(iscale[:, None] * (x - lo[:, None])), 0, nmax)
            lf = laux.astype(F)
            sum_l, sum_l2, sum_xl = seq_sum(w * lf), seq_sum(w * lf * lf), seq_sum(w * lf * x)
            D = sum_w * sum_l2 - sum_l * sum_l
            this_scale = (sum_w * sum_xl - sum_x * sum_l) / D
            this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D
            positive = this_min > 0
            this_scale = np.where(positive, sum_xl / sum_l2, this_scale)
            this_min = np.where(positive, F(0), this_min)
            cur = error(this_scale, this_min, laux)
            take = (D > 0) & (cur < best)
            L = np.where(take[:, None], laux, L)
            best = np.where(take, cur, best)
            scale = np.where(take, this_scale, scale)
            lo = np.where(take, this_min, lo)
    L = np.where(flat[:, None], 0, L)
    return np.where(flat, F(0), scale).astype(F), (-np.where(flat, first_lo, lo)).astype(F), L


def make_qx_quants(x, nmax):
    """ggml's make_qx_quants with rmse_type 1 (weights x^2) and no importance: the scale of
    each row of x [G, n] after 18 trial scales around -nmax / max; quants + nmax."""
    with np.errstate(all="ignore"):
        mx, amax = first_abs_max(x)
        zero = amax < GROUP_MAX_EPS
        mx = np.where(zero, F(1), mx)
        w = x * x

        def trial(iscale):
            l = np.clip(nearest_int(iscale[:, None] * x), -nmax, nmax - 1)
            lf = l.astype(F)
            return l, seq_sum(w * x * lf), seq_sum(w * lf * lf)

        l, sumlx, suml2 = trial(F(-nmax) / mx)
        L = l + nmax
        scale = np.where(suml2 != 0, sumlx / suml2, F(0))
        best = scale * sumlx
        for step in range(-9, 10):
            if step == 0:
                continue
            l, sumlx, suml2 = trial(-(F(nmax) + F(0.1) * F(step)) / mx)
            take = (suml2 > 0) & (sumlx * sumlx > best * suml2)
            L = np.where(take[:, None], l + nmax, L)
            scale = np.where(take, sumlx / suml2, scale)
            best = np.where(take, scale * sumlx, best)
    return np.where(zero, F(0), scale).astype(F), np.where(zero[:, None], 0, L)


def make_q3_quants(x, nmax):
    """ggml's make_q3_quants with do_rmse: quants of each row of x [G, n] moved one at a time
    while the weighted fit improves (up to 5 rounds); returns the scale and quants + nmax."""
    with np.errstate(all="ignore"):
        mx, amax = first_abs_max(x)
        zero = amax < GROUP_MAX_EPS
        iscale = F(-nmax) / np.where(zero, F(1), mx)
        L = np.clip(nearest_int(iscale[:, None] * x), -nmax, nmax - 1)
        w = x * x
        Lf = L.astype(F)
        sumlx, suml2 = seq_sum(w * x * Lf), seq_sum(w * Lf * Lf)
        active = ~zero
        for _ in range(5):
            changed = np.zeros(x.shape[0], bool)
            for i in range(x.shape[1]):
                xi, wi, li = x[:, i], w[:, i], L[:, i].astype(F)
                slx = sumlx - wi * xi * li
                sl2 = suml2 - wi * li * li
                new = np.clip(nearest_int(xi * sl2 / slx), -nmax, nmax - 1)
                nf = new.astype(F)
                slx2, sl22 = slx + wi * xi * nf, sl2 + wi * nf * nf
                take = active & (slx > 0) & (new != L[:, i]) & (sl22 > 0) & \
                    (slx2 * slx2 * suml2 > sumlx * sumlx * sl22)
                L[:, i] = np.where(take, new, L[:, i])
                sumlx = np.where(take, slx2, sumlx)
                suml2 = np.where(take, sl22, suml2)
                changed |= take
            active &= changed
        scale = np.where(suml2 > 0, sumlx / suml2, F(0))
    return np.where(zero, F(0), scale).astype(F), np.where(zero[:, None], 0, L + nmax)


# ------------------------------------------------------------------------ the 32-value types

def quantize_q4_0(x):
    mx, _ = first_abs_max(x)
    d = mx / F(-8)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, F(1) / d, F(0))
    q = np.minimum(15, np.trunc(x * inv[:, None] + F(8.5)).astype(np.int32)).astype(np.uint8)
    return np.concatenate([half_bytes(d), q[:, :16] | q[:, 16:] << 4], axis=1)


def quantize_q4_1(x):
    lo, hi = x.min(axis=1), x.max(axis=1)
    d = (hi - lo) / F(15)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, F(1) / d, F(0))
    v = (x - lo[:, None]) * inv[:, None] + F(0.5)
    q = np.minimum(15, np.trunc(v).astype(np.int32)).astype(np.uint8)
    return np.concatenate([half_bytes(d), half_bytes(lo), q[:, :16] | q[:, 16:] << 4], axis=1)


def fifth_bits(q):
    """The fifth bits of 32 quants as Q5's qh: bit j of a little-endian uint32."""
    bits = ((q >> 4) & 1).astype(np.uint32) << np.arange(32, dtype=np.uint32)
    return bits.sum(axis=1, dtype=np.uint32).astype("<u4").view(np.uint8).reshape(-1, 4)


def quantize_q5_0(x):
    mx, _ = first_abs_max(x)
    d = mx / F(-16)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, F(1) / d, F(0))
    q = np.minimum(31, np.trunc(x * inv[:, None] + F(16.5)).astype(np.int32)).astype(np.uint8)
    low = (q[:, :16] & 0xF) | (q[:, 16:] & 0xF) << 4
    return np.concatenate([half_bytes(d), fifth_bits(q), low], axis=1)


def quantize_q5_1(x):
    lo, hi = x.min(axis=1), x.max(axis=1)
    d = (hi - lo) / F(31)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, F(1) / d, F(0))
    q = np.trunc((x - lo[:, None]) * inv[:, None] + F(0.5)).astype(np.int32).astype(np.uint8)
    low = (q[:, :16] & 0xF) | (q[:, 16:] & 0xF) << 4
    return np.concatenate([half_bytes(d), half_bytes(lo), fifth_bits(q), low], axis=1)


def quantize_q8_0(x):
    amax = np.abs(x).max(axis=1)
    d = amax / F(127)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, F(1) / d, F(0))
    v = (x * inv[:, None]).astype(np.float64)  # roundf: half away from zero
    q = (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int8).view(np.uint8)
    return np.concatenate([half_bytes(d), q], axis=1)


# ------------------------------------------------------------------------- the K types

def quantize_q2_k(x):
    G = x.shape[0]
    g = x.reshape(-1, 16)
    scales, mins, L = make_qkx2_quants(g, np.abs(g), 3, -0.5, 0.1, 15, True)
    scales, mins, L = scales.reshape(G, 16), mins.reshape(G, 16), L.reshape(G, 16, 16)
    max_scale = np.maximum(scales.max(axis=1), F(0))
    max_min = np.maximum(mins.max(axis=1), F(0))
    with np.errstate(divide="ignore", invalid="ignore"):
        ls = np.where(max_scale[:, None] > 0,
                      nearest_int((F(15) / max_scale)[:, None] * scales), 0)
        lm = np.where(max_min[:, None] > 0, nearest_int((F(15) / max_min)[:, None] * mins), 0)
    sc = (ls | lm << 4).astype(np.uint8)
    d_bytes = half_bytes(np.where(max_scale > 0, max_scale / F(15), F(0)))
    m_bytes = half_bytes(np.where(max_min > 0, max_min / F(15), F(0)))
    d = half_value(d_bytes)[:, None] * (sc & 0xF).astype(F)
    dm = half_value(m_bytes)[:, None] * (sc >> 4).astype(F)
    with np.errstate(divide="ignore", invalid="ignore"):
        again = np.clip(nearest_int((x.reshape(G, 16, 16) + dm[..., None]) / d[..., None]), 0, 3)
    L = np.where((d != 0)[..., None], again, L).reshape(G, 256)
    return np.concatenate([sc, pack2(L), d_bytes, m_bytes], axis=1)


def q3_scale_bytes(l):
    """16 6-bit scales (stored + 32) into Q3_K's 12 bytes."""
    out = np.zeros((l.shape[0], 12), np.uint8)
    out[:, :8] = (l[:, :8] & 0xF) | (l[:, 8:] & 0xF) << 4
    high = (l >> 4) & 3
    for j in range(16):
        out[:, 8 + j % 4] |= (high[:, j] << (2 * (j // 4))).astype(np.uint8)
    return out


def q3_scales(packed):
    """Q3_K's 16 signed scales from their 12 bytes."""
    low = np.concatenate([packed[:, :8] & 0xF, packed[:, :8] >> 4], axis=1).astype(np.int32)
    j = np.arange(16)
    high = (packed[:, 8 + j % 4].astype(np.int32) >> (2 * (j // 4))) & 3
    return (low | high << 4) - 32


def quantize_q3_k(x):
    G = x.shape[0]
    scales, L = make_q3_quants(x.reshape(-1, 16), 4)
    scales, L = scales.reshape(G, 16), L.reshape(G, 16, 16)
    max_scale, _ = first_abs_max(scales)
    with np.errstate(divide="ignore", invalid="ignore"):
        iscale = F(-32) / max_scale
        l = np.clip(nearest_int(iscale[:, None] * scales).astype(np.int8), -32, 31) + 32
        d_bytes = half_bytes(np.where(max_scale != 0, F(1) / iscale, F(0)))
    packed = np.where((max_scale != 0)[:, None], q3_scale_bytes(l.astype(np.uint8)), 0)
    d = half_value(d_bytes)[:, None] * q3_scales(packed.astype(np.uint8)).astype(F)
    with np.errstate(divide="ignore", invalid="ignore"):
        again = np.clip(nearest_int(x.reshape(G, 16, 16) / d[..., None]), -4, 3) + 4
    L = np.where((d != 0)[..., None], again, L).reshape(G, 256)
    high = (L > 3).reshape(G, 8, 32)
    hmask = (high.astype(np.uint8) << np.arange(8, dtype=np.uint8)[:, None]).sum(
        axis=1, dtype=np.uint8)
    L = np.where(L > 3, L - 4, L)
    return np.concatenate([hmask, pack2(L), packed.astype(np.uint8), d_bytes], axis=1)


def k4_scale_bytes(ls, lm):
    """8 6-bit scales and mins into Q4_K's / Q5_K's 12 bytes."""
    out = np.zeros((ls.shape[0], 12), np.uint8)
    out[:, 0:4] = ls[:, :4]
    out[:, 4:8] = lm[:, :4]
    out[:, 8:12] = (ls[:, 4:] & 0xF) | (lm[:, 4:] & 0xF) << 4
    out[:, 0:4] |= (ls[:, 4:] >> 4) << 6
    out[:, 4:8] |= (lm[:, 4:] >> 4) << 6
    return out


def k4_scales(packed):
    """The 8 scales and 8 mins of Q4_K's / Q5_K's 12 bytes (ggml's get_scale_min_k4)."""
    p = packed.astype(np.int32)
    sc = np.concatenate([p[:, 0:4] & 63, (p[:, 8:12] & 0xF) | (p[:, 0:4] >> 6) << 4], axis=1)
    mn = np.concatenate([p[:, 4:8] & 63, (p[:, 8:12] >> 4) | (p[:, 4:8] >> 6) << 4], axis=1)
    return sc, mn


def quantize_k4(x, nmax, rmin, nstep):
    """The part Q4_K and Q5_K share: scales, mins and quants (0..nmax) of 32-value groups."""
    G = x.shape[0]
    g = x.reshape(-1, 32)
    av = np.sqrt(seq_sum(g * g) / F(32))
    scales, mins, L = make_qkx2_quants(g, av[:, None] + np.abs(g), nmax, rmin, 0.1, nstep, False)
    scales, mins = scales.reshape(G, 8), mins.reshape(G, 8)
    max_scale = np.maximum(scales.max(axis=1), F(0))
    max_min = np.maximum(mins.max(axis=1), F(0))
    with np.errstate(divide="ignore"):
        inv_scale = np.where(max_scale > 0, F(63) / max_scale, F(0))
        inv_min = np.where(max_min > 0, F(63) / max_min, F(0))
    ls = np.minimum(63, nearest_int(inv_scale[:, None] * scales) & 0xFF).astype(np.uint8)
    lm = np.minimum(63, nearest_int(inv_min[:, None] * mins) & 0xFF).astype(np.uint8)
    packed = k4_scale_bytes(ls, lm)
    d_bytes, m_bytes = half_bytes(max_scale / F(63)), half_bytes(max_min / F(63))
    sc, mn = k4_scales(packed)
    d = half_value(d_bytes)[:, None] * sc.astype(F)
    dm = half_value(m_bytes)[:, None] * mn.astype(F)
    with np.errstate(divide="ignore", invalid="ignore"):
        again = np.clip(nearest_int((x.reshape(G, 8, 32) + dm[..., None]) / d[..., None]), 0, nmax)
    L = np.where((d != 0)[..., None], again, L.reshape(G, 8, 32)).reshape(G, 4, 2, 32)
    return np.concatenate([d_bytes, m_bytes, packed], axis=1), L


def quantize_q4_k(x):
    head, L = quantize_k4(x, 15, -1.0, 20)
    qs = (L[:, :, 0] | L[:, :, 1] << 4).astype(np.uint8).reshape(-1, 128)
    return np.concatenate([head, qs], axis=1)


def quantize_q5_k(x):
    head, L = quantize_k4(x, 31, -0.5, 15)
    high = ((L >> 4) & 1).astype(np.uint8)  # [G, 4, 2, 32]: bit 2j + h of byte l
    shifts = (2 * np.arange(4)[:, None] + np.arange(2)).astype(np.uint8)
    qh = (high << shifts[None, :, :, None]).sum(axis=(1, 2), dtype=np.uint8)
    qs = ((L[:, :, 0] & 0xF) | (L[:, :, 1] & 0xF) << 4).astype(np.uint8).reshape(-1, 128)
    return np.concatenate([head, qh, qs], axis=1)


def quantize_q6_k(x):
    G = x.shape[0]
    scales, L = make_qx_quants(x.reshape(-1, 16), 32)
    scales, L = scales.reshape(G, 16), L.reshape(G, 16, 16)
    max_scale, amax = first_abs_max(scales)
    zero = amax < GROUP_MAX_EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        iscale = F(-128) / np.where(zero, F(1), max_scale)
        d_bytes = half_bytes(np.where(zero, F(0), F(1) / iscale))
        sc = np.minimum(127, nearest_int(iscale[:, None] * scales)).astype(np.int8)
    d = half_value(d_bytes)[:, None] * sc.astype(F)
    with np.errstate(divide="ignore", invalid="ignore"):
        again = np.clip(nearest_int(x.reshape(G, 16, 16) / d[..., None]), -32, 31) + 32
    L = np.where((d != 0)[..., None], again, L).reshape(G, 2, 4, 32).astype(np.uint8)
    ql = np.concatenate([L[:, :, 0] & 0xF | (L[:, :, 2] & 0xF) << 4,
                         L[:, :, 1] & 0xF | (L[:, :, 3] & 0xF) << 4], axis=2).reshape(G, 128)
    qh = (L[:, :, 0] >> 4 | (L[:, :, 1] >> 4) << 2 | (L[:, :, 2] >> 4) << 4 |
          (L[:, :, 3] >> 4) << 6).reshape(G, 64)
    blocks = np.concatenate([ql, qh, sc.view(np.uint8), d_bytes], axis=1)
    return np.where(zero[:, None], np.concatenate(  # an all-zero block: every byte 0
        [np.zeros((G, 208), np.uint8), half_bytes(np.zeros(G, F))], axis=1), blocks)


# ------------------------------------------------------------------------- dequantizers

def dq_32(blocks, name):
    """Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 blocks [G, bytes] as float32 [G, 32]."""
    d = half_value(blocks[:, 0:2])[:, None]
    if name == "Q8_0":
        return blocks[:, 2:34].view(np.int8).astype(F) * d
    affine = name in ("Q4_1", "Q5_1")
    m = half_value(blocks[:, 2:4])[:, None] if affine else None
    qs_at = {"Q4_0": 2, "Q4_1": 4, "Q5_0": 6, "Q5_1": 8}[name]
    qs = blocks[:, qs_at:qs_at + 16].astype(np.int32)
    q = np.concatenate([qs & 0xF, qs >> 4], axis=1)
    if name in ("Q5_0", "Q5_1"):
        qh = blocks[:, qs_at - 4:qs_at].copy().view("<u4").astype(np.int64)
        q = q | (((qh >> np.arange(32)) & 1) << 4).astype(np.int32)
    if affine:
        return q.astype(F) * d + m
    return (q - (16 if name == "Q5_0" else 8)).astype(F) * d


def unpack2(qs):
    """Q2_K's / Q3_K's 64 bytes as 256 2-bit quants in value order."""
    q = qs.reshape(-1, 2, 1, 32).astype(np.int32) >> (2 * np.arange(4))[None, None, :, None]
    return (q & 3).reshape(-1, 256)


def dq_q2_k(b):
    sc = b[:, 0:16].astype(np.int32)
    d, dmin = half_value(b[:, 80:82])[:, None], half_value(b[:, 82:84])[:, None]
    dl = np.repeat(d * (sc & 0xF).astype(F), 16, axis=1)
    ml = np.repeat(dmin * (sc >> 4).astype(F), 16, axis=1)
    return dl * unpack2(b[:, 16:80]).astype(F) - ml


def dq_q3_k(b):
    d = half_value(b[:, 108:110])[:, None]
    dl = np.repeat(d * q3_scales(b[:, 96:108]).astype(F), 16, axis=1)
    hm = b[:, 0:32].astype(np.int32)[:, None, :] >> np.arange(8)[None, :, None]
    high = (hm & 1).reshape(-1, 256)
    return dl * (unpack2(b[:, 32:96]) - 4 + 4 * high).astype(F)


def dq_k4(b, with_high):
    d, dmin = half_value(b[:, 0:2])[:, None], half_value(b[:, 2:4])[:, None]
    sc, mn = k4_scales(b[:, 4:16])
    d1 = np.repeat(d * sc.astype(F), 32, axis=1)
    m1 = np.repeat(dmin * mn.astype(F), 32, axis=1)
    qs = b[:, -128:].astype(np.int32).reshape(-1, 4, 1, 32)
    q = (np.concatenate([qs & 0xF, qs >> 4], axis=2)).reshape(-1, 256)
    if with_high:
        qh = b[:, 16:48].astype(np.int32)[:, None, :] >> np.arange(8)[None, :, None]
        q = q + ((qh & 1) << 4).reshape(-1, 256)
    return d1 * q.astype(F) - m1


def dq_q6_k(b):
    d = half_value(b[:, 208:210])[:, None]
    ds = np.repeat(d * b[:, 192:208].view(np.int8).astype(F), 16, axis=1)
    ql = b[:, 0:128].astype(np.int32).reshape(-1, 2, 2, 32)  # [G, half, ql[l] / ql[l+32], l]
    qh = b[:, 128:192].astype(np.int32).reshape(-1, 2, 1, 32)
    low = np.stack([ql[:, :, 0] & 0xF, ql[:, :, 1] & 0xF, ql[:, :, 0] >> 4, ql[:, :, 1] >> 4],
                   axis=2)
    high = (qh >> (2 * np.arange(4))[None, None, :, None]) & 3
    return ds * ((low | high << 4) - 32).reshape(-1, 256).astype(F)


QUANTIZERS = {"Q4_0": quantize_q4_0, "Q4_1": quantize_q4_1, "Q5_0": quantize_q5_0,
              "Q5_1": quantize_q5_1, "Q8_0": quantize_q8_0, "Q2_K": quantize_q2_k,
              "Q3_K": quantize_q3_k, "Q4_K": quantize_q4_k, "Q5_K": quantize_q5_k,
              "Q6_K": quantize_q6_k}
DEQUANTIZERS = {"Q4_0": lambda b: dq_32(b, "Q4_0"), "Q4_1": lambda b: dq_32(b, "Q4_1"),
                "Q5_0": lambda b: dq_32(b, "Q5_0"), "Q5_1": lambda b: dq_32(b, "Q5_1"),
                "Q8_0": lambda b: dq_32(b, "Q8_0"), "Q2_K": dq_q2_k, "Q3_K": dq_q3_k,
                "Q4_K": lambda b: dq_k4(b, False), "Q5_K": lambda b: dq_k4(b, True),
                "Q6_K": dq_q6_k}


def bf16_bits(x):
    """ggml's GGML_FP32_TO_BF16: round to nearest even, NaN made quiet."""
    u = np.asarray(x, F).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, ((u >> 16) | 64).astype(np.uint16), rounded)


def quantize(type_name, x):
    """A float array [rows, cols] in the type's blocks, row after row, as bytes."""
    x = np.ascontiguousarray(np.asarray(x, F))
    if x.ndim == 1:
        x = x[None, :]
    rows, cols = x.shape
    row_bytes(type_name, cols)  # checks whole blocks
    if type_name == "F32":
        return x.astype("<f4").tobytes()
    if type_name == "F16":
        return x.astype("<f2").tobytes()
    if type_name == "BF16":
        return bf16_bits(x).astype("<u2").tobytes()
    values = TYPES[type_name][1]
    return QUANTIZERS[type_name](x.reshape(-1, values)).astype(np.uint8).tobytes()


def dequantize(type_name, data, rows, cols):
    """The floats of quantize's bytes (any ggml blocks of the type), [rows, cols] float32."""
    size = rows * row_bytes(type_name, cols)
    raw = np.frombuffer(bytes(data), np.uint8, count=size)
    if type_name == "F32":
        return raw.view("<f4").astype(F).reshape(rows, cols)
    if type_name == "F16":
        return raw.view("<f2").astype(F).reshape(rows, cols)
    if type_name == "BF16":
        return (raw.view("<u2").astype(np.uint32) << 16).view(F).reshape(rows, cols)
    with np.errstate(all="ignore"):  # a NaN or infinite scale makes NaN and Inf, as in ggml
        blocks = raw.reshape(-1, TYPES[type_name][2])
        return DEQUANTIZERS[type_name](blocks).reshape(rows, cols)


# ---------------------------------------------------------------------------- the fixture

FIXTURE_COLS = 256


def fixture_rows(type_name, rng):
    """Rows that reach every branch of the quantizers: normal weights, small weights with
    outliers, all positive (a min above 0), a zero block and constant blocks, a coarse grid;
    then one row of random block bytes (any quant and scale bits, the scales finite)."""
    cols = FIXTURE_COLS
    rows = [rng.standard_normal(cols), rng.standard_normal(cols) * 0.02,
            rng.uniform(0.5, 2.0, cols)]
    rows[1][::37] *= 60
    special = rng.standard_normal(cols)
    special[:32], special[40:72], special[96:128] = 0, 1.5, -0.75
    rows += [special, rng.integers(-3, 4, cols) * 0.25]
    data = quantize(type_name, np.array(rows, F))
    if TYPES[type_name][1] > 1:  # random blocks, each F16 scale made a finite value
        _, values, size = TYPES[type_name]
        raw = rng.integers(0, 256, (cols // values, size), dtype=np.uint8)
        offsets = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0],
                   "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2],
                   "Q6_K": [208]}[type_name]
        for at in offsets:
            raw[:, at:at + 2] = half_bytes(rng.uniform(-0.1, 0.1, len(raw)))
        data += raw.tobytes()
        rows.append(None)
    return data, len(rows)


def write_fixture(path):
    """For each type: `<TYPE>.blocks` (U8, rows x row bytes) and `<TYPE>.values` (F32, this
    file's dequantization of them), in a safetensors file written by hand (numpy only)."""
    rng = np.random.default_rng(20261127)
    tensors = {}
    for name in TYPES:
        data, rows = fixture_rows(name, rng)
        blocks = np.frombuffer(data, np.uint8).reshape(rows, -1)
        tensors[f"{name}.blocks"] = ("U8", blocks)
        tensors[f"{name}.values"] = ("F32", dequantize(name, data, rows, FIXTURE_COLS))
    header, offset, chunks = {"__metadata__": {"made_by": "tests/ggml_quants.py"}}, 0, []
    for key, (dtype, array) in tensors.items():
        raw = np.ascontiguousarray(array).astype("<f4" if dtype == "F32" else np.uint8).tobytes()
        header[key] = {"dtype": dtype, "shape": list(array.shape),
                       "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        chunks.append(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def check_fixture(path):
    """The committed fixture is what this file writes now, byte for byte (ctest
    ggml_quants_fixture_current): the quantizers and the dequantizer the C++ test trusts."""
    with tempfile.TemporaryDirectory() as folder:
        fresh = pathlib.Path(folder) / "fresh.safetensors"
        write_fixture(fresh)
        same = fresh.read_bytes() == pathlib.Path(path).read_bytes()
    print(f"{'ok' if same else 'FAIL'}: {path} {'is' if same else 'is not'} what "
          f"tests/ggml_quants.py writes{'' if same else ' (run it with --fixture)'}")
    print(f"{int(same)} passed, {int(not same)} failed")
    return 0 if same else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", help="the safetensors file to write")
    parser.add_argument("--check", help="the committed fixture, compared with a fresh one")
    args = parser.parse_args()
    if args.check:
        return check_fixture(args.check)
    if not args.fixture:
        parser.error("--fixture or --check")
    write_fixture(args.fixture)
    return 0


if __name__ == "__main__":
    sys.exit(main())
