#!/usr/bin/env python3
"""No function in core/ or app/ is over 80 lines, so each reads on one screen. A function is a
definition that opens at the start of a line at namespace level (after clang-format, the house
style), counted from its signature to its closing brace. Usage: function_length_check.py ROOT"""
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


def long_functions(path):
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
                    if number - start + 1 > LIMIT:
                        yield f"{path}:{start}: {name} is {number - start + 1} lines (limit {LIMIT})"
                    start = None
        if start is not None and stack.count(False) == 0 and line.rstrip().endswith(";"):
            start = None  # a declaration, not a definition


def main(root):
    files = cpp_files(root, ("core", "app"), 40)
    check_all([problem for path in files for problem in long_functions(path)],
              f"no function over {LIMIT} lines in {len(files)} files of core/ and app/")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: function_length_check.py ROOT")
    main(sys.argv[1])
