"""Drives the real mha-viz window like a person: xdotool for keys and mouse,
ImageMagick's identify to look at the exported PNG. Starts its own Xvfb (one per test
script) and lets the server pick a free display with -displayfd, so tests that run one
after another never race for the same display number as `xvfb-run -a` can.

Nothing here waits for a guessed time. The app runs with --state-file and writes a JSON line
after every frame (app/session/state_file.h); after each action the harness presses Pause,
which the app counts in that line once its input queue reaches it (app/platform/input_queue.h):
the queue keeps the order, so every key, click and letter sent before has then been applied. Tests wait for what
the app shows or writes (a state field, a file), with generous time-outs for a busy machine.

Layout constants match app/explorer/window_layout.h at the default 1440 x 900 window and
content scale 1 (Xvfb): the controls panel starts at 0.27 * 900 = 243 px.
"""
import atexit
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, fail  # noqa: E402  (re-exported to the e2e scripts)

WINDOW_W, WINDOW_H = 1440, 900
CONTROLS_TOP = int(WINDOW_H * 0.27)
ROW = 26                          # one slider row: 22 px frame + 4 px spacing
D_MODEL_SLIDER_Y = CONTROLS_TOP + 41
HEADS_SLIDER_Y = D_MODEL_SLIDER_Y + ROW
SLIDER_LEFT_X, SLIDER_RIGHT_X = 12, 300
SENTENCE_FIELD = (200, 40)        # the first sentence's text field
KV_HEADS_SLIDER_Y = HEADS_SLIDER_Y + ROW
WO_OFF_CHECKBOX = (18, 682)       # "switch W_O off" in the pitfalls section
RESHAPE_BUG_CHECKBOX = (18, 744)
HEAD_BUTTON_Y = 840               # "switch heads off": buttons 1..8, 35 px apart from x = 23
TIMEOUT = float(os.environ.get("MHA_E2E_TIMEOUT", "90"))  # seconds; only a hung app takes it


def start_xvfb():
    """Starts Xvfb on a display it chooses itself and points DISPLAY at it."""
    read_fd, write_fd = os.pipe()
    # -noreset: by default the server resets when its last client leaves (the readiness check
    # below), and refuses connections meanwhile; the app starting then failed to open the display.
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24",
                               "-nolisten", "tcp", "-noreset"], pass_fds=[write_fd],
                              stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()  # written once the server accepts connections
    if not number:
        raise SystemExit("FAIL: Xvfb did not start")
    os.environ["DISPLAY"] = ":" + number

    def stop():  # wait for it, so the next test's server never meets this one half-closed
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()

    atexit.register(stop)
    # Ready means a client can connect: check once with xdotool before any test starts.
    for _ in range(50):
        if subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True).returncode == 0:
            return
        time.sleep(0.1)
    raise SystemExit("FAIL: Xvfb on :" + number + " accepts no connection")


if "MHA_E2E_USE_DISPLAY" not in os.environ:  # set it to drive an existing display instead
    start_xvfb()


def xdotool(*args):
    return subprocess.run(["xdotool", *map(str, args)], check=True, capture_output=True, text=True).stdout


def wait_until(predicate, what, timeout=TIMEOUT):
    """Polls until predicate() is true; fails naming `what` (a string, or a function giving
    one at the time of failure) after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    fail(f"waited {timeout:.0f} s for: {what() if callable(what) else what}")


def png_info(path):
    """(width, height, standard deviation of the pixels in 0..1)."""
    run = subprocess.run(["identify", "-format", "%w %h %[fx:standard_deviation]", path],
                         capture_output=True, text=True)
    if run.returncode != 0:  # say why: a missing file, a short one, a broken one
        size = os.path.getsize(path) if os.path.exists(path) else "missing"
        fail(f"not a readable PNG: {path} ({size} bytes, exit {run.returncode}): {run.stderr.strip()[:300]}")
    out = run.stdout.split()
    return int(out[0]), int(out[1]), float(out[2])


class DigitsTempDir:
    """A private temporary folder named /tmp/mha-e2e-NNNNNNNN: digits only, which the UI font
    draws all at one width, so the export folder's path (shown in the window, with buttons
    after it) takes the same space on every run."""

    def __init__(self):
        rng = random.SystemRandom()
        while True:
            self.name = os.path.join(tempfile.gettempdir(), f"mha-e2e-{rng.randrange(10**7, 10**8)}")
            try:
                os.mkdir(self.name, 0o700)
                return
            except FileExistsError:
                continue

    def cleanup(self):
        shutil.rmtree(self.name, ignore_errors=True)


class App:
    """Starts mha-viz with a private config, export folder and state file; stops it on exit."""

    def __init__(self, binary, *args):
        self.tmp = DigitsTempDir()
        self.export_dir = os.path.join(self.tmp.name, "exports")
        self.state_path = os.path.join(self.tmp.name, "state.json")
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.tmp.name, "config"))
        command = [binary, "--export-dir", self.export_dir, "--state-file", self.state_path, *args]
        self.proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + TIMEOUT
        self.window = None
        retried = False
        while time.monotonic() < deadline and self.window is None:
            found = subprocess.run(["xdotool", "search", "--name", "^mha-viz"], capture_output=True, text=True)
            if found.stdout.split():
                self.window = found.stdout.split()[0]
            elif self.proc.poll() is not None:
                error = self.proc.stderr.read()
                # Once seen in CI: the fresh Xvfb refused the app's connection right after it had
                # answered xdotool. That is the server's, not the app's, fault: say so, try once more.
                if "open display" in error and not retried:
                    answers = subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True).returncode == 0
                    print(f"note: the app could not open the display (Xvfb answers xdotool: {answers}); retrying once")
                    retried = True
                    self.proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
                    continue
                fail("mha-viz exited before opening its window: " + error)
            else:
                time.sleep(0.05)
        if self.window is None:
            fail(f"no mha-viz window within {TIMEOUT:.0f} s")
        # Ready: the first frames are drawn (fonts, layout); no text field has the keys yet.
        self.wait_state(lambda s: s["frame"] >= 3, "the first frames drawn")
        xdotool("windowfocus", "--sync", self.window)
        self.sync()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.tmp.cleanup()

    def alive(self):
        return self.proc.poll() is None

    def state(self):
        """The app's last state line (app/session/state_file.h), or None before the first frame."""
        try:
            with open(self.state_path) as f:
                return json.loads(f.read())
        except (OSError, ValueError):
            return None

    def wait_state(self, predicate, what, timeout=TIMEOUT):
        """Waits until the app's state line satisfies predicate; fails if the app dies."""
        def ready():
            if not self.alive():
                fail(f"mha-viz died (exit {self.proc.returncode}) while waiting for: {what}; "
                     + self.proc.stderr.read().strip()[-500:])
            state = self.state()
            return state is not None and predicate(state)
        wait_until(ready, lambda: f"{what} (last state: {str(self.state())[:600]})", timeout)
        return self.state()

    def sync(self):
        """Returns once the app has applied every input sent so far and drawn a frame after."""
        marks = self.state()["sync_marks"]
        xdotool("key", "Pause")
        applied = self.wait_state(lambda s: s["sync_marks"] > marks and not s["input_pending"],
                                  "the app applied the input sent so far")
        return self.wait_state(lambda s: s["frame"] > applied["frame"], "one more frame drawn")

    def geometry(self):
        shell = dict(line.split("=", 1) for line in xdotool("getwindowgeometry", "--shell", self.window).split())
        return int(shell["WIDTH"]), int(shell["HEIGHT"])

    def chord(self, keys):
        """Presses and releases keys (e.g. ctrl+a); the app's input queue keeps both."""
        xdotool("key", keys)
        return self.sync()

    def type(self, text):
        xdotool("type", "--delay", 10, text)
        return self.sync()

    def open_in_dialog(self, path):
        """Ctrl+Shift+O, the path typed over whatever the field holds, Enter: as a user opens a
        model, a GGUF or an attention file by its path."""
        self.chord("ctrl+shift+o")
        self.wait_state(lambda s: s["open_model"]["shown"] and s["typing"], "the Open-model dialog, its field focused")
        self.chord("ctrl+a")
        self.type(path)
        self.chord("Return")

    def click(self, x, y, button=1):
        """Button 1 is the left, 3 the right."""
        xdotool("mousemove", "--window", self.window, x, y)
        xdotool("click", button)
        return self.sync()

    def drag(self, x0, y, x1):
        xdotool("mousemove", "--window", self.window, x0, y)
        xdotool("mousedown", 1)
        for step in range(1, 11):  # several moves: the slider follows while held
            xdotool("mousemove", "--window", self.window, x0 + (x1 - x0) * step // 10, y)
        xdotool("mouseup", 1)
        return self.sync()

    def files(self, prefix="", folder=None):
        folder = folder or self.export_dir
        return sorted(n for n in os.listdir(folder) if n.startswith(prefix)) if os.path.isdir(folder) else []

    def export(self):
        """Ctrl+E; returns (png path, parsed trace JSON) of the new export."""
        before = set(self.files())
        xdotool("key", "ctrl+e")
        self.sync()

        def written():  # the JSON is written after the PNG, atomically
            new = sorted(set(self.files()) - before)
            return [n for n in new if n.endswith(".png")] and [n for n in new if n.endswith(".json")]
        wait_until(written, "Ctrl+E to write a PNG + JSON into " + self.export_dir)
        new = sorted(set(self.files()) - before)
        png = [n for n in new if n.endswith(".png")][0]
        with open(os.path.join(self.export_dir, [n for n in new if n.endswith(".json")][0])) as f:
            return os.path.join(self.export_dir, png), json.load(f)


def head_button(head):
    """Centre of the pitfalls section's button for head `head` (numbered from 1)."""
    return 23 + 35 * (head - 1), HEAD_BUTTON_Y
