#!/usr/bin/python3
"""End-to-end: the "Open model" dialog (Ctrl+Shift+O). With HF_HUB_CACHE pointing at a private
cache holding the GPT-2 fixture (tests/fixtures/gpt2/f32, random weights) as test/tiny-gpt2 and
a Pegasus entry this build does not open, the dialog lists both (Pegasus greyed); a click on the GPT-2
opens it off the frame thread and it joins the recent list (and its file); a folder typed + Enter
opens too; a bad path typed gives the "Model not opened" notice while the model stays; Esc
closes the dialog. Usage: tests/e2e/open_model.py build/app/mha-viz
"""
import json
import os
import sys
import tempfile

from harness import App, check

FIXTURE = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                       "fixtures", "gpt2", "f32"))
NAME = "test/tiny-gpt2"


def make_cache(root):
    """A Hugging Face cache as huggingface_hub leaves it: refs/main names the snapshot, whose
    files link to the fixture's."""
    hub = os.path.join(root, "hub")
    snapshot = os.path.join(hub, "models--test--tiny-gpt2", "snapshots", "abc")
    os.makedirs(snapshot)
    for name in os.listdir(FIXTURE):
        os.symlink(os.path.join(FIXTURE, name), os.path.join(snapshot, name))
    os.makedirs(os.path.join(hub, "models--test--tiny-gpt2", "refs"))
    with open(os.path.join(hub, "models--test--tiny-gpt2", "refs", "main"), "w") as f:
        f.write("abc")
    other = os.path.join(hub, "models--google--pegasus-tiny", "snapshots", "b1")
    os.makedirs(other)
    with open(os.path.join(other, "config.json"), "w") as f:
        f.write('{"model_type": "pegasus", "is_encoder_decoder": true}')
    return hub


def centre(rect):
    x0, y0, x1, y1 = rect
    return int((x0 + x1) / 2), int((y0 + y1) / 2)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["HF_HUB_CACHE"] = make_cache(tmp)
    with App(sys.argv[1]) as app:
        state = app.state()
        check(not state["open_model"]["shown"] and state["open_model"]["recent"] == [],
              f"no dialog, no recent models at first: {state['open_model']}")
        check(not state["model"]["open"], "no model at first")

        app.chord("ctrl+shift+o")
        state = app.wait_state(lambda s: s["open_model"]["shown"] and len(s["open_model"]["cached"]) == 2
                               and s["open_model"]["cached"][1]["at"][2] > 0,
                               "Ctrl+Shift+O opens the dialog, the cache's two models listed")
        dialog = state["open_model"]
        check(dialog["cache_dir"] == os.environ["HF_HUB_CACHE"], f"the cache searched: {dialog['cache_dir']}")
        other, gpt2 = dialog["cached"]
        check(other["name"] == "google/pegasus-tiny" and other["type"] == "pegasus" and not other["supported"],
              f"Pegasus listed, not supported: {other}")
        check(gpt2["name"] == NAME and gpt2["type"] == "gpt2" and gpt2["supported"], f"the fixture listed: {gpt2}")

        app.click(*centre(other["at"]))  # greyed: a click does nothing
        state = app.sync()
        check(state["open_model"]["shown"] and not state["model"]["open"] and state["open_model"]["loading"] == "",
              f"a click on an unsupported model opens nothing: {state['open_model']}")

        app.click(*centre(gpt2["at"]))
        state = app.wait_state(lambda s: s["model"]["real"] and s["open_model"]["loading"] == ""
                               and s["model"]["predictions"],
                               "a click on the cached model opens it (and its first trace runs)")
        check(state["open_model"]["recent"] == [NAME], f"it is the recent list: {state['open_model']['recent']}")
        check(not state["open_model"]["shown"], "the dialog closes once the model is open")
        check(state["notice"].startswith("Opened"), f"the notice says so: {state['notice']}")
        recent_file = os.path.join(app.tmp.name, "config", "mha-viz", "recent-models.json")
        with open(recent_file) as f:
            check(json.load(f)["recent"] == [NAME], "the recent list's file")

        app.chord("ctrl+shift+o")
        app.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the dialog again, its path field focused")
        app.type(FIXTURE)
        app.chord("Return")
        state = app.wait_state(lambda s: s["open_model"]["recent"] == [FIXTURE, NAME]
                               and s["open_model"]["loading"] == "" and s["model"]["real"],
                               "a folder typed + Enter opens it, first in the recent list")

        app.chord("ctrl+shift+o")
        app.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the dialog, its path field focused")
        app.chord("ctrl+a")
        app.type("/no/such/model")
        app.chord("Return")
        state = app.wait_state(lambda s: s["notice"].startswith("Model not opened"),
                               "a bad path: the notice")
        check("/no/such/model" in state["notice"], f"the notice names the path: {state['notice']}")
        check(state["model"]["real"] and state["model"]["predictions"], "the model stays")
        check(state["open_model"]["shown"], "the dialog stays open to fix the path")
        check(state["open_model"]["recent"] == [FIXTURE, NAME], "a failure is not recent")

        app.chord("Escape")
        app.wait_state(lambda s: not s["open_model"]["shown"], "Esc closes the dialog")
print("1 passed, 0 failed")
