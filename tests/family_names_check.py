#!/usr/bin/env python3
"""A model family is named in one place: its entry in the architecture registry
(core/models/architectures.cpp) and its own files (core/models/families/<family>_*). Reads the
registry's entries, then fails for any other core/ or app/ source whose code (comments left
out) holds one of their config.json model_type names as a string literal ("gpt2"), or names a
family's own types or headers (Gpt2Model, core/models/families/bert_model.h). Usage:
family_names_check.py ROOT"""
import pathlib
import re
import sys

from checks import check_all, cpp_files, fail

REGISTRY = pathlib.Path("core/models/architectures.cpp")
FAMILIES = pathlib.Path("core/models/families")
# An entry: {"GPT-2", {"gpt2"}, ... the person-facing name, then its model_type names.
# Files whose string literals are another namespace's names that happen to equal a model_type:
# GGUF's tokenizer.ggml.model values ("gpt2": byte-level BPE, "llama": SentencePiece) name
# tokenizers, not config.json model types.
OTHER_NAMESPACES = {pathlib.Path("core/models/tokenizers/gguf_vocab.cpp")}
ENTRY = re.compile(r'\{\s*"[^"]+",\s*\{((?:\s*"[a-z0-9_]+",?)+)\s*\}')
COMMENT = re.compile(r"//[^\n]*")


def model_types(root):
    text = (root / REGISTRY).read_text()
    names = [n for entry in ENTRY.findall(text) for n in re.findall(r'"([a-z0-9_]+)"', entry)]
    if len(names) < 4:
        fail(f"{REGISTRY}: found only {names} as model_type names; is the table still there?")
    return names


def family_words(root):
    """The identifiers and headers of the families' own files: their classes and structs."""
    words = {f"families/{p.name}" for p in (root / FAMILIES).glob("*.h")}
    for header in (root / FAMILIES).glob("*.h"):
        words |= set(re.findall(r"^(?:struct|class|enum class)\s+(\w+)[^;{]*\{",
                                header.read_text(), re.M))
    return words


def problems(root):
    names = model_types(root)
    words = family_words(root)
    literal = re.compile("|".join(re.escape(f'"{n}"') for n in names))
    word = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(words)) + r")\b")
    for path in cpp_files(root, ("core", "app"), 100):
        rel = path.relative_to(root)
        if rel == REGISTRY or rel.parent == FAMILIES or rel.parent == REGISTRY.parent and \
                rel.name == "CMakeLists.txt":
            continue
        code = COMMENT.sub("", path.read_text())
        for found in [] if rel in OTHER_NAMESPACES else literal.findall(code):
            yield f"{rel}: names the model_type {found}; ask the registry (architectures.h)"
        for found in set(word.findall(code)):
            yield f"{rel}: uses {found} of a family's own files; go through the registry"


def main(root):
    root = pathlib.Path(root)
    names = model_types(root)
    check_all(list(problems(root)),
              f"the model types {', '.join(names)} and the families' own types appear only in "
              f"{REGISTRY} and {FAMILIES}/")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: family_names_check.py ROOT")
    main(sys.argv[1])
