#!/usr/bin/python3
"""End-to-end: grouped-query attention and attention sinks of a Llama-family checkpoint in the
window, on the random fixture llama3_gqa_f32 of tests/make_llama_fixtures.py (4 query heads
reading 2 K/V heads; not Llama's weights). The model view frames the query heads that share a
K/V head (the frames are in the state line and on the window's pixels), the Controls say what
the config fixes (rotary positions, H_kv, the attention's own parameter count); the "sink share"
switch marks each head's share of attention on the first token of the typed sentence, the
numbers the CLI's trace of the same sentence gives; the detectors grid frames the groups too
and its CSV ends with the sink; Export all writes the grid with its group frames. Then the MQA
fixture (mistral_mqa_f16): one frame around all heads. The Steps tab's rotary step: its q . k
equals the CLI trace's turned q and k, and stays when both positions move.
Usage: tests/e2e/real_model_gqa.py build/app/mha-viz
"""
import json
import os
import re
import subprocess
import sys

from harness import SENTENCE_FIELD, App, check, xdotool

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "llama")
GQA, MQA = os.path.join(FIXTURES, "llama3_gqa_f32"), os.path.join(FIXTURES, "mistral_mqa_f16")
TYPED = "When Mary and John went to the store, John gave a drink to"
BLANK = (600, 860)  # the middle panel below the grid: the mouse there shows no tooltip


def pixels(png, x, y, w, h):
    """The (r, g, b) of the box's pixels, row by row (ImageMagick's txt: format)."""
    text = subprocess.run(["convert", png, "-crop", f"{w}x{h}+{x}+{y}", "+repage", "txt:-"],
                          capture_output=True, text=True, check=True).stdout
    return [tuple(map(int, m)) for m in re.findall(r"^\d+,\d+: \((\d+),(\d+),(\d+)", text, re.M)]


def cli_sink_shares(binary, model, sentence):
    """Each head's mean weight on key 0 over queries 1..N-1, from the CLI's trace: L x H."""
    out = subprocess.run([binary, "--model", model, "--sentence", sentence, "--json", "-",
                          "--json-attention-only"], capture_output=True, text=True, check=True).stdout
    shares = []
    for layer in json.loads(out)["layers"]:
        heads = layer["attention"][0]  # sentence 0: [H][N][N]
        shares.append([sum(row[0] for row in head[1:]) / (len(head) - 1) for head in heads])
    return shares


def screenshot(app):
    """Ctrl+E with the mouse away from the grid (no outline, no tooltip over it): the PNG."""
    xdotool("mousemove", "--window", app.window, *BLANK)
    app.sync()
    return app.export()[0]


def model_view_ready(s, legend, tokens=None):
    m = s["model"]
    return (m["real"] and m["grid"] == "every_layer" and m["kv_legend"] == legend
            and not s["computing"] and m["predictions"] and len(m["kv_group_rects"]) > 0
            and (tokens is None or s["shown_sentences"] == [tokens]))


def check_frames_hold_their_heads(m):
    rects, columns = m["kv_group_rects"], m["head_columns"]
    check(len(rects) == 2 and len(columns) == 4, f"two frames for four heads: {rects}, {columns}")
    for g, rect in enumerate(rects):
        inside = [h for h, x in enumerate(columns) if rect[0] < x < rect[2]]
        check(inside == [2 * g, 2 * g + 1], f"frame {g + 1} holds query heads {inside}, not 2g, 2g+1")
        check(rect[1] < m["layer_rows"][0] and m["layer_rows"][-1] < rect[3], "a frame spans every layer")
    check(rects[0][2] < rects[1][0], f"a gap between the groups: {rects}")


def check_frames_on_screen(png, rects):
    """The frames' left edges differ from the panel's background, read in the gap between them."""
    gap_x = int((rects[0][2] + rects[1][0]) / 2)
    top, height = int(rects[0][1]) + 4, int(rects[0][3] - rects[0][1]) - 8
    gap = pixels(png, gap_x, top, 1, height)
    background = gap[0]
    check(all(p == background for p in gap), f"the gap between the frames is plain background {background}")
    for rect in rects:
        edge = pixels(png, int(rect[0]), top, 2, height)
        differing = sum(p != background for p in edge)  # the line, and a tint inside it
        check(differing >= 0.9 * height, f"frame at x={rect[0]:.0f} drawn ({differing} of {2 * height} pixels)")


def check_sink_bars(png, m):
    """Each cell's bar: light from its left edge for share x the cell's side, dark after it."""
    side = m["head_columns"][1] - m["head_columns"][0] - 2  # the cells' gap is 2 px
    shares = m["sink_shares"]
    for l, y in enumerate(m["layer_rows"]):
        for h, x in enumerate(m["head_columns"]):
            share = shares[l][h]
            bottom, left = int(y + side / 2) - 1, int(x - side / 2)
            if share * side >= 4:  # a bar of 4 px or more
                r, g, b = pixels(png, left + 1, bottom, 1, 1)[0]
                check(min(r, g, b) > 200, f"L{l + 1}H{h + 1}: the bar starts light ({r},{g},{b})")
            if share < 0.85:
                r, g, b = pixels(png, int(x + side / 2) - 2, bottom, 1, 1)[0]
                check(max(r, g, b) < 110, f"L{l + 1}H{h + 1}: dark past its share ({r},{g},{b})")


binary = sys.argv[1]
with App(binary, "--model", GQA) as app:
    state = app.wait_state(lambda s: model_view_ready(s, "2 query heads per K/V head (GQA)"),
                           "the model view of the GQA fixture, its groups framed")
    m = state["model"]
    check(m["heads"] == 4 and m["kv_heads"] == 2, f"4 query heads, 2 K/V heads: {m['heads']}, {m['kv_heads']}")
    check("rotary positions (RoPE, theta 500000" in m["fixed_text"], f"the Controls: {m['fixed_text']}")
    check("learned positions" not in m["fixed_text"], "not GPT-2's text")
    check("H_kv=2" in m["shapes"] and "d_head=8" in m["shapes"], f"the shapes line: {m['shapes']}")
    check(m["parameters"].startswith("3,072 parameters per layer's attention"), m["parameters"])
    check_frames_hold_their_heads(m)

    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(TYPED)
    app.chord("Escape")  # the field lets the keys go; the text stays
    state = app.wait_state(lambda s: model_view_ready(s, "2 query heads per K/V head (GQA)", TYPED),
                           "the typed sentence run through the model")
    png = screenshot(app)
    check_frames_on_screen(png, state["model"]["kv_group_rects"])

    app.click(*(int(v) for v in state["model"]["sink_toggle_at"]))
    state = app.wait_state(lambda s: s["model"]["show_sinks"], "the sink shares switched on")
    expected = cli_sink_shares(binary, GQA, TYPED)
    shown = state["model"]["sink_shares"]
    check(len(shown) == 2 and all(len(row) == 4 for row in shown), f"L x H shares: {shown}")
    worst = max(abs(a - b) for ra, rb in zip(shown, expected) for a, b in zip(ra, rb))
    check(worst < 1e-4, f"the window's sink shares are the trace's: {shown} vs {expected}")
    png = screenshot(app)
    check_sink_bars(png, state["model"])

    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "detectors" and s["model"]["detectors_ready"]
                           and len(s["model"]["kv_group_rects"]) == 2, "G: the detectors, framed alike")
    app.click(*(int(v) for v in state["model"]["export_at"]))
    app.wait_state(lambda s: "Wrote" in s["notice"], "the CSV export's notice")
    csvs = [f for f in os.listdir(app.export_dir) if f.endswith(".csv")]
    check(len(csvs) == 1, f"one CSV: {csvs}")
    with open(os.path.join(app.export_dir, csvs[0])) as f:
        rows = [line.split(",") for line in f.read().splitlines()]
    check(rows[0][-1] == "first_token_on_sentence", f"the sink's column last: {rows[0]}")
    for row in rows[1:]:
        l, h = int(row[0]) - 1, int(row[1]) - 1
        check(abs(float(row[-1]) - expected[l][h]) < 1e-4, f"L{l + 1}H{h + 1}'s sink in the CSV")

    export_all = tuple(int(v) for v in state["model"]["export_all_at"])
    app.click(*export_all)
    app.wait_state(lambda s: s["export_all"]["open"], "Export all asks first")
    app.chord("Return")
    app.wait_state(lambda s: s["notice"].startswith("Saved") and " files in " in s["notice"],
                   "Enter writes: the saved notice")
    folder = os.path.join(app.export_dir, "mha-viz-model")
    for name in ("model-grid.png", "model-grid.svg", "detectors-first_token_on_sentence.svg"):
        check(os.path.exists(os.path.join(folder, name)), f"{name} written")
    with open(os.path.join(folder, "model-grid.svg")) as f:
        svg = f.read()
    check(svg.count('stroke="#969eb6"') == 4, "the exported grid frames each group in each layer")
    check("L1-H3 \u00b7 kv 2" in svg, "a panel's title names its K/V head")

def cli_layer1(binary, model, sentence):
    """The CLI's full trace of the sentence: (the model's record, layer 1)."""
    out = subprocess.run([binary, "--model", model, "--sentence", sentence, "--json", "-"],
                         capture_output=True, text=True, check=True).stdout
    trace = json.loads(out)
    return trace["model"], trace["layers"][0]


# The Steps tab on the rotary layer: q . k of the query and key it follows equals the CLI
# trace's turned q and k (its own computation), and moving both positions keeps it.
with App(binary, "--model", GQA, "--view", "steps") as app:
    state = app.wait_state(lambda s: s["model"]["real"] and not s["computing"]
                           and s["steps"]["rotary"] is not None, "the Steps tab's rotary step")
    steps, rotary = state["steps"], state["steps"]["rotary"]
    model, layer = cli_layer1(binary, GQA, state["shown_sentences"][0])
    d, h, g = model["head_dim"], steps["head"] - 1, steps["kv_head"] - 1
    q = layer["q"][0][steps["query"]][h * d:(h + 1) * d]
    k = layer["k"][0][rotary["key"]][g * d:(g + 1) * d]
    expected = sum(a * b for a, b in zip(q, k))
    check(abs(rotary["score"] - expected) <= 1e-4 * max(1.0, abs(expected)),
          f"Steps' q.k {rotary['score']} is the CLI trace's turned q.k {expected}")
    check(rotary["shift"] != 0 and abs(rotary["shifted_score"] - rotary["score"])
          <= 1e-4 * max(1.0, abs(expected)),
          f"both positions moved by {rotary['shift']}: {rotary['shifted_score']}, the same score")

with App(binary, "--model", MQA) as app:
    state = app.wait_state(lambda s: model_view_ready(s, "all 4 query heads share one K/V head (MQA)"),
                           "the MQA fixture: one frame")
    m = state["model"]
    check(len(m["kv_group_rects"]) == 1, f"one frame around every head: {m['kv_group_rects']}")
    check(all(m["kv_group_rects"][0][0] < x < m["kv_group_rects"][0][2] for x in m["head_columns"]),
          "every head in it")
    check("a sliding window of 4 tokens on every layer" in m["fixed_text"], m["fixed_text"])
print("1 passed, 0 failed")
