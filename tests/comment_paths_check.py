#!/usr/bin/env python3
"""Every repository path a comment names exists, so a moved file leaves no comment pointing at
its old place. Reads the comments of the C++ files of core/, app/ and tests/ (// and /* */), the
# comments of every CMakeLists.txt and *.cmake, and the # comments and docstrings of the Python
and shell files under tests/ and cmake/. A path is a token that starts with a top-level folder
(core/, app/, …) or has a folder and a known extension (engine/simd.h, the include roots core/
and app/ count); a glob or placeholder in it (*, {l}, <case>, SSSSSS, ...) must match a file.
Build outputs, absolute paths and URLs are not repository paths. Usage: comment_paths_check.py ROOT
"""
import ast
import pathlib
import re
import sys
import tokenize

from checks import check_all, cpp_files, fail

TOP = ("core", "app", "tests", "docs", "assets", "cmake", "shaders")
# Extensions of the repository's own text files; an output (a .png, a .csv) is named with a
# folder of its own (DIR/, out/) or not at all.
EXTENSIONS = (".h", ".cpp", ".py", ".md", ".json", ".sh", ".txt", ".cmake", ".glsl", ".frag",
              ".vert")
# First folders of paths that are not in the repository: build trees and installed files.
NOT_REPO = re.compile(r"^(build[^/]*|lib|bin|share|usr|etc|tmp|home|out|runs|[A-Z_]+)/")
# Characters that end a path inside prose: quotes, brackets, commas, `=`.
SEPARATORS = re.compile(r"[\s`'\"()\[\],;=|]+")
PLACEHOLDER = re.compile(r"<[^>/]*>|\{[^}/]*\}|SSSSSS|\.\.\.|…")


def cpp_comments(text):
    """(line, text) of each // and /* */ comment, skipping string, char and raw string literals."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n", i) if c + text[i + 1] == "//" else text.find("*/", i)
            end = n if end < 0 else end
            yield line, text[i + 2:end]
            line += text.count("\n", i, end)
            i = end
            continue
        raw = re.match(r'R"([^()\\\s]{0,16})\(', text[i:i + 20]) if c == "R" else None
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + raw.group(1) + '"', i)
            end = n if end < 0 else end + len(raw.group(1)) + 2
        elif c == '"' or (c == "'" and not re.match(r"[0-9A-Fa-f]", text[i - 1:i])):
            end = i + 1  # a literal: to its closing quote, past escapes
            while end < n and text[end] not in (c, "\n"):
                end += 2 if text[end] == "\\" else 1
            end += 1
        else:
            end = i + 1
        line += text.count("\n", i, end)
        i = end


def hash_comments(text):
    """(line, text) of each # comment of a CMake or shell file: a # outside quotes that starts a
    word (so not $# or ${#x}); the #! line is skipped."""
    for number, raw in enumerate(text.splitlines(), 1):
        if number == 1 and raw.startswith("#!"):
            continue
        quote = None
        for i, c in enumerate(raw):
            if quote:
                quote = None if c == quote and raw[i - 1] != "\\" else quote
            elif c in "\"'":
                quote = c
            elif c == "#" and (i == 0 or raw[i - 1] in " \t;("):
                yield number, raw[i + 1:]
                break


def python_comments(path):
    """(line, text) of each # comment and each docstring of a Python file."""
    with tokenize.open(path) as source:
        for token in tokenize.generate_tokens(source.readline):
            if token.type == tokenize.COMMENT and not (token.start[0] == 1 and
                                                       token.string.startswith("#!")):
                yield token.start[0], token.string[1:]
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                for offset, text in enumerate(body[0].value.value.splitlines()):
                    yield body[0].lineno + offset, text


def named_paths(comment):
    """The tokens of a comment that name a repository path, trailing punctuation removed."""
    for token in SEPARATORS.split(comment):
        token = re.sub(r"#.*$|:\d+$", "", token)  # an anchor or a line number
        token = token.rstrip(".:!?").rstrip("/")
        if token.startswith("./"):
            token = token[2:]
        if "/" not in token or "://" in token or token.startswith(("/", "$", "~", ".", "-")):
            continue  # not a path, a URL, absolute, in a variable, in the home, relative to ..
        if NOT_REPO.match(token) or "__pycache__" in token:
            continue
        if token.split("/")[0] in TOP or PLACEHOLDER.sub("x", token).endswith(EXTENSIONS):
            yield token


def exists(root, folder, token):
    """Whether the path is in the repository: from ROOT, or (for paths that do not start with a
    top-level folder) from the include roots core/ and app/ or the commenting file's folder. A
    path without an extension may name a unit (core/io/run_folder: its .h or .cpp)."""
    pattern = PLACEHOLDER.sub("*", token)
    bases = [root] if token.split("/")[0] in TOP else [root, root / "core", root / "app", folder]
    for base in bases:
        for candidate in (pattern, pattern + ".h", pattern + ".cpp", pattern + ".py"):
            if "*" in candidate:
                if any(base.glob(candidate)):
                    return True
            elif (base / candidate).exists():
                return True
    return False


def comment_files(root):
    """Each file to read with the function that yields its comments."""
    for path in cpp_files(root, ("core", "app", "tests"), 60):
        yield path, lambda p: cpp_comments(p.read_text())
    folders = [root / folder for folder in TOP if (root / folder).is_dir()]
    for path in sorted([root / "CMakeLists.txt"] + [p for f in folders for p in f.rglob("*")
                                                    if p.name == "CMakeLists.txt" or
                                                    p.suffix == ".cmake"]):
        yield path, lambda p: hash_comments(p.read_text())
    for folder in ("tests", "cmake"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix == ".py":
                yield path, python_comments
            elif path.suffix == ".sh":
                yield path, lambda p: hash_comments(p.read_text())


def main(root):
    root = pathlib.Path(root)
    problems, count = [], 0
    for path, comments in comment_files(root):
        count += 1
        for line, text in comments(path):
            for token in named_paths(text):
                if not exists(root, path.parent, token):
                    problems.append(f"{path}:{line}: names '{token}' which does not exist")
    check_all(problems, f"every path named in the comments of {count} files exists")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: comment_paths_check.py ROOT")
    main(sys.argv[1])
