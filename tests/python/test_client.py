"""The Python client on its own: fallback to metric lines, encoding, step defaults, bounds.
Pushing to a real collector is covered by tests/integration/test_collector_crash.py."""

import io
import json
import math
import unittest

import signalbox

UNREACHABLE = "http://127.0.0.1:1"  # nothing listens on port 1: connection refused at once


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


if __name__ == "__main__":
    unittest.main()
