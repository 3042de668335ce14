"""`signalbox-cli sweep run`: a sweep run headless to its end with the app's controller, against
an embedded collector and against a collector process; a bad file and a SIGTERM mid-run.

usage: test_cli_sweep.py SIGNALBOX_CLI SIGNALBOX_COLLECTOR"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

CLI, COLLECTOR = None, None

TRAIN = """import json, sys, time
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
q = float(args.get("quality", 1))
for step in range(int(args.get("steps", 3))):
    time.sleep(float(args.get("pause", 0.05)))
    print("@signalbox " + json.dumps({"step": step, "loss": q + 10.0 / (step + 1)}), flush=True)
"""

SWEEP = """name: cli grid
program: train.py
method: grid
metric:
  name: loss
  goal: minimize
parameters:
  quality:
    values: [3, 1, 2]
  steps:
    value: %d
  pause:
    value: %s
signalbox:
  parallelism: 2
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SweepRun(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sb-cli-sweep-")
        with open(os.path.join(self.dir, "train.py"), "w") as f:
            f.write(TRAIN)
        self.env = dict(os.environ, SIGNALBOX_DATA_DIR=os.path.join(self.dir, "data"),
                        SIGNALBOX_COLLECTOR="http://127.0.0.1:%d" % free_port())

    def sweep(self, steps=3, pause="0.05"):
        path = os.path.join(self.dir, "grid.yaml")
        with open(path, "w") as f:
            f.write(SWEEP % (steps, pause))
        return path

    def cli(self, *args, **kwargs):
        return subprocess.run([CLI, "--config", os.path.join(self.dir, "none.yaml"), *args],
                              capture_output=True, text=True, env=self.env, cwd=self.dir,
                              timeout=120, **kwargs)

    def test_runs_to_the_end_with_an_embedded_collector(self):
        result = self.cli("sweep", "run", self.sweep(), "--seed", "3")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("collector: embedded", result.stdout)
        trials = [line for line in result.stdout.splitlines() if line.startswith("trial ")]
        self.assertEqual(len(trials), 3, result.stdout)
        self.assertTrue(all("succeeded: loss" in line for line in trials), trials)
        best = json.loads(result.stdout.splitlines()[-1])
        self.assertEqual(best["parameters"]["quality"], 1)
        self.assertAlmostEqual(best["loss"], 1 + 10.0 / 3)
        state_dir = os.path.join(self.dir, "data", "sweeps")
        names = os.listdir(state_dir)
        self.assertEqual(len(names), 1)
        with open(os.path.join(state_dir, names[0])) as f:
            state = json.load(f)
        self.assertEqual(state["status"], "finished")
        self.assertEqual(len(state["trials"]), 3)

    def test_metrics_go_to_the_given_collector(self):
        port = free_port()
        collector = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port, "--data-dir",
                                      os.path.join(self.dir, "collector")],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn("listening on", collector.stdout.readline())
            url = "http://127.0.0.1:%d" % port
            result = self.cli("--collector", url, "sweep", "run", self.sweep())
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertNotIn("embedded", result.stdout)
            with urllib.request.urlopen(url + "/api/v1/runs", timeout=10) as response:
                runs = json.load(response)
            self.assertEqual(len([r for r in runs if r["metrics"].get("loss")]), 3)
        finally:
            collector.terminate()
            collector.communicate(timeout=20)

    def test_a_bad_sweep_file_is_refused_by_line(self):
        path = os.path.join(self.dir, "bad.yaml")
        with open(path, "w") as f:
            f.write("method: grid\nparameters:\n  lr: {values: 3}\n")
        result = self.cli("sweep", "run", path)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("bad.yaml:", result.stderr)
        result = self.cli("sweep", "run", "/dev/zero")
        self.assertIn("not a regular file", result.stderr)

    def test_sigterm_stops_the_sweep_and_its_trials(self):
        process = subprocess.Popen([CLI, "--config", os.path.join(self.dir, "none.yaml"), "sweep",
                                    "run", self.sweep(steps=200, pause="0.1")],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=self.env, cwd=self.dir)
        deadline = time.time() + 30
        out = ""
        while ", 2 running" not in out and time.time() < deadline:
            out += process.stdout.readline()
        process.send_signal(signal.SIGTERM)
        rest, err = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 1, out + rest + err)
        self.assertIn("stopped:", rest)
        left = subprocess.run(["pgrep", "-f", os.path.join(self.dir, "train.py")],
                              capture_output=True, text=True)
        self.assertEqual(left.stdout.strip(), "", "trials left running")


if __name__ == "__main__":
    CLI, COLLECTOR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)
