#!/usr/bin/python3
"""End-to-end: the Train view as a student meets it. Ctrl+O then 6 opens the "induction heads
form" demo, which trains on open; the test waits (for what the window shows, not for a time)
until the held-out loss has left its plateau and dropped, scrubs back to before the drop with
Home and Right (the loss axis stays the whole run's, the plateau note shows), exports the curves
with E and checks them: they stop at the step shown, their CSV is the window's held-out curve,
the PNG and SVG are real figures (loss with its chance line, accuracy, scores). Space pauses,
S steps.
"""
import csv
import math
import os
import sys

from harness import App, check, png_info, wait_until

# Under the sanitizers an update is several times slower: the run to the drop takes minutes.
SLOW = float(os.environ.get("MHA_E2E_TRAIN_TIMEOUT", "600"))


def dropped(state):
    loss = state["train"]["heldout_loss"]
    return len(loss) > 5 and max(loss[:5]) > 2.5 and loss[-1] < 1.5


with App(sys.argv[1]) as app:
    app.chord("ctrl+o")
    app.chord("6")
    state = app.wait_state(lambda s: s["train"]["active"] and s["train"]["state"] == "training",
                           "the induction demo opens the Train view and trains")
    state = app.wait_state(dropped, "the held-out loss drops from its plateau", timeout=SLOW)
    loss = state["train"]["heldout_loss"]
    print(f"ok: held-out loss {max(loss[:5]):.2f} -> {loss[-1]:.2f} at step {state['train']['step']}")
    app.chord("space")  # pause
    # Paused at once; the update under way finishes and its maps arrive: then nothing is busy.
    paused = app.wait_state(lambda s: s["train"]["state"] == "paused" and not s["train"]["busy"],
                            "Space pauses")
    step = paused["train"]["step"]
    app.chord("s")
    live = app.wait_state(lambda s: s["train"]["step"] == step + 1 and not s["train"]["busy"],
                          "S does one update")
    axis = live["train"]["loss_axis"]
    chance = live["train"]["chance_loss"]
    check(abs(chance - math.log(64)) < 1e-4, f"the chance level is ln 64 ({chance:.4f})")
    check(axis[0] <= min(loss) and axis[1] >= max(max(loss), chance),
          f"the loss axis {axis} holds the run so far and the chance level")
    check(live["train"]["phase"] in ("drop", "after") and "previous-token head in layer 1" in
          live["train"]["note_curves"], f"past the drop the note says so: {live['train']['note_curves']}")

    # Back to step 0, then a few snapshots on: the curves as they were then.
    app.chord("Home")
    app.chord("Right")
    app.chord("Right")
    scrubbed = app.wait_state(lambda s: s["train"]["scrubbed"], "the timeline scrubbed back")
    shown = scrubbed["train"]["shown_step"]
    check(0 < shown < step, f"shows step {shown}, before the drop at the newest {step}")
    shown_loss = scrubbed["train"]["heldout_loss"]
    check(min(shown_loss) > 2.5, f"the curve shown stops on the plateau ({min(shown_loss):.2f})")
    check(scrubbed["train"]["loss_axis"] == axis,
          f"scrubbing keeps the loss axis: {scrubbed['train']['loss_axis']} == {axis}")
    check(scrubbed["train"]["phase"] == "plateau" and "Plateau" in scrubbed["train"]["note_curves"]
          and not scrubbed["train"]["note_map"], "on the plateau the note says why, no stripe yet")
    # Right again: every step of the way the axis stays put.
    for _ in range(3):
        before = app.wait_state(lambda s: s["train"]["scrubbed"], "scrubbed")["train"]["shown_step"]
        app.chord("Right")
        moved = app.wait_state(lambda s: s["train"]["shown_step"] > before, "Right moves on")
        check(moved["train"]["loss_axis"] == axis, f"the axis at step {moved['train']['shown_step']}")
    shown, shown_loss = moved["train"]["shown_step"], moved["train"]["heldout_loss"]

    app.chord("e")
    app.wait_state(lambda s: not s["train"]["writing"] and "curves" in s["notice"],
                   "E exports the curves")
    folders = app.files("train-curves")
    check(len(folders) == 1, f"one curves folder: {folders}")
    folder = os.path.join(app.export_dir, folders[0])
    with open(os.path.join(folder, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    check(int(rows[-1]["step"]) == shown, f"the CSV stops at the step shown ({rows[-1]['step']})")
    exported = [float(r["heldout_loss"]) for r in rows]
    check(len(exported) >= len(shown_loss) and all(
        abs(a - b) < 1e-5 * abs(b) for a, b in zip(exported[-len(shown_loss):], shown_loss)),
        "the CSV holds the held-out curve on screen")
    for name in ("loss", "accuracy", "induction", "previous_token"):
        width, height, spread = png_info(os.path.join(folder, name + ".png"))
        check(width > 400 and height > 200 and spread > 0.05,
              f"{name}.png is a figure ({width}x{height}, spread {spread:.2f})")
        with open(os.path.join(folder, name + ".svg")) as f:
            svg = f.read()
        check(svg.startswith("<svg") or "<svg" in svg[:200], f"{name}.svg is an SVG")
    check("chance ln V = 4.16" in open(os.path.join(folder, "loss.svg")).read(),
          "the loss figure labels the chance line")
    induction = open(os.path.join(folder, "induction.svg")).read()
    check("L2H1" in induction and "L1H4" in induction, "the score figure names every head")

    app.chord("End")
    app.wait_state(lambda s: not s["train"]["scrubbed"], "End goes live again")
    check(app.alive(), "the app is still running")
print("1 passed, 0 failed")
