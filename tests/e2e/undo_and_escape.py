#!/usr/bin/python3
"""End-to-end: nothing the user made is lost without a way back, and Esc closes what is open.
A sentence typed, then a demo chosen (Ctrl+O, 2): Ctrl+Z brings the sentence back, Ctrl+Z again
the demo. Esc closes the Demos dropdown and the Ctrl+O picker with one press each; the picker
does not follow into the Train view. In the Train view, R after three steps keeps the run:
Ctrl+Z brings it back at step 3. Usage: tests/e2e/undo_and_escape.py build/app/mha-viz
"""
import sys

from harness import SENTENCE_FIELD, App, check

DEMOS_COMBO = (308, 110)  # beside "Cross-attention", under the demo sentence's two chip rows
TYPED = "my own words about a tired cat"

with App(sys.argv[1]) as app:
    start = app.state()["sentences"]
    app.click(*DEMOS_COMBO)
    app.wait_state(lambda s: s["popup_open"], "the Demos dropdown open")
    app.chord("Escape")
    state = app.wait_state(lambda s: not s["popup_open"], "one Esc to close the dropdown")
    check(state["sentences"] == start, "closing the dropdown chose nothing")

    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(TYPED)
    app.wait_state(lambda s: s["sentences"] == [TYPED], "the typed sentence in the scene")

    app.chord("ctrl+o")
    app.wait_state(lambda s: s["scene_picker"], "Ctrl+O opens the scene picker")
    app.chord("Escape")
    app.wait_state(lambda s: not s["scene_picker"], "one Esc to close the scene picker")

    app.chord("ctrl+o")
    app.wait_state(lambda s: s["scene_picker"], "Ctrl+O opens the scene picker again")
    app.chord("2")
    demo = app.wait_state(lambda s: s["sentences"] != [TYPED] and not s["scene_picker"],
                          "demo 2 replaces the typed sentence")
    check("Ctrl+Z" in demo["notice"], f"the notice says how to get it back: {demo['notice']}")
    app.wait_state(lambda s: not s["typing"], "no text field has the keyboard")
    app.chord("ctrl+z")
    app.wait_state(lambda s: s["sentences"] == [TYPED] and s["shown_sentences"] == [TYPED],
                   "Ctrl+Z brings the typed sentence back, and its maps")
    app.chord("ctrl+z")
    app.wait_state(lambda s: s["sentences"] == demo["sentences"], "Ctrl+Z again: the demo")

    app.chord("ctrl+o")
    app.wait_state(lambda s: s["scene_picker"], "the picker open in the explorer")
    app.chord("ctrl+t")
    app.wait_state(lambda s: s["train"]["active"] and not s["scene_picker"],
                   "the picker stays behind when the Train view opens")

    for _ in range(3):
        app.chord("s")
    app.wait_state(lambda s: s["train"]["worker_step"] == 3 and s["train"]["step"] == 3,
                   "three steps trained")
    app.chord("r")
    app.wait_state(lambda s: s["train"]["step"] == 0, "R: a fresh run at step 0")
    app.chord("ctrl+z")
    app.wait_state(lambda s: s["train"]["step"] == 3 and s["train"]["worker_step"] == 3,
                   "Ctrl+Z: the three-step run is back")
print("1 passed, 0 failed")
