#!/usr/bin/python3
"""End-to-end: a BERT checkpoint in the Hugging Face layout (the random fixture of
tests/make_bert_fixtures.py, not BERT's weights) in the window. A sentence with [MASK] is typed
and the MLM head's five guesses for it appear; a sentence B typed in its field makes a pair
(its first token known to the window); B walks the pair view to A -> B, whose Head tab export
shows only that block; the detectors of an encoder (Clark et al.'s) are listed; "Export all"
asks, then Enter writes every view, each head's map with the pair's A|B divider. Usage: tests/e2e/bert_model.py build/app/mha-viz
"""
import os
import sys

from harness import SENTENCE_FIELD, App, check

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "bert", "bert_f32")
BLANK = (600, 860)  # the middle panel below the grid: a click there leaves the text fields
TYPED = "The capital of France is [MASK]."
PAIR = "Paris is the capital!"


def idle(s):
    return not s["computing"]


with App(sys.argv[1], "--model", FIXTURE) as app:
    state = app.wait_state(lambda s: s["model"]["real"] and s["model"]["encoder"]
                           and s["model"]["mask_fills"], "the fixture's default sentence, its [MASK] filled")

    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(TYPED)
    state = app.wait_state(lambda s: s["shown_sentences"] == [TYPED] and idle(s)
                           and [f["position"] for f in s["model"]["mask_fills"]] == [6],
                           "the typed [MASK] (token 7 after [CLS]) filled by the MLM head")
    check(len(state["model"]["mask_fills"][0]["top"]) == 5, "five guesses for the mask")
    check(state["model"]["pair_start"] == -1, "no sentence B yet")

    app.click(*(int(v) for v in state["model"]["pair_field_at"]))
    app.type(PAIR)
    state = app.wait_state(lambda s: s["model"]["pair_text"] == PAIR and idle(s)
                           and s["model"]["pair_start"] == 9,
                           "sentence B read as a pair: [CLS] A(7) [SEP] | B")
    check(len(state["model"]["predictions"]) == 9 + 6, "every token of the pair has a guess")

    app.click(*BLANK)
    app.chord("b")
    app.wait_state(lambda s: s["model"]["pair_view"] == "a_to_b", "B: the A -> B view")
    app.chord("g")
    app.wait_state(lambda s: s["model"]["grid"] == "detectors" and s["model"]["detectors_ready"],
                   "G: the encoder's detectors")
    app.chord("shift+g")
    app.chord("shift+g")
    app.wait_state(lambda s: s["model"]["grid"] == "layer_heads", "Shift+G twice: this layer")
    png, trace = app.export()
    check(trace["sentences"][0]["tokens"][9] == "paris", f"the trace's B: {trace['sentences'][0]['tokens']}")

    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "every_layer", "G: every layer")
    app.click(*(int(v) for v in state["model"]["export_all_at"]))
    app.wait_state(lambda s: s["export_all"]["open"], "Export all asks first")
    app.chord("Return")
    app.wait_state(lambda s: s["notice"].startswith("Saved"), "Enter: the saved notice")
    folder = os.path.join(app.export_dir, "mha-viz-model")
    written = sorted(os.listdir(folder))
    for name in ("layer-01", "model-grid.png", "detectors.csv", "rollout.png", "logit-lens.csv"):
        check(name in written, f"{name} in the exported folder")
    with open(os.path.join(folder, "detectors.csv")) as f:
        header = f.readline().strip()
    check(header == "layer,head,previous_token,next_token,self,cls,sep,first_token_on_sentence",
          f"Clark et al.'s scores and the sink on the sentence: {header}")
    heads = [n for n in os.listdir(os.path.join(folder, "layer-01")) if n.endswith("-L1-H1.svg")]
    check(len(heads) == 1, f"layer 1's head 1 named for model, layer and head: {heads}")
    with open(os.path.join(folder, "layer-01", heads[0])) as f:
        svg = f.read()
    check('fill="#eb5a3c"' in svg, "the pair's A|B divider is drawn, as the window draws it")
print("1 passed, 0 failed")
