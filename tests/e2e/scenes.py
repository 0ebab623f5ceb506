#!/usr/bin/python3
"""End-to-end: scenes from the keyboard in the real window. Ctrl+O then 3 opens the third
demo scene (a padded batch of three sentences); Ctrl+S saves the scene into the export folder
as JSON that holds the same settings.
"""
import json
import os
import sys

from harness import wait_until, App, check

EMPTY_SPOT = (1000, 885)  # leave the text field, so digits are not typed into it

with App(sys.argv[1]) as app:
    app.click(*EMPTY_SPOT)
    app.chord("ctrl+o")
    app.chord("3")
    _, trace = app.export()
    check(len(trace["sentences"]) == 3, f"demo scene 3 opened: {len(trace['sentences'])} sentences")
    check(any(row[-1] for row in trace["key_padding"]), "the batch is padded")
    app.chord("ctrl+s")
    wait_until(lambda: app.files("mha-viz-scene"), "Ctrl+S to save the scene")
    saved = app.files("mha-viz-scene")
    check(len(saved) == 1, f"Ctrl+S saved {saved}")
    with open(os.path.join(app.export_dir, saved[0])) as f:
        scene = json.load(f)
    check(scene["format"] == "mha-scene" and scene["sentences"] == [s["text"] for s in trace["sentences"]],
          "the saved scene holds the same sentences")
    check(app.alive(), "the app is still running")
print("1 passed, 0 failed")
