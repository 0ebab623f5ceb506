#!/usr/bin/python3
"""Each engine kernel (lib/mha-viz/libmha_engine_*.so) exports exactly one symbol,
mha_engine_kernel_v1: its Eigen and standard-library code, compiled for one SIMD level, is
local, so no other level's code can bind to it. Read with nm, never loaded: this also covers
kernels this CPU cannot run (the AVX-512 one on an AVX2 machine).

    python3 tests/kernel_symbols_check.py KERNEL.so...
"""
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for path in sys.argv[1:]:
        out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
        names = [line.split()[-1] for line in out.stdout.splitlines() if line.strip()]
        if out.returncode != 0 or names != ["mha_engine_kernel_v1"]:
            print(f"FAIL: {path} exports {names or out.stderr.strip()}", file=sys.stderr)
            return 1
        print(f"ok: {path} exports only mha_engine_kernel_v1")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
