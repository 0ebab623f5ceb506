#!/usr/bin/python3
"""--screenshot renders the window until settled and saves it: for the demo, a causal
padded batch, cross-attention, the pitfalls, the views and UI scales the PNG has the window's
size and is not flat, and the window's last state line (--state-file) says the maps on screen are
the ones asked for (sentences, tokens, mask, sources, pitfalls, view, d_model, heads); an
unwritable path exits 2 with a one-line message. --bench-frames prints its summary line.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from harness import WINDOW_H, WINDOW_W, check, png_info

binary = sys.argv[1]
DEMO = "The cat sat on the mat because it was tired."


def shown(state):
    return state["shown"]


# Per scene: what the state line of the frame captured must say.
EXPECT = {
    "demo": lambda s: s["shown_sentences"] == s["sentences"] and s["tab"] == "head"
    and shown(s)["mask"] == "none" and shown(s)["heads"] == s["heads"] == 8,
    "causal_batch": lambda s: s["shown_sentences"] == [DEMO, "A dog barked."]
    and shown(s)["mask"] == "causal" and shown(s)["tokens"] == [11, 4],
    "cross": lambda s: shown(s)["sources"] == ["Le chat s'est assis sur le tapis."],
    "pipeline_pitfalls": lambda s: s["tab"] == "pipeline" and shown(s)["reshape_bug"]
    and shown(s)["ablated_heads"] == [2, 3] and not shown(s)["out_projection"] and shown(s)["heads"] == 4,
    "steps": lambda s: s["tab"] == "steps" and shown(s)["scale"] == "none",
    "cost": lambda s: s["tab"] == "cost" and s["d_model"] == 128 and shown(s)["heads"] == 16,
    "long_token": lambda s: shown(s)["tokens"] == [2],
    "ui_scale_1_5": lambda s: s["shown_sentences"] == s["sentences"],
    "ui_scale_2": lambda s: s["tab"] == "pipeline",
}
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
        path, state_path = os.path.join(tmp, name + ".png"), os.path.join(tmp, name + ".state.json")
        done = subprocess.run([binary, "--screenshot", path, "--state-file", state_path, *args], env=env,
                              capture_output=True, text=True, timeout=180)
        check(done.returncode == 0, f"{name}: exit 0 ({done.stderr.strip()})")
        with open(state_path) as f:
            state = json.load(f)
        check(not state["computing"] and not state["error"] and EXPECT[name](state),
              f"{name}: the window shows what was asked for: {json.dumps(state)[:700]}")
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
