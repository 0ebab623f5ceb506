#!/usr/bin/python3
"""End-to-end: a scene too large to compute within a frame (4 sentences of 500 tokens,
d_model 1024, H 64) runs on a worker thread: typing into it, the window still answers at
once (Ctrl+S saves the scene holding the new letter while the maps are being computed), and
the app is alive and answering once the new maps are in.
"""
import json
import os
import sys
import time

from harness import App, check, xdotool

WORDS = " ".join(f"w{i}" for i in range(500))


def saved_scenes(app):
    return sorted(n for n in os.listdir(app.export_dir) if n.startswith("mha-viz-scene")) \
        if os.path.isdir(app.export_dir) else []


args = []
for _ in range(4):
    args += ["--sentence", WORDS]
with App(sys.argv[1], *args, "--d-model", "1024", "--heads", "64") as app:
    app.click(200, 40)
    time.sleep(0.3)
    xdotool("type", "x")  # a recompute that takes far longer than a frame starts now
    time.sleep(0.2)       # the field takes the letter in the frame after the key
    start = time.time()
    app.chord("ctrl+s")
    while not saved_scenes(app) and time.time() - start < 10:
        time.sleep(0.02)
    answered = time.time() - start
    check(saved_scenes(app), "Ctrl+S saved the scene")
    check(answered < 1.5, f"the window answered after {answered:.2f} s while computing")
    with open(os.path.join(app.export_dir, saved_scenes(app)[0])) as f:
        first = json.load(f)["sentences"][0]
        check(first != WORDS and "x" in first, "the typed letter is in the scene")
    time.sleep(6)  # the worker finishes; its maps replace the old ones
    app.chord("ctrl+s")
    time.sleep(1)
    check(len(saved_scenes(app)) == 2, "the window answers after the new maps are in")
    check(app.alive(), "the app is still running")
print("1 passed, 0 failed")
