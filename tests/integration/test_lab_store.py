"""The lab store: a real signalbox-collector shipping to a real ClickHouse (Debian's
clickhouse-server on loopback, tests/harness/clickhouse.py). Every acknowledged point arrives
exactly once, with its run's info, through kill -9 of ClickHouse and of the collector.

usage: test_lab_store.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI"""

import json
import math
import os
import subprocess
import sys
import threading
import time
import unittest

import collector_process
from collector_process import Collector

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import clickhouse  # noqa: E402

HOSTILE = ["r'quote", "r\\back", "r\ttab", "名前 </b>", "r\"dq"]


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
            "SELECT count(), uniqExact(project, run, metric, idx) FROM signalbox.points").split()
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


if __name__ == "__main__":
    collector_process.take_binaries(sys.argv)
    unittest.main(argv=sys.argv[:1], verbosity=2)
