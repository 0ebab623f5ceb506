#!/usr/bin/python3
"""End-to-end: attention saved elsewhere (docs/attention-files.md) in the window. The F32 file of
tests/make_attention_fixtures.py (PyTorch's random softmax attention, not a model's) is typed
into the Open-model dialog and opens without a model: its tokens are the sentence, the field
takes no typing, the model view shows every head of its 3 layers, G walks to the detectors (on
the file's sentence) and the rollout and never to the logit lens; the tabs that need the model
(Pipeline, Steps, Cost) draw their reason instead of crashing; Ctrl+E writes the layer's trace
with the weights alone; "Export all" writes the file's views into a new folder (no logit lens,
no value-weighted grid), captioned as saved elsewhere. A file of scores typed next is refused
with a notice naming it, the attention file staying; an encoder-decoder's file shows its
cross-attention and its encoder at a click. Usage: tests/e2e/attention_file.py
build/app/mha-viz
"""
import json
import os
import struct
import sys

from harness import SENTENCE_FIELD, App, check

FIXTURE = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                       "fixtures", "attention", "f32.safetensors"))
TEXT = "The cat sat on the mat because it"
ENCODER_DECODER = os.path.join(os.path.dirname(FIXTURE), "encoder_decoder.safetensors")
TARGET, SOURCE = "<pad> The cat sleeps </s>", "Le chat dort </s>"


def write_scores(path):
    """A file of scores, not weights: one layer, one head, 2 tokens, 2.5 in its first cell."""
    header = {"__metadata__": {"tokens": json.dumps(["a", "b"])},
              "layers.0": {"dtype": "F32", "shape": [1, 2, 2], "data_offsets": [0, 16]}}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + struct.pack("<4f", 2.5, -1.0, 0.3, 4.0))


def opened(s):
    return s["model"]["attention_only"] and s["model"]["open"] and s["shown_sentences"] == [TEXT]


with App(sys.argv[1]) as app:
    app.chord("ctrl+shift+o")
    app.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the dialog, its path field focused")
    app.type(FIXTURE)
    app.chord("Return")
    state = app.wait_state(lambda s: opened(s) and s["open_model"]["loading"] == "",
                           "the attention file opens: its sentence, no model")
    check("saved elsewhere" in state["model"]["title"], f"the title says where the maps are from: {state['model']['title']}")
    check(state["model"]["real"] and state["model"]["grid"] == "every_layer", "the model view of every layer")
    check(state["model"]["architecture"].startswith("3 layers  4 heads  8 tokens  F32  causal"),
          f"the sizes are the file's: {state['model']['architecture']}")
    check(state["model"]["predictions"] == [], "no predictions: there is no model")
    check(state["open_model"]["recent"] == [FIXTURE], f"it joins the recent list: {state['open_model']['recent']}")

    app.click(*SENTENCE_FIELD)
    app.type("xyz")
    state = app.sync()
    check(state["shown_sentences"] == [TEXT] and not state["typing"],
          f"the sentence field takes no typing: {state['shown_sentences']}")

    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "detectors" and s["model"]["detectors_ready"],
                           "G: the detectors, on the file's sentence")
    app.chord("g")
    app.wait_state(lambda s: s["model"]["grid"] == "rollout", "G: the rollout")
    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] != "rollout", "G again")
    check(state["model"]["grid"] == "layer_heads", f"the logit lens is skipped: {state['model']['grid']}")
    app.chord("w")
    check(not app.sync()["model"]["value_weighted"], "W does nothing: value-weighted attention needs the model")

    for _ in range(5):  # Head -> Mean -> A-B -> Lines -> Stats -> Pipeline, then Steps and Cost
        app.chord("v")
    state = app.wait_state(lambda s: s["tab"] == "pipeline", "V to the Pipeline tab")
    app.chord("v")
    app.chord("v")
    state = app.wait_state(lambda s: s["tab"] == "cost", "V to Steps and Cost")
    check(state["error"] == "", f"no error on the tabs that need the model: {state['error']}")
    app.chord("v")

    png, trace = app.export()
    check(trace["config"]["weights"] == "none" and "saved elsewhere" in trace["config"]["weights_from"],
          f"Ctrl+E's trace claims no weights: {trace['config']}")
    check("attention" in trace and "w_q" not in trace and "x" not in trace, "the layer's trace is its weights alone")

    app.chord("g")  # back to the model view, where "Export all" is
    state = app.wait_state(lambda s: s["model"]["grid"] == "every_layer", "G: every layer again")
    folder = os.path.join(app.export_dir, "mha-viz-attention")
    app.click(*(int(v) for v in state["model"]["export_all_at"]))
    state = app.wait_state(lambda s: s["export_all"]["open"], "Export all asks first")
    files = state["export_all"]["files"]
    app.chord("Return")
    state = app.wait_state(lambda s: s["notice"].startswith("Saved"), "Enter writes: the saved notice")
    check(state["notice"] == f"Saved {files} files in {folder}/", f"the notice names the folder: {state['notice']}")
    written = sorted(os.listdir(folder))
    for name in ("layer-01", "layer-03", "model-grid.png", "detectors.csv", "rollout.png"):
        check(name in written, f"{name} in the exported folder")
    for name in ("logit-lens.csv", "model-grid-value-weighted.png"):
        check(name not in written, f"no {name}: it needs the model")
    with open(os.path.join(folder, "layer-02", "mha-viz-f32-L2-H3.svg")) as f:
        svg = f.read()
    check("attention from f32.safetensors (saved elsewhere)" in svg and "seed" not in svg,
          "a head's figure says where its maps are from, never a seed")

    scores = os.path.join(app.tmp.name, "scores.safetensors")
    write_scores(scores)
    app.open_in_dialog(scores)
    state = app.wait_state(lambda s: s["notice"].startswith("Model not opened"), "a file of scores: the notice")
    check(scores in state["notice"] and "holds 2.5" in state["notice"], f"the notice names the file and the value: {state['notice']}")
    check(opened(state), "the attention file stays")

    app.chord("Escape")
    app.wait_state(lambda s: not s["open_model"]["shown"], "Esc closes the dialog")
    app.chord("ctrl+shift+o")  # an encoder-decoder's file next
    app.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the dialog, its field focused")
    app.chord("ctrl+a")
    app.type(ENCODER_DECODER)
    app.chord("Return")
    state = app.wait_state(lambda s: s["model"]["attention_only"] and s["shown_sentences"] == [TARGET]
                           and s["model"]["saved_stack_at"][2][0] > 0,
                           "the encoder-decoder's file opens on its decoder's layers")
    app.click(*(int(v) for v in state["model"]["saved_stack_at"][2]))
    state = app.wait_state(lambda s: s["model"]["saved_stack"] == 2, "a click shows its cross-attention")
    check("keys the 4 source tokens" in state["model"]["architecture"], f"the sizes say so: {state['model']['architecture']}")
    for _ in range(8):  # every tab on a cross-attention layer, then back to the Head tab
        app.chord("v")
    app.click(*(int(v) for v in state["model"]["saved_stack_at"][1]))
    state = app.wait_state(lambda s: s["model"]["saved_stack"] == 1 and s["shown_sentences"] == [SOURCE],
                           "then its encoder, on the source tokens")
    check(state["error"] == "" and state["tab"] == "head", f"every view drew them: {state['error']}")
print("1 passed, 0 failed")
