"""The lab store: a real signalbox-collector shipping to a real ClickHouse (Debian's
clickhouse-server on loopback, tests/harness/clickhouse.py). Every acknowledged point arrives
exactly once, with its run's info, through kill -9 of ClickHouse and of the collector.

usage: test_lab_store.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI"""

import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

import collector_process
from collector_process import Collector

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import clickhouse  # noqa: E402

HOSTILE = ["r'quote", "r\\back", "r\ttab", "名前 </b>", "r\"dq", "r%1%2"]


def lab_flags(server, project="lab"):
    return ["--clickhouse", server.url, "--project", project]


def push(collector, run, metric, first, values, info=None):
    body = {"run": run, "series": {metric: {"step": list(range(first, first + len(values))),
                                            "value": values}}}
    if info:
        body["info"] = info
    status, answer = collector.request("/api/v1/push", body)
    assert status == 200, answer


def caught_up(collector, server, expected, timeout=60):
    """Waits until the collector says it is caught up and ClickHouse holds `expected` points."""
    deadline = time.time() + timeout
    held = None
    while time.time() < deadline:
        status, health = collector.request("/api/v1/health")
        try:
            held = int(server.query("SELECT count() FROM signalbox.points").strip() or 0)
        except AssertionError:  # the collector has not made its tables yet
            held = 0
        if status == 200 and health.get("lab", {}).get("caught_up") and held >= expected:
            return held
        time.sleep(0.1)
    raise AssertionError("not caught up: ClickHouse holds %s of %d points" % (held, expected))


class LabStore(unittest.TestCase):
    def setUp(self):
        if not clickhouse.available():
            self.skipTest("clickhouse-server is not installed (scripts/setup-deps installs it)")
        self.server = clickhouse.ClickHouse()
        self.addCleanup(self.server.stop)

    def assertOnce(self, expected):
        """Every (run, metric, idx) once, and as many as the collector acknowledged."""
        rows, distinct = self.server.query(
            "SELECT count(), uniqExact(project, run, metric, source, idx) "
            "FROM signalbox.points").split()
        self.assertEqual((int(rows), int(distinct)), (expected, expected))

    def test_migrate_makes_the_tables_once_and_says_so(self):
        for _ in range(2):
            done = subprocess.run([collector_process.COLLECTOR, "--clickhouse", self.server.url,
                                   "--migrate"], capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("ClickHouse 18.16", done.stdout)
            self.assertIn("CREATE TABLE IF NOT EXISTS signalbox.points", done.stdout)
        for table in ("points", "series", "series_mv", "runs"):
            self.assertEqual(self.server.query("EXISTS TABLE signalbox." + table).strip(), "1")
        bad = subprocess.run([collector_process.COLLECTOR, "--clickhouse", self.server.url,
                              "--clickhouse-database", "x; DROP TABLE y", "--migrate"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("letters, digits and _", bad.stderr)

    def test_a_name_two_collectors_ship_loses_and_deletes_nothing_of_the_other(self):
        data = tempfile.mkdtemp(prefix="sb-lab-a-")
        a = Collector(data=data, extra=lab_flags(self.server))
        b = Collector(extra=lab_flags(self.server))
        self.addCleanup(b.stop)
        push(a, "same", "loss", 0, [1.0] * 30)
        push(b, "same", "loss", 0, [2.0] * 80, info={"config": {"who": "b"}})
        caught_up(a, self.server, 110)
        caught_up(b, self.server, 110)
        # A starts again, reads what ClickHouse holds of its own, and ships the rest: B's 80
        # points of the name are not taken for A's.
        a.stop()
        a = Collector(data=data, extra=lab_flags(self.server))
        self.addCleanup(a.stop)
        push(a, "same", "loss", 30, [3.0] * 60)
        caught_up(a, self.server, 170)
        with open(os.path.join(data, "lab-id")) as f:
            source = f.read().strip()[:12]

        def held(where):
            return self.server.query("SELECT count(), uniqExact(idx) FROM signalbox.points "
                                     "WHERE run = 'same' AND " + where).split()
        self.assertEqual(held("source = '%s'" % source), ["90", "90"])
        self.assertEqual(held("source != '%s'" % source), ["80", "80"])
        # A deletes its run: B's points, summary and info stay.
        status, answer = a.request("/api/v1/runs/delete", {"runs": ["same"]})
        self.assertEqual(status, 200, answer)
        deadline = time.time() + 60
        while held("source = '%s'" % source) != ["0", "0"]:
            self.assertLess(time.time(), deadline)
            time.sleep(0.2)
        self.assertEqual(held("1"), ["80", "80"])
        self.assertNotEqual(self.server.query(
            "SELECT count() FROM signalbox.runs WHERE name = 'same'").strip(), "0")
        self.assertNotEqual(self.server.query(
            "SELECT count() FROM signalbox.series WHERE run = 'same'").strip(), "0")

    def test_a_points_table_from_before_sources_gains_the_column(self):
        self.server.query("CREATE DATABASE signalbox")
        self.server.query("CREATE TABLE signalbox.points (project String, run String, "
                          "metric String, idx UInt64, step Float64, value Float64, wall Float64) "
                          "ENGINE = MergeTree ORDER BY (project, run, metric, idx)")
        self.server.query("INSERT INTO signalbox.points VALUES ('lab', 'old', 'loss', 0, 0, 1, 0)")
        collector = Collector(extra=lab_flags(self.server))
        self.addCleanup(collector.stop)
        push(collector, "old", "loss", 0, [1.0, 2.0])  # its first point is held: one more ships
        caught_up(collector, self.server, 2)
        self.assertEqual(self.server.query(
            "SELECT idx, source = '' FROM signalbox.points WHERE run = 'old' ORDER BY idx "
            "FORMAT CSV").split(), ["0,1", "1,0"])

    def test_points_and_info_arrive_as_stored(self):
        collector = Collector(extra=lab_flags(self.server))
        self.addCleanup(collector.stop)
        sent = 0
        for i, run in enumerate(HOSTILE):
            values = [0.5 * i, "NaN", "Infinity", -1e308, 5e-324]
            push(collector, run, "val/loss \"x\"", 0, values,
                 info={"config": {"lr": 10 ** -i, "name": run, "nested": {"k": [1, "two"]}}})
            push(collector, run, "acc", 0, [0.1, 0.2, 0.3])
            sent += len(values) + 3
        caught_up(collector, self.server, sent)
        self.assertOnce(sent)
        got = self.server.query(
            "SELECT run, metric, idx, value FROM signalbox.points WHERE metric != 'acc' "
            "ORDER BY run, idx FORMAT JSONEachRow")
        rows = [json.loads(line) for line in got.splitlines()]
        by_run = {}
        for row in rows:
            by_run.setdefault(row["run"], []).append(row["value"])
        self.assertEqual(sorted(by_run), sorted(HOSTILE))
        first = by_run[HOSTILE[1]]
        self.assertEqual(first[0], 0.5)
        self.assertTrue(first[1] is None or math.isnan(float(first[1])) or first[1] == "nan")
        self.assertEqual(first[3], -1e308)
        self.assertEqual(first[4], 5e-324)
        infos = self.server.query("SELECT name, info FROM signalbox.runs FINAL "
                                  "WHERE project = 'lab' FORMAT JSONEachRow")
        configs = {}
        for line in infos.splitlines():
            row = json.loads(line)
            configs[row["name"]] = json.loads(row["info"])["config"]
        for i, run in enumerate(HOSTILE):
            self.assertEqual(configs[run], {"lr": 10 ** -i, "name": run,
                                            "nested": {"k": [1, "two"]}})
        summary = self.server.query(
            "SELECT countMerge(points), maxMerge(next), minMerge(low), maxMerge(high) "
            "FROM signalbox.series WHERE run = 'r\\'quote' AND metric = 'acc'").split()
        self.assertEqual(summary, ["3", "3", "0.1", "0.3"])

    def test_clickhouse_killed_mid_stream_loses_and_doubles_nothing(self):
        collector = Collector(extra=lab_flags(self.server))
        self.addCleanup(collector.stop)
        sent = 0
        for batch in range(60):
            push(collector, "run-%d" % (batch % 4), "loss", (batch // 4) * 500,
                 [batch + j / 500 for j in range(500)])
            sent += 500
            if batch == 20:
                self.server.kill()  # pushes still acknowledged: the store is the journal
            if batch == 40:
                status, health = collector.request("/api/v1/health")
                self.assertIn("error", health["lab"], health)
                self.assertFalse(health["lab"]["caught_up"])
                self.server.start()
        caught_up(collector, self.server, sent)
        self.assertOnce(sent)
        status, health = collector.request("/api/v1/health")
        self.assertNotIn("error", health["lab"])

    def test_deleted_runs_go_from_clickhouse_too_even_after_a_kill(self):
        def held(run):
            return int(self.server.query(
                "SELECT count() FROM signalbox.points WHERE run = '%s'" % run).strip())

        def gone(run, timeout=60):  # deletes are mutations, done in the background
            deadline = time.time() + timeout
            while time.time() < deadline:
                if held(run) == 0 and self.server.query(
                        "SELECT count() FROM signalbox.runs WHERE name = '%s'" % run).strip() == "0":
                    return
                time.sleep(0.2)
            raise AssertionError("%s is still in ClickHouse" % run)

        collector = Collector(extra=lab_flags(self.server))
        for run in ("a", "b", "c"):
            push(collector, run, "loss", 0, [1.0, 2.0, 3.0, 4.0])
        caught_up(collector, self.server, 12)
        # A request naming a run the store does not hold deletes nothing, here or there.
        status, answer = collector.request("/api/v1/runs/delete", {"runs": ["a", "nope"]})
        self.assertEqual(status, 404, answer)
        status, answer = collector.request("/api/v1/runs/delete", {"runs": ["a"]})
        self.assertEqual(status, 200, answer)
        gone("a")
        self.assertEqual(held("c"), 4)
        # Deleted and pushed again at once, before the delete is done there: the new run whole.
        status, answer = collector.request("/api/v1/runs/delete", {"runs": ["c"]})
        self.assertEqual(status, 200, answer)
        push(collector, "c", "loss", 0, [7.0, 6.0, 5.0])
        deadline = time.time() + 60
        while held("c") != 3 or int(self.server.query(
                "SELECT count() FROM signalbox.points WHERE run = 'c' AND value = 7").strip()) != 1:
            self.assertLess(time.time(), deadline, "c holds %d points" % held("c"))
            time.sleep(0.2)
        # ClickHouse down when b is deleted, and the collector killed before it is back: the
        # delete is kept on disk and sent once both are up again.
        self.server.kill()
        status, answer = collector.request("/api/v1/runs/delete", {"runs": ["b"]})
        self.assertEqual(status, 200, answer)
        collector.process.kill()
        collector.process.communicate()
        self.assertTrue(os.path.exists(os.path.join(collector.data, "lab-deleting.json")))
        self.server.start()
        collector = Collector(data=collector.data, extra=lab_flags(self.server))
        self.addCleanup(collector.stop)
        gone("b")
        self.assertEqual(held("c"), 3)
        # A new run of a deleted one's name is a new run: its points arrive once.
        push(collector, "a", "loss", 0, [9.0, 8.0])
        caught_up(collector, self.server, 5)
        self.assertEqual(held("a"), 2)
        self.assertOnce(5)
        deadline = time.time() + 30
        while os.path.exists(os.path.join(collector.data, "lab-deleting.json")):
            self.assertLess(time.time(), deadline, "the list of deletes stays")
            time.sleep(0.1)

    def test_collector_killed_mid_stream_resumes_where_clickhouse_is(self):
        data = None
        sent = 0
        for life in range(3):
            collector = Collector(data=data, extra=lab_flags(self.server))
            data = collector.data
            stop = threading.Event()

            def pusher(collector=collector, life=life):
                nonlocal sent
                n = 0
                while not stop.is_set():
                    try:
                        push(collector, "r%d" % (n % 3), "loss/%d" % life, (n // 3) * 2000,
                             [float(n)] * 2000)
                    except (AssertionError, OSError):
                        return  # killed while pushing: not acknowledged, not counted
                    sent += 2000
                    n += 1

            thread = threading.Thread(target=pusher)
            thread.start()
            time.sleep(1.5)
            collector.process.kill()  # kill -9, batches in flight to ClickHouse
            collector.process.communicate()
            stop.set()
            thread.join()
        collector = Collector(data=data, extra=lab_flags(self.server))
        self.addCleanup(collector.stop)
        # What the store holds: every acknowledged push, and any it stored as the kill came.
        status, health = collector.request("/api/v1/health")
        stored = health["points"]
        self.assertGreaterEqual(stored, sent)
        caught_up(collector, self.server, stored)
        self.assertOnce(stored)


def series_points(seed, count, finite=True):
    """A curve with spikes, plateaus, ties and (unless finite) NaN and infinities, the same for a
    seed: a pseudo-random walk, so every column's four points are tested."""
    state, value, out = seed * 7919 + 1, 0.0, []
    for i in range(count):
        state = (state * 1103515245 + 12345) % (1 << 31)
        value += (state % 2001 - 1000) / 1000.0
        if state % 97 == 0:
            value = round(value)  # a plateau of equal values: the first of equals is kept
        out.append(value)
        if not finite and state % 389 == 0:
            out[-1] = ["NaN", "Infinity", "-Infinity"][state % 3]
    return out


class LabReads(unittest.TestCase):
    """A lab's collector (--serve-lab) answers reads from ClickHouse: every run of its project,
    whichever collector shipped it, as that collector answers them itself."""

    @classmethod
    def setUpClass(cls):
        if not clickhouse.available():
            raise unittest.SkipTest("clickhouse-server is not installed")
        cls.server = clickhouse.ClickHouse()
        cls.writers = [Collector(extra=lab_flags(cls.server)) for _ in range(2)]
        cls.other = Collector(extra=lab_flags(cls.server, project="other"))
        cls.owner = {}
        sent = [0, 0, 0]
        for i, run in enumerate(HOSTILE + ["long", "short", "flat", "wall/only", "unordered"]):
            w = i % 2
            writer = cls.writers[w]
            cls.owner[run] = writer
            count = 30000 if run == "long" else 3 if run == "short" else 900 + 37 * i
            values = [2.5] * count if run == "flat" else series_points(i, count, finite=i != 3)
            steps = list(range(0, count * 3, 3))
            lr_steps = list(steps)
            if run == "unordered":  # steps out of order, each twice: ties in x
                steps = [(s * 7919) % (count // 2) for s in range(count)]
            walls = [1.7e9 + 0.25 * s + (i % 3) * 1e-3 for s in steps]
            for first in range(0, count, 10000):
                body = {"run": run, "info": {"config": {"lr": 10 ** -i, "seed": i},
                                             "tags": ["t%d" % (i % 3)], "start": 1.7e9 - 5},
                        "series": {"loss": {"step": steps[first:first + 10000],
                                            "value": values[first:first + 10000],
                                            "time": walls[first:first + 10000]},
                                   "lr": {"step": lr_steps[first:first + 10000],
                                          "value": [0.1 * (s + 1) for s in
                                                    lr_steps[first:first + 10000]]}}}
                status, answer = writer.request("/api/v1/push", body)
                assert status == 200, answer
                sent[w] += 2 * len(steps[first:first + 10000])
        push(cls.other, "secret-run", "loss", 0, [1.0, 2.0])
        for writer in cls.writers + [cls.other]:
            caught_up(writer, cls.server, sum(sent) + 2)
        cls.lab = Collector(extra=lab_flags(cls.server) + [
            "--serve-lab", "--clickhouse-reader", clickhouse.READER[0]],
            env={"SIGNALBOX_CLICKHOUSE_READER_PASSWORD": clickhouse.READER[1]})

    @classmethod
    def tearDownClass(cls):
        for collector in cls.writers + [cls.other, cls.lab]:
            collector.stop()
        cls.server.stop()

    def both(self, path, run, body=None):
        """The answer of the run's own collector and of the lab's, as text."""
        answers = []
        for collector in (self.owner[run], self.lab):
            data = json.dumps(body).encode() if body is not None else None
            request = urllib.request.Request(collector.url + path, data=data, method="POST"
                                             if data else "GET",
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                answers.append(answer.read().decode())
        return answers

    def test_runs_of_every_collector_and_of_the_project_only(self):
        status, runs = self.lab.request("/api/v1/runs")
        self.assertEqual(status, 200, runs)
        runs = [r for r in runs if r["name"] != "twice"]  # two collectors' (a test of its own)
        self.assertEqual([r["name"] for r in runs], sorted(self.owner, key=lambda n: n.encode()))
        for run in runs:
            status, own = self.owner[run["name"]].request("/api/v1/runs")
            mine = [r for r in own if r["name"] == run["name"]][0]
            self.assertEqual(run["metrics"], mine["metrics"], run["name"])
            self.assertEqual(run.get("config"), mine.get("config"))
            self.assertEqual(run.get("tags"), mine.get("tags"))
        status, page = self.lab.request("/api/v1/runs?offset=2&limit=3")
        self.assertEqual([r["name"] for r in page], [r["name"] for r in runs][2:5])
        status, found = self.lab.request("/api/v1/runs?where=" + collector_process.q(
            "config.seed >= 4 and max(loss) > 0 and tags has \"t1\""))
        self.assertEqual(status, 200, found)
        expected = [r["name"] for r in runs if r.get("config", {}).get("seed", 0) >= 4
                    and "t1" in r.get("tags", [])
                    and r["metrics"]["loss"].get("max", 0) > 0]
        self.assertEqual([r["name"] for r in found], expected)
        self.assertTrue(expected)
        status, filtered = self.lab.request("/api/v1/runs?filter=%E5%90%8D")  # 名
        self.assertEqual([r["name"] for r in filtered], ["名前 </b>"])
        status, metrics = self.lab.request("/api/v1/metrics")
        self.assertEqual(metrics, sorted({m for w in self.writers
                                          for m in w.request("/api/v1/metrics")[1]}))
        self.assertNotIn("secret-run", json.dumps(self.lab.request("/api/v1/runs?limit=1000")))
        status, answer = self.lab.request("/api/v1/series?run=secret-run&metric=loss")
        self.assertIn("has no metric", answer["series"][0]["error"])

    def test_series_are_the_embedded_stores_to_the_point(self):
        windows = ["", "&width=7", "&width=1", "&x=wall&width=300", "&x=relative&width=64",
                   "&from=100&to=5000&width=50", "&from=10&to=10", "&from=9e99&to=1e100",
                   "&smoothing=0.6", "&smoothing=0.9&smoothing_kind=gaussian&width=90",
                   "&log_x=1&width=40", "&x_metric=lr&width=33", "&width=10000"]
        for run in self.owner:
            for window in windows:
                path = "/api/v1/series?run=%s&metric=loss%s" % (collector_process.q(run), window)
                own, lab = self.both(path, run)
                self.assertEqual(json.loads(lab), json.loads(own), (run, window))

    def test_a_kept_curve_follows_new_points(self):
        path = "/api/v1/series?run=growing&metric=loss&width=50&smoothing=0.5"
        self.owner["growing"] = self.writers[0]
        held = int(self.server.query("SELECT count() FROM signalbox.points").strip())
        for first in (0, 40, 80):
            push(self.writers[0], "growing", "loss", first, series_points(first, 40))
            held = caught_up(self.writers[0], self.server, held + 40)
            for _ in range(2):  # the second is the kept answer
                own, lab = self.both(path, "growing")
                self.assertEqual(json.loads(lab), json.loads(own))
            self.assertEqual(json.loads(lab)["series"][0]["total"], first + 40)

    def test_a_run_shipped_again_under_its_name_is_read_anew(self):
        writer, path = self.writers[1], "/api/v1/series?run=again&metric=loss&width=20"
        self.owner["again"] = writer
        for values in ([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]):
            status, answer = writer.request("/api/v1/runs/delete", {"runs": ["again"]})
            status, answer = writer.request("/api/v1/push", {"run": "again", "series": {"loss": {
                "step": [0, 1, 2, 3], "value": values, "time": [1.7e9 + s for s in range(4)]}}})
            self.assertEqual(status, 200, answer)
            deadline = time.time() + 60
            while True:  # the delete is a mutation, done in the background
                own, lab = self.both(path, "again")
                if json.loads(lab) == json.loads(own):
                    break
                self.assertLess(time.time(), deadline, lab)
                time.sleep(0.2)
            self.assertEqual(json.loads(lab)["series"][0]["y"], values)

    def test_a_rewound_run_as_its_collector_shows_it(self):
        """A run resumed from a checkpoint hides what it logged past it (a rewind); the lab
        hides the same, in listings, curves, groups and exports, and shows it again once the
        rewind is restored."""
        writer = self.owner["rewound"] = self.writers[0]
        first = {"run": "rewound", "series": {
            "loss": {"step": list(range(300)), "value": series_points(9, 300),
                     "time": [1.7e9 + s for s in range(300)]},
            "acc": {"step": list(range(0, 300, 10)), "value": [s / 300 for s in range(0, 300, 10)]}}}
        again = {"run": "rewound", "resume": {"mode": "rewind", "step": 100},
                 "series": {"loss": {"step": list(range(100, 180)), "value": series_points(4, 80),
                                     "time": [1.8e9 + s for s in range(80)]}}}
        for body in (first, again):
            status, answer = writer.request("/api/v1/push", body)
            self.assertEqual(status, 200, answer)
        paths = ["/api/v1/series?run=rewound&metric=loss" + w for w in
                 ("", "&width=7", "&x=wall&width=40", "&smoothing=0.7&width=30")] + [
                 "/api/v1/series?run=rewound&metric=acc", "/api/v1/export?run=rewound&metric=loss"]

        def same():
            deadline = time.time() + 60
            while True:
                try:  # not shipped yet: 404 from the lab
                    answers = [self.both(path, "rewound") for path in paths]
                except urllib.error.HTTPError:
                    answers = [(None, "")]
                runs = [[r for r in c.request("/api/v1/runs")[1] if r["name"] == "rewound"]
                        for c in (writer, self.lab)]
                if all(own == lab for own, lab in answers) and runs[0] == runs[1]:
                    return runs[0][0]
                self.assertLess(time.time(), deadline, (answers[0], runs))
                time.sleep(0.2)

        run = same()
        self.assertEqual(len(run["rewinds"]), 1)
        self.assertEqual(run["metrics"]["loss"]["count"], 101 + 80)
        status, answer = writer.request("/api/v1/rewinds/restore",
                                        {"rewind": run["rewinds"][0]["id"]})
        self.assertEqual(status, 200, answer)
        run = same()
        self.assertNotIn("rewinds", run)
        self.assertEqual(run["metrics"]["loss"]["count"], 380)

    def test_a_run_rewound_many_times(self):
        """Twelve rewinds, each leaving the head of the last stretch shown: twelve stretches
        hidden, past what the lab writes as comparisons."""
        writer = self.owner["rewound-often"] = self.writers[1]
        push(writer, "rewound-often", "loss", 0, series_points(3, 100))
        for k in range(12):
            step = 10 + 7 * k
            status, answer = writer.request("/api/v1/push", {
                "run": "rewound-often", "resume": {"mode": "rewind", "step": step},
                "series": {"loss": {"step": list(range(step, 100)),
                                    "value": series_points(k, 100 - step)}}})
            self.assertEqual(status, 200, answer)
        paths = ["/api/v1/series?run=rewound-often&metric=loss&width=%d" % w for w in (5, 300)]
        paths.append("/api/v1/export?run=rewound-often&metric=loss")
        deadline = time.time() + 60
        while True:
            try:
                answers = [self.both(path, "rewound-often") for path in paths]
            except urllib.error.HTTPError:
                answers = [(None, "")]
            runs = [[r for r in c.request("/api/v1/runs")[1] if r["name"] == "rewound-often"]
                    for c in (writer, self.lab)]
            if all(own == lab for own, lab in answers) and runs[0] == runs[1]:
                break
            self.assertLess(time.time(), deadline, runs)
            time.sleep(0.2)
        hidden = json.loads(self.server.query(
            "SELECT argMax(rewinds, version) FROM signalbox.runs WHERE name = 'rewound-often' "
            "FORMAT JSONEachRow").strip().splitlines()[0]).popitem()[1]
        self.assertGreater(len(json.loads(hidden)["hidden"]["loss"]), 2 * 8)

    def test_groups_and_exports_as_the_embedded_store(self):
        mine = [run for run in self.owner if self.owner[run] is self.writers[0]]
        for band in ("std", "minmax"):
            body = {"metric": "loss", "center": "mean", "band": band, "width": 120,
                    "groups": [{"name": "a", "runs": mine[:2]}, {"name": "b", "runs": mine[2:]
                                                                 + ["no-such-run"]}]}
            own, lab = self.both("/api/v1/groups", mine[0], body)
            self.assertEqual(json.loads(lab), json.loads(own))
        for run in ("long", HOSTILE[1], "flat", "r%1%2", "unordered"):
            own, lab = self.both("/api/v1/export?run=%s&metric=loss" % collector_process.q(run),
                                 run)
            self.assertEqual(lab, own)
            self.assertGreater(len(own.splitlines()), 2)
        status, answer = self.lab.request("/api/v1/export?run=nothing&metric=loss")
        self.assertEqual(status, 404)

    def test_another_collectors_run_is_changed_there_not_here(self):
        # The app's tags, note and archive are info-only pushes: refused for a run the lab
        # collector does not hold, which it would otherwise ship as a run of nothing but that.
        for info in ({"note": "x"}, {"archived": True}, {"tags": ["t"]}):
            status, answer = self.lab.request("/api/v1/push", {"run": "long", "info": info})
            self.assertEqual(status, 400, answer)
            self.assertIn("another collector shipped this one", answer["error"])
        status, runs = self.lab.request("/api/v1/runs")
        self.assertIn("lr", [r for r in runs if r["name"] == "long"][0]["config"])
        status, answer = self.lab.request("/api/v1/runs/delete", {"runs": ["long"]})
        self.assertEqual(status, 404, answer)
        # Its own runs it takes as any collector does.
        push(self.lab, "lab-own", "loss", 0, [1.0, 0.5])
        self.owner["lab-own"] = self.lab
        status, answer = self.lab.request("/api/v1/push", {"run": "lab-own",
                                                            "info": {"note": "mine"}})
        self.assertEqual(status, 200, answer)

    def test_a_name_two_collectors_shipped_fails_its_own_curve_only(self):
        for w, writer in enumerate(self.writers):
            push(writer, "twice", "loss", 0, [float(w + 1)] * 50)
            caught_up(writer, self.server, 0)
        deadline = time.time() + 60
        while True:
            status, runs = self.lab.request("/api/v1/runs")
            twice = [r for r in runs if r["name"] == "twice"]
            if twice and twice[0]["metrics"]["loss"]["count"] == 100:
                break
            self.assertLess(time.time(), deadline, twice)
            time.sleep(0.2)
        status, answer = self.lab.request(
            "/api/v1/series?run=twice&run=long&metric=loss&smoothing=0.6&width=50")
        self.assertEqual(status, 200, answer)
        curves = {s["run"]: s for s in answer["series"]}
        self.assertIn("two collectors shipped runs of this name", curves["twice"]["error"])
        self.assertGreater(len(curves["long"]["x"]), 10)

    def test_health_says_when_reads_fail(self):
        status, health = self.lab.request("/api/v1/health")
        self.assertTrue(health["lab"]["serves"])
        self.assertNotIn("read_error", health["lab"])
        # A read ClickHouse refuses (a user that does not exist), through a collector of its
        # own, which says so and then answers 503.
        bad = Collector(extra=lab_flags(self.server) + ["--serve-lab", "--clickhouse-reader",
                                                        "nobody"])
        try:
            status, answer = bad.request("/api/v1/runs")
            self.assertEqual(status, 503, answer)
            status, health = bad.request("/api/v1/health")
            self.assertIn("nobody", health["lab"]["read_error"])
        finally:
            bad.stop()

    def test_the_reader_may_not_write(self):
        with self.assertRaises(AssertionError) as refused:
            self.server.query("INSERT INTO signalbox.runs VALUES ('lab', 'x', '{}', 1)",
                              user=clickhouse.READER)
        self.assertIn("readonly", str(refused.exception).lower())


class LabSummaries(unittest.TestCase):
    """Long series are charted from their 256-point blocks, which the shipping collector writes
    once it shipped their points: exact within each pixel column, real points everywhere; read
    point by point where the blocks cannot stand for them."""

    LONG = 200_003  # a partial block at the end, read point by point

    @classmethod
    def setUpClass(cls):
        if not clickhouse.available():
            raise unittest.SkipTest("clickhouse-server is not installed")
        cls.server = clickhouse.ClickHouse()
        cls.writer = Collector(extra=lab_flags(cls.server))
        cls.data = {}
        sent = 0
        for run, count in (("long", cls.LONG), ("unordered", 60_000), ("legacy", 60_000),
                           ("rewound", 60_000), ("gone", 3_000)):
            steps = [2 * s for s in range(count)]
            if run == "unordered":
                steps = [(s * 7919) % count for s in range(count)]
            values = series_points(len(cls.data) + 1, count, finite=False)
            walls = [1.7e9 + 0.5 * s for s in range(count)]
            cls.data[run] = (steps, values, walls)
            # Small pushes first: blocks completed across batches, their heads read again.
            chunks = [97] * 6 + [20_000] * (count // 20_000 + 1)
            first = 0
            for size in chunks:
                if first >= count:
                    break
                body = {"run": run, "info": {"start": 1.7e9 - 10}, "series": {"loss": {
                    "step": steps[first:first + size], "value": values[first:first + size],
                    "time": walls[first:first + size]}}}
                status, answer = cls.writer.request("/api/v1/push", body)
                assert status == 200, answer
                sent += len(steps[first:first + size])
                first += size
                if size < 100:
                    caught_up(cls.writer, cls.server, sent)
        rewind = {"run": "rewound", "resume": {"mode": "rewind", "step": 40_000},
                  "series": {"loss": {"step": list(range(40_002, 40_100, 2)),
                                      "value": [1.0] * 49}}}
        status, answer = cls.writer.request("/api/v1/push", rewind)
        assert status == 200, answer
        caught_up(cls.writer, cls.server, sent + 49)
        # Points shipped before collectors wrote blocks: none of their blocks.
        cls.server.query("ALTER TABLE signalbox.blocks DELETE WHERE run = 'legacy'")
        deadline = time.time() + 30
        while cls.server.query("SELECT count() FROM signalbox.blocks WHERE run = 'legacy'"
                               ).strip() != "0":
            assert time.time() < deadline, "the blocks of legacy are still there"
            time.sleep(0.1)
        cls.lab = Collector(extra=lab_flags(cls.server) + [
            "--serve-lab", "--clickhouse-summaries-from", "50000"])

    @classmethod
    def tearDownClass(cls):
        for collector in (cls.writer, cls.lab):
            collector.stop()
        cls.server.stop()

    def curves(self, run, window):
        path = "/api/v1/series?run=%s&metric=loss%s" % (run, window)
        answers = []
        for collector in (self.writer, self.lab):
            status, answer = collector.request(path)
            self.assertEqual(status, 200, answer)
            answers.append(answer["series"][0])
        return answers

    def test_blocks_are_the_points_summarized(self):
        """Every whole block of shipped points once, as ClickHouse summarizes them itself; a
        deleted run's go with it."""
        got = self.server.query(
            "SELECT run, block, points, finite, first_idx, last_idx, low_idx, high_idx, "
            "min_step, max_step, min_wall, max_wall FROM signalbox.blocks FINAL "
            "ORDER BY run, block")
        want = self.server.query(
            "SELECT run, intDiv(idx, 256) AS block, count(), countIf(isFinite(value)), min(idx), "
            "max(idx), if(countIf(isFinite(value)) > 0, argMinIf(idx, (value, idx), "
            "isFinite(value)), min(idx)), if(countIf(isFinite(value)) > 0, argMaxIf(idx, "
            "(value, -toInt64(idx)), isFinite(value)), min(idx)), min(step), max(step), "
            "min(wall), max(wall) FROM signalbox.points WHERE run != 'legacy' GROUP BY run, "
            "block HAVING count() = 256 ORDER BY run, block")
        self.assertEqual(got, want)
        self.assertEqual(got.count("\nlong\t"), self.LONG // 256)
        status, answer = self.writer.request("/api/v1/runs/delete", {"runs": ["gone"]})
        self.assertEqual(status, 200, answer)
        deadline = time.time() + 60
        while self.server.query("SELECT count() FROM signalbox.blocks WHERE run = 'gone'"
                                ).strip() != "0":
            self.assertLess(time.time(), deadline, "the blocks of a deleted run stay")
            time.sleep(0.2)

    def test_a_long_series_is_drawn_from_its_blocks(self):
        steps, values, walls = self.data["long"]
        relative = [w - (1.7e9 - 10) for w in walls]
        for window, width, xs, lo, hi in (
                ("&width=20", 20, steps, -1e300, 1e300),
                ("&x=wall&width=9", 9, walls, -1e300, 1e300),
                ("&x=relative&width=13", 13, relative, -1e300, 1e300),
                # Ends within blocks: those two blocks' points are read one by one.
                ("&from=1001&to=300001&width=10", 10, steps, 1001, 300001)):
            finite = [v for x, v in zip(xs, values) if isinstance(v, float) and lo <= x <= hi]
            own, lab = self.curves("long", window)
            self.assertEqual((lab["total"], lab["inRange"]), (own["total"], own["inRange"]))
            points = dict(zip(xs, values))
            # Each point drawn is one of the series', four a column at most.
            for x, y in zip(lab["x"], lab["y"]):
                self.assertIn(x, points, window)
                self.assertEqual(json.dumps(y), json.dumps(points[x]), (window, x))
            self.assertLessEqual(len(lab["x"]), 4 * width)
            # The ends and the extremes are the series'.
            self.assertEqual((lab["x"][0], lab["x"][-1]), (own["x"][0], own["x"][-1]))
            ys = [y for y in lab["y"] if isinstance(y, float)]
            self.assertEqual((min(ys), max(ys)), (min(finite), max(finite)), window)
            # Within each column, blocks add up exactly: the extremes are the embedded store's
            # but where one lies in a block across the column's edge.
            ranges = {}
            for curve in (own, lab):
                by_column = {}
                for x, y in zip(curve["x"], curve["y"]):
                    if isinstance(y, float):
                        c = min(width - 1, int((x - own["x"][0]) / (own["x"][-1] - own["x"][0])
                                               * width))
                        by_column.setdefault(c, []).append(y)
                ranges[id(curve)] = {c: (min(v), max(v)) for c, v in by_column.items()}
            agree = sum(ranges[id(own)][c] == ranges[id(lab)].get(c) for c in ranges[id(own)])
            self.assertGreaterEqual(agree, 0.75 * len(ranges[id(own)]), window)
            # Drawn from blocks, not points: some column's first or last point differs.
            self.assertNotEqual(lab["x"], own["x"], window)

    def test_a_block_written_twice_counts_once(self):
        """A batch sent again (its answer lost) writes its blocks twice until ClickHouse merges
        them: a chart takes each once."""
        path = "/api/v1/series?run=long&metric=loss&width=21"
        status, before = self.lab.request(path)
        self.server.query("INSERT INTO signalbox.blocks SELECT * FROM signalbox.blocks "
                          "WHERE run = 'long' AND block < 300")
        fresh = Collector(extra=lab_flags(self.server) + [
            "--serve-lab", "--clickhouse-summaries-from", "50000"])  # nothing kept
        try:
            status, after = fresh.request(path)
            self.assertEqual(status, 200, after)
            self.assertEqual(after, before)
        finally:
            fresh.stop()

    def test_points_shipped_before_blocks_are_read_whole_until_filled(self):
        for window in ("&width=20", "&x=relative&width=7"):
            own, lab = self.curves("legacy", window)
            self.assertEqual(lab, own, window)
        done = subprocess.run([collector_process.COLLECTOR, "--migrate", "--fill-blocks"]
                              + lab_flags(self.server), capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("blocks of 'lab' 'legacy' 'loss'", done.stdout)
        self.assertNotIn("'long'", done.stdout)  # it has all its blocks
        summarized = ("SELECT block, points, finite, first_idx, last_idx, low_idx, high_idx, "
                      "min_step, max_step, min_wall, max_wall FROM signalbox.blocks FINAL WHERE "
                      "run = '%s' ORDER BY block")
        self.assertEqual(self.server.query(summarized % "legacy").count("\n"), 60_000 // 256)
        # As the shipping collector writes them, to the bit: the long run's, filled anew.
        written = self.server.query(summarized % "long")
        self.server.query("ALTER TABLE signalbox.blocks DELETE WHERE run = 'long' AND block < 5")
        deadline = time.time() + 30
        while self.server.query("SELECT count() FROM signalbox.blocks WHERE run = 'long' AND "
                                "block < 5").strip() != "0":
            self.assertLess(time.time(), deadline)
            time.sleep(0.1)
        done = subprocess.run([collector_process.COLLECTOR, "--migrate", "--fill-blocks"]
                              + lab_flags(self.server), capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.server.query(summarized % "long"), written)
        own, lab = self.curves("legacy", "&width=7")  # drawn from blocks now
        self.assertEqual((lab["total"], lab["inRange"]), (own["total"], own["inRange"]))
        self.assertNotEqual(lab["x"], own["x"])

    def test_one_column_and_windows_of_few_points_are_exact(self):
        for window in ("&width=1", "&from=5000&to=9000&width=50", "&from=0&to=600&width=1000",
                       "&from=399990&to=1e9&width=3", "&from=-5&to=-1", "&width=10000"):
            own, lab = self.curves("long", window)
            self.assertEqual(lab, own, window)

    def test_series_blocks_cannot_stand_for_are_read_point_by_point(self):
        """Steps out of order (their times are in order: drawn by time from blocks), and points
        a rewind hides."""
        for run, windows in (("unordered", ["&width=20", "&width=9&from=0&to=1e9"]),
                             ("rewound", ["&width=20", "&x=wall&width=7"])):
            for window in windows:
                own, lab = self.curves(run, window)
                self.assertEqual(lab, own, (run, window))


class LabCluster(unittest.TestCase):
    """A lab on two ClickHouse servers, one shard each: the lab's tables are Distributed over
    each server's own, a run's points, blocks and rows on one of them."""

    RUNS = HOSTILE + ["run-%02d" % i for i in range(14)]

    @classmethod
    def setUpClass(cls):
        if not clickhouse.available():
            raise unittest.SkipTest("clickhouse-server is not installed")
        cls.servers = clickhouse.cluster(2)
        cls.flags = ["--clickhouse", cls.servers[0].url, "--clickhouse", cls.servers[1].url,
                     "--clickhouse-cluster", clickhouse.CLUSTER, "--project", "lab"]
        cls.writer = Collector(extra=cls.flags)
        cls.sent = 0
        for i, run in enumerate(cls.RUNS):
            push(cls.writer, run, "loss", 0, series_points(i, 700 + 31 * i, finite=i != 2))
            cls.sent += 700 + 31 * i
        cls.caught_up(cls.sent)
        cls.lab = Collector(extra=cls.flags + ["--serve-lab"])

    @classmethod
    def tearDownClass(cls):
        for collector in (cls.writer, cls.lab):
            collector.stop()
        for server in cls.servers:
            server.stop()

    @classmethod
    def caught_up(cls, expected, timeout=90):
        deadline = time.time() + timeout
        while True:
            status, health = cls.writer.request("/api/v1/health")
            try:
                held = int(cls.servers[0].query("SELECT count() FROM signalbox.points").strip())
            except AssertionError:  # a server down, or the tables not made yet
                held = -1
            if status == 200 and health.get("lab", {}).get("caught_up") and held == expected:
                return
            assert time.time() < deadline, (held, expected, health.get("lab"))
            time.sleep(0.1)

    def local(self, server, sql):
        return server.query(sql.replace("TABLE", "signalbox.%s_local"))

    def test_each_run_lies_on_one_server_with_its_blocks_and_row(self):
        held = {}
        for server in self.servers:
            runs = {}
            for table, column in (("points", "run"), ("blocks", "run"), ("runs", "name")):
                names = server.query("SELECT DISTINCT %s FROM signalbox.%s_local FORMAT "
                                     "JSONCompact" % (column, table))
                runs[table] = {row[0] for row in json.loads(names)["data"]}
            self.assertTrue(runs["points"], "a server holds no run")
            self.assertLessEqual(runs["blocks"], runs["points"])
            self.assertEqual(runs["runs"], runs["points"])
            held[server.url] = runs["points"]
        first, second = held.values()
        self.assertFalse(first & second)
        self.assertEqual(first | second, set(self.RUNS))  # deleted ones gone
        rows, distinct = self.servers[1].query(
            "SELECT count(), uniqExact(project, run, metric, source, idx) FROM signalbox.points"
        ).split()
        self.assertEqual(int(rows), int(distinct))

    def test_a_lab_collector_reads_the_whole_cluster(self):
        status, runs = self.lab.request("/api/v1/runs?limit=1000")
        self.assertEqual(status, 200, runs)
        names = [r["name"] for r in runs]
        self.assertEqual([n for n in names if n in self.RUNS],
                         sorted(self.RUNS, key=lambda n: n.encode()))
        status, found = self.lab.request("/api/v1/runs?filter=run-0")
        self.assertEqual([r["name"] for r in found], ["run-%02d" % i for i in range(10)])
        status, page = self.lab.request("/api/v1/runs?offset=3&limit=4")
        self.assertEqual([r["name"] for r in page], names[3:7])
        for run in self.RUNS:
            for window in ("&width=9", "&smoothing=0.5&width=30"):
                path = "/api/v1/series?run=%s&metric=loss%s" % (collector_process.q(run), window)
                self.assertEqual(self.lab.request(path), self.writer.request(path), (run, window))

    def test_a_delete_reaches_every_server(self):
        for run in ("gone-1", "gone-2"):
            push(self.writer, run, "loss", 0, series_points(3, 600))
        self.sent += 1200
        self.caught_up(self.sent)
        status, answer = self.writer.request("/api/v1/runs/delete", {"runs": ["gone-1", "gone-2"]})
        self.assertEqual(status, 200, answer)
        deadline = time.time() + 60
        for server in self.servers:
            for table, column in (("points", "run"), ("blocks", "run"), ("series", "run"),
                                  ("runs", "name")):
                sql = "SELECT count() FROM signalbox.%s_local WHERE %s LIKE 'gone-%%'" % (
                    table, column)
                while server.query(sql).strip() != "0":
                    self.assertLess(time.time(), deadline, (server.url, table))
                    time.sleep(0.2)
        self.sent -= 1200
        self.caught_up(self.sent)

    def test_a_server_killed_mid_stream_loses_and_doubles_nothing(self):
        self.servers[1].kill()
        try:
            for i, run in enumerate(self.RUNS):
                push(self.writer, run, "loss", 10_000, series_points(i, 300))
            time.sleep(1)  # batches fail meanwhile: the shard is down
            status, health = self.writer.request("/api/v1/health")
            self.assertFalse(health["lab"]["caught_up"])
        finally:
            self.servers[1].start()
        self.sent += 300 * len(self.RUNS)
        self.caught_up(self.sent)
        rows, distinct = self.servers[0].query(
            "SELECT count(), uniqExact(project, run, metric, source, idx) FROM signalbox.points"
        ).split()
        self.assertEqual((int(rows), int(distinct)), (self.sent, self.sent))

    def test_migrate_names_every_server(self):
        done = subprocess.run([collector_process.COLLECTOR, "--migrate", "--clickhouse",
                               self.servers[0].url, "--clickhouse-cluster", clickhouse.CLUSTER],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("the cluster lab has 2 servers, and 1 were named", done.stderr)
        # Blocks lacking are found through the cluster (here none: every series has its own).
        done = subprocess.run([collector_process.COLLECTOR, "--migrate", "--fill-blocks"] +
                              self.flags, capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("blocks of", done.stdout)
        for table in ("signalbox.points_local", "signalbox.points\n"):
            self.assertEqual(done.stdout.count(table), 2, done.stdout)  # on each server
        for server in self.servers:
            self.assertIn(server.url, done.stdout)
        done = subprocess.run([collector_process.COLLECTOR, "--migrate", "--clickhouse",
                               self.servers[0].url, "--clickhouse", self.servers[1].url],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertIn("--clickhouse-cluster", done.stderr)
        for flags, said in (
                (["--clickhouse", self.servers[0].url, "--clickhouse", self.servers[0].url,
                  "--clickhouse-cluster", clickhouse.CLUSTER], "two of the servers named are one"),
                (["--clickhouse", self.servers[0].url], "is spread over a cluster")):
            done = subprocess.run([collector_process.COLLECTOR, "--migrate"] + flags,
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 1, done.stdout)
            self.assertIn(said, done.stderr)


def users(path, *words):
    """`signalbox-collector users WORDS --users path`: its stdout, or AssertionError."""
    done = subprocess.run([collector_process.COLLECTOR, "users"] + list(words) + ["--users", path],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


# Every endpoint, each with what it needs: a read or a write. Their bodies are valid, so that
# only the caller's right decides.
READS = [("GET", "/api/v1/runs", None), ("GET", "/api/v1/metrics?run=mine", None),
         ("GET", "/api/v1/series?run=mine&metric=loss&width=50", None),
         ("GET", "/api/v1/export?run=mine&metric=loss", None),
         ("GET", "/api/v1/samples?run=mine", None), ("GET", "/api/v1/blobs/" + "0" * 64, None),
         ("POST", "/api/v1/groups", {"metric": "loss", "width": 20,
                                     "groups": [{"name": "g", "runs": ["mine"]}]})]
WRITES = [("POST", "/api/v1/push", {"run": "new", "series": {"loss": {"step": [1],
                                                                       "value": [1.0]}}}),
          ("POST", "/api/v1/lines?run=new", b"loss=1 step=2\n"),
          ("POST", "/api/v1/push/samples", b"SBS1"),
          ("POST", "/api/v1/recovery/acknowledge", {}),
          ("POST", "/api/v1/rewinds/restore", {"rewind": 99}),
          ("POST", "/api/v1/runs/delete", {"runs": ["nothing-here"]})]


class LabUsers(unittest.TestCase):
    """A lab collector with users (--users): each user's token and rights per project decide
    what they may read and write, through every endpoint; tokens are kept hashed and revoked at
    once; the CLI and the Python client take a project."""

    @classmethod
    def setUpClass(cls):
        if not clickhouse.available():
            raise unittest.SkipTest("clickhouse-server is not installed")
        cls.server = clickhouse.ClickHouse()
        writer = Collector(extra=lab_flags(cls.server))
        other = Collector(extra=lab_flags(cls.server, project="other"))
        push(writer, "mine", "loss", 0, [3.0, 2.0, 1.0])
        push(other, "secret-run", "loss", 0, [9.0, 8.0])
        caught_up(writer, cls.server, 5)
        caught_up(other, cls.server, 5)
        writer.stop()
        other.stop()
        cls.dir = tempfile.mkdtemp(prefix="sb-users-")
        cls.file = os.path.join(cls.dir, "users.json")
        cls.tokens = {}
        for name, grants in (("reader", [("lab", "read")]), ("writer", [("lab", "write")]),
                             ("stranger", []), ("wide", [("*", "read"), ("other", "write")])):
            cls.tokens[name] = users(cls.file, "add", name, "--label", "test")
            for project, right in grants:
                users(cls.file, "grant", name, project, right)
        cls.lab = Collector(extra=lab_flags(cls.server) + ["--serve-lab", "--users", cls.file])

    @classmethod
    def tearDownClass(cls):
        cls.lab.stop()
        cls.server.stop()

    def ask(self, user, method, path, body=None, project=None, token=None):
        headers = {"Authorization": "Bearer " + (token or self.tokens[user])}
        if project:
            headers["X-Signalbox-Project"] = project
        if method == "POST" and body is None:
            body = b""
        return self.lab.request(path, body, headers=headers,
                                content_type="application/octet-stream"
                                if isinstance(body, bytes) else "application/json")

    def test_a_user_reads_only_the_projects_they_may(self):
        cases = [("reader", "lab", True), ("reader", "other", False), ("writer", "lab", True),
                 ("writer", "other", False), ("stranger", "lab", False),
                 ("stranger", "other", False), ("wide", "lab", True), ("wide", "other", True)]
        for user, project, may in cases:
            for method, path, body in READS:
                status, answer = self.ask(user, method, path, body, project)
                if may:
                    self.assertNotIn(status, (401, 403), (user, project, path, answer))
                else:
                    self.assertEqual(status, 403, (user, project, path, answer))
                    self.assertIn("may not read project " + project, answer["error"])
                    self.assertNotIn("secret-run", json.dumps(answer))
        # What they may read is their project's: another's runs never show.
        status, runs = self.ask("reader", "GET", "/api/v1/runs")
        self.assertEqual([r["name"] for r in runs], ["mine"])
        status, runs = self.ask("wide", "GET", "/api/v1/runs", project="other")
        self.assertEqual([r["name"] for r in runs], ["secret-run"])
        status, curve = self.ask("wide", "GET", "/api/v1/series?run=secret-run&metric=loss",
                                 project="other")
        self.assertEqual(curve["series"][0]["y"], [9.0, 8.0])

    def test_writes_need_the_right_to_write(self):
        for user in ("reader", "stranger", "wide"):
            for method, path, body in WRITES:
                status, answer = self.ask(user, method, path, body)
                self.assertEqual(status, 403, (user, path, answer))
                self.assertIn("may not write to project lab", answer["error"])
        status, answer = self.ask("writer", *WRITES[0])
        self.assertEqual(status, 200, answer)
        # Read from ClickHouse once the lab collector shipped it.
        self.assertTrue(self.shipped(lambda: "new" in [
            r["name"] for r in self.ask("writer", "GET", "/api/v1/runs?filter=new")[1]]))
        # Another project's runs are not stored here, whoever may write them.
        status, answer = self.ask("wide", *WRITES[0], project="other")
        self.assertEqual(status, 400, answer)
        self.assertIn("keeps project lab's runs, not other's", answer["error"])

    def test_only_a_valid_token_is_anyone(self):
        forged = "sbt_%s_%s" % (self.tokens["reader"][4:12], "A" * 43)
        for header in ({}, {"Authorization": "Bearer "}, {"Authorization": "Bearer " + forged},
                       {"Authorization": "Basic " + self.tokens["reader"]},
                       {"Authorization": self.tokens["reader"]}):
            for method, path, body in READS + WRITES + [("GET", "/api/v1/health", None)]:
                status, answer = self.lab.request(path, body if method == "POST" else None,
                                                  headers=header)
                self.assertEqual(status, 401, (header, path, answer))
        # Through a Kubernetes service proxy the token comes as X-Signalbox-Token.
        status, runs = self.lab.request("/api/v1/runs",
                                        headers={"X-Signalbox-Token": self.tokens["reader"]})
        self.assertEqual(status, 200, runs)

    def test_tokens_are_kept_hashed_and_revoked_at_once(self):
        with open(self.file) as f:
            kept = f.read()
        for token in self.tokens.values():
            self.assertNotIn(token.split("_", 2)[2], kept)
        self.assertEqual(os.stat(self.file).st_mode & 0o077, 0)
        listed = users(self.file, "list")
        for token in self.tokens.values():
            self.assertNotIn(token, listed)
        token = users(self.file, "token", "reader", "--label", "laptop")
        self.assertEqual(self.ask("reader", "GET", "/api/v1/runs", token=token)[0], 200)
        self.assertIn("laptop", users(self.file, "list"))
        users(self.file, "revoke", token.split("_")[1])
        self.assertEqual(self.ask("reader", "GET", "/api/v1/runs", token=token)[0], 401)
        self.assertEqual(self.ask("reader", "GET", "/api/v1/runs")[0], 200)  # the other one
        # Rights taken away hold from the next request too.
        users(self.file, "grant", "wide", "other", "none")
        users(self.file, "grant", "wide", "*", "none")
        try:
            self.assertEqual(self.ask("wide", "GET", "/api/v1/runs", project="other")[0], 403)
        finally:
            users(self.file, "grant", "wide", "*", "read")
            users(self.file, "grant", "wide", "other", "write")

    def test_a_collector_outside_a_lab_has_no_projects(self):
        # The app's own: a script whose SIGNALBOX_PROJECT is meant for the lab still lands.
        plain = Collector()
        try:
            header = {"X-Signalbox-Project": "vision"}
            status, answer = plain.request("/api/v1/push", WRITES[0][2], headers=header)
            self.assertEqual(status, 200, answer)
            status, health = plain.request("/api/v1/health", headers=header)
            self.assertEqual((health["project"], health["access"]), ("default", "write"))
        finally:
            plain.stop()

    def test_a_rewrite_keeps_the_files_owner_and_mode(self):
        if os.geteuid() != 0:
            self.skipTest("needs root, as the administrator who edits a service user's file")
        os.chown(self.file, 65534, 65534)
        os.chmod(self.file, 0o640)
        try:
            users(self.file, "grant", "reader", "nlp", "read")
            held = os.stat(self.file)
            self.assertEqual((held.st_uid, held.st_gid, held.st_mode & 0o7777),
                             (65534, 65534, 0o640))
        finally:
            users(self.file, "grant", "reader", "nlp", "none")
            os.chown(self.file, 0, 0)
            os.chmod(self.file, 0o600)

    def test_health_says_who_asks_and_what_they_may(self):
        status, health = self.ask("writer", "GET", "/api/v1/health")
        self.assertEqual((health["user"], health["project"], health["access"]),
                         ("writer", "lab", "write"))
        self.assertIn("lab", health)
        status, health = self.ask("stranger", "GET", "/api/v1/health", project="other")
        self.assertEqual((status, health["access"]), (200, "none"))
        # The collector's own state is its project's readers' only.
        self.assertEqual((health["runs"], health["points"]), (0, 0))
        self.assertEqual(health["lab"], {"serves": True})  # what it is, not what it holds
        status, answer = self.ask("reader", "GET", "/api/v1/health", project="../etc")
        self.assertEqual(status, 400, answer)

    def test_a_broken_users_file_refuses_everyone_until_fixed(self):
        with open(self.file) as f:
            kept = f.read()
        try:
            with open(self.file, "w") as f:
                f.write(kept[: len(kept) // 2])
            status, answer = self.ask("writer", "GET", "/api/v1/runs")
            self.assertEqual(status, 503, answer)
            self.assertNotIn(self.dir, answer["error"])  # the path is for the log only
            os.rename(self.file, self.file + ".away")  # moved away by mistake: no one is in
            status, answer = self.ask("writer", "GET", "/api/v1/runs")
            self.assertEqual(status, 503, answer)
        finally:
            with open(self.file, "w") as f:
                f.write(kept)
            os.chmod(self.file, 0o600)
        self.assertEqual(self.ask("writer", "GET", "/api/v1/runs")[0], 200)

    def test_the_cli_and_the_client_take_a_project(self):
        env = dict(os.environ, SIGNALBOX_TOKEN=self.tokens["wide"], SIGNALBOX_PROJECT="other")
        done = subprocess.run([collector_process.CLI, "--collector", self.lab.url, "runs"],
                              capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("secret-run", done.stdout)
        self.assertNotIn("mine", done.stdout)
        done = subprocess.run([collector_process.CLI, "--collector", self.lab.url, "--project",
                               "lab", "health"], capture_output=True, text=True, timeout=60,
                              env=env)
        self.assertEqual(json.loads(done.stdout)["access"], "read")
        done = subprocess.run([collector_process.CLI, "--collector", self.lab.url, "--project",
                               "a b", "runs"], capture_output=True, text=True, timeout=60, env=env)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("is not a project name", done.stderr)
        import signalbox
        run = signalbox.Run("from-python", collector=self.lab.url, token=self.tokens["writer"],
                            project="lab", out=open(os.devnull, "w"), record_code=False)
        run.log({"acc": 0.5}, step=1)
        run.finish()
        self.assertTrue(self.shipped(lambda: "1,0.5" in str(
            self.ask("writer", "GET", "/api/v1/export?run=from-python&metric=acc")[1])))

    @staticmethod
    def shipped(seen, timeout=30):
        deadline = time.time() + timeout
        while not seen():
            if time.time() > deadline:
                return False
            time.sleep(0.1)
        return True


if __name__ == "__main__":
    collector_process.take_binaries(sys.argv)
    unittest.main(argv=sys.argv[:1], verbosity=2)
