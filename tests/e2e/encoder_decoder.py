#!/usr/bin/python3
"""End-to-end: an encoder-decoder in the window (docs/real-models.md, "Encoder-decoders in the
window"). The Marian fixture of tests/make_seq2seq_fixtures.py (random weights: a fixture, not a
translation model) is typed into the Open-model dialog; the decoder writes at once, its tokens
appearing one by one, the alignment view showing their cross-attention rows over the source; the
written tokens are the command line's greedy ones; Export figure writes the alignment as SVG and
PNG, Export all every figure. A typed target is read teacher-forced with the reference loss; a
cross head switched off in the model view changes the loss and says what it changed; K walks the
attentions; a target past the decoder's positions is refused in one line, the maps kept; Ctrl+G
writes again; a folder missing a tokenizer file is refused, the model kept.
Usage: tests/e2e/encoder_decoder.py build/app/mha-viz
"""
import json
import os
import shutil
import subprocess
import sys

from harness import App, check

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.abspath(os.path.join(HERE, "..", "fixtures", "seq2seq"))
MARIAN = os.path.join(FIXTURES, "marian")
with open(os.path.join(FIXTURES, "reference.json")) as f:
    CASE = json.load(f)["fixtures"]["marian"]["cases"][0]
SOURCE = "The house is wonderful."


def cli_labels(binary):
    """What the command line's greedy decoder writes for the window's default source."""
    out = subprocess.run([binary, "--model", MARIAN, "--sentence", SOURCE, "--generate", "32",
                          "--json", "-"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["sentences"][0]["target"]["labels"]


def written(s):
    m = s["model"]
    return m["seq2seq"] and m["written"] and m["written_tokens"] > 0 and m["written_shown"] == -1


def at(point):
    return int(point[0]), int(point[1])


with App(sys.argv[1]) as app:
    labels = cli_labels(sys.argv[1])
    app.chord("ctrl+shift+o")
    app.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the dialog, its path field focused")
    app.type(MARIAN)
    app.chord("Return")
    state = app.wait_state(lambda s: s["model"]["seq2seq"] and s["model"]["written_tokens"] > 0,
                           "the encoder-decoder opens and its decoder writes")
    check(state["model"]["grid"] == "alignment" and state["model"]["saved_stack"] == 2,
          f"it opens on the alignment of the cross-attention: {state['model']['grid']}")
    state = app.wait_state(written, "the generation plays to its end, a token at a time")
    check(state["model"]["written_tokens"] == len(labels),
          f"the window writes the command line's greedy tokens: {state['model']['written_tokens']} vs {len(labels)}")
    check(state["sentences"] == [SOURCE], f"the source field holds the source: {state['sentences']}")
    shown = state["shown"]
    check("cross-attention layer 1" in shown["layer_name"], f"the layer shown is a cross layer: {shown['layer_name']}")
    check(shown["tokens"] == [len(labels)] and shown["keys"] == len(state["model"]["source_chips"]),
          f"its rows are the written tokens, its keys the source's: {shown}")
    check("fixtures" in state["model"]["title"], f"the title names the fixture's folder: {state['model']['title']}")

    app.click(*at(state["model"]["alignment_export_at"]))
    state = app.wait_state(lambda s: s["notice"].startswith("Wrote"), "Export figure: the notice")
    svg = [n for n in os.listdir(app.export_dir) if n.startswith("alignment") and n.endswith(".svg")]
    check(len(svg) == 1 and os.path.exists(os.path.join(app.export_dir, svg[0][:-4] + ".png")),
          f"the alignment as SVG and PNG: {os.listdir(app.export_dir)}")
    with open(os.path.join(app.export_dir, svg[0])) as f:
        figure = f.read()
    check("cross-attention of layer 1" in figure and "marian" in figure,
          "the figure says what it shows and names the model")

    app.click(*at(state["model"]["source_field_at"]))
    app.wait_state(lambda s: s["typing"], "the source field takes the keyboard")
    app.chord("ctrl+a")
    app.type(CASE["source_text"])
    app.wait_state(lambda s: s["sentences"] == [CASE["source_text"]], "the reference's source typed")
    app.chord("Escape")
    app.click(*at(state["model"]["export_all_at"]))  # every figure, on a worker
    state = app.wait_state(lambda s: s["notice"].startswith("Wrote 18 files into"),
                           "Export all: 3 alignments and 2 layers of 3 kinds, SVG and PNG each")
    folder = os.path.join(app.export_dir, "mha-viz-model")
    for name in ("alignment.svg", "alignment-L02.png", "encoder-L01.svg", "decoder-L02.png", "cross-L01.svg"):
        check(os.path.exists(os.path.join(folder, name)), f"Export all wrote {name}")

    app.click(*at(state["model"]["target_field_at"]))
    app.wait_state(lambda s: s["typing"], "the target field takes the keyboard")
    app.type(CASE["target_text"])
    state = app.wait_state(lambda s: not s["model"]["written"] and s["model"]["target_text"] == CASE["target_text"]
                           and s["model"]["written_tokens"] == len(CASE["labels"]),
                           "a typed target is read teacher-forced")
    check(abs(state["model"]["loss"] - CASE["loss"]) < 1e-3,
          f"its loss is the reference's: {state['model']['loss']} vs {CASE['loss']}")

    app.chord("Escape")  # the field lets go of the keyboard
    app.chord("g")  # alignment -> this layer -> every layer
    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "every_layer" and s["model"]["head_columns"],
                           "G: the model view of the cross-attention")
    x, y = state["model"]["head_columns"][1], state["model"]["layer_rows"][0]
    app.click(int(x), int(y), button=3)
    state = app.wait_state(lambda s: s["model"]["stack_ablated"][2][:1] == [[2]] and s["model"]["ablation_effect"],
                           "a right-click switches cross head 2 of layer 1 off, and the model runs again")
    check("All heads on" in state["model"]["ablation_effect"], f"it says what changed: {state['model']['ablation_effect']}")
    check(abs(state["model"]["loss_all_heads"] - CASE["loss"]) < 1e-3 and state["model"]["loss"] != state["model"]["loss_all_heads"],
          f"the target's loss moves: {state['model']['loss']} vs {state['model']['loss_all_heads']}")

    app.chord("k")
    state = app.wait_state(lambda s: s["model"]["saved_stack"] == 0, "K: the decoder's self-attention")
    check(state["shown"]["mask"] == "causal", "the decoder's maps are causal")
    app.chord("k")
    state = app.wait_state(lambda s: s["model"]["saved_stack"] == 1, "K: the encoder")
    check(state["shown"]["tokens"] == [len(state["model"]["source_chips"])], "the encoder reads the source's tokens")

    app.click(*at(state["model"]["target_field_at"]))
    app.chord("ctrl+a")
    app.type("word " * 80)
    state = app.wait_state(lambda s: "the decoder reads" in s["error"], "a target past the decoder's positions")
    check(0 < state["model"]["written_tokens"] <= 64 and not state["model"]["written"],
          f"the last target it could read stays on screen: {state['model']['written_tokens']} tokens")
    app.chord("Escape")
    app.chord("ctrl+g")
    state = app.wait_state(lambda s: written(s) and s["model"]["target_text"] == "" and s["error"] == "",
                           "Ctrl+G: the field emptied, the decoder writes again")

    broken = os.path.join(app.tmp.name, "marian-without-spm")  # a folder missing a tokenizer file
    shutil.copytree(MARIAN, broken)
    os.remove(os.path.join(broken, "source.spm"))
    app.open_in_dialog(broken)
    state = app.wait_state(lambda s: s["notice"].startswith("Model not opened"), "the notice of the broken folder")
    check("not source.spm" in state["notice"], f"it names the missing file: {state['notice']}")
    check(state["model"]["seq2seq"] and state["model"]["title"].startswith("marian (") and broken not in state["model"]["title"],
          "the model before stays open")
print("1 passed, 0 failed")
