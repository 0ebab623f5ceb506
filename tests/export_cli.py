#!/usr/bin/python3
"""Headless figure export: `mha-viz --sentence ... --export DIR` with no display writes every
head as SVG, PNG and CSV, the grid as SVG and PNG, and the trace; SVG parses as XML and holds
the tokens; PNGs are not flat; --export-scale 2 doubles their size; CSV rows sum to 1; a
second export into the same folder adds files and changes none.
Usage (ctest does this): tests/export_cli.py build/app/mha-viz
"""
import csv
import hashlib
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

binary = sys.argv[1]
SENTENCE = "The black cat sat on the mat because it was tired ."


def check(condition, message):
    if not condition:
        print("FAIL: " + message, file=sys.stderr)
        sys.exit(1)
    print("ok: " + message)


def export(folder, *extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run([binary, "--sentence", SENTENCE, "--weights", "designed", "--export", folder, *extra],
                          env=env, capture_output=True, text=True, timeout=120)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{os.path.basename(path)} is a PNG")
    return struct.unpack(">II", head[16:24])


def spread(path):
    out = subprocess.run(["identify", "-format", "%[fx:standard_deviation]", path], capture_output=True, text=True)
    return float(out.stdout) if out.returncode == 0 else None


def digest(folder):
    return {n: hashlib.sha256(open(os.path.join(folder, n), "rb").read()).hexdigest() for n in os.listdir(folder)}


with tempfile.TemporaryDirectory(prefix="mha-export-") as tmp:
    out = os.path.join(tmp, "out")
    done = export(out)
    check(done.returncode == 0, f"export without a display exits 0 ({done.stderr.strip()})")
    names = sorted(os.listdir(out))
    heads = [n for n in names if "-head-" in n]
    check(len(heads) == 8 * 3, f"8 heads x (svg, png, csv): {len(heads)} files")
    for n in ("mha-viz-grid.svg", "mha-viz-grid.png", "mha-viz-trace.json",
              "mha-viz-head-05-pronoun-antecedent.svg"):
        check(n in names, f"{n} written")

    svg = ET.parse(os.path.join(out, "mha-viz-head-05-pronoun-antecedent.svg")).getroot()
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    check(all(tok in texts for tok in SENTENCE.split()), "SVG parses as XML and holds every token as text")
    check(any("d_model 64, H 8, d_head 8" in (t or "") for t in texts), "SVG caption states the sizes")
    check(len(list(svg.iter("{http://www.w3.org/2000/svg}rect"))) >= 12 * 12, "SVG cells are real rects")
    ET.parse(os.path.join(out, "mha-viz-grid.svg"))

    with open(os.path.join(out, "mha-viz-head-01-previous-token.csv"), newline="") as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["query"] + SENTENCE.split(), "CSV header: the key tokens")
    check(all(abs(sum(float(v) for v in r[1:]) - 1) < 1e-5 for r in rows[1:]), "CSV rows sum to 1")

    one = png_size(os.path.join(out, "mha-viz-head-01-previous-token.png"))
    s = spread(os.path.join(out, "mha-viz-head-01-previous-token.png"))
    check(s is None or s > 0.05, f"PNG not flat ({s})")
    grid = png_size(os.path.join(out, "mha-viz-grid.png"))
    check(grid[0] > one[0], "grid PNG is wider than one head")

    before = digest(out)
    again = export(out, "--export-scale", "2")
    check(again.returncode == 0, "second export into the same folder exits 0")
    after = digest(out)
    check(all(after[n] == before[n] for n in before), "the second export changed no existing file")
    check(len(after) == 2 * len(before), f"and added as many new files ({len(after) - len(before)})")
    two = png_size(os.path.join(out, "mha-viz-head-01-previous-token-2.png"))
    check(two == (2 * one[0], 2 * one[1]), f"--export-scale 2 doubles the PNG: {one} -> {two}")

    bad = export(os.path.join(tmp, "x"), "--export-scale", "5")
    check(bad.returncode == 2 and bad.stderr.count("\n") == 1, "--export-scale 5: exit 2, one line")
    blocked = os.path.join(tmp, "file")
    open(blocked, "w").close()
    bad = export(os.path.join(blocked, "sub"))
    check(bad.returncode == 2 and "file/sub" in bad.stderr, "unwritable export folder: exit 2 naming it")
print("1 passed, 0 failed")
