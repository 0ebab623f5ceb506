#!/usr/bin/python3
"""Soak of the Train view: a small model trains (a scene with a "train" object, opened with
--scene) while random Train keys, clicks, drags and wheel turns hit the window for a bounded
time (MHA_SOAK_SECONDS, default 40), with Ctrl+T to the explorer and back. The app must stay
alive and consistent (the step shown never past the newest, the timeline bounded however long it
trains), then still pause, scrub and export the maps. The seed is printed (MHA_SOAK_SEED replays).
"""
import json
import os
import random
import sys
import tempfile
import time

from harness import App, WINDOW_W, WINDOW_H, check, fail, png_info, xdotool

SECONDS = float(os.environ.get("MHA_SOAK_SECONDS", "40"))
SEED = int(os.environ.get("MHA_SOAK_SEED", str(int(time.time()))))
KEYS = ["space", "s", "r", "p", "Left", "Right", "Home", "End", "e", "m", "ctrl+t", "F1",
        "Escape", "ctrl+plus", "ctrl+minus", "Tab", "Return", "1", "BackSpace"]
MAX_SNAPSHOTS = 150  # core/train/snapshot_history.h: kMaxSnapshots, the timeline's bound


def random_action(app, rng):
    kind = rng.random()
    x, y = rng.randrange(5, WINDOW_W - 5), rng.randrange(5, WINDOW_H - 5)
    if kind < 0.45:
        xdotool("key", "--delay", 20, rng.choice(KEYS))
    elif kind < 0.75:
        xdotool("mousemove", "--window", app.window, x, y)
        xdotool("click", rng.choice([1, 1, 3]))
    elif kind < 0.9:
        xdotool("mousemove", "--window", app.window, x, y)
        xdotool("mousedown", 1)
        for _ in range(3):
            xdotool("mousemove", "--window", app.window,
                    min(WINDOW_W - 5, max(5, x + rng.randrange(-300, 300))), y)
        xdotool("mouseup", 1)
    else:
        xdotool("mousemove", "--window", app.window, x, y)
        xdotool("click", "--repeat", rng.randrange(1, 4), rng.choice([4, 5]))


def consistent(state):
    t = state["train"]
    return t["shown_step"] <= max(t["step"], 0) and t["snapshots"] <= MAX_SNAPSHOTS


print(f"train soak: {SECONDS:.0f} s, seed {SEED}")
rng = random.Random(SEED)
scene = {"format": "mha-scene", "version": 1, "sentences": ["The cat sat."], "d_model": 64,
         "heads": 8, "train": {"task": "induction", "layers": 2, "d_model": 32, "heads": 4,
                               "seq": 16, "batch": 8, "steps": 999999, "eval_every": 10}}
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(scene, f)
try:
    with App(sys.argv[1], "--scene", f.name) as app:
        app.wait_state(lambda s: s["train"]["state"] == "training", "the scene trains on open")
        end, actions = time.time() + SECONDS, 0
        while time.time() < end and app.alive():
            random_action(app, rng)
            actions += 1
            if actions % 25 == 0:
                state = app.sync()
                if not consistent(state):
                    brief = {k: v for k, v in state["train"].items() if k != "heldout_loss"}
                    fail(f"inconsistent after {actions} actions (seed {SEED}): {brief}")
        if not app.alive():
            err = app.proc.stderr.read().strip().splitlines()[-15:]
            fail(f"died with exit code {app.proc.returncode} after {actions} random actions "
                 f"(seed {SEED}); last stderr lines:\n" + "\n".join(err))
        print(f"ok: alive and consistent after {actions} random actions (seed {SEED})")
        # A known state: the Train view, live, not playing; then the maps of step 0.
        state = app.sync()
        if not state["train"]["active"]:
            app.chord("ctrl+t")
        app.chord("Escape")
        state = app.wait_state(lambda s: s["train"]["active"] and not s["train"]["writing"],
                               "back in the Train view with no file being written")
        brief = {k: v for k, v in state["train"].items() if k != "heldout_loss"}
        check(consistent(state), f"consistent: {brief}")
        before = set(app.files("train-maps"))
        app.chord("Home")
        app.chord("m")
        app.wait_state(lambda s: not s["train"]["writing"] and set(app.files("train-maps")) - before,
                       "M exports the maps")
        folder = sorted(set(app.files("train-maps")) - before)[0]
        width, height, spread = png_info(os.path.join(app.export_dir, folder, "maps.png"))
        check(width > 300 and height > 300 and spread > 0.05, f"maps.png {width}x{height}")
        check(app.alive(), "the app is still running")
finally:
    os.unlink(f.name)
print("1 passed, 0 failed")
