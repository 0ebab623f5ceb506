#!/usr/bin/python3
"""End-to-end: the views beside the grid and the demo-scene list, from keyboard and mouse.
V / Shift+V step through the view tabs (Head, Mean, A-B, Lines, Stats, ...) and Ctrl+S saves
the tab shown with the scene; the Demos list in the sentences panel opens a demo scene, whose
saved view (the line view for cross-attention) is restored with it.
"""
import json
import os
import sys

from harness import wait_until, App, check, png_info

EMPTY_SPOT = (1000, 885)
DEMOS_COMBO = (311, 111)
CROSS_ATTENTION_ITEM = (330, 197)  # the fourth demo in the open list


def saved_scene(app):
    before = set(os.listdir(app.export_dir)) if os.path.isdir(app.export_dir) else set()
    app.chord("ctrl+s")
    new = lambda: [n for n in set(app.files()) - before if n.startswith("mha-viz-scene")]
    wait_until(new, "Ctrl+S to save a scene")
    with open(os.path.join(app.export_dir, new()[0])) as f:
        return json.load(f)


with App(sys.argv[1]) as app:
    # The window's OpenMP workers sleep between recomputes, so llvmpipe has the cores to draw
    # (app/platform/thread_policy.h): the app runs itself again with OMP_WAIT_POLICY=passive.
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        with open(f"/proc/{app.proc.pid}/environ", "rb") as f:
            check(b"OMP_WAIT_POLICY=passive" in f.read().split(b"\0"),
                  "the window runs with OMP_WAIT_POLICY=passive")
    app.click(*EMPTY_SPOT)
    app.chord("v")
    check(saved_scene(app)["view"]["tab"] == "mean", "V: Head -> Mean")
    for _ in range(3):
        app.chord("v")
    check(saved_scene(app)["view"]["tab"] == "statistics", "V V V: -> Stats")
    app.chord("shift+v")
    scene = saved_scene(app)
    check(scene["view"]["tab"] == "lines", "Shift+V: back to Lines")
    png, _ = app.export()
    check(png_info(png)[2] > 0.05, "the line view renders")
    app.chord("shift+v")  # -> A-B, so the demo's own view is what brings Lines back
    check(saved_scene(app)["view"]["tab"] == "difference", "Shift+V: -> A-B")

    app.click(*DEMOS_COMBO)
    app.click(*CROSS_ATTENTION_ITEM)
    _, trace = app.export()
    check(trace["config"]["cross"] and trace["sources"], "Demos -> cross-attention opened")
    check(saved_scene(app)["view"]["tab"] == "lines", "the demo's saved view came with it")
    check(app.alive(), "the app is still running")
print("1 passed, 0 failed")
