#!/usr/bin/python3
"""End-to-end: switch the classic pitfalls on with the mouse in the real window (W_O off,
a head switched off, the reshape bug) and check that each export's trace records them and
was computed with them.
"""
import sys

from harness import (HEADS_SLIDER_Y, RESHAPE_BUG_CHECKBOX, SLIDER_LEFT_X, WO_OFF_CHECKBOX, App, check,
                     head_button)


def head_slice(trace, head):
    d_head = trace["config"]["d_head"]
    return [v for row in trace["concat"][0] for v in row[(head - 1) * d_head:head * d_head]]


with App(sys.argv[1]) as app:
    app.click(*WO_OFF_CHECKBOX)
    app.click(*head_button(2))
    _, plain = app.export()
    cfg = plain["config"]
    check(cfg["out_proj"] is False, "W_O switched off in the window -> config.out_proj false")
    check(cfg["ablate"] == [2], f"head 2 switched off -> config.ablate {cfg['ablate']}")
    check(plain["output"] == plain["concat"], "without W_O the output is the concat")
    check(all(v == 0 for v in head_slice(plain, 2)), "head 2's slice of the concat is zero")
    check(any(v != 0 for v in head_slice(plain, 3)), "head 3's slice is not")
    check(len(plain["output_shift"][0]) == len(plain["x"][0]), "output shift per token")

    app.click(*RESHAPE_BUG_CHECKBOX)
    _, buggy = app.export()
    check(buggy["config"]["reshape_bug"] is True, "reshape bug on -> config.reshape_bug true")
    check(buggy["attention"] != plain["attention"], "the reshape bug changes the attention maps")
    check(buggy["q"] == plain["q"], "but not the projections before the split")

    app.click(*head_button(2))  # on again
    app.click(*RESHAPE_BUG_CHECKBOX)  # off again
    _, back = app.export()
    check(back["config"]["ablate"] == [] and back["config"]["reshape_bug"] is False, "switches toggle back")
    check(any(v != 0 for v in head_slice(back, 2)), "head 2 contributes again")
    check(back["attention"] == plain["attention"], "same maps as before the bug")
    check(app.alive(), "the app is still running")

with App(sys.argv[1], "--ablate", "8") as app:  # head 8 off, then H drops to 1
    app.click(SLIDER_LEFT_X, HEADS_SLIDER_Y)
    _, trace = app.export()
    check(trace["config"]["heads"] == 1 and trace["config"]["ablate"] == [],
          "lowering H forgets switched-off heads it no longer has (no stuck error)")
print("1 passed, 0 failed")
