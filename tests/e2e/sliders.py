#!/usr/bin/python3
"""End-to-end: click the sentence field and type, then drive the K/V heads, heads and d_model sliders with the mouse in
the real window and check that each export follows (kv_heads and K's width, heads, d_model, d_head and the map count).
"""
import sys

from harness import (App, D_MODEL_SLIDER_Y, HEADS_SLIDER_Y, KV_HEADS_SLIDER_Y, SENTENCE_FIELD, SLIDER_LEFT_X,
                     SLIDER_RIGHT_X, check, png_info)

with App(sys.argv[1]) as app:
    app.click(*SENTENCE_FIELD)  # no field has the keys at launch: a click gives them, as a person would
    app.chord("ctrl+a")
    app.type("hello world")
    _, before = app.export()
    check(before["sentences"][0]["tokens"] == ["hello", "world"], "typing replaces the demo sentence")
    check(before["config"]["heads"] == 8, "starts with 8 heads")

    app.click(SLIDER_LEFT_X, KV_HEADS_SLIDER_Y)  # far left of the K/V heads slider: multi-query
    _, mqa = app.export()
    cfg = mqa["config"]
    check(cfg["heads"] == 8 and cfg["kv_heads"] == 1, f"K/V heads slider -> H_kv = {cfg['kv_heads']} of {cfg['heads']}")
    check(len(mqa["k"][0][0]) == cfg["d_head"] and len(mqa["w_v"][0]) == cfg["d_head"], "K and V are one head wide")
    check(len(mqa["attention"][0]) == 8, "still a map per query head")
    app.drag(SLIDER_LEFT_X + 40, KV_HEADS_SLIDER_Y, SLIDER_RIGHT_X + 40)  # to the right end: H_kv = H again
    check(app.state()["kv_heads"] == 8, "K/V heads slider back to H_kv = H")

    app.click(SLIDER_LEFT_X, HEADS_SLIDER_Y)  # far left of the heads slider: H = 1
    png, one_head = app.export()
    cfg = one_head["config"]
    check(cfg["heads"] == 1 and cfg["d_head"] == 64, f"heads slider -> H = {cfg['heads']}, d_head = {cfg['d_head']}")
    check(len(one_head["attention"][0]) == 1, "one attention map")

    app.drag(SLIDER_LEFT_X + 40, D_MODEL_SLIDER_Y, SLIDER_RIGHT_X + 40)  # d_model slider to its maximum
    _, wide = app.export()
    cfg = wide["config"]
    check(cfg["d_model"] == 512, f"d_model slider -> {cfg['d_model']}")
    check(cfg["d_model"] % cfg["heads"] == 0, "H still divides d_model")
    check(len(wide["x"][0][0]) == 512, "embeddings are 512 wide")
    width, height, spread = png_info(png)
    check(spread > 0.05, "window PNG is not flat")
    check(app.alive(), "the app is still running")
print("1 passed, 0 failed")
