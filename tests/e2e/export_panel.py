#!/usr/bin/python3
"""End-to-end: the export panel (Ctrl+Shift+E) in the real window, as a person uses it.
The Head tab's Export... button opens it on the selected head, whose files are written and
named in the notice; with Caption unticked the figures keep their title alone. Every head as
separate files equals what the headless CLI writes for the same scene; the panel shows where
the files went and "Copy path" puts that folder on the clipboard (pasted back into the sentence
field here); the whole window is captured without the panel; a folder that cannot be created
gives a message and writes nothing.
"""
import os
import subprocess
import sys
import tempfile

from harness import App, check, png_info, wait_until

EMPTY_SPOT = (1000, 885)  # leave the text field, so keys are not typed into it
HEAD_TAB_EXPORT = (1396, 44)  # the Head tab's Export... button, right of the preset menu
# The panel opens centred on the 1440 x 900 window (ImGuiCond_Appearing).
EACH_HEAD_RADIO = (512, 322)
WINDOW_RADIO = (512, 452)
CAPTION_CHECKBOX = (757, 529)  # beside the PNG scale
FOLDER_FIELD = (726, 555)
EXPORT_BUTTON = (565, 580)
COPY_PATH_BUTTON = (676, 580)  # beside Export once something was saved


def files(folder, prefix=""):
    return sorted(n for n in os.listdir(folder) if n.startswith(prefix)) if os.path.isdir(folder) else []


def export_done(app):
    """Waits until the panel's export job has finished (its result is shown)."""
    return app.wait_state(lambda s: not s["exporting"], "the export job finished")


def export_head_tab(app, folder):
    """The Head tab's Export... opens the panel on the selected head; exported into `folder`
    with and without the caption. Leaves the panel closed, Caption ticked."""
    check(not app.state()["export_panel"], "the export panel starts closed")
    app.click(*HEAD_TAB_EXPORT)
    app.wait_state(lambda s: s["export_panel"], "the Head tab's Export... opened the panel")
    app.click(*FOLDER_FIELD)
    app.chord("ctrl+a")
    app.type(folder)
    app.click(*EXPORT_BUTTON)
    stem = "mha-viz-head-01-previous-token"
    wait_until(lambda: len(files(folder, stem)) == 3, "the head's SVG, PNG and CSV in " + folder)
    notice = app.wait_state(lambda s: stem + ".csv" in s["notice"], "the notice naming them")["notice"]
    check(notice == f"Saved {stem}.svg, {stem}.png, {stem}.csv in {folder}/",
          f"the notice names the files, then the folder: {notice!r}")

    app.click(*CAPTION_CHECKBOX)  # off: the title alone
    app.click(*EXPORT_BUTTON)
    wait_until(lambda: len(files(folder, stem)) == 6, "the second export beside the first")
    app.wait_state(lambda s: f"{stem}-2.csv" in s["notice"], "the notice naming the new files")
    with open(os.path.join(folder, stem + ".svg")) as a, open(os.path.join(folder, stem + "-2.svg")) as b:
        captioned, bare = a.read(), b.read()
    check("d_model 64" in captioned and "d_model 64" not in bare, "Caption off leaves the caption out")
    check(">head 1: previous-token</text>" in bare, "and keeps the title")
    check(png_info(os.path.join(folder, stem + "-2.png"))[1] < png_info(os.path.join(folder, stem + ".png"))[1],
          "the PNG without a caption is shorter")
    app.click(*CAPTION_CHECKBOX)  # on again, as the CLI's files below have it
    app.click(*EMPTY_SPOT)
    app.chord("ctrl+shift+e")
    app.wait_state(lambda s: not s["export_panel"], "the panel closed")


binary = sys.argv[1]
with App(binary) as app:
    export_head_tab(app, os.path.join(app.tmp.name, "head-tab"))
    app.click(*EMPTY_SPOT)
    app.chord("ctrl+shift+e")
    app.click(*FOLDER_FIELD)  # back to the export folder
    app.chord("ctrl+a")
    app.type(app.export_dir)
    app.click(*EACH_HEAD_RADIO)
    app.click(*EXPORT_BUTTON)
    export_done(app)
    check(len(files(app.export_dir, "mha-viz-head-")) == 24,
          f"every head as PNG, SVG and CSV: {files(app.export_dir)}")

    # The same scene from the headless CLI at the panel's default 2x: identical files.
    with tempfile.TemporaryDirectory() as cli_dir:
        subprocess.run([binary, "--weights", "designed", "--export", cli_dir, "--export-scale", "2"],
                       check=True, capture_output=True)
        for name in files(app.export_dir, "mha-viz-head-"):
            with open(os.path.join(app.export_dir, name), "rb") as a, open(os.path.join(cli_dir, name), "rb") as b:
                check(a.read() == b.read(), f"{name} from the window equals the CLI's")

    # "Copy path", then paste into the sentence field: the sentence becomes the folder.
    app.click(*COPY_PATH_BUTTON)
    app.wait_state(lambda s: s["notice"].startswith("Copied "), "the panel says the path was copied")
    app.click(200, 40)
    app.chord("ctrl+a")
    app.chord("ctrl+v")
    app.wait_state(lambda s: s["sentences"][0] == app.export_dir, "the pasted path in the sentence")
    _, trace = app.export()
    check(trace["sentences"][0]["text"] == app.export_dir,
          f"the copied path was pasted: {trace['sentences'][0]['text']!r}")

    # The whole window: a PNG of the window, drawn without the panel.
    app.click(*EMPTY_SPOT)
    before = set(files(app.export_dir))
    app.click(*WINDOW_RADIO)
    app.click(*EXPORT_BUTTON)
    export_done(app)
    wait_until(lambda: any(n.endswith(".png") for n in set(files(app.export_dir)) - before),
               "the window PNG in " + app.export_dir)
    shots = [n for n in set(files(app.export_dir)) - before if n.endswith(".png")]
    check(len(shots) == 1, f"the whole window was exported as one PNG: {shots}")
    shot = shots[0]
    width, height, _ = png_info(os.path.join(app.export_dir, shot))
    check((width, height) == app.geometry(), f"window PNG is the window's size: {width}x{height}")

    # A folder that cannot be made: a message, nothing written, the app goes on.
    before = set(files(app.export_dir))
    app.click(*EACH_HEAD_RADIO)
    app.click(*FOLDER_FIELD)
    app.chord("ctrl+a")
    app.type("/proc/mha-viz-cannot-be-here")
    app.chord("Return")
    app.wait_state(lambda s: s["notice"].startswith("Export failed"), "the failure in the window")
    export_done(app)
    check(set(files(app.export_dir)) == before, "nothing written anywhere")
    check(not os.path.exists("/proc/mha-viz-cannot-be-here"), "no folder made")
    check(app.alive(), "the app is still running")
app.proc.wait(timeout=10)
errors = app.proc.stderr.read()
check("Export failed: cannot create the export folder '/proc/mha-viz-cannot-be-here'" in errors,
      "the failure is named: " + errors.strip().splitlines()[-1] if errors.strip() else "no output")
print("1 passed, 0 failed")
