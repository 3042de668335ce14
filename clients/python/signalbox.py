"""Signalbox metrics client: log training metrics to a Signalbox collector.

Standard library only, Python >= 3.8. Logging never blocks training: log() appends to a
bounded in-memory queue, and a background thread sends batches to the collector. When no
collector answers, batches are printed as metric lines instead, which Signalbox picks up
from the job's output, so nothing is lost when a script runs under Signalbox.

    import signalbox
    signalbox.init(config={"lr": 0.01})
    for step in range(1000):
        signalbox.log({"loss": loss, "acc": acc}, step=step)
    signalbox.finish()

Environment: SIGNALBOX_COLLECTOR (default http://127.0.0.1:7410), SIGNALBOX_RUN (the run's
name; Signalbox sets both for the runs it launches), SIGNALBOX_TOKEN (a bearer token).
"""

import atexit
import collections
import json
import math
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

__all__ = ["init", "log", "finish", "run", "Run", "metric_line", "PREFIX"]

PREFIX = "@signalbox "
DEFAULT_COLLECTOR = "http://127.0.0.1:7410"

_current = None


def _json_number(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def metric_line(values, step=None, wall=None):
    """The line a script can print itself: '@signalbox {"step": 3, "loss": 0.5}'."""
    record = {k: _json_number(float(v)) for k, v in values.items()}
    if step is not None:
        record["step"] = step
    if wall is not None:
        record["time"] = wall
    return PREFIX + json.dumps(record, separators=(",", ":"))


class Run:
    """One run's connection to the collector. Use the module functions unless you need two."""

    def __init__(self, run=None, config=None, collector=None, token=None, flush_interval=0.25,
                 max_queue=1_000_000, on_ack=None, out=None):
        self.name = run or os.environ.get("SIGNALBOX_RUN") or "%s-%s" % (
            os.path.splitext(os.path.basename(sys.argv[0] or "python"))[0] or "run",
            time.strftime("%Y%m%d-%H%M%S"))
        self.collector = (collector or os.environ.get("SIGNALBOX_COLLECTOR")
                          or DEFAULT_COLLECTOR).rstrip("/")
        self._token = token or os.environ.get("SIGNALBOX_TOKEN")
        self._flush_interval = flush_interval
        self._max_queue = max_queue
        self._on_ack = on_ack
        self._out = out or sys.stdout
        self._queue = collections.deque()  # append/popleft are atomic: no lock on the hot path
        self._step = -1
        self.dropped = 0
        self.acknowledged = 0
        self.printed = 0
        self._down_until = 0.0
        self._wake = threading.Event()
        self._stop = False
        self._info = {"status": "running", "host": socket.gethostname(), "start": time.time()}
        if config:
            self._info["config"] = dict(config)
        self._pending_info = dict(self._info)
        self._thread = threading.Thread(target=self._sender, name="signalbox-sender", daemon=True)
        self._thread.start()

    def log(self, metrics, step=None):
        """Records metric values at `step` (default: the previous step + 1). Returns at once."""
        if step is None:
            step = self._step + 1
        self._step = step
        if len(self._queue) >= self._max_queue:
            self.dropped += 1
            return
        self._queue.append((step, time.time(), metrics))

    def finish(self, status="finished"):
        """Sends what is queued, marks the run finished, and stops the sender."""
        if self._stop:
            return
        self._pending_info = {"status": status, "end": time.time()}
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=30)

    def _sender(self):
        while True:
            self._wake.wait(self._flush_interval)
            self._wake.clear()
            stopping = self._stop
            self._flush()
            while stopping and self._queue:  # finish() sends everything that was logged
                self._flush()
            if stopping:
                return

    def _flush(self):
        records = []
        while self._queue and len(records) < 100_000:
            records.append(self._queue.popleft())
        info, self._pending_info = self._pending_info, None
        if not records and not info:
            return
        series = {}
        for step, wall, metrics in records:
            for name, value in metrics.items():
                column = series.get(name)
                if column is None:
                    column = series[name] = {"step": [], "value": [], "time": []}
                column["step"].append(step)
                column["value"].append(_json_number(float(value)))
                column["time"].append(wall)
        body = {"run": self.name, "series": series}
        if info:
            body["info"] = info
        if time.time() >= self._down_until and self._post(body):
            self.acknowledged += sum(len(m) for _, _, m in records)
            if self._on_ack:
                self._on_ack(records)
            return
        for step, wall, metrics in records:  # the job's output carries them instead
            print(metric_line(metrics, step, wall), file=self._out, flush=False)
            self.printed += len(metrics)
        self._out.flush()

    def _post(self, body):
        request = urllib.request.Request(
            self.collector + "/api/v1/push", data=json.dumps(body, separators=(",", ":")).encode(),
            headers={"Content-Type": "application/json"}, method="POST")
        if self._token:
            request.add_header("Authorization", "Bearer " + self._token)
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                response.read()
            return True
        except urllib.error.HTTPError as error:  # the collector refused this batch: say why once
            detail = error.read().decode(errors="replace")
            print("signalbox: collector refused a batch: %s %s" % (error.code, detail),
                  file=sys.stderr)
            return True
        except (OSError, ValueError):
            self._down_until = time.time() + 2.0  # retry the collector in a little while
            return False


def init(run=None, config=None, collector=None, **options):
    """Starts a run and makes it the one log() and finish() use. Returns the Run."""
    global _current
    if _current is not None:
        _current.finish()
    _current = Run(run=run, config=config, collector=collector, **options)
    return _current


def run():
    """The current Run, or None before init()."""
    return _current


def log(metrics, step=None):
    """Logs to the current run, starting one with defaults if init() was not called."""
    if _current is None:
        init()
    _current.log(metrics, step)


def finish(status="finished"):
    global _current
    if _current is not None:
        _current.finish(status)
        _current = None


def _finish_at_exit():
    failed = getattr(sys, "last_value", None) is not None
    finish("failed" if failed else "finished")


_previous_excepthook = sys.excepthook


def _excepthook(kind, value, traceback):
    finish("failed")
    _previous_excepthook(kind, value, traceback)


sys.excepthook = _excepthook
atexit.register(_finish_at_exit)
