#!/usr/bin/python3
"""The portable binary on a CPU without AVX: under `qemu-x86_64 -cpu Nehalem` (SSE4.2, no AVX,
AVX2, FMA or AVX-512) mha-viz must start, pick its SSE2 engine path, and write the same traces
as natively (on this machine's best path) within 1e-5, for a plain, a causal padded batch and a
cross-attention scene. An AVX instruction anywhere on the baseline path (an Eigen template from
an AVX kernel picked by the linker, a -march=native build) dies here with SIGILL.

    python3 tests/no_avx_check.py build/app/mha-viz

Exit 0: pass; 1: fail; 77: skipped (no qemu-x86_64 here).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, fail

TOLERANCE = 1e-5
CASES = [
    [],
    ["--sentence", "The cat sat on the mat.", "--sentence", "It was tired because it ran all day.",
     "--mask", "causal", "--d-model", "96", "--heads", "6"],
    ["--sentence", "Where is the station?", "--source", "Wo ist der Bahnhof, bitte?",
     "--weights", "designed", "--ablate", "2"],
]


def worst_difference(a, b, path="trace"):
    """Largest |a - b| over the numbers of two JSON values of the same structure."""
    if isinstance(a, bool) or isinstance(a, str) or a is None:
        if a != b:
            fail(f"{path} differs: {a!r} against {b!r}")
        return 0.0
    if isinstance(a, (int, float)):
        return abs(a - b)
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            fail(f"{path} has another shape")
        return max((worst_difference(x, y, path) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, dict):
        if a.keys() != b.keys():
            fail(f"{path} has other keys")
        return max((worst_difference(a[k], b[k], f"{path}.{k}") for k in a), default=0.0)
    fail(f"{path}: unexpected {type(a)}")


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        fail(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    qemu = shutil.which("qemu-x86_64")
    if not qemu:
        print("skipped: qemu-x86_64 is not installed (Debian package qemu-user)")
        return 77
    emulated = [qemu, "-cpu", "Nehalem", binary]
    version = run(emulated + ["--version"])
    check("engine: sse2" in version, "without AVX the engine runs its SSE2 path: " +
          version.strip().replace("\n", "; "))
    with tempfile.TemporaryDirectory(prefix="mha-no-avx-") as tmp:
        for number, args in enumerate(CASES):
            native_path = os.path.join(tmp, f"native-{number}.json")
            emulated_path = os.path.join(tmp, f"nehalem-{number}.json")
            run([binary, *args, "--json", native_path])
            run(emulated + [*args, "--json", emulated_path])
            with open(native_path) as a, open(emulated_path) as b:
                worst = worst_difference(json.load(a), json.load(b))
            check(worst <= TOLERANCE,
                  f"case {number + 1}: the trace without AVX is the native one within "
                  f"{TOLERANCE:g} (worst {worst:.2g})")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
