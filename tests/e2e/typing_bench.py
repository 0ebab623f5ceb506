#!/usr/bin/python3
"""--bench-typing N on the GPT-2 fixture (random weights, 64 positions): the window pastes a text
of N tokens, types 20 characters at its end and prints how long the maps took: one line for the
paste, one for the keys, with sane numbers (the speed itself is never asserted). Each key's trace
resumes from the one before (the rows of the text it shares are reused).
Usage: tests/e2e/typing_bench.py build/app/mha-viz
"""
import os
import re
import subprocess
import sys

import harness  # starts Xvfb, points DISPLAY at it
from harness import check

binary = sys.argv[1]
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "gpt2", "f32")

done = subprocess.run([binary, "--model", FIXTURE, "--bench-typing", "40"], capture_output=True, text=True,
                      timeout=240)
check(done.returncode == 0, f"exit 0: {done.returncode} {done.stderr.strip()}")
lines = done.stdout.strip().splitlines()
check(len(lines) == 2, f"two lines: {lines}")
paste = re.fullmatch(r"paste: first maps (\d+) ms \((\d+) tokens\)", lines[0])
check(paste is not None, f"the paste's line: {lines[0]}")
check(0 < int(paste.group(1)) < 120000 and 30 <= int(paste.group(2)) <= 40,
      f"a time and the tokens pasted (at most 40): {lines[0]}")
keys = re.fullmatch(r"typing: p50 (\d+) ms, max (\d+) ms \(20 characters, (\d+) tokens, (\d+) rows reused "
                    r"per key on average\)", lines[1])
check(keys is not None, f"the keys' line: {lines[1]}")
check(int(keys.group(1)) <= int(keys.group(2)) < 120000, f"p50 <= max: {lines[1]}")
check(int(keys.group(3)) == int(paste.group(2)) and int(keys.group(4)) > 0,
      f"the same text, its rows reused: {lines[1]}")

refused = subprocess.run([binary, "--bench-typing", "10"], capture_output=True, text=True, timeout=60)
check(refused.returncode == 2 and "--bench-typing needs --model" in refused.stderr,
      f"without a model: exit 2 naming the flag: {refused.stderr.strip()}")
print("1 passed, 0 failed")
