"""The real window on a real X server (Xvfb), driven as a hand does with synthetic input
(xdotool): a new run from the dialog, its output followed, stopped, resubmitted, its curves
opened, quit. What the window did is read back from the app's own log file (debug on) and from
the run directories; screenshots of each step are kept under <build>/screenshots/desktop-flow/.

usage: test_desktop_flow.py SIGNALBOX BUILD_DIR"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

APP, BUILD = None, None

TRAIN = """import json, sys, time
for step in range(100000):
    print("@signalbox " + json.dumps({"step": step, "loss": 1.0 / (step + 1)}), flush=True)
    print("line %d" % step, flush=True)
    time.sleep(0.1)
"""


def wait_for(predicate, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class DesktopFlow(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="signalbox-desktop-")
        self.shots = os.path.join(BUILD, "screenshots", "desktop-flow")
        os.makedirs(self.shots, exist_ok=True)
        self.display = self.start_xvfb()
        home = os.path.join(self.tmp, "home")
        os.makedirs(home)
        self.data = os.path.join(self.tmp, "data")
        self.env = dict(os.environ, HOME=home, DISPLAY=self.display, QT_QPA_PLATFORM="xcb",
                        XDG_RUNTIME_DIR=self.tmp, LANG="C.UTF-8", LC_ALL="C.UTF-8",
                        QT_LOGGING_RULES="signalbox.*.debug=true")
        self.env.pop("DBUS_SESSION_BUS_ADDRESS", None)  # notifications fall back to the tray
        self.script = os.path.join(self.tmp, "train.py")
        with open(self.script, "w") as f:
            f.write(TRAIN)

    def tearDown(self):
        if getattr(self, "app", None) and self.app.poll() is None:
            self.app.kill()
            self.app.wait()
        subprocess.run(["pkill", "-KILL", "-f", self.script])
        self.xvfb.terminate()
        self.xvfb.wait()
        if os.environ.get("KEEP"):
            print(self.log())
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start_xvfb(self):
        # -displayfd: the server picks a free display and says which.
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        self.assertTrue(number, "Xvfb did not start")
        return ":" + number

    def xdotool(self, *args, check=True):
        done = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True,
                              timeout=60)
        if check:
            self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def key(self, *keys):
        self.xdotool("key", "--clearmodifiers", *keys)

    def window(self, title):
        return wait_for(lambda: self.xdotool("search", "--onlyvisible", "--name", "^%s$" % title,
                                             check=False).split("\n")[0],
                        "a window titled " + title)

    def shot(self, name, window):
        # xwd writes the X server's own picture of a window (the root's would leave a dialog of
        # another depth black); kept as it is, for people. A moment first, to be painted.
        time.sleep(0.5)
        with open(os.path.join(self.shots, name + ".xwd"), "wb") as out:
            subprocess.run(["xwd", "-id", window, "-silent"], env=self.env, stdout=out,
                           check=False)

    def log(self):
        path = os.path.join(self.data, "logs", "signalbox.log")
        if not os.path.exists(path):
            return ""
        with open(path, encoding="utf-8") as f:
            return f.read()

    def logged(self, pattern, what):
        return wait_for(lambda: re.search(pattern, self.log()), what)

    def new_run_from_dialog(self):
        dialog = self.window("New run")
        self.xdotool("windowfocus", "--sync", dialog)
        return dialog

    def back_to(self, window):
        # No window manager hands the focus back when a dialog closes.
        wait_for(lambda: not self.xdotool("search", "--onlyvisible", "--name", "^New run$",
                                          check=False), "the dialog to close")
        self.xdotool("windowfocus", "--sync", window)

    def test_new_run_follow_stop_resubmit_curves_quit(self):
        self.app = subprocess.Popen([APP, "--data-dir", self.data, "--view", "jobs"], env=self.env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        main = self.window("Signalbox")
        # Without a window manager nothing has the focus: a click in the output pane gives it.
        self.xdotool("mousemove", "--window", main, "700", "700", "click", "1")
        self.logged(r"view jobs", "the jobs view")

        # A new run: Ctrl+N, type the command, Return.
        self.key("ctrl+n")
        dialog = self.new_run_from_dialog()
        self.xdotool("type", "--delay", "2", "python3 " + self.script)
        self.shot("1-new-run", dialog)
        self.key("Return")
        self.back_to(main)
        first = self.logged(r"local/(train-[0-9a-f]{6}) running", "the run to start").group(1)
        output = os.path.join(self.data, "runs", first, "log")
        def printed():
            if not os.path.exists(output):
                return False
            with open(output) as f:
                return "line 3" in f.read()
        wait_for(printed, "the run's output")
        self.shot("2-following", main)

        # Stopped from the keyboard: the new run is the selected row.
        self.key("ctrl+period")
        self.logged(r"local/%s stopped" % first, "the run to stop")

        # Resubmitted: the dialog opens with its command; Return runs it again.
        self.key("ctrl+r")
        self.shot("3-resubmit", self.new_run_from_dialog())
        self.key("Return")
        self.back_to(main)
        second = self.logged(r"local/(train-(?!%s)[0-9a-f]{6}) running" % first[6:],
                             "the resubmitted run").group(1)
        self.assertNotEqual(first, second)

        # Return on the selected run opens its curves.
        self.key("Return")
        self.logged(r"curves of %s" % second, "its curves")
        self.logged(r"view curves\n", "the curves view")
        self.shot("4-curves", main)

        # Back to the jobs (Ctrl+2), stopped there, and quit without a question: nothing runs.
        self.key("ctrl+2")
        self.logged(r"view jobs[\s\S]*view curves[\s\S]*view jobs", "the jobs view again")
        self.key("ctrl+period")
        self.logged(r"local/%s stopped" % second, "the second run to stop")
        self.key("ctrl+q")
        self.assertEqual(self.app.wait(timeout=30), 0)
        # Both runs' ends are in the history the next start reads.
        with open(os.path.join(self.data, "jobs.json")) as f:
            history = f.read()
        self.assertEqual(history.count('"state": "stopped"') + history.count('"state":"stopped"'),
                         2, history)


if __name__ == "__main__":
    APP, BUILD = sys.argv[1], sys.argv[2]
    for tool in ("Xvfb", "xdotool", "xwd"):
        if not shutil.which(tool):
            sys.exit("%s is missing: scripts/setup-deps installs it" % tool)
    unittest.main(argv=sys.argv[:1], verbosity=2)
