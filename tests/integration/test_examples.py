"""Every shipped example runs as documented (issue 29, finding 6), from a copy of examples/ that
has no clients/ beside it, as a researcher's copy has not: the commands in each example's header
and the README's, against the local backend and a real collector. SIGNALBOX_EXAMPLE_QUICK makes
the training scripts take a few steps without pauses. Examples that need SSH nodes or a cluster
are planned here (their runs are tested by the backends' own tests).

usage: test_examples.py SIGNALBOX_CLI SIGNALBOX_COLLECTOR"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import unittest
import urllib.request

CLI, COLLECTOR = None, None
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(SOURCE, "examples")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def documented(path):
    """The signalbox-cli commands in an example's header comment, as argument lists."""
    commands = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            found = re.match(r"#\s+signalbox-cli\s+(.*)$", line)
            if found:
                commands.append(found.group(1).split())
    return commands


class ShippedExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="sb-examples-")
        shutil.copytree(EXAMPLES, os.path.join(cls.dir, "examples"))
        cls.port = free_port()
        cls.url = "http://127.0.0.1:%d" % cls.port
        cls.collector = subprocess.Popen(
            [COLLECTOR, "--listen", "127.0.0.1:%d" % cls.port, "--data-dir",
             os.path.join(cls.dir, "store")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        assert "listening on" in cls.collector.stdout.readline()

    @classmethod
    def tearDownClass(cls):
        cls.collector.send_signal(signal.SIGTERM)
        cls.collector.communicate(timeout=30)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def env(self, data):
        env = dict(os.environ, SIGNALBOX_DATA_DIR=os.path.join(self.dir, data),
                   SIGNALBOX_COLLECTOR=self.url, SIGNALBOX_EXAMPLE_QUICK="1")
        env.pop("PYTHONPATH", None)  # launched runs find the client without the user's help
        return env

    def cli(self, args, data):
        return subprocess.run([CLI, "--config", os.path.join(self.dir, "none.yaml"), *args],
                              capture_output=True, text=True, env=self.env(data), cwd=self.dir,
                              timeout=240)

    def runs(self):
        with urllib.request.urlopen(self.url + "/api/v1/runs", timeout=10) as response:
            return {run["name"]: run for run in json.load(response)}

    def test_every_example_documents_commands_that_plan(self):
        sweeps = os.path.join(self.dir, "examples", "sweeps")
        for name in sorted(os.listdir(sweeps)):
            if not name.endswith(".yaml"):
                continue
            path = os.path.join("examples", "sweeps", name)
            result = self.cli(["sweep", "plan", path, "--seed", "1"], "plan")
            self.assertEqual(result.returncode, 0, name + ": " + result.stderr)
            self.assertTrue(result.stdout.strip(), name)
            for command in documented(os.path.join(sweeps, name)):
                self.assertEqual(command[:2] in (["sweep", "plan"], ["sweep", "run"]), True,
                                 "%s documents %s" % (name, command))

    def run_sweep(self, name, data):
        # As the example's header and the README write it, from the copy's parent directory.
        path = os.path.join("examples", "sweeps", name)
        result = self.cli(["sweep", "run", path, "--seed", "1"], data)
        out = result.stdout + result.stderr
        self.assertEqual(result.returncode, 0, out)
        self.assertNotIn("ModuleNotFoundError", out)
        trials = [line for line in result.stdout.splitlines() if line.startswith("trial ")]
        return trials, out

    def test_a_copied_mlp_seeds_sweep_runs_every_trial_with_the_client(self):
        trials, out = self.run_sweep("mlp-seeds.yaml", "seeds")
        self.assertEqual(len(trials), 12, out)
        self.assertTrue(all(" succeeded: val/loss " in t and "(none)" not in t for t in trials),
                        trials)
        # Through the client: each run has its config and ended "finished" by its own word.
        runs = [r for r in self.runs().values() if r.get("sweep", "").startswith("mlp")]
        self.assertEqual(len(runs), 12)
        for run in runs:
            self.assertEqual(run["status"], "finished", run)
            self.assertIn("lr", run["config"])

    def test_the_branin_bayes_sweep_runs_headless_to_its_end(self):
        trials, out = self.run_sweep("branin-bayes.yaml", "branin")
        self.assertGreater(len(trials), 0, out)
        best = json.loads(out.strip().splitlines()[-1])
        self.assertIn("loss", best)

    def test_the_demo_script_runs_as_scripts_run_starts_it(self):
        env = self.env("demo")
        env["SIGNALBOX_RUN"] = "demo-mlp"
        result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_mlp.py"),
                                 "--lr", "0.1"], capture_output=True, text=True, env=env,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        run = self.runs()["demo-mlp"]
        self.assertEqual(run["status"], "finished")
        self.assertEqual(run["metrics"]["train/loss"]["count"], 20)


if __name__ == "__main__":
    CLI, COLLECTOR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)
