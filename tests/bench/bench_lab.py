"""The lab store side by side with the embedded one: the same points pushed to a collector
alone, and to a collector that ships them to a real ClickHouse (Debian's clickhouse-server on
loopback, tests/harness/clickhouse.py): the ingest rate, the rate at which ClickHouse catches
up, the collector's CPU per point for shipping, and bytes a point on disk in each. Then reads:
the same /series asked of the collector alone and of a lab's collector (--serve-lab) answering
from ClickHouse: M4 of a 1 M and a 10 M-point series, 100 runs x 10 k points in one chart, and
queries a second from 8 clients at once.

usage: bench_lab.py PATH/TO/signalbox-collector"""

import array
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import clickhouse  # noqa: E402
from tensorboard_peer import cpu_seconds, free_port  # noqa: E402

SCALE = float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1"))
RUNS = 20
PER_RUN = max(10_000, int(200_000 * SCALE))  # 4 M points at scale 1
BATCH = 10_000
LONG = {"long-1m": 1_000_000, "long-10m": max(1_000_000, int(10_000_000 * SCALE))}
CHART_RUNS, CHART_POINTS = 100, 10_000


def columns_push(run, first, rows):
    """One columnar push (SBC1) of `rows` points of "loss" from step `first`."""
    text = json.dumps({"run": run, "batch": "%s-%d" % (run, first),
                       "groups": [{"rows": rows, "metrics": ["loss"], "time": True}]}).encode()
    steps = array.array("d", range(first, first + rows))
    walls = array.array("d", (1.7e9 + s * 0.1 for s in steps))
    values = array.array("d", (math.exp(-s / 5e4) + (s % 97) * 1e-4 for s in steps))
    return b"".join([b"SBC1", struct.pack("<I", len(text)), text, bytes(-(8 + len(text)) % 8),
                     steps, walls, values])


def request(url, path, body=None, content_type="application/octet-stream"):
    req = urllib.request.Request(url + path, data=body, method="POST" if body else "GET",
                                 headers={"Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=120) as answer:
        return json.loads(answer.read() or b"null")


class CollectorProcess:
    def __init__(self, binary, extra=()):
        self.data = tempfile.mkdtemp(prefix="sb-bench-lab-")
        self.url = "http://127.0.0.1:%d" % free_port()
        self.process = subprocess.Popen(
            [binary, "--listen", self.url[len("http://"):], "--data-dir", self.data, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if "listening" not in self.process.stdout.readline():
            raise SystemExit("the collector did not start")

    def stop(self):
        self.process.terminate()
        self.process.communicate(timeout=60)
        shutil.rmtree(self.data, ignore_errors=True)

    def bytes_on_disk(self):
        total = 0
        for folder, _, names in os.walk(self.data):
            for name in names:
                total += os.path.getsize(os.path.join(folder, name))
        return total


def push_all(collector):
    """Pushes every point; seconds until the last was acknowledged."""
    bodies = [columns_push("run-%02d" % r, first, min(BATCH, PER_RUN - first))
              for first in range(0, PER_RUN, BATCH) for r in range(RUNS)]
    start = time.perf_counter()
    for body in bodies:
        request(collector.url, "/api/v1/push/columns", body)
    return time.perf_counter() - start


def push_reads_data(collector):
    """The series the reads are timed on: two long ones and 100 runs of a chart."""
    for run, count in LONG.items():
        for first in range(0, count, 100_000):
            request(collector.url, "/api/v1/push/columns",
                    columns_push(run, first, min(100_000, count - first)))
    for r in range(CHART_RUNS):
        request(collector.url, "/api/v1/push/columns",
                columns_push("chart-%03d" % r, 0, CHART_POINTS))
    return sum(LONG.values()) + CHART_RUNS * CHART_POINTS


def median_ms(url, path, tries=9, new_window=False):
    """The median time of a GET, warm (one untimed first), and its answer's point count. With
    `new_window`, each asks for another width (an answer the lab has not kept)."""
    points = sum(len(s["x"]) for s in request(url, path)["series"])
    times = []
    for i in range(tries):
        asked = path + ("&width=%d" % (1000 - i - 1) if new_window else "")
        start = time.perf_counter()
        request(url, asked)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2] * 1e3, points


def queries_per_second(url, path, clients=8, seconds=5.0, new_window=False):
    done = [0] * clients
    stop = time.perf_counter() + seconds

    def client(i):
        while time.perf_counter() < stop:
            width = 2000 + i * 1000 + done[i] if new_window else 1000
            request(url, path + "&width=%d" % width)
            done[i] += 1
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / seconds


def compare_reads(alone, reader):
    print("  reads: the collector alone (embedded store) vs a lab's collector answering from "
          "ClickHouse (--serve-lab), median of 9 warm requests over HTTP")
    asks = [("M4 of 1 M points", ["long-1m"]),
            ("M4 of %.0f M points" % (LONG["long-10m"] / 1e6), ["long-10m"]),
            ("%d runs x %d points in one chart" % (CHART_RUNS, CHART_POINTS),
             ["chart-%03d" % r for r in range(CHART_RUNS)])]
    for label, runs in asks:
        path = "/api/v1/series?" + "&".join("run=" + urllib.parse.quote(r) for r in runs) + \
            "&metric=loss"
        for kept in (False, True):
            embedded_ms, embedded_points = median_ms(alone.url, path, new_window=not kept)
            lab_ms, lab_points = median_ms(reader.url, path, new_window=not kept)
            # A very long series is drawn from ClickHouse's blocks: a column's ends may differ.
            same = "same points" if embedded_points == lab_points else \
                "%d points drawn against %d" % (lab_points, embedded_points)
            print("    %s, %s: embedded %.1f ms, ClickHouse %.1f ms (x%.2f; %s)" %
                  (label, "the same window again (kept)" if kept else "a new window each time",
                   embedded_ms, lab_ms, lab_ms / embedded_ms, same))
    path = "/api/v1/series?run=long-1m&metric=loss"
    for kept in (False, True):
        embedded_qps = queries_per_second(alone.url, path, new_window=not kept)
        lab_qps = queries_per_second(reader.url, path, new_window=not kept)
        print("    8 clients asking for the 1 M-point M4 at once, %s: embedded %.0f queries/s, "
              "ClickHouse %.0f queries/s (x%.2f)" %
              ("the same window (kept)" if kept else "each a new window", embedded_qps, lab_qps,
               lab_qps / embedded_qps))


def many_runs(binary, server):
    """/runs of a lab's collector over a million runs (two series each), written into ClickHouse
    as collectors ship them; and a page's statement against how /runs read one before
    2026-11-28 (every run's info grouped), in SQL alone."""
    count = max(10_000, int(1_000_000 * SCALE))
    name = "concat('run-', toString(%d + number))" % (10 * count)
    server.query("INSERT INTO signalbox.runs SELECT 'many', %s, concat('{\"name\":\"', %s, "
                 "'\",\"config\":{\"lr\":', toString(number / %d), ',\"seed\":', "
                 "toString(number %% 10), '},\"start\":1.7e9,\"status\":\"finished\"}'), 1, "
                 "'' FROM numbers(%d)" % (name, name, count, count))
    for first in range(0, count, 100_000):  # the series view's groups within its memory
        server.query("INSERT INTO signalbox.points SELECT 'many', %s, m, 'bench', 0, 1, "
                     "number %% 1000 / 7, 1.7e9 FROM numbers(%d, %d) ARRAY JOIN ['loss', 'acc'] "
                     "AS m" % (name, first, min(100_000, count - first)))
    print("  /runs over %d runs in ClickHouse (a lab collector, median of 5 over HTTP)" % count)
    reader = CollectorProcess(binary, ["--clickhouse", server.url, "--project", "many",
                                       "--serve-lab"])
    try:
        middle = "run-%d" % (10 * count + count // 2 + 42)
        for label, path in (("a page of 100", "/api/v1/runs?limit=100"),
                            ("a page of 100 halfway", "/api/v1/runs?limit=100&offset=%d"
                             % (count // 2)),
                            ("filter=" + middle, "/api/v1/runs?filter=" + middle),
                            ("where=config.lr < 0.0001, first 100", "/api/v1/runs?where="
                             + urllib.parse.quote("config.lr < 0.0001") + "&limit=100")):
            request(reader.url, path)
            times = []
            for _ in range(5):
                start = time.perf_counter()
                found = request(reader.url, path)
                times.append(time.perf_counter() - start)
            print("    %s: %.0f ms (%d runs)" % (label, sorted(times)[2] * 1e3, len(found)))
    finally:
        reader.stop()
    page = "LIMIT %d, 100 FORMAT Null" % (count // 2)
    statements = [
        "SELECT name, argMax(info, version) AS info FROM signalbox.runs WHERE project = 'many' "
        "GROUP BY name ORDER BY name " + page,
        "SELECT name, argMax(info, version) AS info FROM signalbox.runs WHERE project = 'many' "
        "AND name IN (SELECT name FROM signalbox.runs WHERE project = 'many' GROUP BY name "
        "ORDER BY name %s) GROUP BY name ORDER BY name FORMAT Null" % page.replace(
            " FORMAT Null", "")]
    took = []
    for sql in statements:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            server.query(sql)
            times.append(time.perf_counter() - start)
        took.append(sorted(times)[2] * 1e3)
    print("    the halfway page's statement: every info grouped %.0f ms, the page's names first "
          "%.0f ms (x%.2f)" % (took[0], took[1], took[0] / took[1]))


def main():
    binary = sys.argv[1]
    total = RUNS * PER_RUN
    if not clickhouse.available():
        print("bench_lab: skipped (clickhouse-server is not installed: scripts/setup-deps)")
        return
    print("bench_lab: %d runs x %d points (%.1f M), pushed as columns in batches of %d" %
          (RUNS, PER_RUN, total / 1e6, BATCH))
    alone = CollectorProcess(binary)
    try:
        cpu0 = cpu_seconds(alone.process.pid)
        alone_s = push_all(alone)
        alone_cpu = cpu_seconds(alone.process.pid) - cpu0
        request(alone.url, "/api/v1/health")
        alone_bytes = alone.bytes_on_disk()
        extra = push_reads_data(alone)
    except BaseException:
        alone.stop()
        raise
    with clickhouse.ClickHouse() as server:
        lab = CollectorProcess(binary, ["--clickhouse", server.url, "--project", "bench"])
        try:
            cpu0 = cpu_seconds(lab.process.pid)
            start = time.perf_counter()
            lab_push_s = push_all(lab)
            while True:
                health = request(lab.url, "/api/v1/health")
                held = int(server.query("SELECT count() FROM signalbox.points").strip() or 0)
                if health["lab"].get("caught_up") and held >= total:
                    break
                time.sleep(0.05)
            caught_s = time.perf_counter() - start
            lab_cpu = cpu_seconds(lab.process.pid) - cpu0
            push_reads_data(lab)
            while True:
                health = request(lab.url, "/api/v1/health")
                held = int(server.query("SELECT count() FROM signalbox.points").strip() or 0)
                if health["lab"].get("caught_up") and held >= total + extra:
                    break
                time.sleep(0.2)
        finally:
            lab.stop()
        reader = CollectorProcess(binary, ["--clickhouse", server.url, "--project", "bench",
                                           "--serve-lab"])
        try:
            compare_reads(alone, reader)
        finally:
            reader.stop()
            alone.stop()
        server.query("OPTIMIZE TABLE signalbox.points FINAL")
        parts = server.query("SELECT sum(rows), sum(bytes_on_disk) FROM system.parts WHERE "
                             "database = 'signalbox' AND table = 'points' AND active").split()
        blocks = server.query("SELECT sum(bytes_on_disk) FROM system.parts WHERE database = "
                              "'signalbox' AND table = 'blocks' AND active").strip()
        version = server.query("SELECT version()").strip()
        many_runs(binary, server)
    blocks_bytes = int(blocks or 0) / max(1, int(parts[0]))
    ch_bytes = int(parts[1]) / max(1, int(parts[0]))
    print("  ingest, acknowledged: collector alone %.2f M points/s; shipping to ClickHouse "
          "%.2f M points/s (ratio %.2f)" % (total / alone_s / 1e6, total / lab_push_s / 1e6,
                                           alone_s / lab_push_s))
    print("  ClickHouse %s held every point %.2f s after the first push: %.2f M points/s "
          "end to end" % (version, caught_s, total / caught_s / 1e6))
    print("  collector CPU: %.3f us a point alone, %.3f us shipping too (x%.2f)" %
          (alone_cpu / total * 1e6, lab_cpu / total * 1e6, lab_cpu / max(alone_cpu, 1e-9)))
    print("  bytes a point on disk: embedded store %.1f, ClickHouse %.1f (ratio %.2f; "
          "%s has no column codecs), and %.2f for ClickHouse's blocks" %
          (alone_bytes / total, ch_bytes, ch_bytes / (alone_bytes / total), version,
           blocks_bytes))


if __name__ == "__main__":
    main()
