#!/usr/bin/python3
"""The published results `mha-viz train` must reproduce, with the issue's setup (d_model 64,
4 heads, seq 32, batch 32, Adam 1e-3, 3000 steps, seed 1), through the real binary:

  induction-2  Olsson et al. 2022: a 2-layer attention-only model's held-out loss falls in a
               sharp drop (>= 1.5 nats within 500 steps, from a plateau above 2.5 to below
               1.5 at the end) and some layer-2 head's induction score exceeds 0.3.
  induction-1  The same with 1 layer stays high (held-out loss above 2.5 at the end) and no
               head's induction score reaches 0.3: one layer cannot compose the previous-token
               and the copy step.
  agreement    1 layer: agreement accuracy >= 0.95 at the end, and some head's subject score
               rises to at least twice its value at step 0 (where heads attend about
               uniformly, i.e. chance).

Usage: tests/train_paper_check.py build/app/mha-viz induction-2|induction-1|agreement
"""
import csv
import os
import subprocess
import sys
import tempfile

binary, case = sys.argv[1], sys.argv[2]
FLAGS = {"induction-2": ["--task", "induction", "--layers", "2"],
         "induction-1": ["--task", "induction", "--layers", "1"],
         "agreement": ["--task", "agreement", "--layers", "1"]}


def check(condition, message):
    if not condition:
        print("FAIL: " + message, file=sys.stderr)
        sys.exit(1)
    print("ok: " + message)


def train():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        r = subprocess.run([binary, "train", *FLAGS[case], "--out", out], env=env,
                           capture_output=True, text=True, timeout=3000)
        check(r.returncode == 0, f"{case}: training exits 0" + ("" if r.returncode == 0 else r.stderr))
        return list(csv.DictReader(open(os.path.join(out, "metrics.csv"))))


def scores(row, name, layer=None):
    return [float(v) for k, v in row.items()
            if k.endswith("." + name) and (layer is None or k.startswith(f"L{layer}H"))]


def largest_drop(rows, window):
    """The largest fall of the held-out loss from one row to a row at most `window` steps later."""
    best = (0.0, 0, 0)
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if int(b["step"]) - int(a["step"]) > window:
                break
            fall = float(a["heldout_loss"]) - float(b["heldout_loss"])
            best = max(best, (fall, int(a["step"]), int(b["step"])))
    return best


def main():
    rows = train()
    first, last = rows[0], rows[-1]
    check(last["step"] == "3000", "metrics run to step 3000")
    final = float(last["heldout_loss"])
    if case == "induction-2":
        fall, start, end = largest_drop(rows, 500)
        check(fall >= 1.5, f"a sharp drop: held-out loss falls {fall:.2f} nats from step {start} to {end}")
        plateau = float(next(r for r in rows if int(r["step"]) == start)["heldout_loss"])
        check(plateau > 2.5 and final < 1.5, f"from a plateau of {plateau:.2f} to {final:.2f} at the end")
        best = max(scores(last, "induction", 2))
        check(best > 0.3, f"a layer-2 induction head: score {best:.2f} > 0.3")
    elif case == "induction-1":
        check(final > 2.5, f"1 layer stays high: held-out loss {final:.2f} > 2.5")
        best = max(max(scores(r, "induction")) for r in rows)
        check(best < 0.3, f"no induction head: the best score over the run is {best:.2f} < 0.3")
    else:
        accuracy = float(last["agreement_accuracy"])
        check(accuracy >= 0.95, f"agreement accuracy {accuracy:.3f} >= 0.95")
        chance = max(scores(first, "subject"))
        peak, step = max((max(scores(r, "subject")), int(r["step"])) for r in rows)
        check(peak >= 2 * chance,
              f"a subject head: score {peak:.3f} at step {step}, {peak / chance:.1f}x its step-0 {chance:.3f}")


main()
