#!/usr/bin/env python3
"""No function or lambda in core/ or app/ is over 80 lines, so each reads on one screen. A
function is a definition that opens at the start of a line at namespace level (after
clang-format, the house style), counted from its signature to its closing brace. A lambda is
counted from the line of its `[...](...)` or `[...] {` to its closing brace, wherever it is.
Usage: function_length_check.py ROOT"""
import re
import sys

from checks import check_all, cpp_files, fail

LIMIT = 80
# Namespace-level lines that open a block but are not functions.
NOT_FUNCTION = re.compile(r"^(namespace|struct|class|enum|union|extern|static_assert)\b|=\s*\{?$")


def strip_literals(line):
    """The line without string/char literals and // comments, so their braces do not count."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def functions(path):
    """(first line, last line, name) of each namespace-level function definition."""
    stack = []  # one entry per open brace: True for a namespace's, False for any other
    start = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = strip_literals(raw)
        depth = stack.count(False)  # braces that are not namespaces
        if depth == 0 and start is None and line[:1] not in ("", " ", "#", "}", "/") \
                and "(" in line and not NOT_FUNCTION.search(line):
            start, name = number, line.split("(")[0].split()[-1]
        for brace in re.findall(r"[{}]", line):
            if brace == "{":
                stack.append(bool(re.match(r"^(inline\s+)?namespace\b", line)))
            elif stack:
                stack.pop()
                if start is not None and stack.count(False) == 0:
                    yield start, number, name
                    start = None
        if start is not None and stack.count(False) == 0 and line.rstrip().endswith(";"):
            start = None  # a declaration, not a definition


# A lambda's introducer and what may stand between it and its body's brace: template and
# parameter lists, specifiers, a trailing return type.
LAMBDA = re.compile(r"\[[^\[\]{};]*\]\s*(<[^<>{};]*>\s*)?(\((?:[^();{}]|\([^();{}]*\))*\)\s*)?"
                    r"((mutable|constexpr|consteval|noexcept|->\s*[\w:<>,* &]+?)\s*)*\{")
# Words after which `[` starts a lambda; after any other word, `)` or `]` it is a subscript.
BEFORE_LAMBDA = {"return", "co_return", "co_yield", "case", "else", "do"}


def code_only(text):
    """The file without comments and string/char literals, newlines kept, so line numbers and
    braces are those of the code."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    return "\n".join(strip_literals(line) for line in text.split("\n"))


def lambdas(path):
    """(first line, last line) of each lambda, nested ones included."""
    code = code_only(path.read_text())
    for match in LAMBDA.finditer(code):
        before = code[:match.start()].rstrip()
        word = re.search(r"\w+$", before)
        if before.endswith((")", "]")) or (word and word.group() not in BEFORE_LAMBDA):
            continue  # a subscript, operator[] or an array's size
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(code)):
            depth += {"{": 1, "}": -1}.get(code[end], 0)
            if depth == 0:
                break
        yield code.count("\n", 0, match.start()) + 1, code.count("\n", 0, end) + 1


def long_functions(path):
    spans = list(functions(path))
    for start, end, name in spans:
        if end - start + 1 > LIMIT:
            yield f"{path}:{start}: {name} is {end - start + 1} lines (limit {LIMIT})"
    for start, end in lambdas(path):
        if end - start + 1 > LIMIT:
            owner = next((name for first, last, name in spans if first <= start <= last),
                         "namespace scope")
            yield f"{path}:{start}: lambda in {owner} is {end - start + 1} lines (limit {LIMIT})"


def main(root):
    files = cpp_files(root, ("core", "app"), 40)
    check_all([problem for path in files for problem in long_functions(path)],
              f"no function or lambda over {LIMIT} lines in {len(files)} files of core/ and app/")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: function_length_check.py ROOT")
    main(sys.argv[1])
