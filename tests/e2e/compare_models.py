#!/usr/bin/python3
"""End-to-end: the A-B tab across two models. The window opens a random Llama-shaped GGUF fixture
in F32 (model A); Ctrl+Shift+B asks for model B and the Open-model dialog, titled for it, takes
the same fixture quantized to Q8_0. B loads off the frame thread, runs on the sentence shown and
the tab names the heads that moved most: the same five, with the same values, as the CLI's
--compare prints. A click on a ranked head shows that head's A - B map, whose largest |A - B| is
the CLI CSV's max_abs_difference for it. "Export comparison" writes compare-heads.csv (equal to
the CLI's), the layers x heads figure and the head's A - B figure. A model of another shape is
refused as B in one line, the comparison kept; one that reads the text into other tokens is
compared with nothing, the tab naming the first token where they part. Usage: tests/e2e/compare_models.py build/app/mha-viz
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import App, check, png_info

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "gguf")
A = os.path.abspath(os.path.join(FIXTURES, "llama3_gqa_f32.gguf"))
B = os.path.abspath(os.path.join(FIXTURES, "llama3_q8_0.gguf"))
QWEN = os.path.abspath(os.path.join(FIXTURES, "qwen3_bf16.gguf"))
SENTENCE = "the cat sat on the mat because it was warm"


def centre(rect):
    x0, y0, x1, y1 = rect
    return int((x0 + x1) / 2), int((y0 + y1) / 2)


def cli_comparison(binary, folder):
    """The CLI's lines and CSV for the same two models and sentence."""
    out = subprocess.run([binary, "--model", A, "--compare", B, "--sentence", SENTENCE,
                          "--export", folder], capture_output=True, text=True, check=True).stdout
    moved = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("most moved heads")]
    with open(os.path.join(folder, "compare-heads.csv")) as f:
        return moved[0], list(csv.DictReader(f))


binary = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    cli_moved, cli_rows = cli_comparison(binary, tmp)
    with open(os.path.join(tmp, "compare-heads.csv")) as f:
        cli_csv = f.read()

with App(binary, "--model", A, "--sentence", SENTENCE) as app:
    app.wait_state(lambda s: s["model"]["real"] and s["model"]["predictions"], "model A shown")
    app.chord("ctrl+shift+b")
    state = app.wait_state(lambda s: s["open_model"]["shown"] and s["open_model"]["choosing_b"],
                           "the dialog picks model B")
    check("llama3_gqa_f32" in state["open_model"]["choosing_b"], f"named for A: {state['open_model']}")
    app.type(B)
    app.chord("Return")
    state = app.wait_state(lambda s: s["comparison"]["ready"] and s["comparison"]["ranked"]
                           and s["comparison"]["shown_max_abs"] >= 0, "B compared and drawn")
    c = state["comparison"]
    check(state["tab"] == "difference" and c["across_models"], f"the A-B tab across models: {c}")
    check(not state["open_model"]["shown"], "the dialog closed once B opened")
    check("Q8_0" in c["model_b"] and "F32" in c["model_a"], f"both named with their weights: {c}")
    check(c["most_moved"] == cli_moved, f"the window's most moved heads {c['most_moved']!r} "
          f"are the CLI's {cli_moved!r}")
    check(c["positions"] > 0 and c["top_agree"] <= c["positions"], f"predictions compared: {c}")

    last = c["ranked"][-1]  # a click shows that head, its layer too
    app.click(*centre(last["at"]))
    state = app.wait_state(lambda s: s["model"]["layer"] == last["layer"]
                           and s["selected_head"] == last["head"]
                           and s["comparison"]["ready"], f"L{last['layer']} H{last['head']} shown")
    row = next(r for r in cli_rows if int(r["layer"]) == last["layer"] and int(r["head"]) == last["head"])
    shown = state["comparison"]["shown_max_abs"]
    check(abs(shown - float(row["max_abs_difference"])) <= 1e-6,
          f"the map's largest |A-B| {shown} is the CLI's {row['max_abs_difference']}")

    before = set(app.files())
    x, y = centre(state["comparison"]["export_at"])
    app.click(x, y)
    app.wait_state(lambda s: "Wrote 5 files" in s["notice"], "the comparison exported")
    new = sorted(set(app.files()) - before)
    check(new == ["compare-L%d-H%d.png" % (last["layer"], last["head"]),
                  "compare-L%d-H%d.svg" % (last["layer"], last["head"]),
                  "compare-heads.csv", "compare-heads.png", "compare-heads.svg"], f"written: {new}")
    with open(os.path.join(app.export_dir, "compare-heads.csv")) as f:
        check(f.read() == cli_csv, "the window's compare-heads.csv is the CLI's")
    check(png_info(os.path.join(app.export_dir, new[0]))[0] > 200, "the head's figure is a real PNG")

    def choose_b(path):
        app.chord("ctrl+shift+b")
        app.wait_state(lambda s: s["open_model"]["choosing_b"], "the dialog picks model B again")
        app.chord("ctrl+a")  # the field keeps the path typed before
        app.type(path)
        app.chord("Return")

    with tempfile.TemporaryDirectory() as tmp:  # another shape: refused in one line, B kept
        one_layer = os.path.join(tmp, "one-layer")
        shutil.copytree(os.path.join(HERE, "..", "fixtures", "llama", "llama3_gqa_f32"), one_layer)
        with open(os.path.join(one_layer, "config.json")) as f:
            config = json.load(f)
        config["num_hidden_layers"] = 1  # its second layer's tensors are left unread
        with open(os.path.join(one_layer, "config.json"), "w") as f:
            json.dump(config, f)
        choose_b(one_layer)
        state = app.wait_state(lambda s: "Model B not opened" in s["notice"], "the other shape refused")
    check("1 layer x 4 heads, the open model 2 x 4" in state["notice"], f"why: {state['notice']}")
    check("Q8_0" in state["comparison"]["model_b"] and state["comparison"]["ready"], "B kept")

    choose_b(QWEN)  # the same shape, another tokenizer: the tab says where the texts part
    state = app.wait_state(lambda s: s["comparison"]["error"], "a model that reads the text otherwise")
    check("read the text differently: token 0" in state["comparison"]["error"],
          f"the tab's line: {state['comparison']['error']}")
    check(not state["comparison"]["ready"] and app.alive(), "no map of texts that differ")
print("1 passed, 0 failed")
