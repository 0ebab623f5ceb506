#!/usr/bin/python3
"""The Debian package as a user gets it: cpack builds the .deb from BUILD_DIR; its control
data declares the library dependencies dpkg-shlibdeps found; extracted into an empty folder
(never the build tree), its binary finds its engine kernels and runs, its desktop entry
validates, it has its icons and man page; and under `qemu-x86_64 -cpu Nehalem` (no AVX) the
extracted binary gives the native traces (tests/no_avx_check.py).

    python3 tests/package_check.py BUILD_DIR

Exit 0: pass; 1: fail.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, fail

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


def build_package(build_dir, out):
    done = run([os.environ.get("CPACK", "cpack"), "-G", "DEB", "-B", out], cwd=build_dir)
    debs = glob.glob(os.path.join(out, "*.deb"))
    check(done.returncode == 0 and len(debs) == 1,
          "cpack made one .deb" + ("" if done.returncode == 0 else ": " + done.stderr.strip()[-300:]))
    return debs[0]


def check_control(deb):
    depends = run(["dpkg-deb", "-f", deb, "Depends"]).stdout.strip()
    for library in ("libc6", "libstdc++6", "libglfw3", "libgomp1", "zlib1g"):
        check(library in depends, f"Depends names {library} (found by dpkg-shlibdeps): {depends}")
    check("fonts-dejavu-core" in depends, "Depends names the UI font's package")
    recommends = run(["dpkg-deb", "-f", deb, "Recommends"]).stdout.strip()
    check("fonts-wqy-microhei" in recommends, f"Recommends names the CJK font's package: {recommends}")


def check_tree(root):
    exe = os.path.join(root, "usr", "bin", "mha-viz")
    env = {k: v for k, v in os.environ.items() if k not in ("MHA_ENGINE_DIR", "MHA_SIMD", "DISPLAY")}
    version = run([exe, "--version"], env=env, cwd=root)
    lines = version.stdout.splitlines()
    check(version.returncode == 0 and len(lines) == 2 and " scalar" in lines[1],
          "the extracted binary runs and loads its kernels from usr/lib/mha-viz: " + " | ".join(lines))
    trace = run([exe, "--json", "-", "--sentence", "A packaged sentence."], env=env, cwd=root)
    check(trace.returncode == 0 and '"mha-trace"' in trace.stdout, "it writes a trace with no source tree")
    desktop = os.path.join(root, "usr", "share", "applications", "mha-viz.desktop")
    if shutil.which("desktop-file-validate"):
        valid = run(["desktop-file-validate", desktop])
        check(valid.returncode == 0 and not valid.stdout.strip(), "its desktop entry validates")
    else:
        print("note: desktop-file-validate missing; desktop entry not validated")
    icons = os.path.join(root, "usr", "share", "icons", "hicolor")
    for name in ("48x48/apps/mha-viz.png", "256x256/apps/mha-viz.png", "scalable/apps/mha-viz.svg"):
        check(os.path.isfile(os.path.join(icons, name)), "it has the icon " + name)
    check(os.path.isfile(os.path.join(root, "usr", "share", "man", "man1", "mha-viz.1.gz")), "and its man page")
    return exe


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    build_dir = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="mha-package-") as tmp:
        deb = build_package(build_dir, os.path.join(tmp, "out"))
        check_control(deb)
        root = os.path.join(tmp, "root")
        check(run(["dpkg-deb", "-x", deb, root]).returncode == 0, "dpkg-deb -x extracts it")
        exe = check_tree(root)
        no_avx = run([sys.executable, os.path.join(HERE, "no_avx_check.py"), exe])
        print(no_avx.stdout.strip())
        if no_avx.returncode == 77:
            print("note: qemu-x86_64 missing; the packaged binary was not run without AVX")
        else:
            check(no_avx.returncode == 0, "the packaged binary gives the native traces without AVX: "
                  + no_avx.stderr.strip())
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
