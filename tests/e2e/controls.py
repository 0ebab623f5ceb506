#!/usr/bin/python3
"""End-to-end: controls that keep their word, in the real window.

1. The head count the user chose survives d_model: 16 heads, d_model dragged 64 -> 108 (where
   16 does not divide: the nearest count, 18) and back to 64 gives 16 heads again. The weights
   the user chose (designed) come back when the head count lets them fit.
2. The token-cap warning is drawn right under the sentence field, not below hundreds of chips:
   the window's PNG (Ctrl+E) has the warning colour there with 600 words, none with the demo.

Slider positions are found by clicking and reading the app's state line (a binary search over
x: a slider's value grows with x), so no pixel of the slider's length is assumed.
"""
import re
import subprocess
import sys

from harness import App, D_MODEL_SLIDER_Y, HEADS_SLIDER_Y, SLIDER_RIGHT_X, check

SLIDER_FIRST_X = 12  # inside the slider's frame, its lowest value


def seek(app, y, field, target):
    """Clicks the slider at row y until the state's `field` is `target`; returns that x."""
    lo, hi = SLIDER_FIRST_X, SLIDER_RIGHT_X
    while lo < hi:
        mid = (lo + hi) // 2
        if app.click(mid, y)[field] < target:
            lo = mid + 1
        else:
            hi = mid
    state = app.click(lo, y)
    check(state[field] == target, f"a click on the slider gives {field} {target} (got {state[field]} at x = {lo})")
    return lo


def head_count_memory(binary):
    with App(binary) as app:  # the window starts on designed heads, d_model 64, H 8
        start = app.state()
        check(start["weights"] == "designed" and start["weights_in_use"] == "designed", "starts on designed weights")
        seek(app, HEADS_SLIDER_Y, "heads", 16)
        state = app.state()
        check(state["chosen_heads"] == 16, "16 heads chosen")
        check(state["weights"] == "designed" and state["weights_in_use"] == "random",
              f"at d_head 4 random weights are in use, designed still chosen ({state['weights']}, {state['weights_in_use']})")

        x108 = seek(app, D_MODEL_SLIDER_Y, "d_model", 108)
        x64 = seek(app, D_MODEL_SLIDER_Y, "d_model", 64)
        check(app.state()["heads"] == 16, "clicking d_model around and back to 64 keeps 16 heads")

        at108 = app.drag(x64, D_MODEL_SLIDER_Y, x108)
        check(at108["d_model"] == 108, f"dragged d_model to 108 (got {at108['d_model']})")
        check(at108["heads"] == 18 and at108["chosen_heads"] == 16,
              f"at 108 the nearest count to 16 is used and 16 remembered (heads {at108['heads']}, chosen {at108['chosen_heads']})")
        back = app.drag(x108, D_MODEL_SLIDER_Y, x64)
        check(back["d_model"] == 64, f"dragged d_model back to 64 (got {back['d_model']})")
        check(back["heads"] == 16, f"back at 64 the chosen 16 heads return (got {back['heads']})")

        seek(app, HEADS_SLIDER_Y, "heads", 8)
        check(app.state()["weights_in_use"] == "designed", "at 8 heads the chosen designed weights return")
        check(app.alive(), "the app is still running")


def warning_pixels(png, box):
    """Pixels of the dark theme's warning amber (app/platform/appearance.cpp) in box (x, y, w, h)."""
    x, y, w, h = box
    text = subprocess.run(["convert", png, "-crop", f"{w}x{h}+{x}+{y}", "+repage", "txt:-"],
                          capture_output=True, text=True, check=True).stdout
    count = 0
    for r, g, b in re.findall(r"^\d+,\d+: \((\d+),(\d+),(\d+)", text, re.M):
        r, g, b = int(r), int(g), int(b)
        count += r > 225 and 170 < g < 225 and b < 120
    return count


# Under the sentence field (it ends near y = 50): the first lines below it, left panel only.
UNDER_FIELD = (0, 50, 380, 45)


def token_cap_warning_at_the_field(binary):
    words = " ".join(f"w{i}" for i in range(600))
    with App(binary, "--sentence", words) as app:
        png, trace = app.export()
        check(any("kept the first 512" in w for w in trace["warnings"]), "the trace warns of the cap")
        found = warning_pixels(png, UNDER_FIELD)
        check(found > 30, f"the cap warning is drawn right under the sentence field ({found} warning pixels there)")
    with App(binary) as app:  # the demo sentence: nothing cut, nothing there
        png, _ = app.export()
        found = warning_pixels(png, UNDER_FIELD)
        check(found == 0, f"no warning colour under the field without a cut ({found} pixels)")


head_count_memory(sys.argv[1])
token_cap_warning_at_the_field(sys.argv[1])
print("2 passed, 0 failed")
