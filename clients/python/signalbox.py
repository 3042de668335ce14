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
import numbers
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

__all__ = ["init", "log", "finish", "run", "Run", "metric_line", "PREFIX"]

PREFIX = "@signalbox "
DEFAULT_COLLECTOR = "http://127.0.0.1:7410"
MAX_COORDINATE = 2.0 ** 53  # a step or time must be finite and within +-2^53 (the collector's rule)

_current = None


def _json_number(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


_PLAIN = (float, int)


def _as_float(value):
    """The value as a float, or None: numbers (and numpy scalars, tensors of one element) are;
    strings, complex numbers and None are not."""
    if isinstance(value, (str, bytes, complex)) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def metric_line(values, step=None, wall=None, batch=None):
    """The line a script can print itself: '@signalbox {"step": 3, "loss": 0.5}'. `batch` is the
    id of a batch that may have reached the collector: it then skips the line."""
    record = {k: _json_number(float(v)) for k, v in values.items()}
    if step is not None:
        record["step"] = step
    if wall is not None:
        record["time"] = wall
    if batch is not None:
        record["batch"] = batch
    return PREFIX + json.dumps(record, separators=(",", ":"))


class Run:
    """One run's connection to the collector. Use the module functions unless you need two.

    Only a 2xx answer acknowledges a batch. A batch the collector refuses for its content (400)
    is split until only the bad records are dropped; a collector that fails (5xx, a full disk, a
    timeout) gets the batch again with backoff, and past `max_queue` points waiting the oldest
    are printed as metric lines instead. Each batch carries an id the collector remembers, so a
    batch sent twice is stored once. Every loss is said on stderr, with counts, when it starts
    and at finish()."""

    def __init__(self, run=None, config=None, collector=None, token=None, flush_interval=0.25,
                 max_queue=1_000_000, on_ack=None, out=None, timeout=5.0):
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
        self._timeout = timeout
        self._queue = collections.deque()  # append/popleft are atomic: no lock on the hot path
        self._retry = []  # batches the collector failed to take: (id, records), oldest first
        self._retry_records = 0
        self._backoff = 0.0
        self._batch_prefix = uuid.uuid4().hex[:16]
        self._batches = 0
        self._final = False
        self._step = -1
        self.dropped = 0  # log() calls dropped because the queue was full
        self.refused = 0  # values the collector refused for their content
        self.invalid = 0  # values log() dropped at the call (not numbers, bad steps)
        self.acknowledged = 0
        self.printed = 0
        self._warned = set()
        self._down_until = 0.0
        self._wake = threading.Event()
        self._stop = False
        self._info = {"status": "running", "host": socket.gethostname(), "start": time.time()}
        if config:
            self._info["config"] = dict(config)
        if os.environ.get("SIGNALBOX_SWEEP"):  # a trial: the curves view can group by its sweep
            self._info["sweep"] = os.environ["SIGNALBOX_SWEEP"]
        self._pending_info = dict(self._info)
        self._thread = threading.Thread(target=self._sender, name="signalbox-sender", daemon=True)
        self._thread.start()

    def _warn(self, key, message):
        """Says `message` on stderr once per key."""
        if key not in self._warned:
            self._warned.add(key)
            print("signalbox: " + message, file=sys.stderr, flush=True)

    def log(self, metrics, step=None):
        """Records metric values at `step` (default: the previous step + 1). Returns at once.
        A value that is not a number is dropped with a warning (once per metric); the others
        are kept."""
        if step is None:
            step = self._step + 1
        elif type(step) is int and -MAX_COORDINATE <= step <= MAX_COORDINATE:
            pass  # the common case, checked without a conversion
        else:
            number = _as_float(step)
            if number is None or not -MAX_COORDINATE <= number <= MAX_COORDINATE:
                self.invalid += len(metrics)
                self._warn(("step", type(step).__name__),
                           "log(step=%r) dropped: a step is a finite number within +-2^53"
                           % (step,))
                return
            step = int(number) if number == int(number) else number
        self._step = step
        if len(self._queue) >= self._max_queue:
            self.dropped += 1
            if self.dropped == 1:
                self._warn("full", "the queue holds %d points and the collector is not taking "
                           "them: dropping new points (counted at finish)" % self._max_queue)
            return
        for value in metrics.values():
            if type(value) not in _PLAIN:  # anything but a float or an int: checked one by one
                metrics = self._clean(metrics)
                break
        if metrics:
            self._queue.append((step, time.time(), metrics))

    def _clean(self, metrics):
        values = {}
        for name, value in metrics.items():
            number = _as_float(value)
            if number is None:
                self.invalid += 1
                self._warn(("value", name), "metric %r: %r is not a number; dropped (said once "
                           "per metric)" % (name, value))
                continue
            values[name] = number
        return values

    def finish(self, status="finished"):
        """Sends what is queued, marks the run finished, and stops the sender."""
        if self._stop:
            return
        self._pending_info = {"status": status, "end": time.time()}
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=30)
        lost = self.dropped + self.refused + self.invalid
        if lost or self.printed:
            print("signalbox: run %s: %d values acknowledged by the collector, %d printed as metric "
                  "lines, %d dropped (%d log() calls with a full queue, %d refused by the "
                  "collector, %d not numbers)" % (self.name, self.acknowledged, self.printed,
                                                   lost, self.dropped, self.refused, self.invalid),
                  file=sys.stderr, flush=True)

    def _sender(self):
        while True:
            self._wake.wait(self._flush_interval)
            self._wake.clear()
            stopping = self._stop
            self._flush_safely()
            while stopping and (self._queue or self._retry):  # finish() sends everything
                self._flush_safely(final=True)
            if stopping:
                return

    def _flush_safely(self, final=False):
        try:
            self._flush(final)
        except Exception as error:  # the sender must never die: print what it holds instead
            self._warn(("sender", type(error).__name__), "sending failed (%r); printing metric "
                       "lines instead" % (error,))
            for batch_id, records in self._retry:
                self._print(records, batch_id)
            self._retry, self._retry_records = [], 0

    def _flush(self, final=False):
        self._final = final
        while self._retry and (final or time.time() >= self._down_until):
            batch_id, records = self._retry.pop(0)  # in order: what failed goes first
            self._retry_records -= len(records)
            outcome = self._send(batch_id, records, None)
            if outcome == "retry" and not final:
                self._retry.insert(0, (batch_id, records))
                self._retry_records += len(records)
                break
            self._settle(batch_id, records, outcome)
        records = []
        while self._queue and len(records) < 100_000:
            records.append(self._queue.popleft())
        info, self._pending_info = self._pending_info, None
        if not records and not info:
            return
        self._batches += 1
        batch_id = "%s-%d" % (self._batch_prefix, self._batches)
        if self._retry or (time.time() < self._down_until and not final):
            outcome = "retry" if self._backoff or self._retry else "print"
            if info:
                self._pending_info = info  # sent with a later batch
        else:
            outcome = self._send(batch_id, records, info)
        self._settle(batch_id, records, outcome)

    def _settle(self, batch_id, records, outcome):
        """Keeps a batch for another try (bounded: past max_queue the oldest are printed), or
        prints it, as `outcome` says."""
        if outcome == "retry" and self._final:
            outcome = "print"
        if outcome == "retry" and records:
            self._retry.append((batch_id, records))
            self._retry_records += len(records)
            while self._retry_records > self._max_queue and self._retry:
                oldest_id, oldest = self._retry.pop(0)
                self._retry_records -= len(oldest)
                self._print(oldest, oldest_id)
        elif outcome == "print":
            self._print(records, batch_id)

    def _print(self, records, batch_id):
        # The job's output carries them instead. With the batch id, so that the collector skips
        # them if a try it never answered stored the batch after all.
        for step, wall, metrics in records:
            print(metric_line(metrics, step, wall, batch_id), file=self._out, flush=False)
            self.printed += len(metrics)
        self._out.flush()

    def _body(self, batch_id, records, info):
        series = {}
        for step, wall, metrics in records:
            for name, value in metrics.items():
                if not isinstance(name, str) or not name:
                    self.invalid += 1
                    self._warn(("name", repr(name)), "metric name %r dropped: a name is a "
                               "non-empty string" % (name,))
                    continue
                column = series.get(name)
                if column is None:
                    column = series[name] = {"step": [], "value": [], "time": []}
                column["step"].append(step)
                column["value"].append(_json_number(value))
                column["time"].append(wall)
        body = {"run": self.name, "batch": batch_id, "series": series}
        if info:
            body["info"] = info
        return body

    def _send(self, batch_id, records, info):
        """'acked', 'retry' (the collector failed: send again later), or 'print' (no collector
        answers). A batch refused for its content is split, and only bad records dropped."""
        status, detail = self._post(self._body(batch_id, records, info))
        if 200 <= status < 300:
            self._down_until, self._backoff = 0.0, 0.0
            self.acknowledged += sum(len(m) for _, _, m in records)
            if self._on_ack and records:
                self._on_ack(records)
            return "acked"
        if status in (400, 413):
            if len(records) <= 1:
                self.refused += sum(len(m) for _, _, m in records)
                self._warn(("refused", detail), "the collector refused a record: %s (each such "
                           "refusal is said once; counted at finish)" % detail)
                return "acked" if info is None else self._send(batch_id + "i", [], info)
            half = len(records) // 2
            for part, suffix in ((records[:half], "a"), (records[half:], "b")):
                # Each half is settled on its own, under its own id: nothing is sent twice.
                self._settle(batch_id + suffix, part,
                             self._send(batch_id + suffix, part, info if suffix == "a" else None))
            return "acked"
        if status == 0 and not self._backoff:
            self._down_until = time.time() + 2.0  # no collector: print, and look again later
            return "print"
        # A collector that failed (5xx, a full disk, a timeout, an auth refusal): back off.
        self._backoff = min(30.0, max(0.5, self._backoff * 2))
        self._down_until = time.time() + self._backoff
        self._warn(("failing", status), "the collector at %s failed a batch (%s); retrying with "
                   "backoff" % (self.collector, detail or status))
        return "retry"

    def _post(self, body):
        """(HTTP status, error text); status 0 when nothing answered, -1 on a timeout."""
        request = urllib.request.Request(
            self.collector + "/api/v1/push",
            data=json.dumps(body, separators=(",", ":"), default=str).encode(),
            headers={"Content-Type": "application/json"}, method="POST")
        if self._token:
            request.add_header("Authorization", "Bearer " + self._token)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                response.read()
                return response.status, ""
        except urllib.error.HTTPError as error:
            text = error.read().decode(errors="replace")
            try:
                text = json.loads(text).get("error", text)
            except (ValueError, AttributeError):
                pass
            return error.code, text
        except (socket.timeout, TimeoutError):
            return -1, "timed out after %g s" % self._timeout
        except urllib.error.URLError as error:
            if isinstance(error.reason, (socket.timeout, TimeoutError)):
                return -1, "timed out after %g s" % self._timeout
            return 0, str(error.reason)
        except (OSError, ValueError) as error:
            return 0, str(error)


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
