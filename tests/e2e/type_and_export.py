#!/usr/bin/python3
"""End-to-end: type a new sentence into the real window, press Ctrl+E, and check the
exported trace holds the typed tokens and the PNG is the whole, non-blank window.
Usage (ctest does this): xvfb-run -a -s "-screen 0 1600x1000x24" tests/e2e/type_and_export.py build/app/mha-viz
"""
import os
import subprocess
import sys

from harness import SENTENCE_FIELD, App, check, png_info

with App(sys.argv[1]) as app:
    app.click(*SENTENCE_FIELD)  # it has focus on start; clicking makes sure, as a person would
    app.chord("ctrl+a")
    app.type("the dog chased a red ball")
    png, trace = app.export()
    check(trace["format"] == "mha-trace", "the export is a trace")
    tokens = trace["sentences"][0]["tokens"]
    check(tokens == ["the", "dog", "chased", "a", "red", "ball"], f"typed tokens exported: {tokens}")
    check(trace["config"]["heads"] == 8 and trace["config"]["d_model"] == 64, "demo sizes: 8 heads, d_model 64")
    check(trace["config"]["weights"] == "designed" and trace["head_names"][0] == "previous-token",
          "the window starts with designed heads")
    prev = trace["attention"][0][0]  # previous-token head: "dog" (1) looks at "the" (0)
    check(max(range(6), key=lambda j: prev[1][j]) == 0, "previous-token head: dog -> the")
    check(len(trace["attention"][0]) == 8 and len(trace["attention"][0][0]) == 6, "8 maps of 6 x 6")
    width, height, spread = png_info(png)
    check((width, height) == app.geometry(), f"PNG is the window's size ({width} x {height})")
    check(spread > 0.05, f"PNG is not flat (pixel standard deviation {spread:.3f})")

    app.chord("Escape")  # unpins; must not throw the typed sentence away
    png2, trace2 = app.export()
    check(png2 != png, "a second export gets a new name")
    check(trace2["sentences"][0]["tokens"] == tokens, "Escape kept the typed sentence")
    check(app.alive(), "the app is still running")
    # What the desktop shows: the class its .desktop file matches, and the app's own icon.
    wm_class = subprocess.run(["xprop", "-id", app.window, "WM_CLASS"], capture_output=True, text=True).stdout
    check('"mha-viz", "mha-viz"' in wm_class, "WM_CLASS is mha-viz (StartupWMClass): " + wm_class.strip())
    icon = subprocess.run(["xprop", "-id", app.window, "_NET_WM_ICON"], capture_output=True, text=True).stdout
    check("Icon (16 x 16)" in icon and "Icon (128 x 128)" in icon, "the window carries its icon, 16 to 128 px")
    ini = os.path.join(app.tmp.name, "config", "mha-viz", "imgui.ini")
    app.proc.terminate()  # like Ctrl+C in the terminal: a clean shutdown
    check(app.proc.wait(timeout=10) == 0, "SIGTERM ends the app cleanly (exit 0)")
    check(os.path.isfile(ini), "imgui.ini is in $XDG_CONFIG_HOME/mha-viz")
    check(not os.path.exists("imgui.ini"), "no imgui.ini in the working directory")
print("1 passed, 0 failed")
