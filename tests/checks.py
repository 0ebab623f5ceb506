"""The two reporting helpers every test script uses: `ok: …` per passed check, `FAIL: …` on
stderr and exit 1 at the first failed one (ctest shows both)."""
import sys


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print("ok: " + message)
