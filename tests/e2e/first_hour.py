#!/usr/bin/python3
"""End-to-end: the first hour with real models, as a user reported it (issue 36), on the random
fixtures of tests/make_gpt2_fixtures.py and tests/make_bert_fixtures.py (not real weights).

- At launch no text field has the keys: G, W and L act on the model view and the sentence stays.
  In a field they type; Esc leaves it with its text, and G acts again.
- A model switch keeps the sentence typed; only the app's own example gives way to the next
  model's, and Ctrl+Z brings the one before back. An encoder's mask follows the model's spelling.
- A text longer than the model's context is cut with a visible line under the field, and the
  token chips are the tokens of the maps shown.
Usage: tests/e2e/first_hour.py build/app/mha-viz
"""
import os
import sys

from harness import SENTENCE_FIELD, App, check

HERE = os.path.dirname(os.path.abspath(__file__))
GPT2 = os.path.join(HERE, "..", "fixtures", "gpt2", "f32")
BERT = os.path.join(HERE, "..", "fixtures", "bert", "bert_f32")
DEFAULT = "The cat sat on the mat because it was tired."
TYPED = "My grandmother baked bread every [MASK] morning."
LONG = "the quick brown fox jumps over the lazy dog " * 3  # ~130 bytes: past the 64 positions


def open_model(app, path):
    app.chord("ctrl+shift+o")
    app.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the Open model dialog")
    app.chord("ctrl+a")
    app.type(path)
    app.chord("Return")
    return app.wait_state(lambda s: s["open_model"]["loading"] == "" and not s["open_model"]["shown"]
                          and s["model"]["real"] and not s["computing"] and s["model"]["chips"],
                          f"{path} open, its first trace shown")


def ready(s):
    return s["model"]["real"] and s["model"]["predictions"] and not s["computing"]


with App(sys.argv[1], "--model", GPT2) as app:
    state = app.wait_state(ready, "GPT-2's fixture open with its first trace")
    check(not state["typing"], "no text field has the keys at launch")
    check(state["sentences"] == [DEFAULT], f"the default sentence: {state['sentences']}")
    check(state["model"]["grid"] == "every_layer", "the model view first")

    app.chord("g")
    state = app.wait_state(lambda s: s["model"]["grid"] == "detectors", "G at launch: the next view")
    app.chord("shift+g")
    app.chord("w")
    app.chord("l")
    state = app.wait_state(lambda s: s["model"]["grid"] == "every_layer" and s["model"]["value_weighted"]
                           and s["model"]["layer"] == 2, "Shift+G, W and L act at once")
    check(state["sentences"] == [DEFAULT], f"no key typed into the sentence: {state['sentences']}")
    app.wait_state(lambda s: s["head_maps_value_weighted"], "W weighs the Head view's maps too")
    app.chord("w")
    app.wait_state(lambda s: not s["head_maps_value_weighted"], "W again: the weights")

    app.click(*SENTENCE_FIELD)
    app.chord("End")
    app.type("g")
    state = app.wait_state(lambda s: s["sentences"] == [DEFAULT + "g"], "in the field, G types")
    check(state["model"]["grid"] == "every_layer" and state["typing"], "and the view stays")
    app.chord("Escape")
    state = app.wait_state(lambda s: not s["typing"], "Esc leaves the field")
    check(state["sentences"] == [DEFAULT + "g"], f"keeping its text: {state['sentences']}")
    app.chord("g")
    app.wait_state(lambda s: s["model"]["grid"] == "detectors", "G acts again after Esc")
    app.chord("shift+g")
    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(DEFAULT)
    app.chord("Escape")
    app.wait_state(lambda s: ready(s) and s["shown_sentences"] == [DEFAULT], "the example again")

    # The app's own example gives way to BERT's (a [MASK] to fill); Ctrl+Z brings it back.
    state = open_model(app, BERT)
    check(state["sentences"] != [DEFAULT] and "[MASK]" in state["sentences"][0],
          f"BERT opens on its example with a [MASK]: {state['sentences']}")
    check("Ctrl+Z" in state["notice"], f"the notice says how to get it back: {state['notice']}")
    app.chord("ctrl+z")
    app.wait_state(lambda s: s["sentences"] == [DEFAULT] and s["shown_sentences"] == [DEFAULT],
                   "Ctrl+Z: the sentence before the switch, run through BERT")

    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(TYPED)
    app.chord("Escape")
    state = app.wait_state(lambda s: ready(s) and s["shown_sentences"] == [TYPED],
                           "the typed sentence through BERT")
    check(state["model"]["mask_fills"], "its [MASK] filled")

    # What was typed survives a switch both ways.
    state = open_model(app, GPT2)
    check(state["sentences"] == [TYPED], f"GPT-2 keeps the typed sentence: {state['sentences']}")
    state = open_model(app, BERT)
    check(state["sentences"] == [TYPED], f"and BERT again: {state['sentences']}")
    state = open_model(app, GPT2)

    # A text past the 64 positions: cut, and said under the field.
    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type(LONG)
    state = app.wait_state(lambda s: ready(s) and s["sentences"] == [LONG]
                           and any("kept the first 64" in w for w in s["model"]["warnings"]),
                           "the long text run, its cut said under the field")
    check(len(state["model"]["chips"]) == 64 and len(state["model"]["predictions"]) == 64,
          f"64 chips, as many as the maps' tokens: {len(state['model']['chips'])}")
    app.click(*SENTENCE_FIELD)
    app.chord("ctrl+a")
    app.type("a short one")
    state = app.wait_state(lambda s: ready(s) and s["shown_sentences"] == ["a short one"],
                           "a short text again")
    check(state["model"]["warnings"] == [], f"no cut line any more: {state['model']['warnings']}")
    check("".join(state["model"]["chips"]).replace("\u2423", " ") == "a short one",
          f"the chips are the new text's tokens: {state['model']['chips']}")
print("1 passed, 0 failed")
