"""Hostile input against a real signalbox-collector process and the CLI: non-finite and huge
numbers, wrong types, odd names, poisoned lines, huge lines, stored data that is garbage, alias
bombs and special files. Every case asserts that the bad part is refused with a message naming it,
that everything else is stored exactly, and that the collector keeps answering.

usage: test_collector_hostile.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI (loopback only, bounded time)"""

import contextlib
import fractions
import http.server
import io
import json
import math
import os
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

COLLECTOR, CLI = None, None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))
import signalbox  # noqa: E402


def signalbox_crc(data):
    """TFRecord's masked CRC-32C."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]



def room_for_sockets():
    """This test's own descriptor limit raised, so that it can open more sockets than the
    collector under test may hold."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))

class Collector:
    """One collector process on a data directory of its own (or a given one)."""

    def __init__(self, data=None, watch=None, max_fds=None, extra=()):
        self.data = data or tempfile.mkdtemp(prefix="sb-hostile-")
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        command = [COLLECTOR, "--listen", "127.0.0.1:%d" % self.port, "--data-dir", self.data]
        if watch:
            command += ["--watch", watch]
        command += list(extra)
        # max_fds: one limit for soft and hard, or a (soft, hard) pair
        fds = max_fds if isinstance(max_fds, tuple) else (max_fds, max_fds)
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, fds)) if max_fds else None
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, preexec_fn=limit)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            raise AssertionError("collector did not start: %r %s" % (line, self.process.stderr.read()))

    def request(self, path, body=None, content_type="application/json"):
        """(status, parsed JSON or text) of one request; never raises for an HTTP status."""
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data,
                                         headers={"Content-Type": content_type},
                                         method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def alive(self):
        return self.process.poll() is None and self.request("/api/v1/health")[0] == 200

    def rss_mb(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=20)

    def stop(self):
        self.process.terminate()
        self.process.communicate(timeout=20)


def q(value):
    return urllib.parse.quote(value, safe="")


class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()

    def tearDown(self):
        self.assertTrue(self.collector.alive(), "the collector stopped answering")

    def push(self, body):
        return self.collector.request("/api/v1/push", body)

    def test_extreme_steps_and_times_are_refused_by_name(self):
        cases = [
            ({"step": [1, -1e308, 1e308], "value": [1, 2, 3]}, "step -1e+308"),
            ({"step": [1, "-Infinity"], "value": [1, 2]}, "step -inf"),
            ({"step": ["NaN"], "value": [1]}, "step nan"),
            ({"step": [2 ** 54], "value": [1]}, "step 18014398509481984"),
            ({"step": [1, 2], "value": [1, 2], "time": [1e9, 1e308]}, "time 1e+308"),
            ({"step": [1], "value": [1], "time": ["Infinity"]}, "time inf"),
        ]
        for column, named in cases:
            status, reply = self.push({"run": "extreme", "series": {"s": column}})
            self.assertEqual(status, 400, (column, reply))
            self.assertIn(named, reply["error"], column)
        records = [{"step": 1e308, "loss": 1}]
        status, reply = self.push({"run": "extreme", "records": records})
        self.assertEqual(status, 400, reply)
        # The limit itself is fine; values may be anything.
        status, reply = self.push({"run": "extreme", "series": {"s": {
            "step": [-2 ** 53, 0, 2 ** 53], "value": [1e308, "-Infinity", "NaN"],
            "time": [0, 1e9, 2 ** 53]}}})
        self.assertEqual((status, reply), (200, {"accepted": 3}))
        for x in ("step", "wall", "relative"):
            # (A width past the bounds is refused: RequestBounds.)
            for window in ("", "&from=-1e308&to=1e308", "&from=5&to=-5", "&width=10000",
                           "&width=1&smoothing=0.9", "&from=nan&to=inf"):
                status, reply = self.collector.request(
                    "/api/v1/series?run=extreme&metric=s&x=%s%s" % (x, window))
                self.assertEqual(status, 200, (x, window, reply))

    def test_non_finite_last_values_read_back_as_themselves(self):
        status, _ = self.push({"run": "inf-last", "series": {
            "up": {"step": [1, 2], "value": [1, "Infinity"]},
            "down": {"step": [1, 2], "value": [1, "-Infinity"]},
            "nan": {"step": [1], "value": ["NaN"]}}})
        self.assertEqual(status, 200)
        status, runs = self.collector.request("/api/v1/runs?filter=inf-last")
        metrics = [r for r in runs if r["name"] == "inf-last"][0]["metrics"]
        self.assertEqual(metrics["up"]["value"], "Infinity")  # before: null, shown as 0
        self.assertEqual(metrics["down"]["value"], "-Infinity")
        self.assertEqual(metrics["nan"]["value"], "NaN")

    def test_wrong_types_are_400(self):
        bodies = [
            {"run": "t", "series": [1, 2]},
            {"run": "t", "records": 5},
            {"run": "t", "records": [5]},
            {"run": "t", "info": "x"},
            {"run": "t", "series": {"s": 3}},
            {"run": "t", "series": {"s": {"step": "1", "value": [1]}}},
            {"run": 5, "series": {}},
            {"run": "t", "series": {"s": {"step": [1, 2], "value": [1]}}},
            {"run": "t", "series": {"": {"step": [1], "value": [1]}}},
            {"run": "t", "records": [{"step": 1, "": 5}]},
        ]
        for body in bodies:
            status, reply = self.push(body)
            self.assertEqual(status, 400, (body, reply))
            self.assertTrue(reply["error"], body)
        for raw in (b"", b"[]", b"{", b"\xff\xfe", b"null", b"{\"run\": \"t\"" * 1000):
            status, _ = self.collector.request("/api/v1/push", raw)
            self.assertEqual(status, 400, raw[:20])
        status, runs = self.collector.request("/api/v1/runs")
        self.assertNotIn("t", [run["name"] for run in runs])

    def test_any_storable_name_reads_back(self):
        names = ["exp one", "50%", "a/b", "a+b", "a&b=c", "#hash", "new\nline", "ünïcødé 训练",
                 "%20", "?x=1", "tab\there"]
        for name in names:
            status, reply = self.push({"run": name, "series": {name: {"step": [1, 2],
                                                                      "value": [3, 4]}}})
            self.assertEqual((status, reply), (200, {"accepted": 2}), name)
        for name in names:
            status, csv = self.collector.request("/api/v1/export?run=%s&metric=%s" % (q(name), q(name)))
            self.assertEqual(status, 200, (name, csv))
            self.assertEqual([line.split(",")[:2] for line in csv.splitlines()[1:]],
                             [["1", "3"], ["2", "4"]], name)
            status, series = self.collector.request(
                "/api/v1/series?run=%s&metric=%s" % (q(name), q(name)))
            self.assertEqual(series["series"][0].get("total"), 2, (name, series))
            status, metrics = self.collector.request("/api/v1/metrics?run=" + q(name))
            self.assertEqual(metrics, [name])
            cli = subprocess.run([CLI, "--collector", self.collector.url, "export", name, name],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(cli.returncode, 0, (name, cli.stderr))
            self.assertEqual(len(cli.stdout.splitlines()), 3, name)
        # '+' is a space, as HTML forms and Python's urlencode send it.
        status, csv = self.collector.request("/api/v1/export?run=exp+one&metric=exp+one")
        self.assertEqual(status, 200, csv)
        status, csv = self.collector.request(
            "/api/v1/export?" + urllib.parse.urlencode({"run": "a+b", "metric": "a+b"}))
        self.assertEqual(status, 200, csv)

    def test_a_bad_line_never_poisons_its_neighbours(self):
        body = "\n".join([
            '@signalbox {"step": 1, "loss": 1}',
            '@signalbox {"step": 2, "": 5}',
            '@signalbox {"step": 3, "loss": 3, "val": {"": 2}}',
            '@signalbox {"step": 1e308, "loss": 4}',
            '@signalbox {"step": "Infinity", "loss": 4}',
            '@signalbox {"step": 4, "loss": 4}',
            "@signalbox not json",
            "ordinary output",
            '@signalbox {"run": "other", "step": 1, "acc": 0.5}',
        ]).encode()
        status, reply = self.collector.request("/api/v1/lines?run=lines", body, "text/plain")
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["accepted"], 3, reply)  # loss at 1 and 4, acc of "other"
        self.assertEqual(len(reply["errors"]), 5, reply)
        self.assertTrue(reply["errors"][0].startswith("line 2:"), reply)
        _, csv = self.collector.request("/api/v1/export?run=lines&metric=loss")
        self.assertEqual([line.split(",")[0] for line in csv.splitlines()[1:]], ["1", "4"])
        _, csv = self.collector.request("/api/v1/export?run=other&metric=acc")
        self.assertEqual(len(csv.splitlines()), 2)


class StoredGarbage(unittest.TestCase):
    def test_no_stored_points_crash_a_query(self):
        collector = Collector()
        status, _ = collector.request("/api/v1/push", {"run": "r", "series": {"s": {
            "step": list(range(2000)), "value": [0.5] * 2000}}})
        self.assertEqual(status, 200)
        collector.stop()
        # Overwrite the stored points with every kind of extreme double, header kept (the series'
        # first extent starts the data file).
        path = os.path.join(collector.data, "data", "0.dat")
        specials = [float("inf"), float("-inf"), float("nan"), 1e308, -1e308, 5e-324, 0.0, 1.0]
        with open(path, "r+b") as f:
            f.seek(16)
            for i in range(2000):
                f.write(struct.pack("<3d", specials[i % 8], specials[(i // 8) % 8],
                                    specials[(i // 64) % 8]))
        restarted = Collector(collector.data)
        try:
            for x in ("step", "wall", "relative"):
                for extra in ("", "&smoothing=0.6", "&from=0&to=10", "&width=3"):
                    status, reply = restarted.request(
                        "/api/v1/series?run=r&metric=s&x=%s%s" % (x, extra))
                    self.assertEqual(status, 200, (x, extra, reply))
            status, csv = restarted.request("/api/v1/export?run=r&metric=s")
            self.assertEqual(status, 200)
            self.assertEqual(len(csv.splitlines()), 2001)
            self.assertTrue(restarted.alive())
        finally:
            restarted.stop()


class WatchedFiles(unittest.TestCase):
    def test_bad_and_huge_lines_are_skipped_and_the_file_moves_on(self):
        watched = tempfile.mkdtemp(prefix="sb-watch-")
        path = os.path.join(watched, "run.jsonl")
        with open(path, "w") as f:
            f.write('{"step": 1, "loss": 1}\n{"step": 2, "": 5}\n{"step": 3, "loss": 3}\n')
            f.write("x" * (3 << 20))  # an unterminated 3 MB line...
        collector = Collector(watch=watched)
        try:
            with open(path, "a") as f:  # ...ended later, then good lines again
                f.write('\n{"step": 4, "loss": 4}\n')
            deadline = time.time() + 20
            steps = []
            while time.time() < deadline:
                _, csv = collector.request("/api/v1/export?run=run&metric=loss")
                steps = [line.split(",")[0] for line in csv.splitlines()[1:]] if isinstance(csv, str) else []
                if steps == ["1", "3", "4"]:
                    break
                time.sleep(0.2)
            self.assertEqual(steps, ["1", "3", "4"])
            _, health = collector.request("/api/v1/health")
            source = [s for s in health["sources"] if s["path"].endswith("run.jsonl")][0]
            self.assertEqual(source["errors"], 2, source)
            self.assertEqual(source["offset"], os.path.getsize(path), source)
        finally:
            collector.stop()


class Files(unittest.TestCase):
    def run_cli(self, *args):
        return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)

    def test_alias_bombs_and_special_files_are_refused(self):
        directory = tempfile.mkdtemp(prefix="sb-yaml-")
        bomb = os.path.join(directory, "bomb.yaml")
        lines = ["method: grid", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for i in range(1, 10):
            lines.append("a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)))
        lines.append("parameters: {p: {values: *a9}}")
        with open(bomb, "w") as f:
            f.write("\n".join(lines) + "\n")
        result = self.run_cli("sweep", "plan", bomb)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("bomb.yaml:", result.stderr)
        self.assertIn("aliases", result.stderr)
        for special in ("/dev/zero", directory):
            result = self.run_cli("sweep", "plan", special)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("not a regular file", result.stderr)
        result = self.run_cli("parse", "nvidia-smi", "/dev/zero")
        self.assertIn("not a regular file", result.stderr)
        key = os.path.join(directory, "key.yaml")
        with open(key, "w") as f:
            f.write("method: grid\n? [a, b]\n: 1\n")
        result = self.run_cli("sweep", "plan", key)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("key.yaml:2: a key must be a plain value", result.stderr)

    def test_an_event_file_with_an_absurd_length_says_what_it_skipped(self):
        # Before: a header with a valid CRC and a length of 2^63 stopped reading, silently, rc 0.
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tfevents",
                              "logdir", "simple", "events.out.tfevents.1795374138.vm")
        with open(source, "rb") as f:
            events = f.read()
        length = struct.pack("<Q", 1 << 63)
        header = length + struct.pack("<I", signalbox_crc(length))
        directory = tempfile.mkdtemp(prefix="sb-tfevents-")
        with open(os.path.join(directory, "events.out.tfevents.1.host"), "wb") as f:
            unfinished = struct.pack("<Q", 1000)
            unfinished += struct.pack("<I", signalbox_crc(unfinished)) + b"y" * 88
            f.write(events + header + b"x" * 64 + events + unfinished)
        result = self.run_cli("parse", "tfevents", directory)
        self.assertEqual(result.returncode, 0, result.stderr)
        loss = [json.loads(line) for line in result.stdout.splitlines()
                if json.loads(line)["tag"] == "train/loss"][0]
        self.assertEqual(loss["points"], 128)  # both copies, either side of the damage
        self.assertIn("1 corrupt records skipped", result.stderr)
        self.assertIn("the last 100 bytes are not a whole record", result.stderr)


class Corruption(unittest.TestCase):
    """Each on-disk file kind damaged between two runs of the collector: recovery keeps what it
    cannot read in lost+found, loses nothing else, never re-uses a series file, and says so."""

    def store(self):
        collector = Collector()
        for run in ("a", "b"):
            for first in range(0, 300, 100):  # several commits per series
                status, _ = collector.request("/api/v1/push", {"run": run, "series": {
                    "loss": {"step": list(range(first, first + 100)), "value": [1.5] * 100},
                    "acc": {"step": list(range(first, first + 100)), "value": [0.5] * 100}}})
                self.assertEqual(status, 200)
        collector.stop()
        return collector.data

    def lost_found(self, data):
        path = os.path.join(data, "lost+found")
        return sorted(os.listdir(path)) if os.path.isdir(path) else []

    def test_a_flipped_journal_byte_costs_one_record_at_most(self):
        data = self.store()
        journal = os.path.join(data, "journal")
        with open(journal, "r+b") as f:
            f.seek(69)
            byte = f.read(1)
            f.seek(69)
            f.write(bytes([byte[0] ^ 0x5A]))
        collector = Collector(data)
        try:
            _, health = collector.request("/api/v1/health")
            notes = " ".join(health["recovery"])
            self.assertIn("lost+found", notes)
            self.assertTrue(any(name.startswith("journal-at-") for name in self.lost_found(data)))
            kept = sum(len(stored_steps(collector, run, metric))
                       for run in ("a", "b") for metric in ("loss", "acc"))
            self.assertGreaterEqual(kept, 900, notes)  # at most one series' worth is gone
            status, _ = collector.request("/api/v1/push", {"run": "c", "series": {
                "new": {"step": [1], "value": [1]}}})
            self.assertEqual(status, 200)
            self.assertEqual(stored_steps(collector, "c", "new"), [1.0])
            # Its extent went to a new data file: none that the journal no longer names is
            # written over.
            self.assertIn("1.dat", os.listdir(os.path.join(data, "data")))
        finally:
            collector.stop()
        # Said at every start until acknowledged, then no more.
        collector = Collector(data)
        try:
            _, health = collector.request("/api/v1/health")
            self.assertIn(notes.split("; ")[0][:40], " ".join(health["recovery"]))
            status, reply = collector.request("/api/v1/recovery/acknowledge", b"")
            self.assertEqual(status, 200, reply)
        finally:
            collector.stop()
        collector = Collector(data)
        try:
            self.assertEqual(collector.request("/api/v1/health")[1]["recovery"], [])
        finally:
            collector.stop()

    def test_a_lost_journal_keeps_every_data_file(self):
        for damage in ("delete", "empty"):
            data = self.store()
            journal = os.path.join(data, "journal")
            before = {name: open(os.path.join(data, "data", name), "rb").read()
                      for name in os.listdir(os.path.join(data, "data"))}
            if damage == "delete":
                os.remove(journal)
            else:
                open(journal, "w").close()
            collector = Collector(data)
            try:
                _, health = collector.request("/api/v1/health")
                self.assertEqual(len([n for n in health["recovery"] if "no journal record" in n]), 1,
                                 health)
                status, _ = collector.request("/api/v1/push", {"run": "a", "series": {
                    "loss": {"step": [1], "value": [1]}}})
                self.assertEqual(status, 200)
                kept = {name[len("data-"):]: open(os.path.join(data, "lost+found", name), "rb").read()
                        for name in self.lost_found(data)}
                self.assertEqual(kept, before)  # byte for byte, none written over
                self.assertEqual(os.listdir(os.path.join(data, "data")), ["1.dat"])
            finally:
                collector.stop()
            # Kept at the next start too.
            again = Collector(data)
            again.stop()
            self.assertEqual(len(self.lost_found(data)), 1)

    def test_a_foreign_data_header_is_never_served(self):
        data = self.store()
        with open(os.path.join(data, "data", "0.dat"), "r+b") as f:
            f.write(os.urandom(16))
        collector = Collector(data)
        try:
            _, health = collector.request("/api/v1/health")
            self.assertTrue(any("header" in note for note in health["recovery"]), health)
            # Every series had its points in that file: none serves another file's bytes.
            for run in ("a", "b"):
                for metric in ("loss", "acc"):
                    self.assertEqual(stored_steps(collector, run, metric), [])
            self.assertTrue(any("bad-header" in name for name in self.lost_found(data)))
            status, _ = collector.request("/api/v1/push", {"run": "a", "series": {
                "loss": {"step": [7], "value": [1]}}})
            self.assertEqual(status, 200)
            self.assertEqual(stored_steps(collector, "a", "loss"), [7.0])
        finally:
            collector.stop()

    def test_store_files_are_private(self):
        data = self.store()
        collector = Collector(data)  # a query, then a stop that saves the summaries
        self.assertEqual(len(stored_steps(collector, "a", "loss")), 300)
        collector.request("/api/v1/series?run=a&metric=loss")
        collector.stop()
        Collector(data).stop()  # and a start that reads them
        self.assertEqual(os.stat(data).st_mode & 0o777, 0o700)
        self.assertIn("summaries", os.listdir(data))
        for folder, _, names in os.walk(data):
            for name in names:
                path = os.path.join(folder, name)
                self.assertEqual(os.stat(path).st_mode & 0o077, 0, path)


class KillLoop(unittest.TestCase):
    def test_thirty_kills_under_load_lose_and_duplicate_nothing_acknowledged(self):
        data = tempfile.mkdtemp(prefix="sb-kill-")
        port = free_port()
        url = "http://127.0.0.1:%d" % port
        acked = set()
        out = io.StringIO()
        stderr = io.StringIO()

        def start():
            process = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port,
                                        "--data-dir", data], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)
            self.assertIn("listening on", process.stdout.readline())
            return process

        import random
        rng = random.Random(7)
        process = start()
        with contextlib.redirect_stderr(stderr):
            run = signalbox.Run(run="kills", collector=url, flush_interval=0.005, out=out,
                                timeout=2, on_ack=lambda records: acked.update(r[0] for r in records))
            step = 0
            for cycle in range(30):
                # Kill while batches flow: once the client is pushing again, at a random moment.
                before = len(acked)
                deadline = time.time() + 3
                while len(acked) == before and time.time() < deadline:
                    run.log({"x": float(step), "y": 1.0}, step=step)
                    step += 1
                    time.sleep(0.0005)
                deadline = time.time() + rng.uniform(0.01, 0.2)
                while time.time() < deadline:
                    run.log({"x": float(step), "y": 1.0}, step=step)
                    step += 1
                    if step % 50 == 0:
                        time.sleep(0.001)
                process.kill()  # at a random moment of the load
                process.wait()
                process.stdout.close()
                process = start()
            run.finish()
        collector = type("C", (), {})()
        collector.request = Collector.request.__get__(collector)
        collector.url = url
        stored = stored_steps(collector, "kills", "x")
        process.terminate()
        process.communicate(timeout=20)
        printed = {json.loads(line[len(signalbox.PREFIX):])["step"]
                   for line in out.getvalue().splitlines() if line.startswith(signalbox.PREFIX)}
        print("\nkill loop: 30 kills, %d steps logged, %d acknowledged, %d stored, %d printed"
              % (step, len(acked), len(stored), len(printed)), file=sys.stderr)
        self.assertEqual(len(stored), len(set(stored)), "duplicated points")
        self.assertEqual(acked - set(stored), set(), "acknowledged but missing")
        self.assertEqual(set(range(step)) - set(stored) - printed, set(), "neither stored nor printed")


def read_response(sock):
    """(status, body) of one HTTP response read off a raw socket (Content-Length or chunked)."""
    stream = sock.makefile("rb")
    status = int(stream.readline().split()[1])
    headers = {}
    for line in iter(stream.readline, b"\r\n"):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        return status, stream.read(int(headers["content-length"]))
    body = b""
    while True:
        size = int(stream.readline(), 16)
        if size == 0:
            return status, body
        body += stream.read(size)
        stream.readline()


class Sockets(unittest.TestCase):
    """Finding 6 and the socket half of 17: huge bodies, slow senders, idle sockets, big exports."""

    def test_a_huge_body_is_refused_with_413_and_never_held(self):
        collector = Collector()
        try:
            sock = collector.connect()
            declared = 1_500_000_000
            sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                         b"\r\nContent-Length: %d\r\n\r\n" % declared)
            piece = b"[" + b"1," * (1 << 19)
            sent = 0
            with contextlib.suppress(OSError):
                while sent < 200 << 20:  # 200 MB of it, then the sender gives up
                    sock.sendall(piece)
                    sent += len(piece)
            sock.shutdown(socket.SHUT_WR)
            status, body = read_response(sock)
            sock.close()
            self.assertEqual(status, 413)
            self.assertIn(b"at most 67108864", body)
            self.assertLess(collector.rss_mb(), 100, "the body was held in memory")
            self.assertTrue(collector.alive())
        finally:
            collector.stop()

    def test_a_slow_sender_does_not_hold_up_other_clients(self):
        collector = Collector()
        try:
            body = json.dumps({"run": "slow", "series": {"x": {"step": [1, 2], "value": [3, 4]}}})
            sock = collector.connect()
            sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n"
                         % len(body) + body[:10].encode())
            for _ in range(5):  # answered while the push is half-sent
                self.assertEqual(collector.request("/api/v1/health")[0], 200)
            sock.sendall(body[10:].encode())
            self.assertEqual(read_response(sock), (200, b'{"accepted":2}'))
            sock.close()
        finally:
            collector.stop()

    def test_idle_sockets_do_not_starve_a_client(self):
        # Before: under a 1,024 descriptor limit, 1,064 idle sockets left no room for anyone.
        room_for_sockets()
        collector = Collector(max_fds=1024)
        idle = []
        try:
            for _ in range(1100):
                with contextlib.suppress(OSError):
                    idle.append(collector.connect())
            idle[0].sendall(b"GET /api/v1/hea")  # and some that never finish their request
            status, health = collector.request("/api/v1/health")
            self.assertEqual(status, 200)
            self.assertEqual(health["service"], "signalbox-collector")
        finally:
            for sock in idle:
                sock.close()
            collector.stop()

    def test_an_export_streams_at_the_readers_pace(self):
        collector = Collector()
        try:
            points = 2_000_000
            for start in range(0, points, 500_000):
                steps = list(range(start, start + 500_000))
                status, _ = collector.request("/api/v1/push", {
                    "run": "big", "series": {"loss": {"step": steps, "value": steps,
                                                      "time": [1.5e9] * len(steps)}}})
                self.assertEqual(status, 200)
            before = collector.rss_mb()
            sock = collector.connect()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
            sock.sendall(b"GET /api/v1/export?run=big&metric=loss HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            stream = sock.makefile("rb")
            self.assertIn(b"200", stream.readline())
            peak, lines, tail = before, 0, b""
            for line in iter(stream.readline, b"\r\n"):
                self.assertNotIn(b"content-length", line.lower())
            while True:  # a slow reader: 64 KB at a time
                size = int(stream.readline(), 16)
                if size == 0:
                    break
                chunk = tail + stream.read(size)
                stream.readline()
                lines += chunk.count(b"\n")
                tail = chunk[chunk.rfind(b"\n") + 1:]
                if lines % 50 == 0:
                    time.sleep(0.001)
                    peak = max(peak, collector.rss_mb())
            sock.close()
            print("\nexport of %d points: collector RSS %.1f MB before, %.1f MB at most while "
                  "streaming" % (points, before, peak), file=sys.stderr)
            self.assertEqual(lines, points + 1)
            self.assertLess(peak - before, 40, "the export was built in memory")
        finally:
            collector.stop()


def raw(collector, request, timeout=20):
    """(status, headers, body) of the one answer to raw request bytes on a new connection."""
    with collector.connect() as sock:
        sock.settimeout(timeout)
        sock.sendall(request)
        stream = sock.makefile("rb")
        status = int(stream.readline().split()[1])
        headers = {}
        for line in iter(stream.readline, b"\r\n"):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers, stream.read(int(headers.get("content-length", 0)))


def run_names(collector):
    status, runs = collector.request("/api/v1/runs")
    assert status == 200, runs
    return [run["name"] for run in runs]


class CrossSite(unittest.TestCase):
    """Finding 9 of issue 29: any web page could write to the token-less loopback collector (a
    cross-site text/plain POST was stored), and DNS rebinding read every run. Browsers' requests
    for other sites, and Host names that are not this machine, are refused before anything runs."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()
        status, _ = cls.collector.request("/api/v1/push", {
            "run": "private-run", "info": {"note": "secret note"},
            "series": {"loss": {"step": [1], "value": [0.5]}}})
        assert status == 200

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()

    def send(self, method, target, headers, body=b""):
        head = "%s %s HTTP/1.1\r\n" % (method, target)
        head += "".join("%s: %s\r\n" % item for item in headers)
        if body:
            head += "Content-Length: %d\r\n" % len(body)
        return raw(self.collector, head.encode() + b"Connection: close\r\n\r\n" + body)

    def host(self):
        return "127.0.0.1:%d" % self.collector.port

    def test_a_cross_site_text_plain_post_is_refused_and_nothing_is_stored(self):
        line = b'@signalbox {"step": 1, "loss": 0.5}\n'
        push = json.dumps({"run": "csrf-push", "series": {"x": {"step": [1], "value": [1]}}})
        cases = [
            # A form or fetch(no-cors) from another site: the browser says where it comes from.
            ("/api/v1/lines?run=csrf-lines", [("Origin", "https://evil.example"),
                                              ("Content-Type", "text/plain")], line),
            ("/api/v1/push", [("Origin", "https://evil.example"),
                              ("Content-Type", "text/plain;charset=UTF-8")], push.encode()),
            ("/api/v1/push", [("Origin", "null"), ("Content-Type", "text/plain")], push.encode()),
            ("/api/v1/push", [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "no-cors"),
                              ("Content-Type", "text/plain")], push.encode()),
            ("/api/v1/push", [("Sec-Fetch-Mode", "no-cors"),
                              ("Content-Type", "application/x-www-form-urlencoded")],
             push.encode()),
            ("/api/v1/push", [("Origin", "http://%s" % self.host()),
                              ("Content-Type", "multipart/form-data; boundary=x")], push.encode()),
            ("/api/v1/recovery/acknowledge", [("Origin", "https://evil.example")], b""),
        ]
        for target, headers, body in cases:
            status, _, answer = self.send("POST", target, [("Host", self.host())] + headers, body)
            self.assertEqual(status, 403, (target, headers, answer))
            self.assertIn(b"refused", answer)
        names = run_names(self.collector)
        self.assertNotIn("csrf-lines", names)
        self.assertNotIn("csrf-push", names)
        # Scripts and the app send no Origin: their writes go on as before.
        status, _, answer = self.send("POST", "/api/v1/lines?run=script-lines",
                                      [("Host", self.host()), ("Content-Type", "text/plain")],
                                      line)
        self.assertEqual(status, 200, answer)
        self.assertIn("script-lines", run_names(self.collector))

    def test_origins_other_than_its_own_are_refused(self):
        for origin in ("https://evil.example", "http://evil.example:%d" % self.collector.port,
                       "null", "http://localhost:%d" % self.collector.port,
                       "http://127.0.0.1:%d" % (self.collector.port + 1),
                       "https://127.0.0.1:%d" % self.collector.port, "chrome-extension://abc",
                       "file://"):
            status, _, answer = self.send("GET", "/api/v1/runs",
                                          [("Host", self.host()), ("Origin", origin)])
            self.assertEqual(status, 403, origin)
            self.assertNotIn(b"private-run", answer)
        status, _, answer = self.send("GET", "/api/v1/runs",
                                      [("Host", self.host()), ("Origin", "http://" + self.host())])
        self.assertEqual(status, 200)
        self.assertIn(b"private-run", answer)

    def test_what_a_browser_sends_for_another_site_is_refused(self):
        for site, expected in (("cross-site", 403), ("same-site", 403), ("Cross-Site", 403),
                               ("same-origin", 200), ("none", 200)):
            status, _, answer = self.send("GET", "/api/v1/runs",
                                          [("Host", self.host()), ("Sec-Fetch-Site", site)])
            self.assertEqual(status, expected, (site, answer))

    def test_dns_rebinding_names_are_refused_and_read_nothing(self):
        port = self.collector.port
        for host in ("rebind.evil.example", "rebind.evil.example:%d" % port, "REBIND.EVIL.EXAMPLE.",
                     "127.0.0.1.nip.io:%d" % port, "127.0.0.1.evil.example", "localhost.evil.example",
                     "0x7f000001:%d" % port, "2130706433", "127.1:%d" % port, "0177.0.0.1",
                     "127.000.000.001", "0.0.0.0:%d" % port, "[::]:%d" % port, "[::ffff:7f00:1]x",
                     "192.168.1.10:%d" % port, "evil.example:80@127.0.0.1"):
            for target in ("/api/v1/runs", "/api/v1/health", "/api/v1/export?run=private-run&metric=loss"):
                status, _, answer = self.send("GET", target, [("Host", host)])
                self.assertIn(status, (400, 421), (host, target))
                self.assertNotIn(b"private-run", answer)
                self.assertNotIn(b"secret note", answer)
        status, _, answer = self.send("GET", "/api/v1/runs", [("Host", "rebind.evil.example")])
        self.assertEqual(status, 421)
        self.assertIn(b"rebind.evil.example", answer)
        for host in ("127.0.0.1:%d" % port, "127.0.0.1", "localhost:%d" % port, "LocalHost",
                     "127.0.0.2:%d" % port, "[::1]:%d" % port, "app.localhost:%d" % port):
            status, _, answer = self.send("GET", "/api/v1/runs", [("Host", host)])
            self.assertEqual(status, 200, host)
            self.assertIn(b"private-run", answer)
        # An HTTP/1.0 tool may name no host at all.
        status, _, _ = raw(self.collector, b"GET /api/v1/health HTTP/1.0\r\n\r\n")
        self.assertEqual(status, 200)
        # The same rule for the host an absolute-form target names.
        status, _, answer = self.send("GET", "http://rebind.evil.example:%d/api/v1/runs" % port,
                                      [("Host", self.host())])
        self.assertEqual(status, 421)
        self.assertNotIn(b"private-run", answer)

    def test_a_host_name_given_on_the_command_line_is_its_own(self):
        collector = Collector(extra=["--host-name", "Box.Internal"])
        try:
            for host, expected in (("box.internal:%d" % collector.port, 200), ("BOX.INTERNAL", 200),
                                   ("box.internal.evil.example", 421)):
                status, _, _ = raw(collector, b"GET /api/v1/health HTTP/1.1\r\nHost: %s\r\n"
                                   b"Connection: close\r\n\r\n" % host.encode())
                self.assertEqual(status, expected, host)
        finally:
            collector.stop()


class SlowAndMany(unittest.TestCase):
    """Finding 12 of issue 29: eight slow connections held the whole body budget and every push got
    503; idle connections from 127.0.0.2...127.0.0.9 counted as other peers and took every
    descriptor."""

    def push_ok(self, collector, run, step):
        status, answer = collector.request("/api/v1/push", {
            "run": run, "series": {"x": {"step": [step], "value": [step]}}})
        self.assertEqual(status, 200, answer)

    def test_eight_trickling_bodies_do_not_block_a_push(self):
        collector = Collector()
        slow = []
        try:
            for i in range(8):
                sock = collector.connect()
                framing = (b"Content-Length: 67108864" if i % 2 == 0 else
                           b"Transfer-Encoding: chunked")
                sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\n" + framing + b"\r\n\r\n")
                slow.append((sock, i % 2 == 0))
            for step in range(10):  # a byte from each now and then, and a push between
                for sock, sized in slow:
                    sock.sendall(b"[" if sized else b"1\r\n[\r\n")
                self.push_ok(collector, "normal", step)
                time.sleep(0.2)
            self.assertEqual(stored_steps(collector, "normal", "x"), list(map(float, range(10))))
        finally:
            for sock, _ in slow:
                sock.close()
            collector.stop()

    def test_bodies_that_stall_after_a_burst_give_their_room_back(self):
        collector = Collector()
        slow = []
        try:
            # 8 x 40 MiB of 64 MiB bodies, then nothing: more than half of the 512 MiB budget held
            # by bodies that do not move. Before, the sizes declared took the whole budget.
            piece = b"1," * (1 << 19)
            for _ in range(8):
                sock = collector.connect()
                sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\nContent-Length: 67108864\r\n\r\n[")
                for _ in range(40):
                    sock.sendall(piece)
                slow.append(sock)
            # Cut, oldest first, until they hold no more than half; well before the 30 s stall rule.
            cut, pending, deadline = 0, list(slow), time.time() + 20
            while cut < 2 and time.time() < deadline:
                for sock in select.select(pending, [], [], 1)[0]:
                    status, body = read_response(sock)
                    self.assertEqual(status, 408, body)
                    self.assertIn(b"slower than", body)
                    cut += 1
                    pending.remove(sock)
            self.assertGreaterEqual(cut, 2)
            self.push_ok(collector, "after", 1)
        finally:
            for sock in slow:
                sock.close()
            collector.stop()

    def test_a_thousand_idle_sockets_from_many_loopback_addresses(self):
        room_for_sockets()
        collector = Collector(max_fds=1024)
        idle = []
        try:
            for i in range(1100):
                with contextlib.suppress(OSError):
                    sock = socket.socket()
                    sock.settimeout(20)
                    sock.bind(("127.0.0.%d" % (2 + i % 8), 0))
                    idle.append(sock)
                    sock.connect(("127.0.0.1", collector.port))
            with contextlib.suppress(OSError):  # and one that never finishes its request
                idle[-1].sendall(b"GET /api/v1/hea")
            status, health = collector.request("/api/v1/health")
            self.assertEqual(status, 200)
            self.assertEqual(health["service"], "signalbox-collector")
            self.push_ok(collector, "after-idle", 1)
        finally:
            for sock in idle:
                sock.close()
            collector.stop()

    def test_the_descriptor_limit_is_raised_to_the_hard_limit(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        collector = Collector(max_fds=(min(soft, 1024), hard))
        try:
            with open("/proc/%d/limits" % collector.process.pid) as limits:
                line = next(l for l in limits if l.startswith("Max open files"))
            self.assertEqual(int(line.split()[3]), min(hard, 16384), line)
        finally:
            collector.stop()


class HttpProtocol(unittest.TestCase):
    """Finding 16 of issue 29, its HTTP half: HEAD had a body, absolute-form targets got 404, and
    invalid UTF-8 in a parameter merged different runs."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()

    def test_head_is_answered_with_headers_only(self):
        with self.collector.connect() as sock:
            sock.sendall(b"HEAD /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"HEAD /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"HEAD /api/v1/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            stream = sock.makefile("rb")
            lengths = []
            for expected in (200, 200, 404):
                self.assertEqual(int(stream.readline().split()[1]), expected)
                headers = dict(line.decode().lower().split(": ", 1)
                               for line in iter(stream.readline, b"\r\n"))
                lengths.append(int(headers["content-length"]))
            # Had a body come, it would be read here as the next status line.
            status_line = stream.readline()
            self.assertTrue(status_line.startswith(b"HTTP/1.1 200"), status_line)
            headers = dict(line.decode().lower().split(": ", 1)
                           for line in iter(stream.readline, b"\r\n"))
            body = stream.read(int(headers["content-length"]))
            self.assertEqual(len(body), lengths[0])
            self.assertEqual(json.loads(body)["service"], "signalbox-collector")

    def test_an_absolute_form_target_is_answered(self):
        port = self.collector.port
        for target in ("http://127.0.0.1:%d/api/v1/health" % port,
                       "HTTP://LOCALHOST:%d/api/v1/health" % port,
                       "http://[::1]:%d/api/v1/health?x=1" % port):
            status, _, body = raw(self.collector, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  b"Connection: close\r\n\r\n" % target.encode())
            self.assertEqual(status, 200, (target, body))
            self.assertEqual(json.loads(body)["service"], "signalbox-collector")
        for target in ("ftp://127.0.0.1/api/v1/health", "http://u:p@127.0.0.1/api/v1/health"):
            status, _, _ = raw(self.collector, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               b"Connection: close\r\n\r\n" % target.encode())
            self.assertEqual(status, 400, target)

    def test_invalid_utf8_in_a_parameter_is_refused_by_name(self):
        line = b'@signalbox {"step": 1, "loss": 0.5}\n'
        for query, name in (("run=%FF", "run"), ("run=%FE", "run"), ("run=a%C0%80", "run"),
                            ("run=%ED%A0%80", "run"), ("run=ok&%FF=1", "\\ufffd"),
                            ("run=%F4%90%80%80", "run"), ("run=%E2%82", "run")):
            status, answer = self.collector.request("/api/v1/lines?" + query, line,
                                                    content_type="text/plain")
            self.assertEqual(status, 400, (query, answer))
            self.assertIn("not valid UTF-8", answer["error"])
            if name == "run":
                self.assertIn('"run"', answer["error"])
        for path in ("/api/v1/series?run=%FF&metric=loss", "/api/v1/runs?filter=%FE",
                     "/api/v1/metrics?run=%FF", "/api/v1/export?run=x&metric=%FF"):
            status, answer = self.collector.request(path)
            self.assertEqual(status, 400, path)
        self.assertEqual([name for name in run_names(self.collector) if "\ufffd" in name], [])
        # Valid UTF-8, a BOM included, names distinct runs.
        for run in ("é", "\ufeffé", "名前"):
            status, _ = self.collector.request("/api/v1/lines?run=" + q(run), line,
                                               content_type="text/plain")
            self.assertEqual(status, 200, run)
        names = run_names(self.collector)
        for run in ("é", "\ufeffé", "名前"):
            self.assertIn(run, names)


class PublishedCollector(unittest.TestCase):
    """The app publishes its embedded collector's address and secret in the user's runtime
    directory; signalbox-cli (and the Python client) find both there when not told otherwise."""

    def setUp(self):
        self.runtime = tempfile.mkdtemp(prefix="sb-runtime-")
        self.folder = os.path.join(self.runtime, "signalbox")
        os.mkdir(self.folder, 0o700)
        token = os.path.join(self.runtime, "token")
        with open(token, "w") as f:
            f.write("published-secret\n")
        self.collector = Collector(extra=["--token-file", token])

    def tearDown(self):
        self.collector.stop()
        shutil.rmtree(self.runtime)

    def publish(self, pid):
        with open(os.open(os.path.join(self.folder, "collector.token"),
                          os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("published-secret\n")
        with open(os.path.join(self.folder, "collector.url"), "w") as f:
            f.write("%s\n%d\n" % (self.collector.url, pid))

    def cli(self, *args):
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime)
        env.pop("SIGNALBOX_COLLECTOR", None)
        env.pop("SIGNALBOX_TOKEN", None)
        return subprocess.run([CLI] + list(args) + ["health"], capture_output=True, text=True,
                              env=env, timeout=30)

    def test_the_cli_finds_the_published_collector_and_its_secret(self):
        self.publish(self.collector.process.pid)
        result = self.cli()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("signalbox-collector", result.stdout)
        # Named by hand, as localhost: still the published one, so the secret goes with it.
        result = self.cli("--collector", "http://localhost:%d" % self.collector.port)
        self.assertEqual(result.returncode, 0, result.stderr)
        # A folder others may write to is not trusted: no secret is taken from it.
        os.chmod(self.folder, 0o777)
        result = self.cli("--collector", self.collector.url)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("token", result.stderr)


class TokenFile(unittest.TestCase):
    def test_the_token_comes_from_a_file_and_stays_out_of_the_process_list(self):
        folder = tempfile.mkdtemp(prefix="sb-token-")
        path = os.path.join(folder, "token")
        with open(path, "w") as f:
            f.write("s3cret-from-file\n")
        port = free_port()
        process = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port, "--data-dir",
                                    os.path.join(folder, "data"), "--token-file", path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn("listening on", process.stdout.readline())
            with open("/proc/%d/cmdline" % process.pid, "rb") as f:
                self.assertNotIn(b"s3cret", f.read())
            url = "http://127.0.0.1:%d/api/v1/health" % port
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url, timeout=10)
            self.assertEqual(refused.exception.code, 401)
            request = urllib.request.Request(url, headers={"Authorization": "Bearer s3cret-from-file"})
            with urllib.request.urlopen(request, timeout=10) as response:
                self.assertEqual(response.status, 200)
            cli = subprocess.run([CLI, "--collector", "http://127.0.0.1:%d" % port, "--token-file",
                                  path, "health"], capture_output=True, text=True, timeout=30)
            self.assertEqual(cli.returncode, 0, cli.stderr)
        finally:
            process.terminate()
            process.communicate(timeout=20)
        for bad, why in (("/dev/zero", "not a regular file"), (os.path.join(folder, "none"), ""),
                         (folder, "")):
            result = subprocess.run([COLLECTOR, "--data-dir", os.path.join(folder, "d2"),
                                     "--token-file", bad], capture_output=True, text=True,
                                    timeout=30)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn(bad, result.stderr)
            self.assertIn(why, result.stderr)


def stored_steps(collector, run, metric):
    status, csv = collector.request("/api/v1/export?run=%s&metric=%s" % (q(run), q(metric)))
    if status != 200:
        return []
    return [float(line.split(",")[0]) for line in csv.splitlines()[1:]]


def stored_points(collector, run, metric):
    status, csv = collector.request("/api/v1/export?run=%s&metric=%s" % (q(run), q(metric)))
    return [tuple(float(x) for x in line.split(",")[:2]) for line in csv.splitlines()[1:]] \
        if status == 200 else []


class OldCollector(http.server.ThreadingHTTPServer):
    """Stands in for a collector from before columnar pushes (no such binary is kept to run):
    404 for /api/v1/push/columns, and JSON pushes forwarded to a real collector."""

    def __init__(self, real):
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.paths.append(self.path)
                status, reply = (404, {"error": "no such endpoint"}) \
                    if self.path != "/api/v1/push" else real.request(self.path, body)
                text = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.paths = []
        self.url = "http://127.0.0.1:%d" % self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()


class PythonClient(unittest.TestCase):
    def test_columns_keep_each_call_and_an_old_collector_gets_json(self):
        collector = Collector()
        old = OldCollector(collector)
        try:
            for name, url in (("columns", collector.url), ("json", old.url)):
                run = signalbox.Run(run=name, collector=url, flush_interval=0.01, out=io.StringIO())
                metrics = {"loss": 0.0, "acc": 0.5}
                for step in range(3000):  # one dict, changed between calls: each call's values kept
                    metrics["loss"] = step / 2
                    run.log(metrics, step=step)
                    if step % 7 == 0:  # stretches of other metrics between
                        run.log({"val": -step, "loss": step + 0.25}, step=step)
                    if step % 1000 == 999:
                        time.sleep(0.05)  # a send in between
                run.log({"big": 10 ** 400, "inf": float("inf"), "none": None}, step=3000)
                run.finish()
                loss = stored_points(collector, name, "loss")
                self.assertEqual(len(loss), 3000 + 429)
                expected = []
                for step in range(3000):
                    expected.append((step, step / 2))
                    if step % 7 == 0:
                        expected.append((step, step + 0.25))
                self.assertEqual(loss, expected, name)
                self.assertEqual(stored_points(collector, name, "val")[-1], (2996, -2996))
                self.assertEqual(stored_points(collector, name, "inf"), [(3000, math.inf)])
                self.assertEqual(stored_points(collector, name, "big"), [])  # not a double
                self.assertEqual((run.invalid, run.printed, run.refused), (2, 0, 0))
            self.assertIn("/api/v1/push/columns", old.paths)  # tried once, then JSON
            self.assertEqual(old.paths.count("/api/v1/push/columns"), 1)
        finally:
            old.shutdown()
            collector.stop()

    def test_bad_values_never_kill_the_sender(self):
        collector = Collector()
        stderr = io.StringIO()
        try:
            with contextlib.redirect_stderr(stderr):
                run = signalbox.Run(run="bad", collector=collector.url, flush_interval=0.01,
                                    out=io.StringIO())
                run.log({"loss": None, "acc": 0.5}, step=0)
                run.log({"loss": "abc"}, step=1)
                run.log({"loss": 1j}, step=2)
                run.log({"loss": 1.0}, step=fractions.Fraction(1, 2))
                for bad in (float("inf"), "3", 2 ** 53 + 1):  # refused at the call, stored nowhere
                    with self.assertRaisesRegex(ValueError, "step"):
                        run.log({"loss": 2.0}, step=bad)
                run.log({"loss": 4.0, "": 1, 5: 2}, step=4)
                time.sleep(0.2)
                self.assertTrue(run._thread.is_alive())
                for step in range(5, 105):
                    run.log({"loss": float(step), "big": 1e308, "nan": float("nan")}, step=step)
                run.finish()
            self.assertEqual(stored_steps(collector, "bad", "loss"), [0.5, 4.0] + list(range(5, 105)))
            self.assertEqual(stored_steps(collector, "bad", "acc"), [0.0])
            text = stderr.getvalue()
            self.assertEqual(text.count("'loss'"), 1, text)  # warned once per metric
            self.assertIn("dropped", text)  # the closing summary counts the loss
            self.assertEqual(run.printed, 0)
        finally:
            collector.stop()

    def test_full_disk_is_retried_never_acknowledged(self):
        mount = tempfile.mkdtemp(prefix="sb-full-")
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount],
                          capture_output=True).returncode != 0:
            self.skipTest("cannot mount a small tmpfs here (needs root)")
        try:
            collector = Collector(os.path.join(mount, "store"))
            acked = set()
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                run = signalbox.Run(run="full", collector=collector.url, flush_interval=0.02,
                                    out=io.StringIO(),
                                    on_ack=lambda records: acked.update(r[0] for r in records))
                total = 100_000  # 4.8 MB of points on a 1 MB disk
                for step in range(total):
                    run.log({"x": float(step), "y": 1.0}, step=step)
                deadline = time.time() + 30
                while "retrying" not in stderr.getvalue() and time.time() < deadline:
                    time.sleep(0.05)
                self.assertIn("retrying", stderr.getvalue())
                stored = stored_steps(collector, "full", "x")
                self.assertLess(len(stored), total)
                self.assertEqual(set(stored), acked)  # only what was stored was acknowledged
                # Free the space: the held batches arrive, each once.
                subprocess.run(["mount", "-o", "remount,size=64m", mount], check=True)
                deadline = time.time() + 60
                while len(acked) < total and time.time() < deadline:
                    time.sleep(0.1)
                run.finish()
            stored = stored_steps(collector, "full", "x")
            self.assertEqual(sorted(stored), list(map(float, range(total))))
            self.assertEqual(run.printed, 0)
            _, health = collector.request("/api/v1/health")
            collector.stop()
        finally:
            subprocess.run(["umount", "-l", mount])
            shutil.rmtree(mount, ignore_errors=True)

    def test_a_batch_printed_after_a_timeout_and_forwarded_is_stored_once(self):
        # Before: a client timed out against a busy collector and printed its batch; the push was
        # stored after all, and the forwarded lines stored the same steps a second time.
        collector = Collector()
        try:
            out = io.StringIO()
            with contextlib.redirect_stderr(io.StringIO()):
                run = signalbox.Run(run="printed", collector=collector.url, flush_interval=0.02,
                                    out=out, timeout=0.5)
                for step in range(200):
                    run.log({"x": float(step)}, step=step)
                time.sleep(0.3)
                collector.process.send_signal(signal.SIGSTOP)  # the next pushes hang
                for step in range(200, 1000):
                    run.log({"x": float(step)}, step=step)
                run.finish()  # times out: what it holds is printed, with batch ids
                collector.process.send_signal(signal.SIGCONT)  # and the hung pushes land
            printed = [line for line in out.getvalue().splitlines()
                       if line.startswith(signalbox.PREFIX)]
            self.assertTrue(printed, "nothing was printed")
            self.assertTrue(all('"batch":' in line for line in printed))
            time.sleep(0.5)
            status, reply = collector.request("/api/v1/lines?run=printed",
                                              ("\n".join(printed) + "\n").encode(), "text/plain")
            self.assertEqual(status, 200)
            self.assertEqual(reply["errors"], [])
            self.assertGreater(reply["duplicates"], 0)  # the hung pushes that landed
            self.assertEqual(reply["accepted"] + reply["duplicates"], len(printed))
            self.assertEqual(sorted(stored_steps(collector, "printed", "x")),
                             list(map(float, range(1000))))
            # Lines first, in two parts, then the push of the same batch: once again.
            records = [{"step": i, "x": float(i), "batch": "b-1"} for i in range(10)]
            lines = [signalbox.PREFIX + json.dumps(r) for r in records]
            for part in (lines[:5], lines[5:]):
                status, reply = collector.request("/api/v1/lines?run=parts",
                                                  ("\n".join(part) + "\n").encode(), "text/plain")
                self.assertEqual((status, reply["accepted"]), (200, 5))
            status, _ = collector.request("/api/v1/push", {"run": "parts", "batch": "b-1", "series": {
                "x": {"step": list(range(10)), "value": [float(i) for i in range(10)]}}})
            self.assertEqual(status, 200)
            self.assertEqual(sorted(stored_steps(collector, "parts", "x")),
                             list(map(float, range(10))))
        finally:
            collector.process.send_signal(signal.SIGCONT)
            collector.stop()

    def test_a_hung_collector_times_out_and_the_retry_is_stored_once(self):
        collector = Collector()
        try:
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                run = signalbox.Run(run="hung", collector=collector.url, flush_interval=0.02,
                                    out=io.StringIO(), timeout=0.5)
                for step in range(500):
                    run.log({"x": float(step)}, step=step)
                time.sleep(0.3)
                collector.process.send_signal(signal.SIGSTOP)  # requests pile up unanswered
                for step in range(500, 3000):
                    run.log({"x": float(step)}, step=step)
                    if step % 100 == 0:
                        time.sleep(0.02)
                time.sleep(1.5)
                collector.process.send_signal(signal.SIGCONT)  # it answers what it held, late
                deadline = time.time() + 30
                while run.acknowledged < 3000 and time.time() < deadline:
                    time.sleep(0.1)
                run.finish()
            stored = stored_steps(collector, "hung", "x")
            self.assertIn("timed out", stderr.getvalue())
            self.assertEqual(sorted(stored), list(map(float, range(3000))))
        finally:
            collector.process.send_signal(signal.SIGCONT)
            collector.stop()


def start_failure(data):
    """The stderr of a collector that must refuse to start on `data` (bounded)."""
    process = subprocess.run([COLLECTOR, "--listen", "127.0.0.1:%d" % free_port(), "--data-dir",
                              data], capture_output=True, text=True, timeout=30)
    return process.returncode, process.stdout + process.stderr


class RequestBounds(unittest.TestCase):
    """Every request's work and answer are bounded whatever it names (issue 29, finding 10): what
    is over is refused with 400 and a message saying what to ask instead."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()
        status, _ = cls.collector.request("/api/v1/push", {"run": "r", "series": {"loss": {
            "step": list(range(20000)), "value": [math.sin(i / 50.0) for i in range(20000)]}}})
        assert status == 200

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()

    def tearDown(self):
        self.assertTrue(self.collector.alive(), "the collector stopped answering")

    def test_a_run_named_thousands_of_times_is_answered_once(self):
        before = self.collector.rss_mb()
        query = "&".join(["run=r"] * 3000)
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=20000&smoothing=0.9" % query)
        self.assertEqual(status, 400, reply)
        self.assertIn("width must be 1 to 10000", reply["error"])
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=10000&smoothing=0.9" % query)
        self.assertEqual(status, 200)
        self.assertEqual([s["run"] for s in reply["series"]], ["r"])
        status, reply = self.collector.request("/api/v1/metrics?%s" % query)
        self.assertEqual((status, reply), (200, ["loss"]))
        self.assertLess(self.collector.rss_mb() - before, 200)

    def test_widths_and_smoothing_past_the_bounds_are_refused_or_clamped(self):
        for width in ("1000000000", "1e300", "0", "-5", "10001"):
            status, reply = self.collector.request(
                "/api/v1/series?run=r&metric=loss&width=%s" % width)
            self.assertEqual(status, 400, (width, reply))
            self.assertIn("width", reply["error"])
        for smoothing in ("0.999999999", "1e300", "-1"):  # clamped to a bounded window
            status, reply = self.collector.request(
                "/api/v1/series?run=r&metric=loss&width=2000&smoothing_kind=average&smoothing=%s"
                % smoothing)
            self.assertEqual(status, 200, (smoothing, reply))

    def test_many_runs_at_a_large_width_are_refused_with_what_to_ask(self):
        query = "&".join("run=run-%d" % i for i in range(600))
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=2000" % query)
        self.assertEqual(status, 400, reply)
        self.assertIn("fewer runs", reply["error"])
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=1000" % query)
        self.assertEqual(status, 200)
        self.assertEqual(len(reply["series"]), 600)
        many = "&".join("run=n%d" % i for i in range(10001))
        status, reply = self.collector.request("/api/v1/metrics?" + many)
        self.assertEqual(status, 400, reply)

    def test_an_answer_to_bad_lines_is_never_larger_than_a_few_errors(self):
        body = b"@signalbox {\n" * 200000 + b'@signalbox {"step": 1, "ok": 1}\n' + b'{"x": 1}\n' * 3
        status, reply = self.collector.request("/api/v1/lines?run=bad-lines", body, "text/plain")
        self.assertEqual(status, 200)
        self.assertEqual(reply["accepted"], 1)
        self.assertEqual(len(reply["errors"]), 101)
        self.assertEqual(reply["errors"][-1], "and 199900 more malformed lines")
        records = b"".join(b'@signalbox {"step": %d, "y": 1}\n' % i for i in range(50000))
        status, reply = self.collector.request("/api/v1/lines", records, "text/plain")
        self.assertEqual((status, reply["errors"]), (200, ["50000 metric records name no run"]))

    def test_groups_are_bounded_in_count_width_and_members(self):
        before = self.collector.rss_mb()
        groups = [{"name": "g%d" % i, "runs": ["r"]} for i in range(20000)]
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 20000, "groups": groups})
        self.assertEqual(status, 400, reply)
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 2000, "groups": groups})
        self.assertEqual(status, 400, reply)
        self.assertIn("fewer groups", reply["error"])
        members = ["r"] + ["m%d" % i for i in range(99999)]
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 500, "groups": [{"name": "big",
                                                                           "runs": members}]})
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["groups"][0]["runs"], ["r"])
        self.assertEqual(len(reply["groups"][0]["missing"]), 99999)
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 500, "groups": [
                {"name": "big", "runs": members}, {"name": "more", "runs": ["x", "y"]}]})
        self.assertEqual(status, 400, reply)
        self.assertLess(self.collector.rss_mb() - before, 300)


class IngestCost(unittest.TestCase):
    """One record of very many metrics costs what was sent, not its square (finding 11)."""

    def test_a_record_of_100000_metrics_never_holds_the_collector(self):
        collector = Collector()
        try:
            names = ["m%06d" % i for i in range(100000)]
            line = "@signalbox " + json.dumps(dict({"step": 1}, **{n: 1.0 for n in names}))
            started = time.time()
            status, reply = collector.request("/api/v1/lines?run=wide", line.encode() + b"\n",
                                              "text/plain")
            self.assertEqual(status, 200, reply)
            self.assertEqual(reply["accepted"], 100000)
            records = [dict({"step": 2}, **{n: 2.0 for n in names[:40000]})]
            status, reply = collector.request("/api/v1/push", {"run": "wide", "records": records})
            self.assertEqual((status, reply), (200, {"accepted": 40000}))
            # Quadratic, these took 51 s and 7.6 s; linear, well under a second each.
            self.assertLess(time.time() - started, 20)
            _, metrics = collector.request("/api/v1/metrics?run=wide")
            self.assertEqual(len(metrics), 100000)
        finally:
            collector.stop()


class BatchKeys(unittest.TestCase):
    """No run or batch id makes another's key (finding 13): each of these is stored."""

    def test_ids_that_looked_alike_are_each_stored(self):
        collector = Collector()
        try:
            def push(run, batch, step):
                return collector.request("/api/v1/push", {"run": run, "batch": batch, "series": {
                    "x": {"step": [step], "value": [float(step)]}}})
            self.assertEqual(push("r", "7 (lines)", 1), (200, {"accepted": 1}))
            self.assertEqual(push("r", "7", 2), (200, {"accepted": 1}))
            self.assertEqual(push("a\u0000b", "c", 1), (200, {"accepted": 1}))
            self.assertEqual(push("a", "b\u0000c", 1), (200, {"accepted": 1}))
            self.assertEqual(push("a", "b\u0000c", 1), (200, {"accepted": 1}))  # a retry: once
            self.assertEqual(stored_steps(collector, "r", "x"), [1.0, 2.0])
            self.assertEqual(stored_steps(collector, "a", "x"), [1.0])
            self.assertEqual(stored_steps(collector, "a\u0000b", "x"), [1.0])
            # The same within one /lines request: two groups, never merged.
            lines = ('@signalbox {"run": "p\\u0000q", "batch": "s", "step": 1, "y": 1}\n'
                     '@signalbox {"run": "p", "batch": "q\\u0000s", "step": 1, "y": 2}\n')
            status, reply = collector.request("/api/v1/lines?run=p", lines.encode(), "text/plain")
            self.assertEqual(status, 200, reply)
            self.assertEqual(stored_points(collector, "p", "y"), [(1.0, 2.0)])
            # Known across a restart (the journal's keys are read back as they were written).
            collector.stop()
            collector = Collector(collector.data)
            self.assertEqual(push("r", "7", 2), (200, {"accepted": 1}))
            self.assertEqual(push("r", "8", 3), (200, {"accepted": 1}))
            self.assertEqual(stored_steps(collector, "r", "x"), [1.0, 2.0, 3.0])
        finally:
            collector.stop()


class StoreFiles(unittest.TestCase):
    """The store never reads or writes through a link or a special file planted in it, and never
    changes the mode of a directory it did not create (finding 14)."""

    def store(self):
        collector = Collector()
        for first in (0, 100):
            status, _ = collector.request("/api/v1/push", {"run": "a", "series": {
                "loss": {"step": list(range(first, first + 100)), "value": [1.5] * 100}}})
            self.assertEqual(status, 200)
        collector.request("/api/v1/series?run=a&metric=loss")  # summaries to save
        collector.stop()
        return collector.data

    def precious(self, text=b"precious, not the store's\n"):
        fd, path = tempfile.mkstemp(prefix="sb-precious-")
        os.write(fd, text)
        os.close(fd)
        return path

    def test_links_in_place_of_store_files_are_never_followed(self):
        for name in ("summaries", "journal", "data/0.dat", "recovery.json", "lock",
                     "journal.new", "summaries.new", "sources.json"):
            data = self.store()
            target = self.precious()
            path = os.path.join(data, name)
            if os.path.exists(path):
                os.remove(path)
            os.symlink(target, path)
            collector = Collector(data)
            try:
                collector.request("/api/v1/series?run=a&metric=loss")
                _, health = collector.request("/api/v1/health")
            finally:
                collector.stop()
            Collector(data).stop()  # a second start over what the first left
            with open(target, "rb") as f:
                self.assertEqual(f.read(), b"precious, not the store's\n", name)
            if name in ("summaries", "journal", "data/0.dat", "lock", "recovery.json"):
                said = " ".join(health["recovery"])
                self.assertIn(name + " was a symbolic link", said, name)

    def test_a_fifo_or_directory_as_journal_never_hangs_the_start(self):
        for kind in ("fifo", "directory"):
            data = self.store()
            journal = os.path.join(data, "journal")
            os.remove(journal)
            os.mkfifo(journal) if kind == "fifo" else os.mkdir(journal)
            collector = Collector(data)
            try:
                _, health = collector.request("/api/v1/health")
                self.assertIn("journal was a symbolic link or not a regular file",
                              " ".join(health["recovery"]), kind)
                status, _ = collector.request("/api/v1/push", {"run": "b", "series": {
                    "x": {"step": [1], "value": [1]}}})
                self.assertEqual(status, 200)
            finally:
                collector.stop()

    def test_a_shared_directory_is_refused_and_its_mode_kept(self):
        shared = tempfile.mkdtemp(prefix="sb-shared-")
        os.chmod(shared, 0o1777)
        code, said = start_failure(shared)
        self.assertNotEqual(code, 0)
        self.assertIn("writable by every user", said)
        self.assertEqual(os.stat(shared).st_mode & 0o7777, 0o1777)
        self.assertEqual(os.listdir(shared), [])
        # A new directory inside it is the store's own: created private.
        inside = os.path.join(shared, "mine")
        Collector(inside).stop()
        self.assertEqual(os.stat(inside).st_mode & 0o777, 0o700)
        self.assertEqual(os.stat(shared).st_mode & 0o7777, 0o1777)
        # A store whose data folder is a link is refused, the link's target untouched.
        data = self.store()
        elsewhere = tempfile.mkdtemp(prefix="sb-elsewhere-")
        shutil.rmtree(os.path.join(data, "data"))
        os.symlink(elsewhere, os.path.join(data, "data"))
        code, said = start_failure(data)
        self.assertNotEqual(code, 0)
        self.assertIn("symbolic link", said)
        self.assertEqual(os.listdir(elsewhere), [])


class RunInfoBounds(unittest.TestCase):
    """A run's config and host are bounded as note and tags are (finding 16)."""

    def test_huge_or_deep_info_is_refused_by_name(self):
        collector = Collector()
        try:
            def push(info, run="r"):
                return collector.request("/api/v1/push", {"run": run, "info": info})
            big = "x" * (20 << 20)
            for info, named in (({"config": {"blob": big}}, "config"), ({"host": big}, "host"),
                                ({"host": "h" * 256}, "host"), ({"status": big}, "status"),
                                ({"sweep": "s" * 256}, "sweep")):
                status, reply = push(info)
                self.assertEqual(status, 400, named)
                self.assertIn('"%s"' % named, reply["error"])
            deep = {}
            for _ in range(40):
                deep = {"d": deep}
            status, reply = push({"config": deep})
            self.assertEqual(status, 400)
            self.assertIn("nests deeper", reply["error"])
            # At the bounds: stored.
            self.assertEqual(push({"host": "h" * 255, "tags": ["t" * 200] * 1 + [
                "t%d" % i for i in range(99)], "config": {"lr": 0.1}})[0], 200)
            status, reply = push({"tags": ["t%d" % i for i in range(101)]})
            self.assertEqual(status, 400)
            # Config keys merge: they are bounded as merged, so updates cannot grow it for ever.
            self.assertEqual(push({"config": {"a": "x" * 40000}})[0], 200)
            status, reply = push({"config": {"b": "x" * 40000}})
            self.assertEqual(status, 400, reply)
            self.assertIn("config", reply["error"])
            _, runs = collector.request("/api/v1/runs")
            self.assertLess(len(json.dumps(runs)), 200000)
        finally:
            collector.stop()


class Rotation(unittest.TestCase):
    """A watched file replaced by another, longer one is read from its start (finding 16)."""

    def test_a_replaced_file_is_read_whole(self):
        watched = tempfile.mkdtemp(prefix="sb-rotate-")
        collector = Collector(watch=watched)
        try:
            def wait_for(run, metric, wanted):
                deadline = time.time() + 30
                steps = []
                while time.time() < deadline:
                    steps = stored_steps(collector, run, metric)
                    if len(steps) >= len(wanted):
                        break
                    time.sleep(0.2)
                return steps

            def replace(name, text):
                temporary = os.path.join(watched, "." + name + ".tmp")
                with open(temporary, "w") as f:
                    f.write(text)
                os.rename(temporary, os.path.join(watched, name))

            replace("j.jsonl", "".join('{"step": %d, "x": 1}\n' % i for i in range(10)))
            replace("c.csv", "step,x\n" + "".join("%d,1\n" % i for i in range(10)))
            self.assertEqual(wait_for("j", "x", range(10)), [float(i) for i in range(10)])
            self.assertEqual(wait_for("c", "x", range(10)), [float(i) for i in range(10)])
            # Rotated: a new, longer file at the same path (30 lines, past the old offset).
            replace("j.jsonl", "".join('{"step": %d, "x": 1}\n' % i for i in range(100, 130)))
            replace("c.csv", "step,x\n" + "".join("%d,1\n" % i for i in range(100, 130)))
            wanted = [float(i) for i in list(range(10)) + list(range(100, 130))]
            self.assertEqual(wait_for("j", "x", wanted), wanted)
            self.assertEqual(wait_for("c", "x", wanted), wanted)
        finally:
            collector.stop()


if __name__ == "__main__":
    COLLECTOR, CLI = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)  # then test names, if any
