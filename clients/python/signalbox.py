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

import array
import atexit
import json
import math
import numbers
import os
import socket
import struct
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
BATCH_VALUES = 4_000_000  # numbers in one push at most (32 MB), well inside the collector's 64 MiB

_current = None


def _json_number(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


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
        # What log() gathered since the last send, column by column: one block per stretch of
        # calls that logged the same metrics, (names, steps, times, [values per name]).
        self._lock = threading.Lock()
        self._blocks = []
        self._tail = None  # the block log() appends to
        self._rows = 0  # log() calls in the blocks
        self._columnar = True  # until a collector from before columnar pushes is met
        self._retry = []  # batches the collector failed to take: (id, blocks), oldest first
        self._retry_rows = 0
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
        are kept. The values are copied: the dict may be changed and passed again."""
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
        if not metrics:
            return
        if self._rows >= self._max_queue:
            self.dropped += 1
            if self.dropped == 1:
                self._warn("full", "the queue holds %d points and the collector is not taking "
                           "them: dropping new points (counted at finish)" % self._max_queue)
            return
        if not self._append(tuple(metrics), metrics.values(), step):
            metrics = self._clean(metrics)  # a value that is no float, or a bad name
            if metrics:
                self._append(tuple(metrics), metrics.values(), step)

    def _append(self, keys, values, step):
        """Appends one row to the block of rows with these metrics; False, having appended
        nothing, when a value is no number or a name is not a non-empty string."""
        wall = time.time()
        with self._lock:
            block = self._tail
            if block is None or block[0] != keys:
                if not all(isinstance(name, str) and name for name in keys):
                    return False
                block = self._tail = (keys, array.array("d"), array.array("d"),
                                      [array.array("d") for _ in keys])
                self._blocks.append(block)
            columns = block[3]
            try:
                for column, value in zip(columns, values):
                    column.append(value)
            except (TypeError, ValueError, OverflowError):
                rows = len(block[1])
                for column in columns:
                    if len(column) > rows:
                        column.pop()
                return False
            block[1].append(step)
            block[2].append(wall)
            self._rows += 1
        return True

    def _clean(self, metrics):
        values = {}
        for name, value in metrics.items():
            if not isinstance(name, str) or not name:
                self.invalid += 1
                self._warn(("name", repr(name)), "metric name %r dropped: a name is a "
                           "non-empty string" % (name,))
                continue
            number = _as_float(value)
            if number is None:
                self.invalid += 1
                self._warn(("value", name), "metric %r: %.80r is not a number; dropped (said once "
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
            while stopping and (self._blocks or self._retry):  # finish() sends everything
                self._flush_safely(final=True)
            if stopping:
                return

    def _flush_safely(self, final=False):
        try:
            self._flush(final)
        except Exception as error:  # the sender must never die: print what it holds instead
            self._warn(("sender", type(error).__name__), "sending failed (%r); printing metric "
                       "lines instead" % (error,))
            for batch_id, blocks in self._retry:
                self._print(blocks, batch_id)
            self._retry, self._retry_rows = [], 0

    def _flush(self, final=False):
        self._final = final
        while self._retry and (final or time.time() >= self._down_until):
            batch_id, blocks = self._retry.pop(0)  # in order: what failed goes first
            self._retry_rows -= _rows(blocks)
            outcome = self._send(batch_id, blocks, None)
            if outcome == "retry" and not final:
                self._retry.insert(0, (batch_id, blocks))
                self._retry_rows += _rows(blocks)
                break
            self._settle(batch_id, blocks, outcome)
        with self._lock:  # what log() gathered since the last flush, taken whole
            taken, self._blocks, self._tail, self._rows = self._blocks, [], None, 0
        info, self._pending_info = self._pending_info, None
        while taken or info:
            blocks, taken = _split(taken, _rows_within(taken, BATCH_VALUES))
            self._batches += 1
            batch_id = "%s-%d" % (self._batch_prefix, self._batches)
            if self._retry or (time.time() < self._down_until and not final):
                outcome = "retry" if self._backoff or self._retry else "print"
                if info:
                    self._pending_info = info  # sent with a later batch
            else:
                outcome = self._send(batch_id, blocks, info)
            info = None
            self._settle(batch_id, blocks, outcome)

    def _settle(self, batch_id, blocks, outcome):
        """Keeps a batch for another try (bounded: past max_queue the oldest are printed), or
        prints it, as `outcome` says."""
        if outcome == "retry" and self._final:
            outcome = "print"
        if outcome == "retry" and blocks:
            self._retry.append((batch_id, blocks))
            self._retry_rows += _rows(blocks)
            while self._retry_rows > self._max_queue and self._retry:
                oldest_id, oldest = self._retry.pop(0)
                self._retry_rows -= _rows(oldest)
                self._print(oldest, oldest_id)
        elif outcome == "print":
            self._print(blocks, batch_id)

    def _print(self, blocks, batch_id):
        # The job's output carries them instead. With the batch id, so that the collector skips
        # them if a try it never answered stored the batch after all.
        for step, wall, metrics in _records(blocks):
            print(metric_line(metrics, step, wall, batch_id), file=self._out, flush=False)
            self.printed += len(metrics)
        self._out.flush()

    def _columns(self, batch_id, blocks, info):
        """The batch as a columnar push (the collector's /api/v1/push/columns, version 1)."""
        header = {"run": self.name, "batch": batch_id,
                  "groups": [{"rows": len(b[1]), "metrics": list(b[0]), "time": True}
                             for b in blocks]}
        if info:
            header["info"] = info
        text = json.dumps(header, separators=(",", ":"), default=str).encode()
        parts = [b"SBC1", struct.pack("<I", len(text)), text, bytes(-(8 + len(text)) % 8)]
        for keys, steps, walls, columns in blocks:
            for column in (steps, walls, *columns):
                if sys.byteorder == "big":  # the format is little-endian
                    column = array.array("d", column)
                    column.byteswap()
                parts.append(column)
        return b"".join(parts)

    def _json(self, batch_id, blocks, info):
        """The batch as a JSON push, for a collector older than columnar pushes."""
        series = {}
        for keys, steps, walls, columns in blocks:
            for name, values in zip(keys, columns):
                column = series.setdefault(name, {"step": [], "value": [], "time": []})
                column["step"] += [int(s) if s.is_integer() else s for s in steps]
                column["value"] += [_json_number(v) for v in values]
                column["time"] += walls.tolist()
        body = {"run": self.name, "batch": batch_id, "series": series}
        if info:
            body["info"] = info
        return json.dumps(body, separators=(",", ":"), default=str).encode()

    def _send(self, batch_id, blocks, info):
        """'acked', 'retry' (the collector failed: send again later), or 'print' (no collector
        answers). A batch refused for its content is split, and only bad records dropped."""
        status, detail = self._post(batch_id, blocks, info)
        if 200 <= status < 300:
            self._down_until, self._backoff = 0.0, 0.0
            self.acknowledged += _values(blocks)
            if self._on_ack and blocks:
                self._on_ack(list(_records(blocks)))
            return "acked"
        if status in (400, 413):
            rows = _rows(blocks)
            if rows <= 1:
                self.refused += _values(blocks)
                self._warn(("refused", detail), "the collector refused a record: %s (each such "
                           "refusal is said once; counted at finish)" % detail)
                return "acked" if info is None else self._send(batch_id + "i", [], info)
            halves = _split(blocks, rows // 2)
            for part, suffix in zip(halves, "ab"):
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

    def _post(self, batch_id, blocks, info):
        """(HTTP status, error text); status 0 when nothing answered, -1 on a timeout."""
        if self._columnar:
            status, detail = self._request("/api/v1/push/columns",
                                           self._columns(batch_id, blocks, info),
                                           "application/x-signalbox-columns")
            if status != 404:
                return status, detail
            self._columnar = False  # a collector from before columnar pushes: JSON from now on
        return self._request("/api/v1/push", self._json(batch_id, blocks, info),
                             "application/json")

    def _request(self, path, data, content_type):
        request = urllib.request.Request(self.collector + path, data=data,
                                         headers={"Content-Type": content_type}, method="POST")
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


def _rows(blocks):
    return sum(len(block[1]) for block in blocks)


def _values(blocks):
    return sum(len(block[1]) * len(block[0]) for block in blocks)


def _records(blocks):
    """The rows of blocks as (step, wall, {metric: value}), steps that are whole as ints."""
    for keys, steps, walls, columns in blocks:
        for i, step in enumerate(steps):
            yield (int(step) if step.is_integer() else step, walls[i],
                   {name: column[i] for name, column in zip(keys, columns)})


def _split(blocks, rows):
    """The first `rows` rows of blocks, and the rest."""
    first, rest = [], []
    for block in blocks:
        count = len(block[1])
        if rows >= count:
            first.append(block)
        elif rows > 0:
            keys, steps, walls, columns = block
            first.append((keys, steps[:rows], walls[:rows], [c[:rows] for c in columns]))
            rest.append((keys, steps[rows:], walls[rows:], [c[rows:] for c in columns]))
        else:
            rest.append(block)
        rows -= count
    return first, rest


def _rows_within(blocks, values):
    """How many leading rows of blocks hold at most `values` numbers (at least one row)."""
    rows = 0
    for keys, steps, _, _ in blocks:
        width = len(keys) + 2  # a row's step and time travel with its values
        if len(steps) * width > values:
            return max(rows + values // width, 1)
        rows += len(steps)
        values -= len(steps) * width
    return rows


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
