#!/usr/bin/python3
"""End-to-end: the export panel (Ctrl+Shift+E) in the real window, as a person uses it.
Every head as separate files equals what the headless CLI writes for the same scene; the
panel shows where the files went and "Copy path" puts that folder on the clipboard (pasted
back into the sentence field here); the whole window is captured without the panel; a folder
that cannot be created gives a message and writes nothing.
"""
import os
import subprocess
import sys
import tempfile

from harness import App, check, png_info, wait_until

EMPTY_SPOT = (1000, 885)  # leave the text field, so keys are not typed into it
# The panel opens centred on the 1440 x 900 window (ImGuiCond_Appearing).
EACH_HEAD_RADIO = (512, 322)
WINDOW_RADIO = (512, 452)
FOLDER_FIELD = (726, 555)
EXPORT_BUTTON = (565, 580)
COPY_PATH_BUTTON = (777, 625)  # right of the saved folder's path (harness: digits, so one width)


def files(folder, prefix=""):
    return sorted(n for n in os.listdir(folder) if n.startswith(prefix)) if os.path.isdir(folder) else []


def export_done(app):
    """Waits until the panel's export job has finished (its result is shown)."""
    return app.wait_state(lambda s: not s["exporting"], "the export job finished")


binary = sys.argv[1]
with App(binary) as app:
    app.click(*EMPTY_SPOT)
    app.chord("ctrl+shift+e")
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
    check(True, "the whole window was exported")
    shot = [n for n in set(files(app.export_dir)) - before if n.endswith(".png")][0]
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
