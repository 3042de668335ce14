"""The Python client: fallback to metric lines, encoding, step defaults, bounds, and against a
real signalbox-collector process (SIGNALBOX_COLLECTOR_BINARY, else build/app/): the end of a run
on SIGTERM and SIGINT, proxies, a collector that drips its answer, fork, reserved metric names,
short runs, taken names, runs resumed from checkpoints (rewound, forked, killed -9 between
checkpoints), heartbeats and the runtime token file. Collector crashes are covered by
tests/integration/test_collector_crash.py."""

import contextlib
import decimal
import fractions
import io
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request
import uuid

import signalbox

UNREACHABLE = "http://127.0.0.1:1"  # nothing listens on port 1: connection refused at once
HERE = os.path.dirname(os.path.abspath(__file__))
# The scripts' client too: the directory holding the package (or the single file).
CLIENT_DIR = os.path.dirname(os.path.abspath(signalbox.__file__))
if os.path.basename(signalbox.__file__) == "__init__.py":
    CLIENT_DIR = os.path.dirname(CLIENT_DIR)
# What a run ran is recorded by test_code_and_environment_are_recorded; the other tests count
# exactly the samples they log.
os.environ["SIGNALBOX_RECORD_CODE"] = "0"
BOUND = 60  # seconds any one wait may take before the test fails instead of hanging


def collector_binary():
    binary = os.environ.get("SIGNALBOX_COLLECTOR_BINARY") or os.path.join(
        HERE, "..", "..", "build", "app", "signalbox-collector")
    return binary if os.access(binary, os.X_OK) else None


def unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])



def restore_environment(saved):
    """Puts back the variables `saved` holds (None: it was unset)."""
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value

def png_bytes(width, height):
    """A real PNG (RGB, every pixel grey), written with zlib as any writer would."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\x80" * (3 * width) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def decode_png(data):
    """The pixels of a PNG the client wrote (8-bit, filter 0): rows of tuples."""
    import struct
    import zlib
    width, height, _, colour = struct.unpack(">IIBB", data[16:26])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[colour]
    at, idat = 8, b""
    while at < len(data):
        length, = struct.unpack(">I", data[at:at + 4])
        if data[at + 4:at + 8] == b"IDAT":
            idat += data[at + 8:at + 8 + length]
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + width * channels
    return [[tuple(raw[r * stride + 1 + c * channels:r * stride + 1 + (c + 1) * channels])
             for c in range(width)] for r in range(height)]


class Collector:
    """A real signalbox-collector on a free loopback port, with its own data directory."""

    def __init__(self, token=None):
        binary = collector_binary()
        if binary is None:
            raise unittest.SkipTest("no signalbox-collector (set SIGNALBOX_COLLECTOR_BINARY)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.data = tempfile.TemporaryDirectory(prefix="sb-client-")
        self.url = "http://127.0.0.1:%d" % port
        self.token = token
        command = [binary, "--listen", "127.0.0.1:%d" % port, "--data-dir", self.data.name]
        env = dict(os.environ)
        env.pop("SIGNALBOX_TOKEN", None)
        if token:
            command += ["--token", token]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            raise AssertionError("collector did not start: %r %s"
                                 % (line, self.process.stderr.read()))

    def close(self):
        self.process.terminate()
        self.process.wait(BOUND)
        self.process.stdout.close()
        self.process.stderr.close()
        self.data.cleanup()

    def request(self, path, data=None):
        # No proxy from the environment for the test's own requests either.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        request = urllib.request.Request(self.url + path, data=data)
        if self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        with opener.open(request, timeout=BOUND) as response:
            return response.read().decode()

    def run_info(self, name):
        runs = json.loads(self.request("/api/v1/runs?filter=" + urllib.parse.quote(name.lower())))
        return next((r for r in runs if r["name"] == name), None)

    def count(self, name, metric):
        info = self.run_info(name) or {}
        return info.get("metrics", {}).get(metric, {}).get("count", 0)


class Server:
    """A loopback HTTP-ish server whose every connection `handle(connection, request bytes)`
    answers; it records what reached it."""

    def __init__(self, handle):
        self.handle = handle
        self.requests = []
        self.arrived = threading.Condition()
        self.closed = threading.Event()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed.is_set():
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        with connection:
            connection.settimeout(BOUND)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
                length = 0
                for line in head.split("\r\n"):
                    if line.startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                while len(data.split(b"\r\n\r\n", 1)[1]) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                with self.arrived:
                    self.requests.append(data)
                    self.arrived.notify_all()
                self.handle(connection, data, self)
            except OSError:
                pass

    def wait_for(self, predicate):
        with self.arrived:
            return self.arrived.wait_for(lambda: any(predicate(r) for r in self.requests), BOUND)

    def close(self):
        self.closed.set()
        self.sock.close()


def answer(connection, status, body=b"{}"):
    connection.sendall(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                       b"Connection: close\r\n\r\n%s" % (status, len(body), body))


def script_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.abspath(CLIENT_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    for key in ("SIGNALBOX_RUN", "SIGNALBOX_TOKEN", "SIGNALBOX_PROXY", "SIGNALBOX_SWEEP"):
        env.pop(key, None)
    env.update(extra)
    return env


def metric_lines(text):
    return [json.loads(line[len(signalbox.PREFIX):]) for line in text.splitlines()
            if line.startswith(signalbox.PREFIX)]


class ClientTest(unittest.TestCase):
    def test_prints_metric_lines_when_no_collector(self):
        out = io.StringIO()
        run = signalbox.Run(run="r", collector=UNREACHABLE, out=out, flush_interval=0.01)
        run.log({"loss": 1.0, "acc": 0.5})
        run.log({"loss": 0.5})
        run.log({"loss": 0.25}, step=10)
        run.log({"loss": 0.125})
        run.finish()
        records = metric_lines(out.getvalue())
        self.assertEqual([r["step"] for r in records], [0, 1, 10, 11])
        self.assertEqual(records[0]["acc"], 0.5)
        self.assertTrue(all("time" in r for r in records))
        self.assertEqual(run.printed, 5)
        self.assertEqual(run.acknowledged, 0)

    def test_finish_sends_a_large_backlog(self):
        out = io.StringIO()
        run = signalbox.Run(run="r", collector=UNREACHABLE, out=out, flush_interval=60)
        for i in range(250_000):  # more than one batch's worth, all queued before the first send
            run.log({"x": i})
        run.finish()
        self.assertEqual(run.printed, 250_000)
        self.assertEqual(run.dropped, 0)

    def test_non_finite_values_are_encoded(self):
        line = signalbox.metric_line({"a": math.nan, "b": math.inf, "c": -math.inf, "d": 1}, step=3)
        self.assertTrue(line.startswith("@signalbox {"))
        record = json.loads(line[len(signalbox.PREFIX):])
        self.assertEqual(record, {"a": "NaN", "b": "Infinity", "c": "-Infinity", "d": 1.0, "step": 3})

    def test_queue_is_bounded_and_never_blocks(self):
        out = io.StringIO()
        run = signalbox.Run(run="r", collector=UNREACHABLE, out=out, max_queue=10, flush_interval=60)
        for i in range(100):
            run.log({"x": i})
        self.assertEqual(run.dropped, 90)
        run.finish()
        self.assertEqual(len(metric_lines(out.getvalue())), 10)

    def test_module_functions_and_environment(self):
        import os
        os.environ["SIGNALBOX_RUN"] = "from-env"
        os.environ["SIGNALBOX_COLLECTOR"] = UNREACHABLE
        os.environ["SIGNALBOX_SWEEP"] = "lr-grid-1a2b"
        try:
            current = signalbox.init(config={"lr": 0.1}, out=io.StringIO(), flush_interval=0.01)
            self.assertIs(signalbox.run(), current)
            self.assertEqual(current.name, "from-env")
            self.assertEqual(current._info["sweep"], "lr-grid-1a2b")  # the view groups by it
            self.assertEqual(current.collector, UNREACHABLE)
            signalbox.log({"loss": 1})
            signalbox.finish()
            self.assertIsNone(signalbox.run())
        finally:
            del os.environ["SIGNALBOX_RUN"]
            del os.environ["SIGNALBOX_COLLECTOR"]
            del os.environ["SIGNALBOX_SWEEP"]

    def test_unrepresentable_steps_are_refused(self):
        run = signalbox.Run(run="r", collector=UNREACHABLE, out=io.StringIO(), flush_interval=60)
        for step in (2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 64, math.nan, math.inf, "3",
                     fractions.Fraction(1, 3), decimal.Decimal("0.1")):
            with self.assertRaisesRegex(ValueError, "step"):
                run.log({"x": 1.0}, step=step)
        for step in (2 ** 53, -(2 ** 53), 0.5, 2.0 ** 52 + 0.5, fractions.Fraction(1, 2), True):
            run.log({"x": 1.0}, step=step)
        with self.assertRaisesRegex(ValueError, "step"):
            signalbox.metric_line({"x": 1}, step=2 ** 53 + 1)
        with self.assertRaisesRegex(ValueError, "time"):
            signalbox.metric_line({"x": 1}, wall=math.nan)
        run.finish()
        self.assertEqual(run.printed, 6)  # the refused calls queued nothing

    def test_log_after_finish_is_counted(self):
        run = signalbox.Run(run="r", collector=UNREACHABLE, out=io.StringIO(), flush_interval=60)
        run.finish()
        with contextlib.redirect_stderr(io.StringIO()) as err:
            run.log({"x": 1.0, "y": 2.0})
        self.assertEqual(run.dropped, 2)
        self.assertIn("after finish()", err.getvalue())


class AgainstCollectorTest(unittest.TestCase):
    """Against a real collector process. Each test uses run names of its own."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()

    @classmethod
    def tearDownClass(cls):
        cls.collector.close()

    def run_script(self, name, body, send=None, env=None, collector=None):
        """Runs `body` in a python process logging to run `name`; with `send`, the signal is
        sent once it prints "ready". Returns (returncode, stdout, stderr)."""
        script = "import os, signal, sys, time\nimport signalbox\nNAME = %r\n%s" % (name, body)
        url = (collector or self.collector).url
        process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env=script_env(SIGNALBOX_COLLECTOR=url, **(env or {})))
        try:
            if send is not None:
                line = process.stdout.readline()
                self.assertEqual(line.strip(), "ready", process.stderr.read() if not line else line)
                process.send_signal(send)
            out, err = process.communicate(timeout=BOUND)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        return process.returncode, out, err

    def samples(self, run, tag):
        """A tag's items as the collector serves them, and its kind."""
        query = urllib.parse.urlencode({"run": run, "tag": tag, "limit": 1000})
        page = json.loads(self.collector.request("/api/v1/samples?" + query))
        return page["kind"], page["samples"]

    def blob(self, digest):
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(self.collector.url + "/api/v1/blobs/" + digest, timeout=BOUND) as reply:
            return reply.read()

    def test_code_and_environment_are_recorded(self):
        with tempfile.TemporaryDirectory() as repo:
            def git(*args):
                subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
                                *args], check=True, capture_output=True)
            git("init", "-q", "-b", "exp")
            git("remote", "add", "origin", "https://alice:s3cret@git.example.com/lab/model.git")
            script = os.path.join(repo, "train.py")
            with open(script, "w") as f:
                f.write("import signalbox, sys\nrun = signalbox.Run(sys.argv[1])\n"
                        "run.log({'loss': 1.0})\nrun.finish()\n")
            git("add", "train.py")
            git("commit", "-q", "-m", "first")
            commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], check=True,
                                    capture_output=True, text=True).stdout.strip()
            with open(script, "a") as f:
                f.write("# tried a larger batch\n")
            names = unique("recorded"), unique("unrecorded")
            for name, record in zip(names, ("1", "0")):
                done = subprocess.run([sys.executable, script, name, "--lr=0.1"], cwd=HERE,
                                      capture_output=True, text=True, timeout=BOUND,
                                      env=script_env(SIGNALBOX_COLLECTOR=self.collector.url,
                                                     SIGNALBOX_RECORD_CODE=record))
                self.assertEqual(done.returncode, 0, done.stderr)
        info = self.collector.run_info(names[0])
        code, environment = info["code"], info["environment"]
        self.assertEqual((code["commit"], code["branch"], code["dirty"], code["diff_cut"]),
                         (commit, "exp", True, False))
        self.assertEqual(code["remote"], "https://git.example.com/lab/model.git")  # no secret
        self.assertEqual(environment["argv"], [script, names[0], "--lr=0.1"])
        self.assertEqual(environment["python"], "%d.%d.%d" % sys.version_info[:3])
        self.assertEqual(environment["cwd"], HERE)
        diff = self.samples(names[0], "code/diff")[1][0]["text"]
        self.assertIn("+# tried a larger batch", diff)
        self.assertEqual(code["diff_bytes"], len(diff.encode()))
        packages = self.samples(names[0], "environment/packages")[1][0]["text"].splitlines()
        self.assertEqual(packages, sorted(packages, key=str.lower))
        self.assertTrue(all("==" in line for line in packages))
        unrecorded = self.collector.run_info(names[1])
        self.assertNotIn("code", unrecorded)
        self.assertNotIn("environment", unrecorded)

    def test_samples_beside_scalars_in_one_log_call(self):
        name = unique("samples")
        run = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0,
                            flush_interval=60)  # nothing sent before finish()
        png = png_bytes(3, 2)
        for step in range(3):
            run.log({"loss": 1.0 / (step + 1), "picture": signalbox.Image(png),
                     "weights": signalbox.Histogram([0.5, 1.5, 1.5, 2.5, float("nan")], bins=2),
                     "note": signalbox.Text("step %d: ok \u00e9" % step),
                     "scores": signalbox.Table([["a", 1], ["b", 2]]),
                     "tone": signalbox.Audio([0.0, 0.5, -0.5, 1.0], rate=8000)}, step=step)
        # One block of the rows' numbers: none left empty by the rows' samples.
        self.assertEqual([len(block[1]) for block in run._blocks], [3])
        run.finish()
        self.assertEqual((run.acknowledged, run.dropped, run.refused, run.invalid, run.unencoded,
                          run.unsent), (3 + 5 * 3, 0, 0, 0, 0, 0))
        self.assertEqual(self.collector.count(name, "loss"), 3)
        kind, images = self.samples(name, "picture")
        self.assertEqual(kind, "image")
        self.assertEqual([(i["step"], i["width"], i["height"]) for i in images],
                         [(0, 3, 2), (1, 3, 2), (2, 3, 2)])
        self.assertEqual(self.blob(images[0]["blob"]), png)
        self.assertEqual(len({i["blob"] for i in images}), 1)  # the same bytes, one blob
        kind, histograms = self.samples(name, "weights")
        self.assertEqual(kind, "histogram")
        self.assertEqual(histograms[0]["buckets"], [[0.5, 1.5, 1.0], [1.5, 2.5, 3.0]])
        self.assertEqual((histograms[0]["num"], histograms[0]["sum"]), (4, 6.0))  # NaN left out
        _, notes = self.samples(name, "note")
        self.assertEqual(notes[2]["text"], "step 2: ok \u00e9")
        _, tables = self.samples(name, "scores")
        self.assertEqual((tables[0]["rows"], tables[0]["columns"]), (2, 2))
        self.assertEqual(json.loads(tables[0]["text"]), [["a", "1"], ["b", "2"]])
        _, clips = self.samples(name, "tone")
        self.assertEqual((clips[0]["sample_rate"], clips[0]["frames"], clips[0]["channels"]),
                         (8000, 4, 1))
        self.assertTrue(self.blob(clips[0]["blob"]).startswith(b"RIFF"))

    def test_arrays_are_encoded_on_the_sender(self):
        try:
            import numpy as np
            from PIL import Image as PilImage
        except ImportError:
            if os.environ.get("SIGNALBOX_TEST_NUMPY") == "required":
                raise
            self.skipTest("numpy or Pillow is missing (python_client_arrays runs this test with "
                          "Debian's python3, which has them)")
        name = unique("arrays")
        run = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
        hwc = np.zeros((4, 6, 3), np.uint8)
        hwc[1, 2] = (255, 0, 10)
        chw = np.ones((1, 5, 7), np.float32) * 0.5  # float in [0, 1], channels first
        batch = np.zeros((5, 3, 8, 8), np.float64)  # N x C x H x W: one grid of 3 x 2 cells
        weights = np.random.default_rng(0).normal(size=1_000_000).astype(np.float32)
        weights[:10] = np.nan
        pil = PilImage.new("RGB", (9, 2), (1, 2, 3))
        run.log({"pil": signalbox.Image(pil)}, step=6)
        pil.putpixel((0, 0), (9, 9, 9))  # log() took a copy
        run.log({"hwc": signalbox.Image(hwc), "chw": signalbox.Image(chw),
                 "batch": signalbox.Image(batch), "w": signalbox.Histogram(weights, bins=30),
                 "stereo": signalbox.Audio(np.zeros((100, 2), np.float32), rate=16000)}, step=7)
        hwc[:] = 0  # log() took a copy
        run.log({"flat": signalbox.Image(np.zeros(5, np.uint8))}, step=8)  # not an image
        run.finish()
        self.assertEqual(run.unencoded, 1)
        self.assertEqual((run.acknowledged, run.refused), (6, 0))
        pil_item = self.samples(name, "pil")[1][0]
        self.assertEqual((pil_item["width"], pil_item["height"]), (9, 2))
        with PilImage.open(io.BytesIO(self.blob(pil_item["blob"]))) as sent:
            self.assertEqual(sent.getpixel((0, 0)), (1, 2, 3))
        facts = {tag: self.samples(name, tag)[1][0] for tag in ("hwc", "chw", "batch", "w",
                                                                  "stereo")}
        self.assertEqual((facts["hwc"]["width"], facts["hwc"]["height"]), (6, 4))
        self.assertEqual((facts["chw"]["width"], facts["chw"]["height"]), (7, 5))
        self.assertEqual((facts["batch"]["width"], facts["batch"]["height"]), (3 * 8 + 4, 2 * 8 + 2))
        self.assertEqual(decode_png(self.blob(facts["hwc"]["blob"]))[1][2], (255, 0, 10))
        self.assertEqual(decode_png(self.blob(facts["chw"]["blob"]))[0][0], (128,))
        self.assertEqual(facts["w"]["num"], 999_990)
        self.assertEqual(len(facts["w"]["buckets"]), 30)
        self.assertEqual(sum(b[2] for b in facts["w"]["buckets"]), 999_990)
        self.assertEqual((facts["stereo"]["channels"], facts["stereo"]["frames"]), (2, 100))

    def test_samples_the_collector_refuses_are_said_and_the_rest_kept(self):
        name = unique("refused")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            run = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
            run.log({"bad": signalbox.Image(b"not an image"), "x": 1.0}, step=0)
            run.log({"nan": signalbox.Histogram(buckets=[(float("nan"), 1, 1)])}, step=1)
            run.log({"good": signalbox.Text("kept")}, step=2)
            run.finish()
        self.assertEqual(run.refused, 1, err.getvalue())  # the image; its push held only it
        self.assertEqual(run.unencoded, 1, err.getvalue())  # the NaN edge, caught here
        self.assertIn("not an image TensorBoard shows", err.getvalue())
        self.assertEqual(self.samples(name, "good")[1][0]["text"], "kept")
        self.assertEqual(self.collector.count(name, "x"), 1)

    def test_samples_without_a_collector_are_counted_unsent(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            run = signalbox.Run(run=unique("nowhere"), collector=UNREACHABLE, heartbeat=0,
                                finish_timeout=0.5, out=io.StringIO())
            run.log({"t": signalbox.Text("lost"), "x": 1.0}, step=0)
            run.finish()
        self.assertEqual((run.unsent, run.printed), (1, 1), err.getvalue())
        self.assertIn("1 neither sent nor printed", err.getvalue())

    LOG_3000 = """
signalbox.init(run=NAME, flush_interval=60, heartbeat=0)  # nothing sent before the signal
for i in range(3000):
    signalbox.log({"x": float(i)}, step=i)
print("ready", flush=True)
"""

    def test_sigterm_flushes_ends_stopped_and_dies_by_the_signal(self):
        name = unique("sigterm")
        code, _, err = self.run_script(name, self.LOG_3000 + "time.sleep(%d)\n" % BOUND,
                                       send=signal.SIGTERM)
        self.assertEqual(code, -signal.SIGTERM, err)
        self.assertEqual(self.collector.count(name, "x"), 3000, err)
        self.assertEqual(self.collector.run_info(name)["status"], "stopped")

    def test_sigterm_during_a_busy_log_loop_keeps_every_logged_point(self):
        name = unique("sigterm-busy")
        body = """
signalbox.init(run=NAME, flush_interval=0.01, heartbeat=0)
step = 0
while True:  # the signal lands inside log() as often as not
    signalbox.log({"x": float(step), "y": 1.0}, step=step)
    step += 1
    if step == 20000:
        print("ready", flush=True)
"""
        code, _, err = self.run_script(name, body, send=signal.SIGTERM)
        self.assertEqual(code, -signal.SIGTERM, err)
        info = self.collector.run_info(name)
        self.assertEqual(info["status"], "stopped")
        for metric in ("x", "y"):  # every call that returned, and none twice
            self.assertEqual(info["metrics"][metric]["count"], info["metrics"][metric]["step"] + 1)

    def test_sigint_flushes_and_ends_stopped(self):
        name = unique("sigint")
        body = "signal.signal(signal.SIGINT, signal.default_int_handler)\n" + self.LOG_3000
        code, _, err = self.run_script(name, body + "time.sleep(%d)\n" % BOUND, send=signal.SIGINT)
        self.assertEqual(code, -signal.SIGINT, err)  # an uncaught KeyboardInterrupt, as before
        self.assertIn("KeyboardInterrupt", err)
        self.assertEqual(self.collector.count(name, "x"), 3000, err)
        self.assertEqual(self.collector.run_info(name)["status"], "stopped")

    def test_sigterm_chains_to_the_scripts_own_handler(self):
        name = unique("sigterm-own")
        body = """
received = []
signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
""" + self.LOG_3000 + """
while not received:
    time.sleep(0.01)
signalbox.log({"x": 3000.0}, step=3000)  # the script goes on after its handler, and can log
print("handled", flush=True)
"""
        code, out, err = self.run_script(name, body, send=signal.SIGTERM)
        self.assertEqual(code, 0, err)
        self.assertIn("handled", out)
        self.assertEqual(self.collector.count(name, "x"), 3001, err)
        self.assertEqual(self.collector.run_info(name)["status"], "stopped")

    def test_fork_child_does_not_write_to_the_parents_run(self):
        name = unique("fork")
        body = """
signalbox.init(run=NAME, flush_interval=60, heartbeat=0)
for i in range(100):
    signalbox.log({"x": float(i)}, step=i)
pid = os.fork()
if pid == 0:  # a DataLoader worker that logs, then ends as a script does (atexit runs)
    for i in range(5):
        signalbox.log({"child": 1.0})
    sys.exit(0)
os.waitpid(pid, 0)
for i in range(100, 200):
    signalbox.log({"x": float(i)}, step=i)
signalbox.finish()
"""
        code, _, err = self.run_script(name, body)
        self.assertEqual(code, 0, err)
        self.assertIn("forked", err)
        self.assertIn("dropped 5 values", err)
        info = self.collector.run_info(name)
        self.assertEqual(info["metrics"]["x"]["count"], 200, err)
        self.assertNotIn("child", info["metrics"])
        self.assertEqual(info["status"], "finished")

    def test_a_short_run_keeps_its_config_and_host(self):
        name = unique("short")
        run = signalbox.Run(run=name, collector=self.collector.url, config={"lr": 0.1},
                            flush_interval=60, heartbeat=0)
        run.log({"loss": 1.0})
        run.finish()  # before the sender's first send: the info is still pending
        info = self.collector.run_info(name)
        self.assertEqual(info["status"], "finished")
        self.assertEqual(info["config"], {"lr": 0.1})
        self.assertEqual(info["host"], socket.gethostname())
        self.assertIn("end", info)

    def test_reserved_metric_names_survive_metric_lines(self):
        name = unique("reserved")
        out = io.StringIO()
        run = signalbox.Run(run=name, collector=UNREACHABLE, out=out, flush_interval=60)
        run.log({"step": 1.0, "time": 2.0, "run": 3.0, "batch": 4.0, "loss": 5.0}, step=9)
        run.finish()
        self.assertEqual(run.printed, 5)
        self.collector.request("/api/v1/lines?run=" + name, out.getvalue().encode())
        metrics = json.loads(self.collector.request("/api/v1/metrics?run=" + name))
        self.assertEqual(sorted(metrics), ["batch", "loss", "run", "step", "time"])
        csv = self.collector.request("/api/v1/export?run=%s&metric=step" % name).splitlines()
        self.assertEqual([float(v) for v in csv[1].split(",")[:2]], [9.0, 1.0])

    def test_a_taken_name_is_not_reused_unless_resumed(self):
        name = unique("taken")
        first = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
        first.log({"x": 1.0})
        first.finish()
        with contextlib.redirect_stderr(io.StringIO()) as err:
            second = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
        self.assertEqual(second.name, name + "-2")
        self.assertIn("logging to a new run %r" % (name + "-2"), err.getvalue())
        second.log({"x": 2.0})
        second.finish()
        third = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
        self.assertEqual(third.name, name + "-3")
        third.finish()
        resumed = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0, resume=True)
        self.assertEqual(resumed.name, name)
        resumed.log({"x": 3.0}, step=1)
        resumed.finish()
        self.assertEqual(self.collector.count(name, "x"), 2)
        self.assertEqual(signalbox.Run(run=name, collector=self.collector.url, heartbeat=0,
                                       resume="must").name, name)
        with self.assertRaisesRegex(ValueError, "has no run"):
            signalbox.Run(run=name + "-none", collector=self.collector.url, resume="must")
        # A run Signalbox launched keeps its name: a restarted job continues its run.
        os.environ["SIGNALBOX_RUN"] = name
        try:
            launched = signalbox.Run(collector=self.collector.url, heartbeat=0)
        finally:
            del os.environ["SIGNALBOX_RUN"]
        self.assertEqual(launched.name, name)
        launched.finish()

    def points(self, run, metric):
        """Every point of a series as the collector shows it: [(step, value)]."""
        query = urllib.parse.urlencode({"run": run, "metric": metric})
        rows = self.collector.request("/api/v1/export?" + query).splitlines()[1:]
        return [(float(row.split(",")[0]), float(row.split(",")[1])) for row in rows]

    def wait_for(self, run, metric, count):
        deadline = time.monotonic() + BOUND
        while self.collector.count(run, metric) < count:
            self.assertLess(time.monotonic(), deadline, "the collector never had %d points" % count)
            time.sleep(0.05)

    # A training loop that checkpoints (its step in a file) every 25 steps and logs each step's
    # loss as 1000 * LIFE + step: which life logged a point is in its value.
    TRAINING = """
LIFE, CHECKPOINT, LAST = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
start = int(open(CHECKPOINT).read()) if os.path.exists(CHECKPOINT) else -1
options = dict(resume="rewind", resume_step=start) if start >= 0 else {}
signalbox.init(NAME, heartbeat=0, **options)
for step in range(start + 1, LAST + 1):
    signalbox.log({"loss": 1000.0 * LIFE + step})  # the step after the checkpoint's, and on
    if step % 25 == 24:
        with open(CHECKPOINT + ".new", "w") as f:
            f.write(str(step))
        os.replace(CHECKPOINT + ".new", CHECKPOINT)
print("ready", flush=True)
time.sleep(0 if LIFE > 1 else 600)  # the first life is killed here
signalbox.finish()
"""

    def train(self, name, life, checkpoint, last):
        script = "import os, sys, time\nimport signalbox\nNAME = %r\n%s" % (name, self.TRAINING)
        return subprocess.Popen([sys.executable, "-c", script, str(life), checkpoint, str(last)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=script_env(SIGNALBOX_COLLECTOR=self.collector.url))

    def test_a_run_killed_between_checkpoints_resumes_without_doubling_back(self):
        name = unique("killed")
        with tempfile.TemporaryDirectory() as work:
            checkpoint = os.path.join(work, "checkpoint")
            first = self.train(name, 1, checkpoint, 61)
            try:
                self.assertEqual(first.stdout.readline().strip(), "ready")
                self.wait_for(name, "loss", 62)  # steps 50..61 reached it past the checkpoint
            finally:
                first.kill()  # kill -9: no finish, nothing flushed
                first.communicate(timeout=BOUND)
            self.assertEqual(open(checkpoint).read(), "49")
            second = self.train(name, 2, checkpoint, 99)
            out, err = second.communicate(timeout=BOUND)
            self.assertEqual(second.returncode, 0, err)
        self.assertEqual(self.points(name, "loss"),
                         [(s, 1000.0 + s) for s in range(50)] + [(s, 2000.0 + s)
                                                                 for s in range(50, 100)])
        info = self.collector.run_info(name)
        self.assertEqual(info["metrics"]["loss"]["count"], 100)
        self.assertEqual([(r["step"], r["points"]) for r in info["rewinds"]], [(49, 12)])
        # Kept, not lost: restored, the first life's steps 50..61 are shown again, where they
        # were logged.
        body = json.dumps({"rewind": info["rewinds"][0]["id"]}).encode()
        self.assertEqual(json.loads(self.collector.request("/api/v1/rewinds/restore", body)),
                         {"restored": info["rewinds"][0]["id"]})
        steps = [s for s, _ in self.points(name, "loss")]
        self.assertEqual(steps, list(range(62)) + list(range(50, 100)))

    def test_a_fork_shares_the_history_up_to_its_step(self):
        parent = unique("parent")
        run = signalbox.Run(run=parent, collector=self.collector.url, heartbeat=0,
                            config={"lr": 0.1})
        for step in range(40):
            run.log({"loss": 1000.0 + step}, step=step)
        run.finish()
        with contextlib.redirect_stderr(io.StringIO()) as err:
            child = signalbox.Run(run=parent, collector=self.collector.url, heartbeat=0,
                                  resume="fork", resume_step=29, config={"lr": 0.01})
        self.assertEqual(child.name, parent + "-2")
        self.assertIn("forking run %r into a new run %r" % (parent, child.name), err.getvalue())
        child.log({"loss": 3000.0 + 30})  # the step after the fork's
        child.log({"loss": 3000.0 + 31})
        child.finish()
        self.assertEqual(self.points(child.name, "loss"),
                         [(s, 1000.0 + s) for s in range(30)] + [(30, 3030.0), (31, 3031.0)])
        info = self.collector.run_info(child.name)
        self.assertEqual(info["forked_from"], {"run": parent, "step": 29, "inclusive": False})
        self.assertEqual(info["config"]["lr"], 0.01)
        self.assertEqual(len(self.points(parent, "loss")), 40)  # the parent as it was
        # A name of one's own; a parent that does not exist is refused, said, and the run goes
        # on without the copy.
        named = signalbox.Run(run=unique("named"), collector=self.collector.url, heartbeat=0,
                              resume="fork", resume_step=9, fork_from=parent)
        named.log({"loss": 5.0})
        named.finish()
        self.assertEqual(len(self.points(named.name, "loss")), 11)
        with contextlib.redirect_stderr(io.StringIO()) as err:
            orphan = signalbox.Run(run=unique("orphan"), collector=self.collector.url,
                                   heartbeat=0, resume="fork", resume_step=9,
                                   fork_from=unique("nobody"))
            orphan.log({"loss": 5.0})
            orphan.finish()
        self.assertIn("refused to resume", err.getvalue())
        self.assertEqual(self.points(orphan.name, "loss"), [(10.0, 5.0)])
        for wrong in (dict(resume="fork"), dict(resume_step=3), dict(fork_from=parent),
                      dict(resume="rewind", resume_step=3, fork_from=parent),
                      dict(resume="rewind", resume_step=float("nan"))):
            with self.assertRaises(ValueError):
                signalbox.Run(run=parent, collector=UNREACHABLE, **wrong)

    def test_a_resume_printed_as_metric_lines_rewinds_once(self):
        name = unique("printed")
        first = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
        for step in range(10):
            first.log({"loss": 1000.0 + step}, step=step)
        first.finish()
        out = io.StringIO()
        with contextlib.redirect_stderr(io.StringIO()):
            again = signalbox.Run(run=name, collector=UNREACHABLE, out=out, heartbeat=0,
                                  resume="rewind", resume_step=4)
            for step in range(5, 8):
                again.log({"loss": 2000.0 + step})
            again.finish()
        lines = metric_lines(out.getvalue())
        self.assertEqual(lines[0]["resume"], {"mode": "rewind", "step": 4, "inclusive": False})
        self.assertEqual(again.printed, 3)  # after a printed restart, every point is printed
        # The job's output, forwarded line by line as Signalbox does for a job: the rewind is
        # made by the first line of the batch, and its later lines do not rewind again.
        for line in out.getvalue().splitlines():
            self.collector.request("/api/v1/lines?run=" + name, line.encode())
        self.assertEqual(self.points(name, "loss"),
                         [(s, 1000.0 + s) for s in range(5)] + [(s, 2000.0 + s)
                                                                for s in range(5, 8)])

    def test_a_fork_printed_as_metric_lines_names_itself(self):
        parent = unique("launched")
        run = signalbox.Run(run=parent, collector=self.collector.url, heartbeat=0)
        for step in range(10):
            run.log({"loss": 1000.0 + step}, step=step)
        run.finish()
        out = io.StringIO()
        saved = {"SIGNALBOX_RUN": os.environ.get("SIGNALBOX_RUN")}
        os.environ["SIGNALBOX_RUN"] = parent  # a job Signalbox launched, forked by its script
        try:
            with contextlib.redirect_stderr(io.StringIO()) as err:
                child = signalbox.Run(collector=UNREACHABLE, out=out, heartbeat=0,
                                      resume="fork", resume_step=4)
                child.log({"loss": 2005.0})
                child.finish()
        finally:
            restore_environment(saved)
        self.assertNotEqual(child.name, parent)
        self.assertIn("forking run", err.getvalue())
        self.assertTrue(all(line["run"] == child.name for line in metric_lines(out.getvalue())))
        # The job's output, forwarded under the launched run's name, lands on the fork.
        self.collector.request("/api/v1/lines?run=" + parent, out.getvalue().encode())
        self.assertEqual(self.points(child.name, "loss"),
                         [(s, 1000.0 + s) for s in range(5)] + [(5, 2005.0)])
        self.assertEqual(len(self.points(parent, "loss")), 10)

    def test_a_rewind_without_a_step_is_at_the_first_step_logged(self):
        name = unique("first-step")
        first = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0)
        for step in range(10):
            first.log({"loss": 1000.0 + step}, step=step)
        first.finish()
        # A trainer restored from its checkpoint logs step 6 first: 6 and later are its own.
        again = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0,
                              resume="rewind")
        again.log({"loss": 2006.0}, step=6)
        again.log({"loss": 2007.0})
        again.finish()
        self.assertEqual(self.points(name, "loss"),
                         [(s, 1000.0 + s) for s in range(6)] + [(6, 2006.0), (7, 2007.0)])
        self.assertEqual(self.collector.run_info(name)["rewinds"][0]["inclusive"], True)

    def test_samples_and_the_record_wait_for_the_resume(self):
        parent = unique("pictured")
        run = signalbox.Run(run=parent, collector=self.collector.url, heartbeat=0)
        for step in range(10):
            run.log({"loss": 1000.0 + step, "picture": signalbox.Image(png_bytes(2, 2))},
                    step=step)
        run.finish()
        # A fork whose first log is a picture, with its code and environment recorded: none of
        # them may reach the collector before the fork (which a run with samples refuses).
        child = signalbox.Run(run=parent, collector=self.collector.url, heartbeat=0,
                              resume="fork", resume_step=4, record_code=True)
        child.log({"picture": signalbox.Image(png_bytes(3, 3))}, step=5)
        child.log({"loss": 2005.0}, step=5)
        child.finish()
        self.assertEqual(self.points(child.name, "loss"),
                         [(s, 1000.0 + s) for s in range(5)] + [(5, 2005.0)])
        _, pictures = self.samples(child.name, "picture")
        self.assertEqual([(p["step"], p["width"]) for p in pictures],
                         [(s, 2) for s in range(5)] + [(5, 3)])
        _, packages = self.samples(child.name, "environment/packages")
        self.assertEqual(len(packages), 1)
        # A rewind without a step, whose first log is a picture: the picture is the restart's.
        again = signalbox.Run(run=parent, collector=self.collector.url, heartbeat=0,
                              resume="rewind")
        again.log({"picture": signalbox.Image(png_bytes(5, 5))}, step=7)
        again.finish()
        _, pictures = self.samples(parent, "picture")
        self.assertEqual([(p["step"], p["width"]) for p in pictures],
                         [(s, 2) for s in range(7)] + [(7, 5)])

    def test_a_summary_writers_purge_step_drops_steps_from_it_on(self):
        from signalbox.tensorboard import SummaryWriter
        name = unique("purged")
        with tempfile.TemporaryDirectory() as logs:
            writer = SummaryWriter(os.path.join(logs, name), collector=self.collector.url,
                                   heartbeat=0)
            for step in range(10):
                writer.add_scalar("loss", 1000.0 + step, step)
                writer.add_scalars("parts", {"a": 1000.0 + step}, step)
            writer.close()
            writer = SummaryWriter(os.path.join(logs, name), collector=self.collector.url,
                                   heartbeat=0, purge_step=5)
            for step in range(5, 7):
                writer.add_scalar("loss", 2000.0 + step, step)
                writer.add_scalars("parts", {"a": 2000.0 + step}, step)
            writer.close()
        want = [(s, 1000.0 + s) for s in range(5)] + [(5, 2005.0), (6, 2006.0)]
        self.assertEqual(self.points(name, "loss"), want)
        self.assertEqual(self.points(name + "/parts/a", "parts"), want)

    def test_heartbeat_names_only_the_run(self):
        name = unique("heartbeat")
        run = signalbox.Run(run=name, collector=self.collector.url, heartbeat=0.05, resume=True)
        # The collector answers: with 2xx it took the heartbeat; an older one says 400 and the
        # heartbeats stop without a word. Either way nothing is said on stderr.
        with contextlib.redirect_stderr(io.StringIO()) as err:
            beats = Server(lambda c, data, server: answer(c, 200, b'{"accepted":0}'))
            run._endpoint = signalbox._Endpoint(beats.url, None, None)
            heartbeat = json.dumps({"run": name}).encode()
            self.assertTrue(beats.wait_for(lambda r: r.endswith(heartbeat)))
            run.finish()
            beats.close()
        self.assertEqual(err.getvalue(), "")
        heard = [r for r in beats.requests if r.startswith(b"POST /api/v1/push ")]
        self.assertTrue(heard)
        self.assertNotIn(b"series", heard[0])

    def test_a_heartbeat_refused_as_too_old_stops_silently(self):
        def before_heartbeats(connection, data, server):  # refuses a push of nothing but a run
            if data.endswith(b'{"run": "%s"}' % name.encode()):
                answer(connection, 400, b'{"error":"the push has no series"}')
            else:
                answer(connection, 200, b'{"accepted":0}')

        name = unique("old")
        old = Server(before_heartbeats)
        try:
            with contextlib.redirect_stderr(io.StringIO()) as err:
                run = signalbox.Run(run=name, collector=old.url, heartbeat=0.05,
                                    resume=True, flush_interval=60)
                self.assertTrue(old.wait_for(lambda r: b'"run"' in r))
                for _ in range(BOUND * 100):
                    if run._heartbeat == 0:
                        break
                    threading.Event().wait(0.01)
                run.finish()
            self.assertEqual(run._heartbeat, 0)
            self.assertEqual(err.getvalue(), "")
        finally:
            old.close()

    def test_no_proxy_from_the_environment_and_no_token_to_a_proxy(self):
        proxy = Server(lambda c, data, server: answer(c, 502))
        collector = Collector(token="s3cret-token")
        saved = {k: os.environ.get(k) for k in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY")}
        os.environ["http_proxy"] = os.environ["HTTP_PROXY"] = proxy.url
        os.environ.pop("no_proxy", None)
        os.environ.pop("NO_PROXY", None)
        try:
            name = unique("proxy")
            body = """
run = signalbox.Run(run=NAME, token="s3cret-token", heartbeat=0)
for i in range(100):
    run.log({"x": float(i)})
run.finish()
"""
            code, _, err = self.run_script(name, body, collector=collector,
                                           env={"http_proxy": proxy.url, "HTTP_PROXY": proxy.url})
            self.assertEqual(code, 0, err)
            self.assertEqual(proxy.requests, [])
            self.assertEqual(collector.count(name, "x"), 100)
            # A proxy the script names is used, but never with a token over http.
            with self.assertRaisesRegex(ValueError, "never sent to a proxy"):
                signalbox.Run(run=name, collector="http://collector.invalid:7410",
                              token="s3cret-token", proxy=proxy.url)
            # This machine's collector is never proxied, so a named proxy changes nothing there.
            direct = signalbox.Run(run=unique("direct"), collector=collector.url,
                                   token="s3cret-token", proxy=proxy.url, heartbeat=0)
            direct.log({"x": 1.0})
            direct.finish()
            self.assertEqual(proxy.requests, [])
            out = io.StringIO()
            with contextlib.redirect_stderr(io.StringIO()):
                through = signalbox.Run(run=unique("via"),
                                        collector="http://collector.invalid:7410", proxy=proxy.url,
                                        heartbeat=0, resume=True, out=out, flush_interval=0.01,
                                        finish_timeout=1)
                through.log({"x": 1.0})
                self.assertTrue(proxy.wait_for(
                    lambda r: r.startswith(b"POST http://collector.invalid:7410/api/v1/push")))
                through.finish()
            self.assertFalse(any(b"authorization" in r.lower() for r in proxy.requests))
            self.assertEqual(through.printed, 1)
        finally:
            restore_environment(saved)
            collector.close()
            proxy.close()

    def test_a_dripping_answer_does_not_hold_the_sender(self):
        def drip(connection, data, server):
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not server.closed.wait(0.05):  # a byte at a time, each well inside a read timeout
                connection.sendall(b" ")

        server = Server(drip)
        out = io.StringIO()
        try:
            with contextlib.redirect_stderr(io.StringIO()) as err:
                run = signalbox.Run(run=unique("drip"), collector=server.url, out=out, timeout=0.5,
                                    flush_interval=0.01, heartbeat=0, resume=True, finish_timeout=1)
                for i in range(50):
                    run.log({"x": float(i)}, step=i)
                finisher = threading.Thread(target=run.finish)
                finisher.start()
                finisher.join(BOUND)
            self.assertFalse(finisher.is_alive(), "finish() is held by the dripping answer")
            self.assertEqual(run.printed, 50)  # printed with their batch ids: nothing lost
            self.assertIn("timed out: no whole answer within 0.5 s", err.getvalue())
        finally:
            server.close()

    def test_the_published_collector_and_its_secret(self):
        """The app publishes its collector and a per-session secret in the runtime directory;
        a script without SIGNALBOX_COLLECTOR logs there, and the secret goes nowhere else."""
        collector = Collector(token="session-secret")
        runtime = tempfile.TemporaryDirectory(prefix="sb-runtime-")
        saved = {k: os.environ.pop(k, None) for k in ("XDG_RUNTIME_DIR", "SIGNALBOX_COLLECTOR",
                                                      "SIGNALBOX_TOKEN")}
        os.environ["XDG_RUNTIME_DIR"] = runtime.name
        try:
            folder = os.path.join(runtime.name, "signalbox")
            os.mkdir(folder, 0o700)
            with open(os.path.join(folder, "collector.url"), "w") as f:
                f.write("%s\n%d\n" % (collector.url, os.getpid()))  # the app: a running process
            token = os.path.join(folder, "collector.token")
            with open(token, "w") as f:
                f.write("session-secret\n")
            os.chmod(token, 0o600)
            name = unique("published")
            run = signalbox.Run(run=name, heartbeat=0)
            self.assertEqual(run.collector, collector.url)
            run.log({"x": 1.0})
            run.finish()
            self.assertEqual(collector.count(name, "x"), 1)
            port = int(collector.url.rsplit(":", 1)[1])
            for elsewhere in ("http://192.0.2.1:%d" % port, "http://127.0.0.1:%d" % (port + 1)):
                self.assertIsNone(signalbox.Run(run="t", collector=elsewhere, resume=True,
                                                heartbeat=0)._token, elsewhere)
            os.chmod(token, 0o644)  # others may read it: not trusted
            self.assertIsNone(signalbox.Run(run="t", collector=collector.url, resume=True,
                                            heartbeat=0, finish_timeout=0)._token)
            os.chmod(token, 0o600)
            os.chmod(folder, 0o777)  # others may write there: nothing in it is trusted
            self.assertIsNone(signalbox._published_collector())
            os.chmod(folder, 0o700)
            with open(os.path.join(folder, "collector.url"), "w") as f:
                f.write("%s\n%d\n" % (collector.url, 2 ** 22 + 1))  # an app that is gone
            self.assertIsNone(signalbox._published_collector())
        finally:
            restore_environment(saved)
            runtime.cleanup()
            collector.close()

if __name__ == "__main__":
    unittest.main()
