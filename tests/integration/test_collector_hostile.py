"""Hostile input against a real signalbox-collector process and the CLI: non-finite and huge
numbers, wrong types, odd names, poisoned lines, huge lines, stored data that is garbage, alias
bombs and special files. Every case asserts that the bad part is refused with a message naming it,
that everything else is stored exactly, and that the collector keeps answering.

usage: test_collector_hostile.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI (loopback only, bounded time)"""

import contextlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

import collector_process
from collector_process import SharedCollector, free_port, Collector, q, raw, stored_steps, stored_points
import signalbox  # noqa: E402  (on the path collector_process puts it)

COLLECTOR, CLI = None, None


def signalbox_crc(data):
    """TFRecord's masked CRC-32C."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class Hostile(SharedCollector):
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

    def test_a_relative_watch_directory_is_read(self):
        # `--watch runs` from the directory above: its files were once looked for at
        # runs/runs/..., and nothing was ever read.
        parent = tempfile.mkdtemp(prefix="sb-watch-")
        watched = os.path.join(parent, "runs")
        shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "data", "tfevents",
                                     "logdir"), watched)
        with open(os.path.join(watched, "lines.jsonl"), "w") as f:
            f.write('{"step": 1, "loss": 1}\n')
        collector = Collector(watch="runs", cwd=parent)
        try:
            deadline = time.time() + 20
            names = set()
            while time.time() < deadline:
                _, runs = collector.request("/api/v1/runs")
                names = {run["name"] for run in runs}
                if "lines" in names and len(names) > 1:
                    break
                time.sleep(0.2)
            self.assertIn("lines", names)
            self.assertGreater(len(names), 1, names)  # the event files' runs too
            _, health = collector.request("/api/v1/health")
            self.assertFalse([s for s in health["sources"] if s.get("lastError")], health)
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


def start_failure(data):
    """The stderr of a collector that must refuse to start on `data` (bounded)."""
    process = subprocess.run([COLLECTOR, "--listen", "127.0.0.1:%d" % free_port(), "--data-dir",
                              data], capture_output=True, text=True, timeout=30)
    return process.returncode, process.stdout + process.stderr


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
            # What a run ran travels with every listing: bounded, the diff kept out of it.
            for field in ("code", "environment"):
                status, reply = push({field: {"diff": "x" * 20000}})
                self.assertEqual(status, 400, field)
                self.assertIn('"%s"' % field, reply["error"])
                status, reply = push({field: {"a": {"b": {"c": {"d": {"e": 1}}}}}})
                self.assertEqual(status, 400, field)
            self.assertEqual(push({"code": {"commit": "abc", "dirty": True},
                                   "environment": {"argv": ["t.py"]}})[0], 200)
            self.assertEqual(push({"code": {"commit": "def"}})[0], 200)  # replaced whole
            _, runs = collector.request("/api/v1/runs")
            self.assertEqual(runs[0]["code"], {"commit": "def"})
            self.assertEqual(runs[0]["environment"], {"argv": ["t.py"]})
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
    COLLECTOR, CLI = collector_process.take_binaries(sys.argv)
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)  # then test names, if any
