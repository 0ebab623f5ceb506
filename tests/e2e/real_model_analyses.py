#!/usr/bin/python3
"""End-to-end: the analyses of a real model in the window, on the random GPT-2 fixture of
tests/make_gpt2_fixtures.py (not GPT-2's weights). W shows the model view value-weighted; a
right-click switches a head off and the sentence's loss moves away from the all-heads loss, then
comes back when it is switched on again; G walks to the rollout and to the logit lens, whose
last row is the model's own guess for the last token. "Export all" first asks (the files and
about how many bytes; Esc leaves it, nothing written), then Enter writes every view of the model
into a new folder, figures only by default, each head named for the model, layer and head.
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

    folder = os.path.join(app.export_dir, "mha-viz-model")
    export_all = tuple(int(v) for v in state["model"]["export_all_at"])
    app.click(*export_all)
    state = app.wait_state(lambda s: s["export_all"]["open"], "Export all asks first")
    check(state["export_all"]["files"] > 0 and state["export_all"]["bytes"] > 0,
          f"it says how many files and bytes: {state['export_all']}")
    app.chord("Escape")
    app.wait_state(lambda s: not s["export_all"]["open"], "Esc leaves the question")
    app.sync()
    check(not os.path.exists(folder), "nothing written after Esc")

    app.click(*export_all)
    state = app.wait_state(lambda s: s["export_all"]["open"], "Export all asks again")
    files = state["export_all"]["files"]
    app.chord("Return")
    state = app.wait_state(lambda s: s["notice"].startswith("Saved"), "Enter writes: the saved notice")
    check(state["notice"] == f"Saved {files} files in {folder}/",
          f"the notice names the folder, not a layer's: {state['notice']}")
    written = sorted(os.listdir(folder))
    for name in ("layer-01", "layer-02", "model-grid.png", "model-grid-value-weighted.svg",
                 "detectors.csv", "rollout.png", "logit-lens.csv"):
        check(name in written, f"{name} in the exported folder")
    check("model-trace.json" not in written, "figures only by default: no trace")
    with open(os.path.join(folder, "layer-01", "mha-viz-f32-L1-H1.svg")) as f:
        svg = f.read()
    check("real model f32" in svg and "seed" not in svg, "a layer's figure names the model, not a seed")
    check("f32 \u00b7 L1-H1" in svg, "the head's title names model, layer and head")
print("1 passed, 0 failed")
