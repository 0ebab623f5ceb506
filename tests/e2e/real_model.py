#!/usr/bin/python3
"""End-to-end: a GPT-2 checkpoint in the Hugging Face layout (the random fixture of
tests/make_gpt2_fixtures.py, not GPT-2's weights) opens in the window. The model view shows every
head of every layer; a typed sentence reaches the model (its next-token guesses follow); the
head detectors' grid appears, a click on a cell opens that head in the Head tab, and its CSV
export is written. Usage: tests/e2e/real_model.py build/app/mha-viz
"""
import os
import sys

from harness import SENTENCE_FIELD, App, check

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "gpt2", "f32")
TYPED = "The cat sat on the mat"
DETECTORS_RADIO = (660, 40)  # "head detectors", the middle panel's mode line


def cell_center(rect, layers, heads, layer, head):
    """The centre of cell (layer, head), both from 0, of a grid drawn in rect [x0, y0, x1, y1]."""
    x0, y0, x1, y1 = rect
    return (int(x0 + (head + 0.5) * (x1 - x0) / heads), int(y0 + (layer + 0.5) * (y1 - y0) / layers))


with App(sys.argv[1], "--model", FIXTURE) as app:
    state = app.wait_state(lambda s: s["model"]["real"] and s["model"]["grid"] == "every_layer"
                           and s["model"]["predictions"], "the model view of the fixture, with guesses")
    check(state["model"]["kv_group_rects"] == [] and state["model"]["kv_legend"] == "",
          "GPT-2's heads each read their own keys and values: no frames, no legend")

    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(TYPED)
    state = app.wait_state(lambda s: s["shown_sentences"] == [TYPED] and not s["computing"]
                           and len(s["model"]["predictions"]) == 7,
                           "the typed sentence run through the model: 7 tokens, 7 guesses")
    check(state["error"] == "", f"no error: {state['error']}")

    app.click(*DETECTORS_RADIO)
    state = app.wait_state(lambda s: s["model"]["grid"] == "detectors" and s["model"]["detectors_ready"]
                           and s["model"]["grid_rect"][2] > s["model"]["grid_rect"][0],
                           "the head detectors' grid on screen")
    app.click(*cell_center(state["model"]["grid_rect"], 2, 4, 1, 2))
    state = app.wait_state(lambda s: s["model"]["layer"] == 2 and s["selected_head"] == 3
                           and s["tab"] == "head", "a click on layer 2, head 3 opens that head")
    check(state["model"]["grid"] == "detectors", "the grid stays beside the head opened")
    app.click(*cell_center(state["model"]["grid_rect"], 2, 4, 0, 1))
    state = app.wait_state(lambda s: s["model"]["layer"] == 1 and s["selected_head"] == 2,
                           "the next click opens layer 1, head 2: no G in between")
    check(state["model"]["grid"] == "detectors", "still the detectors' grid")
    app.click(*(int(v) for v in state["model"]["export_at"]))  # "Export CSV", beside the score
    app.wait_state(lambda s: "Wrote" in s["notice"], "the CSV export's notice")
    files = [f for f in os.listdir(app.export_dir) if f.endswith(".csv")]
    check(len(files) == 1, f"one CSV in the export folder: {files}")
    with open(os.path.join(app.export_dir, files[0])) as f:
        lines = f.read().splitlines()
    check(lines[0] == "layer,head,previous_token,duplicate_token,induction,first_token,"
          "first_token_on_sentence",
          f"the CSV's header: {lines[0]}")
    check(len(lines) == 1 + 2 * 4, f"one row per head: {len(lines) - 1}")
print("1 passed, 0 failed")
