"""A run is never "running" for ever (issue 29, finding 2), against a real collector process and
`signalbox-cli sweep run` launching real processes:
- a script that falls silent is judged lost after the collector's --lost-after, with its end
  when it was last heard from, and a later push makes it running again;
- a heartbeat ({"run": R}) is accepted, stores nothing and keeps the run alive;
- last_seen survives a restart, and a run left running across a restart is judged lost;
- a launched run killed with SIGKILL ends "crashed", with last_seen, and its end no later;
- a sweep whose trials all fail stops after the first three and says why.

usage: test_run_liveness.py SIGNALBOX_CLI SIGNALBOX_COLLECTOR"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

CLI, COLLECTOR = None, None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Collector:
    """A signalbox-collector process on loopback, stopped by its pid."""

    def __init__(self, data_dir, *args):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.process = subprocess.Popen(
            [COLLECTOR, "--listen", "127.0.0.1:%d" % self.port, "--data-dir", data_dir, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError("the collector did not start: " + line + self.process.stderr.read())

    def post(self, path, body):
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)

    def run(self, name):
        with urllib.request.urlopen(self.url + "/api/v1/runs", timeout=10) as response:
            for run in json.load(response):
                if run["name"] == name:
                    return run
        return None

    def wait_for(self, name, predicate, seconds=30):
        deadline = time.time() + seconds
        run = self.run(name)
        while not (run and predicate(run)) and time.time() < deadline:
            time.sleep(0.1)
            run = self.run(name)
        return run

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.communicate(timeout=30)


class Liveness(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sb-liveness-")
        self.collectors = []

    def tearDown(self):
        for collector in self.collectors:
            if collector.process.poll() is None:
                collector.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def collector(self, *args):
        collector = Collector(os.path.join(self.dir, "store"), *args)
        self.collectors.append(collector)
        return collector

    def push_point(self, collector, run, step, info=None):
        body = {"run": run, "series": {"loss": {"step": [step], "value": [1.0 / (step + 1)]}}}
        if info:
            body["info"] = info
        return collector.post("/api/v1/push", body)

    def test_a_silent_script_is_lost_then_revived(self):
        collector = self.collector("--lost-after", "1")
        self.push_point(collector, "quiet", 0, {"status": "running", "start": time.time()})
        heard = collector.run("quiet")["last_seen"]
        lost = collector.wait_for("quiet", lambda r: r.get("status") == "lost")
        self.assertEqual(lost["status"], "lost", lost)
        self.assertAlmostEqual(lost["last_seen"], heard, delta=0.01)
        self.assertEqual(lost["end"], lost["last_seen"])
        # It was only silent: its next push makes it running again, with no end.
        self.push_point(collector, "quiet", 1)
        again = collector.run("quiet")
        self.assertEqual(again["status"], "running", again)
        self.assertNotIn("end", again)
        self.assertGreater(again["last_seen"], heard)

    def test_a_heartbeat_is_accepted_and_keeps_the_run_alive(self):
        collector = self.collector("--lost-after", "2")
        self.push_point(collector, "beating", 0, {"status": "running"})
        first = collector.run("beating")["last_seen"]
        deadline = time.time() + 3
        while time.time() < deadline:  # beats well within the threshold, past it in all
            status, answer = collector.post("/api/v1/push", {"run": "beating"})
            self.assertEqual((status, answer), (200, {"accepted": 0}))
            time.sleep(0.2)
        run = collector.run("beating")
        self.assertEqual(run["status"], "running", run)
        self.assertGreater(run["last_seen"], first + 2)
        self.assertEqual(run["metrics"]["loss"]["count"], 1)  # a heartbeat stores no points
        # A heartbeat names a run; it makes none.
        self.assertEqual(collector.post("/api/v1/push", {"run": "nobody"})[0], 200)
        self.assertIsNone(collector.run("nobody"))

    def test_last_seen_survives_a_restart_and_a_run_left_running_is_lost(self):
        collector = self.collector("--lost-after", "0")
        self.push_point(collector, "across", 0, {"status": "running"})
        heard = collector.run("across")["last_seen"]
        collector.stop()
        collector = self.collector("--lost-after", "0")
        run = collector.run("across")
        self.assertAlmostEqual(run["last_seen"], heard, delta=0.01)
        self.assertEqual(run["status"], "running")  # never judged: --lost-after 0
        collector.stop()
        # Nobody pushes after this restart: lost, ended when it was last heard from.
        collector = self.collector("--lost-after", "1")
        lost = collector.wait_for("across", lambda r: r.get("status") == "lost")
        self.assertEqual(lost["status"], "lost", lost)
        self.assertAlmostEqual(lost["end"], heard, delta=0.01)
        collector.stop()
        collector = self.collector()
        self.assertEqual(collector.run("across")["status"], "lost")  # written, stable

    def sweep(self, name, script, values, parallelism=1):
        with open(os.path.join(self.dir, "train.py"), "w") as f:
            f.write(script)
        path = os.path.join(self.dir, name + ".yaml")
        with open(path, "w") as f:
            f.write("name: %s\nprogram: train.py\nmethod: grid\nmetric:\n  name: loss\n"
                    "  goal: minimize\nparameters:\n  x:\n    values: %s\n"
                    "signalbox:\n  parallelism: %d\n" % (name, json.dumps(values), parallelism))
        return path

    def cli_sweep(self, collector, path):
        env = dict(os.environ, SIGNALBOX_DATA_DIR=os.path.join(self.dir, "data"))
        env.pop("PYTHONPATH", None)  # the client must be found without the user's help
        return subprocess.run([CLI, "--config", os.path.join(self.dir, "none.yaml"),
                               "--collector", collector.url, "sweep", "run", path],
                              capture_output=True, text=True, env=env, cwd=self.dir, timeout=120)

    def test_a_killed_launched_run_ends_crashed(self):
        collector = self.collector("--lost-after", "0")  # the app's word, not the judgement
        # It imports the client (found without PYTHONPATH), says it runs, logs a point, and is
        # killed before it can say anything else.
        script = ("import json, os, signal, urllib.request\n"
                  "import signalbox\n"
                  "body = {'run': os.environ['SIGNALBOX_RUN'], 'info': {'status': 'running'},\n"
                  "        'series': {'loss': {'step': [0], 'value': [0.5]}}}\n"
                  "urllib.request.urlopen(urllib.request.Request(\n"
                  "    os.environ['SIGNALBOX_COLLECTOR'] + '/api/v1/push',\n"
                  "    data=json.dumps(body).encode()), timeout=10).read()\n"
                  "os.kill(os.getpid(), signal.SIGKILL)\n")
        result = self.cli_sweep(collector, self.sweep("killed", script, [1]))
        self.assertNotIn("ModuleNotFoundError", result.stdout + result.stderr)
        state = self.sweep_state()
        run_name = state["trials"][0]["run"]
        run = collector.wait_for(run_name, lambda r: r.get("status") != "running")
        self.assertEqual(run["status"], "crashed", (run, result.stdout, result.stderr))
        self.assertIn("last_seen", run)
        self.assertLessEqual(run["end"], run["last_seen"])
        self.assertEqual(run["metrics"]["loss"]["count"], 1)

    def sweep_state(self):
        state_dir = os.path.join(self.dir, "data", "sweeps")
        names = os.listdir(state_dir)
        self.assertEqual(len(names), 1)
        with open(os.path.join(state_dir, names[0])) as f:
            return json.load(f)

    def test_a_sweep_whose_trials_all_fail_stops_and_says_why(self):
        collector = self.collector()
        script = "import sys\nsys.exit('no such dataset: /data/missing')\n"
        result = self.cli_sweep(collector, self.sweep("failing", script, list(range(12))))
        self.assertNotEqual(result.returncode, 0, result.stdout)
        out = result.stdout + result.stderr
        self.assertIn("stopped after 3 failed trials in a row", out)
        self.assertIn("no such dataset: /data/missing", out)
        state = self.sweep_state()
        self.assertEqual(state["status"], "stopped")
        self.assertEqual(len(state["trials"]), 3, state["trials"])
        self.assertIn("no such dataset", state["reason"])


if __name__ == "__main__":
    CLI, COLLECTOR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)
