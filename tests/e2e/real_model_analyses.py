#!/usr/bin/python3
"""End-to-end: the analyses of a real model in the window, on the random GPT-2 fixture of
tests/make_gpt2_fixtures.py (not GPT-2's weights). W shows the model view value-weighted; a
right-click switches a head off and the sentence's loss moves away from the all-heads loss, then
comes back when it is switched on again; G walks to the rollout and to the logit lens, whose
last row is the model's own guess for the last token. "Export all" writes every view of the
model into a new folder, each caption naming the model.
Usage: tests/e2e/real_model_analyses.py build/app/mha-viz
"""
import os
import sys

from harness import App, check

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "gpt2", "f32")
BLANK = (600, 860)  # the middle panel below the grid: a click there leaves the sentence field


def cell_center(rect, layers, heads, layer, head):
    """The centre of cell (layer, head), both from 0, of a grid drawn in rect [x0, y0, x1, y1]."""
    x0, y0, x1, y1 = rect
    return (int(x0 + (head + 0.5) * (x1 - x0) / heads), int(y0 + (layer + 0.5) * (y1 - y0) / layers))


def idle(s):
    return not s["computing"] and s["model"]["loss"] is not None


with App(sys.argv[1], "--model", FIXTURE) as app:
    state = app.wait_state(lambda s: s["model"]["grid"] == "every_layer" and idle(s)
                           and s["model"]["predictions"], "the model view of the fixture")
    check(state["model"]["loss"] == state["model"]["loss_all_heads"], "no head off: one loss")
    all_heads = state["model"]["loss"]

    app.click(*BLANK)
    app.chord("w")
    app.wait_state(lambda s: s["model"]["value_weighted"], "W: the value-weighted model view")

    app.click(*cell_center(state["model"]["grid_rect"], 2, 4, 0, 1), button=3)
    state = app.wait_state(lambda s: s["model"]["ablated"] == ["L1H2"] and idle(s)
                           and s["model"]["loss"] != all_heads,
                           "a right-click switches layer 1, head 2 off and the loss moves")
    check(state["model"]["loss_all_heads"] == all_heads, "the all-heads loss stays beside it")
    app.click(*cell_center(state["model"]["grid_rect"], 2, 4, 0, 1), button=3)
    app.wait_state(lambda s: s["model"]["ablated"] == [] and idle(s) and s["model"]["loss"] == all_heads,
                   "a second right-click switches it on again: the loss is back")

    app.chord("g")
    app.wait_state(lambda s: s["model"]["grid"] == "detectors", "G: the detectors")
    app.chord("g")
    app.wait_state(lambda s: s["model"]["grid"] == "rollout", "G: the rollout")
    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "logit_lens" and len(s["model"]["lens"]) == 2,
                           "G: the logit lens, a row per layer")
    last_guess = state["model"]["predictions"][-1].split(" (")[0]
    check(state["model"]["lens"][-1] == last_guess,
          f"the lens's last row is the model's guess: {state['model']['lens']} vs {last_guess}")
    app.chord("shift+g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "rollout", "Shift+G: back to the rollout")

    app.click(*(int(v) for v in state["model"]["export_all_at"]))
    app.wait_state(lambda s: s["notice"].startswith("Saved"), "Export all: the saved notice")
    folder = os.path.join(app.export_dir, "mha-viz-model")
    written = sorted(os.listdir(folder))
    for name in ("layer-01", "layer-02", "model-grid.png", "model-grid-value-weighted.svg",
                 "detectors.csv", "rollout.png", "logit-lens.csv", "model-trace.json"):
        check(name in written, f"{name} in the exported folder")
    with open(os.path.join(folder, "layer-01", "mha-viz-head-01.svg")) as f:
        svg = f.read()
    check("real model" in svg and "seed" not in svg, "a layer's figure names the model, not a seed")
print("1 passed, 0 failed")
