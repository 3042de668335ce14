"""The Python client as researchers install and use it: its wheel built and installed into a fresh
virtualenv, the single file copied alone, and its adapters in real training loops of PyTorch
Lightning, Hugging Face's Trainer and Keras 3 (CPU, from PyPI, in a virtualenv under the build
directory), each logging to a real collector and checked point by point; and the SummaryWriter
drop-in against what tensorboardX writes for the same calls, as the collector reads it back.

usage: test_trainers.py COLLECTOR BUILD_DIR SOURCE_DIR
"""
import csv
import io
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import tensorboard_peer as peer  # noqa: E402
import trainers_venv  # noqa: E402

COLLECTOR, BUILD, SOURCE = (sys.argv[1:4] if len(sys.argv) >= 4 else (None, None, None))
CLIENT = os.path.join(SOURCE or "", "clients", "python")


class Collector:
    """A signalbox-collector of its own, on a free loopback port."""

    def __init__(self, *extra):
        self.data = tempfile.mkdtemp(prefix="sb-trainers-")
        port = peer.free_port()
        self.url = "http://127.0.0.1:%d" % port
        self.proc = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port,
                                      "--data-dir", self.data, *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peer.wait_until(self._answers, timeout=60, interval=0.05)

    def _answers(self):
        try:
            self.get("/api/v1/health")
            return True
        except OSError:
            return False

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=30) as reply:
            return reply.read()

    def json(self, path):
        return json.loads(self.get(path))

    def runs(self):
        return {run["name"]: run for run in self.json("/api/v1/runs")}

    def points(self, run, metric):
        """[(step, value)] as stored, in step order."""
        text = self.get("/api/v1/export?run=%s&metric=%s" % (
            urllib.parse.quote(run, safe=""), urllib.parse.quote(metric, safe=""))).decode()
        return [(float(r["step"]), float(r["value"])) for r in csv.DictReader(io.StringIO(text))]

    def samples(self, run, tag):
        """A tag's items; none while the collector has not read any (404)."""
        try:
            return self._samples(run, tag)
        except urllib.error.HTTPError as error:
            if error.code != 404:
                raise
            return []

    def _samples(self, run, tag):
        return self.json("/api/v1/samples?run=%s&tag=%s&limit=1000" % (
            urllib.parse.quote(run, safe=""), urllib.parse.quote(tag, safe="")))["samples"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.data, ignore_errors=True)


def float32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def wait_for(what, check, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("waited %d s for %s" % (timeout, what))
        time.sleep(0.1)


class Package(unittest.TestCase):
    def test_wheel_installs_into_a_fresh_virtualenv(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "client")  # a build leaves its files beside the sources
            shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("__pycache__"))
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--no-build-isolation", "--wheel-dir", tmp, source], check=True)
            wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
            self.assertEqual(len(wheels), 1, wheels)
            with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
                version = re.search(r"project\(Signalbox VERSION ([0-9.]+)", f.read()).group(1)
            self.assertTrue(wheels[0].startswith("signalbox-%s-py3-none-any" % version), wheels)
            with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as wheel:
                names = set(wheel.namelist())
            for module in ("__init__", "tensorboard", "integrations/__init__",
                           "integrations/lightning", "integrations/transformers",
                           "integrations/keras"):
                self.assertIn("signalbox/%s.py" % module, names)
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index",
                            "--disable-pip-version-check", os.path.join(tmp, wheels[0])],
                           check=True)
            # Nothing but the standard library: no numpy, no trainer in this virtualenv.
            out = subprocess.run([python, "-c", "import signalbox, signalbox.tensorboard, "
                                  "signalbox.integrations; print(signalbox.__version__, "
                                  "signalbox.__file__)"], check=True, capture_output=True,
                                 text=True, cwd=tmp, env={"PATH": os.environ["PATH"]}).stdout
            self.assertEqual(out.split()[0], version)
            self.assertIn(os.path.join(venv, "lib"), out.split()[1])

    def test_single_file_still_works(self):
        collector = Collector()
        try:
            with tempfile.TemporaryDirectory() as tmp:
                shutil.copy(os.path.join(CLIENT, "signalbox", "__init__.py"),
                            os.path.join(tmp, "signalbox.py"))
                script = ("import signalbox\nsignalbox.init('single', config={'lr': 0.5})\n"
                          "for i in range(10):\n    signalbox.log({'loss': 1.0 / (i + 1)}, i)\n"
                          "signalbox.finish()\n")
                subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp,
                               env={"PATH": os.environ["PATH"],
                                    "SIGNALBOX_COLLECTOR": collector.url})
            self.assertEqual(collector.points("single", "loss"),
                             [(float(i), 1.0 / (i + 1)) for i in range(10)])
            self.assertEqual(collector.runs()["single"]["config"], {"lr": 0.5})
        finally:
            collector.stop()


class Trainers(unittest.TestCase):
    """Each trainer in a real (small) training loop, as a researcher's script would run it."""

    def setUp(self):
        self.collector = Collector()
        self.tmp = tempfile.mkdtemp(prefix="sb-trainer-")

    def tearDown(self):
        self.collector.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_script(self, name, **env):
        """Runs tests/integration/trainers/NAME.py in the virtualenv; its last line of output
        is a JSON object of what it logged, as the trainer saw it."""
        environment = dict(os.environ, SIGNALBOX_COLLECTOR=self.collector.url,
                           PYTHONPATH=CLIENT, CUDA_VISIBLE_DEVICES="", **env)
        done = subprocess.run([sys.executable, os.path.join(HERE, "trainers", name + ".py"),
                               self.tmp], capture_output=True, text=True, env=environment,
                              cwd=self.tmp, timeout=900)
        self.assertEqual(done.returncode, 0, done.stderr[-4000:])
        return json.loads(done.stdout.strip().splitlines()[-1])

    def checkpoints(self, run):
        items = wait_for("checkpoints of " + run,
                         lambda: self.collector.samples(run, "checkpoints"))
        return [item["text"] for item in items]

    def test_lightning_logger(self):
        seen = self.run_script("lightning_loop")
        run = self.collector.runs()["lightning-run"]
        self.assertEqual(run["status"], "finished")
        self.assertEqual(run["config"]["lr"], 0.05)
        self.assertEqual(run["config"]["hidden"], 8)
        stored = self.collector.points("lightning-run", "train/loss")
        self.assertEqual(len(stored), len(seen["train/loss"]))
        self.assertEqual([v for _, v in stored], [v for _, v in seen["train/loss"]])
        self.assertEqual([s for s, _ in stored], [float(s) for s, _ in seen["train/loss"]])
        self.assertEqual([v for _, v in self.collector.points("lightning-run", "val/loss")],
                         [v for _, v in seen["val/loss"]])
        self.assertTrue(any(text.endswith(".ckpt") for text in self.checkpoints("lightning-run")))
        # What it ran: the script, its checkout's commit.
        self.assertTrue(run["environment"]["argv"][0].endswith("lightning_loop.py"))
        head = subprocess.run(["git", "-C", SOURCE, "rev-parse", "HEAD"], capture_output=True,
                              text=True)
        if head.returncode == 0:  # a checkout, as CI's
            self.assertEqual(run["code"]["commit"], head.stdout.strip())

    def test_lightning_killed_between_checkpoints_resumes_without_doubling_back(self):
        def life(number):
            environment = dict(os.environ, SIGNALBOX_COLLECTOR=self.collector.url,
                               PYTHONPATH=CLIENT, CUDA_VISIBLE_DEVICES="")
            return subprocess.run([sys.executable, os.path.join(HERE, "trainers",
                                                                "lightning_resume.py"),
                                   self.tmp, str(number)], capture_output=True, text=True,
                                  env=environment, cwd=self.tmp, timeout=900)
        killed = life(1)
        self.assertEqual(killed.returncode, -signal.SIGKILL, killed.stderr[-4000:])
        resumed = life(2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr[-4000:])
        with open(os.path.join(self.tmp, "1.json")) as f:
            first = json.load(f)
        second = json.loads(resumed.stdout.strip().splitlines()[-1])
        self.assertEqual(first[-1][0], 12)  # it logged steps 10-12 past its last checkpoint
        self.assertEqual(second[0][0], 10)  # and the second life began again at step 10
        stored = self.collector.points("lightning-resumed", "train/loss")
        # Every step once, in order, each from the life that the resumed run stands on.
        self.assertEqual(stored, [(float(s), v) for s, v in first[:10] + second])
        run = self.collector.runs()["lightning-resumed"]
        self.assertEqual(run["status"], "finished")
        self.assertEqual([(r["step"], r["inclusive"]) for r in run["rewinds"]], [(10, True)])
        self.assertGreater(run["rewinds"][0]["points"], 0)

    def test_transformers_callback(self):
        seen = self.run_script("transformers_loop")
        run = self.collector.runs()["hf-run"]
        self.assertEqual(run["config"]["learning_rate"], 0.001)
        self.assertEqual(run["config"]["max_steps"], 12)
        self.assertEqual(run["config"]["model"]["hidden_size"], 16)
        for theirs, ours in (("loss", "train/loss"), ("eval_loss", "eval/loss")):
            expected = [(float(e["step"]), e[theirs]) for e in seen["log_history"] if theirs in e]
            self.assertTrue(expected)
            self.assertEqual(self.collector.points("hf-run", ours), expected)
        self.assertEqual(sorted(self.checkpoints("hf-run")),
                         sorted(os.path.join(self.tmp, "out", "checkpoint-%d" % s) for s in (6, 12)))

    def test_keras_callback(self):
        seen = self.run_script("keras_loop", KERAS_BACKEND="torch")
        run = self.collector.runs()["keras-run"]
        self.assertEqual(run["config"]["fit"]["epochs"], 3)
        self.assertIn("learning_rate", run["config"]["optimizer"])
        for metric in ("loss", "val_loss"):
            self.assertEqual([v for _, v in self.collector.points("keras-run", metric)],
                             seen["history"][metric])
        steps = [s for s, _ in self.collector.points("keras-run", "epoch")]
        self.assertEqual(steps, [float(seen["batches"] * (e + 1)) for e in range(3)])
        self.assertEqual(len(self.collector.points("keras-run", "batch/loss")),
                         3 * seen["batches"])


class SummaryWriterDropIn(unittest.TestCase):
    """The same calls to tensorboardX's writer (read back by a collector watching its logdir)
    and to signalbox.tensorboard's (sent to another) give the same runs, scalars and samples."""

    def test_same_as_tensorboardx(self):
        logdir = tempfile.mkdtemp(prefix="sb-tbx-")
        watching = Collector("--watch", logdir)
        direct = Collector()
        try:
            script = os.path.join(HERE, "trainers", "summary_writer_calls.py")
            for writer, url in (("tensorboardX", ""), ("signalbox", direct.url)):
                subprocess.run([sys.executable, script, writer, os.path.join(logdir, "exp1")],
                               check=True, cwd=logdir, env=dict(
                                   os.environ, PYTHONPATH=CLIENT, SIGNALBOX_COLLECTOR=url))
            names = ["exp1", "exp1/losses/train", "exp1/losses/val"]
            wait_for("tensorboardX's runs read", lambda: set(names) <= set(watching.runs()))
            # tensorboardX writes its hyperparameters and their metrics to a run of their own.
            hparams = wait_for("the hparams run", lambda: [
                name for name, r in watching.runs().items() if r.get("config")])
            self.assertEqual(direct.runs()["exp1"]["config"],
                             watching.runs()[hparams[0]]["config"])
            for run, metric, theirs_run in (
                    ("exp1", "loss", "exp1"), ("exp1", "lr", "exp1"),
                    ("exp1/losses/train", "losses", "exp1/losses/train"),
                    ("exp1/losses/val", "losses", "exp1/losses/val"),
                    ("exp1", "hparam/accuracy", hparams[0])):
                theirs = wait_for(run + " " + metric, lambda: watching.points(theirs_run, metric))
                # An event file holds a scalar as a float32; the drop-in sends the double.
                self.assertEqual([(s, float32(v)) for s, v in direct.points(run, metric)],
                                 theirs, (run, metric))
            for tag, facts in (("images/one", ("width", "height")), ("images/grid", ()),
                               ("weights", ("num", "min", "max")),
                               ("notes/text_summary", ()),
                               ("sound", ("sample_rate", "frames", "channels"))):
                ours = direct.samples("exp1", tag)
                theirs = wait_for(tag, lambda: watching.samples("exp1", tag))
                self.assertEqual([i["step"] for i in ours], [i["step"] for i in theirs], tag)
                for fact in facts:
                    self.assertEqual([i[fact] for i in ours], [i[fact] for i in theirs],
                                     (tag, fact))
            # An event file's text is a one-element string tensor, read as a table of one cell
            # (as TensorBoard shows it); the drop-in sends the text itself.
            self.assertEqual([i["text"] for i in direct.samples("exp1", "notes/text_summary")],
                             [json.loads(i["text"])[0][0] for i in
                              watching.samples("exp1", "notes/text_summary")])
        finally:
            watching.stop()
            direct.stop()
            shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    if os.environ.get("SIGNALBOX_TRAINERS_VENV") != "1":  # run again inside the virtualenv
        python = trainers_venv.ensure(BUILD)
        os.environ["SIGNALBOX_TRAINERS_VENV"] = "1"
        os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[4:])
