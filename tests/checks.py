"""The two reporting helpers every test script uses: `ok: …` per passed check, `FAIL: …` on
stderr and exit 1 at the first failed one (ctest shows both)."""
import sys


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print("ok: " + message)


def cpp_files(root, folders, at_least):
    """The .h and .cpp files under root/folder for each folder, sorted; fails when fewer than
    `at_least` are found (a wrong ROOT must not pass a check of nothing)."""
    import pathlib
    files = sorted(p for folder in folders for p in (pathlib.Path(root) / folder).rglob("*")
                   if p.suffix in (".h", ".cpp"))
    if len(files) < at_least:
        fail(f"only {len(files)} C++ files found under {root} in {', '.join(folders)}")
    return files


def check_all(problems, success):
    """Fails with every problem, one per line, or prints `ok: success`."""
    if problems:
        fail("\n".join(problems))
    print("ok: " + success)
