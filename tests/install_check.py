"""Installs a build into a temporary prefix and checks what a desktop and a packager rely on:
the binary runs, the .desktop file and the AppStream metainfo validate, the icon exists at
every hicolor size with the right pixel size, the SVG parses, the man page is there.

    python3 tests/install_check.py BUILD_DIR

Validators that are not installed (desktop-file-utils, appstream) are skipped with a note.
"""
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from checks import check, fail

ICON_SIZES = [16, 24, 32, 48, 64, 128, 256]
APP_ID = "io.github.mha_viz.mha_viz"
SVG_NS = "{http://www.w3.org/2000/svg}"


def note(message):
    print("note: " + message)


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=60, **kwargs)


def project_version(build_dir):
    """VERSION of project() in the source tree the build folder was configured from."""
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if not os.path.isfile(cache):
        fail(build_dir + " is not a configured build folder (no CMakeCache.txt)")
    with open(cache, encoding="utf-8") as f:
        source = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", f.read(), re.M)
    if not source:
        fail(build_dir + " has no CMAKE_HOME_DIRECTORY in its CMakeCache.txt")
    with open(os.path.join(source.group(1), "CMakeLists.txt"), encoding="utf-8") as f:
        version = re.search(r"project\(\s*mha-viz\s+VERSION\s+([0-9.]+)", f.read())
    if not version:
        fail("no project(mha-viz VERSION ...) in " + source.group(1) + "/CMakeLists.txt")
    return version.group(1)


def check_binary(prefix, version):
    exe = os.path.join(prefix, "bin", "mha-viz")
    check(os.path.isfile(exe) and os.access(exe, os.X_OK), "bin/mha-viz is installed")
    env = dict(os.environ)
    env.pop("DISPLAY", None)  # --help and --version never need a window
    env.pop("MHA_ENGINE_DIR", None)  # the kernels must be found from the install prefix
    env.pop("MHA_SIMD", None)
    result = run([exe, "--help"], env=env)
    check(result.returncode == 0 and "--sentence" in result.stdout,
          "bin/mha-viz --help exits 0 and lists the options")
    result = run([exe, "--version"], env=env)
    lines = result.stdout.splitlines()
    check(result.returncode == 0 and lines[:1] == ["mha-viz " + version],
          "bin/mha-viz --version prints the project version " + version + ": " + result.stdout.strip())
    # The scalar kernel exists only as lib/mha-viz/libmha_engine_scalar.so: seeing it proves the
    # installed binary loads its kernels from the prefix, not from the build tree.
    kernels = os.path.join(prefix, "lib", "mha-viz")
    check(os.path.isfile(os.path.join(kernels, "libmha_engine_scalar.so")),
          "the engine kernels are installed in lib/mha-viz: " +
          ", ".join(sorted(os.listdir(kernels)) if os.path.isdir(kernels) else []))
    check(len(lines) == 2 and lines[1].startswith("engine: ") and " scalar" in lines[1],
          "the installed binary loads its kernels from the prefix: " + " ".join(lines[1:]))


def check_desktop_file(prefix):
    path = os.path.join(prefix, "share", "applications", "mha-viz.desktop")
    check(os.path.isfile(path), "share/applications/mha-viz.desktop is installed")
    with open(path, encoding="utf-8") as f:
        entries = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    check(entries.get("Icon") == "mha-viz" and entries.get("Exec", "").split()[0] == "mha-viz",
          "the desktop file starts mha-viz with the mha-viz icon")
    validator = shutil.which("desktop-file-validate")
    if not validator:
        note("desktop-file-validate missing (package desktop-file-utils): validation skipped")
        return
    result = run([validator, path])
    check(result.returncode == 0 and "error:" not in result.stdout,
          "desktop-file-validate accepts it " + (result.stdout.strip() or "(no hints)"))


def check_metainfo(prefix, version):
    path = os.path.join(prefix, "share", "metainfo", APP_ID + ".metainfo.xml")
    check(os.path.isfile(path), "share/metainfo/" + APP_ID + ".metainfo.xml is installed")
    root = ET.parse(path).getroot()
    check(root.findtext("id") == APP_ID, "the metainfo's id is " + APP_ID)
    launchable = root.findtext("launchable") or ""
    check(os.path.isfile(os.path.join(prefix, "share", "applications", launchable)),
          "its launchable " + launchable + " is installed")
    releases = [r.get("version") for r in root.iter("release")]
    check(releases[:1] == [version], "its newest release is the project version " + version)
    appstreamcli = shutil.which("appstreamcli")
    if not appstreamcli:
        note("appstreamcli missing (package appstream): validation skipped")
        return
    result = run([appstreamcli, "validate", "--no-net", path])
    check(result.returncode == 0, "appstreamcli validate --no-net accepts it: " +
          " ".join((result.stdout + result.stderr).split()))


def png_size(path):
    """(width, height) from the IHDR chunk, which the PNG format puts first."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        fail(path + " is not a PNG")
    return struct.unpack(">II", head[16:24])


def check_icons(prefix):
    theme = os.path.join(prefix, "share", "icons", "hicolor")
    for size in ICON_SIZES:
        name = "%dx%d/apps/mha-viz.png" % (size, size)
        path = os.path.join(theme, name)
        check(os.path.isfile(path), "share/icons/hicolor/" + name + " is installed")
        check(png_size(path) == (size, size), name + " is %d x %d pixels" % (size, size))
    svg = os.path.join(theme, "scalable", "apps", "mha-viz.svg")
    check(os.path.isfile(svg), "share/icons/hicolor/scalable/apps/mha-viz.svg is installed")
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        fail("the SVG icon does not parse: %s" % e)
    check(root.tag == SVG_NS + "svg" and root.get("viewBox") == "0 0 256 256",
          "the SVG icon parses, an <svg> with viewBox 0 0 256 256")


def check_man_page(prefix):
    man1 = os.path.join(prefix, "share", "man", "man1")
    gz, plain = os.path.join(man1, "mha-viz.1.gz"), os.path.join(man1, "mha-viz.1")
    if os.path.isfile(gz):
        with gzip.open(gz, "rt", encoding="utf-8") as f:
            text = f.read()
    elif os.path.isfile(plain):
        with open(plain, encoding="utf-8") as f:
            text = f.read()
    else:
        fail("no man page in share/man/man1 (mha-viz.1.gz or mha-viz.1)")
    check(re.search(r"^\.TH MHA-VIZ 1 ", text, re.M) is not None,
          "the man page is installed (%s)" % ("gzipped" if os.path.isfile(gz) else "plain"))


def main():
    if len(sys.argv) != 2:
        fail("usage: install_check.py BUILD_DIR")
    build_dir = os.path.abspath(sys.argv[1])
    version = project_version(build_dir)
    with tempfile.TemporaryDirectory(prefix="mha-install-") as prefix:
        result = run([os.environ.get("CMAKE", "cmake"), "--install", build_dir, "--prefix", prefix])
        check(result.returncode == 0, "cmake --install into a temporary prefix" +
              ("" if result.returncode == 0 else ": " + result.stderr.strip()))
        check_binary(prefix, version)
        check_desktop_file(prefix)
        check_metainfo(prefix, version)
        check_icons(prefix)
        check_man_page(prefix)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
