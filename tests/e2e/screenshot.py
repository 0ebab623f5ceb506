#!/usr/bin/python3
"""--screenshot renders the window until settled and saves it: for the demo, a causal
padded batch and cross-attention the PNG has the window's size and is not flat; an
unwritable path exits 2 with a one-line message. --bench-frames prints its summary line.
"""
import os
import re
import subprocess
import sys
import tempfile

from harness import WINDOW_H, WINDOW_W, check, png_info

binary = sys.argv[1]
scenes = {
    "demo": [],
    "causal_batch": ["--mask", "causal", "--sentence", "The cat sat on the mat because it was tired.",
                     "--sentence", "A dog barked."],
    "cross": ["--sentence", "The cat sat on the mat.", "--source", "Le chat s'est assis sur le tapis."],
    "pipeline_pitfalls": ["--view", "pipeline", "--reshape-bug", "--ablate", "2,3", "--no-out-proj", "--heads", "4"],
    "steps": ["--view", "steps", "--scale", "none"],
    "cost": ["--view", "cost", "--d-model", "128", "--heads", "16"],
    "long_token": ["--sentence", "a" * 4000 + " b"],  # labels are cut, not re-measured per letter
    "ui_scale_1_5": ["--ui-scale", "1.5"],  # a projector: type and maps 1.5x, same window
    "ui_scale_2": ["--ui-scale", "2", "--view", "pipeline"],
}
with tempfile.TemporaryDirectory(prefix="mha-shot-") as tmp:
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(tmp, "config"))
    for name, args in scenes.items():
        path = os.path.join(tmp, name + ".png")
        done = subprocess.run([binary, "--screenshot", path, *args], env=env, capture_output=True, text=True,
                              timeout=180)
        check(done.returncode == 0, f"{name}: exit 0 ({done.stderr.strip()})")
        width, height, spread = png_info(path)
        scale = float(args[args.index("--ui-scale") + 1]) if "--ui-scale" in args else 1.0
        expected = (min(int(WINDOW_W * scale), 1600), min(int(WINDOW_H * scale), 1000))  # Xvfb screen
        check((width, height) == expected, f"{name}: {width} x {height}")
        check(spread > 0.05, f"{name}: not flat ({spread:.3f})")
    bad = subprocess.run([binary, "--screenshot", "/nonexistent-dir/shot.png"], env=env, capture_output=True,
                         text=True, timeout=180)
    check(bad.returncode == 2 and bad.stderr.count("\n") == 1 and "/nonexistent-dir/shot.png" in bad.stderr,
          "unwritable screenshot path: exit 2, one line naming it")
    bench = subprocess.run([binary, "--bench-frames", "5"], env=env, capture_output=True, text=True, timeout=180)
    phases = r"engine=[\d.]+ upload=[\d.]+ panels=[\d.]+ draw=[\d.]+ swap=[\d.]+"
    check(bench.returncode == 0 and re.fullmatch(r"frames=5 p50_ms=[\d.]+ p95_ms=[\d.]+ max_ms=[\d.]+\n"
                                                 rf"phases p50_ms {phases}\nphases p95_ms {phases}\n",
                                                 bench.stdout) is not None, f"bench lines: {bench.stdout.strip()}")
print("1 passed, 0 failed")
