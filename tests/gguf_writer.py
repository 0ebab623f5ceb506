#!/usr/bin/python3
"""A GGUF writer (versions 3 and 2), written from ggml's gguf.md, for the test fixtures
(make_gguf_fixtures.py) and anyone who wants a small GGUF file: the header (magic "GGUF",
version, tensor count, metadata count as u64), the metadata (every value type: u8, i8, u16, i16,
u32, i32, u64, i64, f32, f64, bool, string, arrays of any of them and arrays of arrays), the
tensor infos (name, dimensions in ggml's order, that is Hugging Face's reversed, type, offset
into the data), padding to general.alignment (32 unless the metadata says another) and the
data, each tensor starting on the alignment. Little-endian throughout.

    w = GgufWriter(version=3)
    w.add("general.architecture", "string", "llama")
    w.add("llama.block_count", "u32", 2)
    w.add("tokenizer.ggml.tokens", ("array", "string"), ["a", "b"])
    w.add_tensor("token_embd.weight", numpy_array_rows_by_cols, "F16")
    w.write("model.gguf")

Tensors of quantized types take their blocks as bytes (add_tensor(..., raw=bytes), e.g. from
the quantize function of ggml_quants.py beside this file).
"""
import struct

import numpy as np

MAGIC = b"GGUF"
VALUE_TYPES = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5, "f32": 6, "bool": 7,
               "string": 8, "array": 9, "u64": 10, "i64": 11, "f64": 12}
SCALARS = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i",
           "f32": "<f", "bool": "<?", "u64": "<Q", "i64": "<q", "f64": "<d"}
# ggml's tensor types: number, values per block, bytes per block (ggml-common.h's blocks).
GGML_TYPES = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
              "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q8_1": (9, 32, 36),
              "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
              "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "Q8_K": (15, 256, 292),
              "IQ2_XXS": (16, 256, 66), "IQ4_NL": (20, 32, 18), "I8": (24, 1, 1),
              "I16": (25, 1, 2), "I32": (26, 1, 4), "I64": (27, 1, 8), "F64": (28, 1, 8),
              "BF16": (30, 1, 2), "TQ1_0": (34, 256, 54), "MXFP4": (39, 32, 17)}
# llama.cpp's general.file_type numbers (llama.h's llama_ftype).
FILE_TYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8, "Q5_1": 9,
              "Q2_K": 10, "Q3_K_S": 11, "Q3_K_M": 12, "Q3_K_L": 13, "Q4_K_S": 14, "Q4_K_M": 15,
              "Q5_K_S": 16, "Q5_K_M": 17, "Q6_K": 18, "BF16": 32}


def string_bytes(text):
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return struct.pack("<Q", len(data)) + data


def value_bytes(kind, value):
    """The bytes of a value of `kind`: a type name, or ("array", element kind) where the element
    kind may itself be ("array", ...) for arrays of arrays."""
    if isinstance(kind, tuple):
        element = kind[1]
        out = struct.pack("<IQ", VALUE_TYPES["array"] if isinstance(element, tuple)
                          else VALUE_TYPES[element], len(value))
        return out + b"".join(value_bytes(element, v) for v in value)
    if kind == "string":
        return string_bytes(value)
    return struct.pack(SCALARS[kind], value)


def type_number(kind):
    return VALUE_TYPES["array"] if isinstance(kind, tuple) else VALUE_TYPES[kind]


def bfloat16_bytes(array):
    """float32 -> bfloat16 rounded to nearest even, as torch's .to(torch.bfloat16)."""
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16).tobytes()


def tensor_bytes(array, ggml_type):
    if ggml_type == "F32":
        return np.ascontiguousarray(array, dtype="<f4").tobytes()
    if ggml_type == "F16":
        return np.ascontiguousarray(array, dtype="<f2").tobytes()
    if ggml_type == "BF16":
        return bfloat16_bytes(array)
    raise ValueError(f"{ggml_type}: give the blocks' bytes as raw=")


class GgufWriter:
    def __init__(self, version=3, alignment=32):
        self.version, self.alignment = version, alignment
        self.metadata, self.tensors = [], []

    def add(self, key, kind, value):
        self.metadata.append((key, kind, value))

    def add_tensor(self, name, array=None, ggml_type="F32", shape=None, raw=None):
        """`array` (or `shape`) in Hugging Face's order: rows x cols for a matrix."""
        shape = list(shape if shape is not None else np.shape(array))
        data = raw if raw is not None else tensor_bytes(array, ggml_type)
        self.tensors.append((name, shape, ggml_type, data))

    def header(self):
        out = MAGIC + struct.pack("<IQQ", self.version, len(self.tensors), len(self.metadata))
        for key, kind, value in self.metadata:
            out += string_bytes(key) + struct.pack("<I", type_number(kind))
            out += value_bytes(kind, value)
        offset = 0
        for name, shape, ggml_type, data in self.tensors:
            dims = list(reversed(shape))  # ggml's ne: the fastest-moving dimension first
            out += string_bytes(name) + struct.pack("<I", len(dims))
            out += b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", GGML_TYPES[ggml_type][0], offset)
            offset += len(data) + (-len(data) % self.alignment)
        return out

    def write(self, path):
        out = self.header()
        out += b"\0" * (-len(out) % self.alignment)
        with open(path, "wb") as f:
            f.write(out)
            for _, _, _, data in self.tensors:
                f.write(data + b"\0" * (-len(data) % self.alignment))
