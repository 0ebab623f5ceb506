#!/usr/bin/env python3
"""The whole tree follows .clang-format: `clang-format --dry-run --Werror` on every C++ file of
core/, app/ and tests/. Fails when clang-format is missing (cmake/setup.sh test installs
Debian 12's clang-format 14, the version the tree is formatted with). Usage: format_check.py ROOT"""
import shutil
import subprocess
import sys

from checks import cpp_files, fail


def main(root):
    tool = shutil.which("clang-format") or shutil.which("clang-format-14")
    if not tool:
        fail("clang-format is not installed (bash cmake/setup.sh test installs it)")
    files = [str(p) for p in cpp_files(root, ("core", "app", "tests"), 60)]
    result = subprocess.run([tool, "--dry-run", "--Werror", *files], capture_output=True,
                            text=True)
    if result.returncode != 0:
        fail("not formatted (run clang-format -i on these):\n" + result.stderr[-4000:])
    print(f"ok: {len(files)} files formatted as .clang-format says")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: format_check.py ROOT")
    main(sys.argv[1])
