#!/usr/bin/python3
"""End-to-end: a scene too large to compute within a frame (4 sentences of 500 tokens,
d_model 1024, H 64) runs on a worker thread: a letter typed into it reaches the scene, the
window keeps drawing frames and answering keys while the maps are computed (Ctrl+S saves the
scene holding the new letter), and the new maps replace the old ones when the worker is done.
No clock: the app's state line says when it computes and how many frames it drew meanwhile.
"""
import json
import os
import sys

from harness import App, check, wait_until, xdotool

WORDS = " ".join(f"w{i}" for i in range(500))


def saved_scenes(app):
    return app.files("mha-viz-scene")


args = []
for _ in range(4):
    args += ["--sentence", WORDS]
with App(sys.argv[1], *args, "--d-model", "1024", "--heads", "64") as app:
    app.click(200, 40)
    # One letter starts a recompute far longer than a frame; Ctrl+S right after it, in order.
    xdotool("type", "x")
    xdotool("key", "ctrl+s")
    computing = app.wait_state(lambda s: s["computing"], "the worker computing the edited scene")
    check(computing["sentences"][0] != WORDS and "x" in computing["sentences"][0],
          "the typed letter is in the scene")
    check(computing["shown_sentences"][0] == WORDS, "the old maps stay on screen meanwhile")
    wait_until(lambda: saved_scenes(app), "Ctrl+S to save the scene")
    with open(os.path.join(app.export_dir, saved_scenes(app)[0])) as f:
        check(json.load(f)["sentences"][0] == computing["sentences"][0],
              "Ctrl+S saved the scene holding the typed letter")
    # Frames go on while the worker runs: the window is not blocked by the computation. Only
    # lines that still say "computing" count; a window frozen until the end would show none.
    frames = set()

    def seen(state):
        if state["computing"]:
            frames.add(state["frame"])
        return len(frames) >= 3 or not state["computing"]
    app.wait_state(seen, "frames drawn while computing")
    check(len(frames) >= 3, f"the window drew frames while computing ({len(frames)} seen)")
    done = app.wait_state(lambda s: not s["computing"], "the worker finished")
    check(done["shown_sentences"] == done["sentences"], "the new maps replaced the old ones")
    app.chord("ctrl+s")
    wait_until(lambda: len(saved_scenes(app)) == 2, "a second Ctrl+S after the new maps are in")
    check(app.alive(), "the app is still running")
print("1 passed, 0 failed")
