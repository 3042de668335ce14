"""The Python client against a real signalbox-collector process at its worst: an old collector,
bad values, a full disk, timeouts and a hung collector. Every case asserts that what was
acknowledged is stored exactly once and that the sender never dies.

usage: test_collector_client.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI (loopback only, bounded time)"""

import contextlib
import fractions
import http.server
import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import collector_process
from collector_process import Collector, stored_steps, stored_points
import signalbox  # noqa: E402  (on the path collector_process puts it)


def wait_until(condition, seconds=30):
    """Polls `condition` until it holds or `seconds` pass; what it last returned."""
    deadline = time.time() + seconds
    while not (held := condition()) and time.time() < deadline:
        time.sleep(0.02)
    return held


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
                wait_until(lambda: run.acknowledged >= 200)  # these stored before the hang
                collector.process.send_signal(signal.SIGSTOP)  # the next pushes hang
                for step in range(200, 1000):
                    run.log({"x": float(step)}, step=step)
                run.finish()  # times out: what it holds is printed, with batch ids
                collector.process.send_signal(signal.SIGCONT)  # and the hung pushes land
            printed = [line for line in out.getvalue().splitlines()
                       if line.startswith(signalbox.PREFIX)]
            self.assertTrue(printed, "nothing was printed")
            self.assertTrue(all('"batch":' in line for line in printed))
            # The hung pushes land: steps past the 200 stored before the hang.
            wait_until(lambda: len(stored_steps(collector, "printed", "x")) > 200)
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
                wait_until(lambda: run.acknowledged >= 500)  # these stored before the hang
                collector.process.send_signal(signal.SIGSTOP)  # requests pile up unanswered
                for step in range(500, 3000):
                    run.log({"x": float(step)}, step=step)
                    if step % 100 == 0:
                        time.sleep(0.02)
                wait_until(lambda: "timed out" in stderr.getvalue())  # the client gave up waiting
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


if __name__ == "__main__":
    collector_process.take_binaries(sys.argv)
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)  # then test names, if any
