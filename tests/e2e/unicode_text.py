#!/usr/bin/python3
"""End-to-end: text beyond ImGui's 16-bit characters survives the window. Emoji pasted into
the sentence field reach the scene exactly (not U+FFFD), survive typing around them, copy out
of the field exactly, and a saved scene holds them; CJK is drawn from the fallback font, while
the emoji are named as having no glyph. Pasted, as the user did: xdotool cannot type characters
outside the keyboard map reliably (it remaps a spare key and GLFW may read the old map).
Usage: tests/e2e/unicode_text.py build/app/mha-viz
"""
import json
import os
import subprocess
import sys
import time

from harness import SENTENCE_FIELD, App, check, wait_until

EMOJI = "emoji \U0001F600 \U0001F44D family \U0001F468\u200d\U0001F469\u200d\U0001F467 end"
PASTED = "pasted \U0001F680 caf\u00e9 \U0001D11E \ue000 done"  # rocket, clef, a private-use char
CJK = "\u65e5\u672c\u8a9e \u4e2d\u6587 \ud55c\uad6d\uc5b4"  # Japanese, Chinese, Korean


def clipboard():
    return subprocess.run(["xclip", "-o", "-selection", "clipboard"], capture_output=True,
                          text=True, encoding="utf-8").stdout


def first_sentence(app, text, what):
    return app.wait_state(lambda s: s["sentences"][0] == text, what)


def paste(app, text):
    """Replaces the field's text with `text`, through the clipboard another program owns."""
    subprocess.run(["xclip", "-selection", "clipboard"], input=text.encode(), check=True)
    app.chord("ctrl+a")
    app.chord("ctrl+v")


with App(sys.argv[1]) as app:
    app.click(*SENTENCE_FIELD)
    paste(app, EMOJI)
    state = first_sentence(app, EMOJI, "the pasted emoji in the scene, exactly")
    check("\ufffd" not in state["sentences"][0], "no U+FFFD in the sentence")
    state = app.wait_state(lambda s: s["shown_sentences"][0] == EMOJI, "the maps follow the emoji sentence")
    check("U+1F600" in state["glyph_notes"][0] and "U+1F44D" in state["glyph_notes"][0],
          f"the window says which characters it cannot draw: {state['glyph_notes'][0]}")

    app.chord("End")
    app.type(" more")
    first_sentence(app, EMOJI + " more", "typing after the emoji keeps them")

    paste(app, PASTED)
    first_sentence(app, PASTED, "the pasted text in the scene, exactly")
    # Copy out of the field: the clipboard gets the real characters back.
    app.chord("ctrl+a")
    app.chord("ctrl+c")
    wait_until(lambda: clipboard() == PASTED, "Ctrl+C to put the exact text on the clipboard")
    app.chord("Home")
    app.chord("Delete")
    first_sentence(app, PASTED[1:], "deleting a letter before them keeps them")

    before = set(app.files("mha-viz-scene"))
    app.chord("ctrl+s")
    wait_until(lambda: set(app.files("mha-viz-scene")) - before, "Ctrl+S to save the scene")
    saved = sorted(set(app.files("mha-viz-scene")) - before)[0]
    with open(os.path.join(app.export_dir, saved), encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    check(sentences[0] == PASTED[1:], f"the saved scene holds the exact text: {sentences[0]!r}")

    paste(app, CJK)
    first_sentence(app, CJK, "the pasted CJK in the scene")
    app.wait_state(lambda s: s["glyph_notes"][0] == "", "the CJK glyphs drawn (fallback font in the atlas)")

    # The field keeps the keyboard and nothing changes: the caret's blink needs a few frames a
    # second, not 60. An upper bound over a stretch of wall time: a busy machine draws fewer.
    start = app.wait_state(lambda s: s["typing"], "the sentence field has the keyboard")
    began = time.monotonic()
    time.sleep(3)  # not a wait for the app: the stretch over which its frames are counted
    frames = app.state()["frame"] - start["frame"]
    rate = frames / (time.monotonic() - began)
    check(rate < 10, f"a focused field with nothing changing draws {rate:.1f} frames a second (< 10)")
print("1 passed, 0 failed")
