"""Signalbox metrics client: log training metrics to a Signalbox collector.

Standard library only, Python >= 3.8: `pip install clients/python` (numpy and Pillow are used
when present), or copy this file alone as signalbox.py. The trainers' adapters are in the
package: signalbox.integrations.lightning, .transformers and .keras, and signalbox.tensorboard's
SummaryWriter for code written for torch.utils.tensorboard. Logging never blocks training: log() appends to a
bounded in-memory queue, and a background thread sends batches to the collector. When no
collector answers, batches are printed as metric lines instead, which Signalbox picks up
from the job's output, so nothing is lost when a script runs under Signalbox.

    import signalbox
    signalbox.init(config={"lr": 0.01})
    for step in range(1000):
        signalbox.log({"loss": loss, "acc": acc}, step=step)
    signalbox.finish()

Besides numbers, log() takes samples, at the same step: Image (numpy arrays HWC or CHW, uint8
or float in [0, 1], a batch as one grid, PIL images, PNG or JPEG bytes), Histogram (of values,
binned here so a large tensor never travels; or pre-binned), Text, Table and Audio. They are
encoded on the sender thread (numpy and Pillow are used when present, never required):

    signalbox.log({"loss": loss, "samples": signalbox.Image(batch),
                   "weights": signalbox.Histogram(layer.weight)}, step=step)

Environment: SIGNALBOX_COLLECTOR (default: the collector the Signalbox app published, else
http://127.0.0.1:7410), SIGNALBOX_RUN (the run's name; Signalbox sets both for the runs it
launches), SIGNALBOX_TOKEN (a bearer token), SIGNALBOX_PROJECT (the project on a lab's collector;
default: the collector's own), SIGNALBOX_PROXY (an HTTP proxy for the collector; none by default).

What the client guarantees:
- Every point is stored (acknowledged by the collector), printed as a metric line, or counted
  in the loss said on stderr. A step must be exactly representable and within +-2^53:
  log(step=2**53 + 1) raises ValueError.
- The end of a run is sent whatever ends it: finish(), the end of the script, an uncaught
  exception ("failed"), SIGINT or SIGTERM ("stopped": stop, scancel, preemption, a deleted
  pod). Sending stops `finish_timeout` seconds (5 s) after the end; what is left is printed as
  metric lines. Then the signal does what it did before: SIGINT raises KeyboardInterrupt; on
  SIGTERM a handler the script installed is called (a script that goes on ends its run at
  exit), else the process ends by SIGTERM (its exit status says so). Handlers are installed
  once, from the main thread, never over an ignored signal.
- Every request to the collector ends within `timeout` seconds (5 s) in all, a collector that
  answers slowly included; redirects are not followed.
- No proxy from the environment (http_proxy, https_proxy) is used: metrics and the token go to
  the collector directly. proxy= or SIGNALBOX_PROXY names one; a token is never sent to a proxy
  (with a proxy, an http:// collector and a token are refused; https:// tunnels through it).
- Without SIGNALBOX_COLLECTOR, the collector the Signalbox app published for this user's
  scripts is used while the app runs ($XDG_RUNTIME_DIR/signalbox, else /tmp/signalbox-UID:
  collector.url, and collector.token with its per-session secret). Without a token given
  (token=, SIGNALBOX_TOKEN), that secret is sent to that collector only (a loopback host, its
  port), and only from a directory of this user's that no one else may write to and a file
  that no one else may read.
- A name already used by a run of the collector is not reused silently: init() picks name-2,
  name-3... and says so, unless resume=True ("allow": continue the run, or start it) or
  resume="must" (the run must exist). A run Signalbox launched (SIGNALBOX_RUN) keeps its name,
  so a restarted (requeued) job continues its run (a fork starts a new one: its printed
  metric lines name it).
- Restarted from a checkpoint taken at step N, a script says so, and its curves never double
  back: init(run, resume="rewind", resume_step=N) continues the run and hides what it logged
  after it last stood at step N (kept: the app can show it again); init(run, resume="fork",
  resume_step=N) starts a new run (run-2, or fork_from=PARENT with run= its name) holding a
  copy of the run's history up to step N. log() without a step goes on from N + 1. Without
  resume_step, a rewind is at the first step the restarted script logs, that step included
  (what a trainer resumed from its checkpoint logs first): log with explicit steps then.
- After os.fork() (DataLoader workers, multiprocessing) the child does not write to its
  parent's run: its log() calls are dropped and said on stderr, with counts; call init() in the
  child to log from it.
- What a run ran is recorded on it, by the sender thread: the git commit, branch, remote
  (without credentials) and whether the tree was dirty, the command line, Python, the platform
  and the host; the diff (at most 1 MiB) and the installed packages as texts of the run.
  record_code=False or SIGNALBOX_RECORD_CODE=0 turns it off (the command line may hold what
  should not be kept).
- While a run is alive the sender tells the collector so every `heartbeat` seconds (15 s), even
  when nothing is logged, so a run whose process died can be told from one that is quiet.
"""

import array
import atexit
import collections.abc
import itertools
import json
import math
import operator
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse
import uuid
import wave
import zlib

__all__ = ["init", "log", "finish", "run", "Run", "metric_line", "PREFIX", "Image", "Histogram",
           "Text", "Table", "Audio", "__version__"]
__version__ = "0.1.0"  # Signalbox's own (CMakeLists.txt); the package's on PyPI and in wheels

PREFIX = "@signalbox "
DEFAULT_COLLECTOR = "http://127.0.0.1:7410"
# A lab collector's project names (sent as the X-Signalbox-Project header).
_PROJECT = re.compile(r"(?!\.)[A-Za-z0-9._-]{1,64}", re.ASCII)
MAX_COORDINATE = 2.0 ** 53  # a step or time must be finite and within +-2^53 (the collector's rule)
BATCH_VALUES = 4_000_000  # numbers in one push at most (32 MB), well inside the collector's 64 MiB
# Keys a metric line reserves; metrics with these names travel in its "" object instead.
RESERVED_KEYS = frozenset(("step", "time", "run", "batch", "resume"))
STATUS_ON_SIGNAL = "stopped"
SAMPLES_BODY = 32 << 20  # bytes of one push of samples at most (the collector takes 64 MiB)
SAMPLES_PER_PUSH = 10_000  # the collector's bound

_current = None
_live = set()  # runs of this process not finished yet: each is finished at exit or on a signal
_signalled = None  # the SIGINT or SIGTERM this process received, if any: the runs end "stopped"
_previous_handlers = {}  # by signal: the handler ours chains to (installed once a process)


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


def _coordinate(value, what):
    """A step or time as stored: an int or float equal to `value`, within +-2^53. Raises
    ValueError otherwise, so that no point is stored at a step other than the one given."""
    try:
        whole = operator.index(value)  # ints, numpy and torch integers, compared exactly
    except TypeError:
        whole = None
    if whole is not None:
        if -MAX_COORDINATE <= whole <= MAX_COORDINATE:
            return whole
        number = None
    else:
        number = _as_float(value)
        if number is not None and -MAX_COORDINATE <= number <= MAX_COORDINATE:
            try:
                exact = bool(number == value)  # a Fraction or Decimal may be between floats
            except Exception:  # an array-like that cannot say: its float() is what it holds
                exact = True
            if exact:
                return int(number) if number.is_integer() else number
    raise ValueError("%s=%.80r: a %s must be a finite number within +-2^53 that a float holds "
                     "exactly" % (what, value, what))


def _line(values, step, wall, batch, run=None):
    record = {}
    escaped = {}
    for name, value in values.items():
        (escaped if name in RESERVED_KEYS else record)[name] = _json_number(float(value))
    if escaped:
        record[""] = escaped  # the parser reads metrics named "step", "time"... from here
    if step is not None:
        record["step"] = step
    if wall is not None:
        record["time"] = wall
    if batch is not None:
        record["batch"] = batch
    if run is not None:
        record["run"] = run
    return PREFIX + json.dumps(record, separators=(",", ":"))


def metric_line(values, step=None, wall=None, batch=None):
    """The line a script can print itself: '@signalbox {"step": 3, "loss": 0.5}'. `batch` is the
    id of a batch that may have reached the collector: it then skips the line. Metrics named
    like the line's own keys (step, time, run, batch, resume) are kept under "". A step or wall time
    that is not exactly a number within +-2^53 raises ValueError."""
    return _line(values, None if step is None else _coordinate(step, "step"),
                 None if wall is None else _coordinate(wall, "time"), batch)


def _is_loopback(host):
    if host.lower() in ("localhost", "localhost.", "ip6-localhost"):
        return True
    try:
        import ipaddress
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _read_small(path, private):
    """The text of a regular file of at most 4 KiB, or None. A `private` one must be this user's
    and readable by no one else: another user could have put one there."""
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 4096 or (private and (
                info.st_mode & 0o077 or info.st_uid != os.getuid())):
            return None
        return os.read(fd, 4097).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _published_collector():
    """(url, token) of the collector the Signalbox app published for this user's scripts, while
    that app runs; else None. The place and the checks are the app's (core/util/Paths.h):
    $XDG_RUNTIME_DIR/signalbox, else /tmp/signalbox-UID, a directory of this user's that no one
    else may write to, holding collector.url (the URL, the app's pid) and collector.token."""
    import stat
    if not hasattr(os, "getuid"):
        return None
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    directory = (os.path.join(os.path.normpath(runtime), "signalbox") if os.path.isabs(runtime)
                 else "/tmp/signalbox-%d" % os.getuid())
    try:
        info = os.lstat(directory)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    where = _read_small(os.path.join(directory, "collector.url"), False)
    secret = _read_small(os.path.join(directory, "collector.token"), True)
    if not where or secret is None:
        return None
    lines = where.splitlines() + ["", ""]
    url, pid = lines[0].strip(), lines[1].strip()
    try:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.port or not _is_loopback(parts.hostname or ""):
            return None
        os.kill(int(pid), 0)  # a crashed app leaves its files behind
    except (ValueError, OSError):  # PermissionError too: another user's process took the pid
        return None
    return url, (secret.splitlines() or [""])[0].strip()


class _Endpoint:
    """Where requests go: the collector, and the proxy only when one was named. Requests are
    made on a plain socket so that each has one deadline for all of it (connect, send, the
    answer's every byte), follows no redirect and ignores environment proxies."""

    def __init__(self, url, proxy, token):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("collector %r: expected http://HOST:PORT or https://HOST:PORT" % url)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.netloc = parts.netloc.rpartition("@")[2]
        self.base = parts.path.rstrip("/")
        self.origin = "%s://%s" % (parts.scheme, self.netloc)
        self.proxy = None
        if proxy and not _is_loopback(self.host):  # this machine's collector is never proxied
            proxy_parts = urllib.parse.urlsplit(proxy if "://" in proxy else "http://" + proxy)
            if proxy_parts.scheme != "http" or not proxy_parts.hostname:
                raise ValueError("proxy %r: expected http://HOST:PORT" % proxy)
            if token and not self.tls:
                raise ValueError("a bearer token is never sent to a proxy: with proxy %r the "
                                 "collector must be https:// (tunnelled through the proxy), or "
                                 "name no proxy" % proxy)
            self.proxy = (proxy_parts.hostname, proxy_parts.port or 80)

    def exchange(self, method, path, body, headers, deadline, limit=1 << 20):
        """(status, answer body) of one request that ends by `deadline` (time.monotonic());
        raises OSError (socket.timeout past the deadline) or ValueError (not HTTP)."""
        def remaining():
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("timed out")
            return left

        target = self.base + path
        address = (self.host, self.port)
        if self.proxy:
            address = self.proxy
            if not self.tls:
                target = self.origin + target  # absolute form: the proxy forwards it
        sock = socket.create_connection(address, timeout=remaining())
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.proxy and self.tls:
                sock.settimeout(remaining())
                sock.sendall(("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (
                    self.host, self.port, self.host, self.port)).encode("idna"))
                status, _, _ = _read_answer(sock, remaining, 64 << 10, head_only=True)
                if not 200 <= status < 300:
                    raise OSError("the proxy refused to connect (HTTP %d)" % status)
            if self.tls:
                import ssl
                sock.settimeout(remaining())
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
            head = ["%s %s HTTP/1.1" % (method, target), "Host: " + self.netloc,
                    "Connection: close", "Content-Length: %d" % len(body)]
            head += ["%s: %s" % item for item in headers.items()]
            head = ("\r\n".join(head) + "\r\n\r\n").encode("utf-8")
            sock.settimeout(remaining())  # sendall's timeout bounds the whole send
            if len(body) < 65536:
                sock.sendall(head + body)
            else:
                sock.sendall(head)
                sock.settimeout(remaining())
                sock.sendall(body)
            status, _, answer = _read_answer(sock, remaining, limit)
            return status, answer
        finally:
            sock.close()


def _read_answer(sock, remaining, limit, head_only=False):
    """(status, headers, body) of an HTTP answer read from sock, each read bounded by what is
    left of the request's time; the body is at most `limit` bytes."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > 65536:
            raise ValueError("an answer whose head is over 64 KiB")
        sock.settimeout(remaining())
        chunk = sock.recv(65536 if not head_only else 1)
        if not chunk:
            raise ValueError("the connection closed before an answer")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = lines[0].split(" ", 2)
    if len(fields) < 2 or not fields[0].startswith("HTTP/") or not fields[1].isdigit():
        raise ValueError("not an HTTP answer: %.60r" % lines[0])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if head_only:
        return int(fields[1]), headers, b""
    length = headers.get("content-length")
    length = int(length) if length and length.isdigit() else None
    body = bytearray(body)
    while length is None or len(body) < length:
        if len(body) > limit:
            raise ValueError("an answer over %d bytes" % limit)
        sock.settimeout(remaining())
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _unchunk(bytes(body))
    return int(fields[1]), headers, bytes(body)


def _unchunk(data):
    out = []
    while data:
        size, _, rest = data.partition(b"\r\n")
        try:
            count = int(size.split(b";")[0], 16)
        except ValueError:
            break
        if count == 0:
            break
        out.append(rest[:count])
        data = rest[count + 2:]
    return b"".join(out)


def _numpy():
    try:
        import numpy
        return numpy
    except ImportError:
        return None


def _array(data):
    """A numpy copy of `data` (a torch tensor, on any device, too), or None without numpy or
    for data that is not an array."""
    np = _numpy()
    if np is None:
        return None
    if hasattr(data, "detach") and hasattr(data, "cpu"):  # a torch tensor
        data = data.detach().cpu()
        data = data.float() if str(getattr(data, "dtype", "")) == "torch.bfloat16" else data
        data = data.numpy()
    if isinstance(data, np.ndarray):
        return np.array(data, copy=True)
    return None


class _Sample:
    """Something log() sends besides numbers: copied at the call, encoded on the sender."""
    kind = None

    def _encoded(self):
        """[(bytes, extra header fields)], one per item (a batch of audio clips is several)."""
        raise NotImplementedError

    def _size(self):
        """Bytes it holds while queued (bounds the queue)."""
        raise NotImplementedError


class Image(_Sample):
    """An image: a numpy array (or torch tensor) H x W, H x W x C or C x H x W with C of 1, 3
    or 4, uint8 or float in [0, 1]; a batch (N x H x W x C or N x C x H x W) is logged as one
    grid. Or a PIL image, or the bytes of a PNG or JPEG file."""
    kind = "image"

    def __init__(self, data):
        self._bytes = bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else None
        self._array = None if self._bytes is not None else _array(data)
        self._pil = data if self._bytes is None and self._array is None else None
        if self._pil is not None and not hasattr(self._pil, "save"):
            raise TypeError("Image: expected a numpy array, a torch tensor, a PIL image or PNG/"
                            "JPEG bytes, not %s" % type(data).__name__)
        if self._pil is not None:
            self._pil = self._pil.copy()

    def _size(self):
        if self._bytes is not None:
            return len(self._bytes)
        if self._array is not None:
            return self._array.nbytes
        return self._pil.width * self._pil.height * 4

    def _encoded(self):
        if self._bytes is not None:
            return [(self._bytes, {})]
        if self._pil is not None:
            out = _io_bytes()
            self._pil.save(out, format="PNG")
            return [(out.getvalue(), {})]
        return [(_png(_grid(_pixels(self._array))), {})]


def _io_bytes():
    import io
    return io.BytesIO()


def _pixels(array):
    """uint8 pixels, HWC (or NHWC for a batch), from any of the layouts Image takes."""
    np = _numpy()
    if array.dtype != np.uint8:
        array = np.clip(np.nan_to_num(array.astype(np.float64)), 0.0, 1.0)
        array = np.rint(array * 255).astype(np.uint8)
    if array.ndim < 2 or array.ndim > 4:
        raise ValueError("Image: an array of %d dimensions; expected 2, 3 or 4" % array.ndim)
    if array.ndim == 2:
        return array[:, :, None]
    channels_first = array.shape[-3] in (1, 3, 4) and array.shape[-1] not in (1, 3, 4)
    if array.ndim == 3:
        return array.transpose(1, 2, 0) if channels_first else array
    return array.transpose(0, 2, 3, 1) if channels_first else array


def _grid(pixels, pad=2):
    """A batch (NHWC) tiled into a near-square grid with `pad` black pixels between; an image
    (HWC) as it is."""
    np = _numpy()
    if pixels.ndim == 3:
        return pixels
    count, height, width, channels = pixels.shape
    columns = max(1, math.ceil(math.sqrt(count)))
    rows = max(1, math.ceil(count / columns))
    grid = np.zeros((rows * (height + pad) - pad, columns * (width + pad) - pad, channels),
                    np.uint8)
    for i in range(count):
        top, left = (i // columns) * (height + pad), (i % columns) * (width + pad)
        grid[top:top + height, left:left + width] = pixels[i]
    return grid


def _png(pixels):
    """A PNG of uint8 HWC pixels (1 to 4 channels), with zlib from the standard library."""
    height, width, channels = pixels.shape
    if channels not in (1, 2, 3, 4) or height == 0 or width == 0:
        raise ValueError("Image: %d x %d pixels of %d channels; expected 1, 3 or 4 channels"
                         % (height, width, channels))
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    np = _numpy()
    rows = np.zeros((height, 1 + width * channels), np.uint8)  # filter 0 before each row
    rows[:, 1:] = np.ascontiguousarray(pixels).reshape(height, width * channels)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


class Histogram(_Sample):
    """A histogram of `values` (a numpy array or torch tensor of any shape, or a list of
    numbers), binned on the sender thread into `bins` equal buckets between the smallest and
    largest finite value; or pre-binned `buckets`: [(left, right, count), ...]. NaNs and
    infinities are left out of the buckets (TensorBoard does the same)."""
    kind = "histogram"

    def __init__(self, values=None, bins=64, buckets=None):
        if (values is None) == (buckets is None):
            raise ValueError("Histogram: give values or buckets, not both")
        if not isinstance(bins, int) or not 1 <= bins <= 65536:
            raise ValueError("Histogram: bins must be 1 to 65,536")
        self._bins = bins
        self._buckets = [tuple(float(x) for x in b) for b in buckets] if buckets is not None \
            else None
        self._values = None
        if values is not None:
            copied = _array(values)
            self._values = copied if copied is not None else array.array("d", values)

    def _size(self):
        if self._buckets is not None:
            return 24 * len(self._buckets)
        return getattr(self._values, "nbytes", 8 * len(self._values))

    def _encoded(self):
        if self._buckets is not None:
            buckets = self._buckets
            fields = {"min": buckets[0][0] if buckets else 0.0,
                      "max": buckets[-1][1] if buckets else 0.0,
                      "num": sum(b[2] for b in buckets)}
        else:
            buckets, fields = _binned(self._values, self._bins)
        body = struct.pack("<%dd" % (3 * len(buckets)), *(x for b in buckets for x in b))
        return [(body, fields)]


def _binned(values, bins):
    np = _numpy()
    if np is not None and hasattr(values, "dtype"):
        finite = values[np.isfinite(values)].astype(np.float64).ravel()
        if finite.size == 0:
            return [], {"min": 0.0, "max": 0.0, "num": 0.0, "sum": 0.0}
        low, high = float(finite.min()), float(finite.max())
        fields = {"min": low, "max": high, "num": float(finite.size), "sum": float(finite.sum())}
        if low == high:
            return [(low, high, float(finite.size))], fields
        counts, edges = np.histogram(finite, bins=bins, range=(low, high))
        return [(float(edges[i]), float(edges[i + 1]), float(counts[i]))
                for i in range(bins)], fields
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return [], {"min": 0.0, "max": 0.0, "num": 0.0, "sum": 0.0}
    low, high = min(finite), max(finite)
    fields = {"min": low, "max": high, "num": float(len(finite)), "sum": math.fsum(finite)}
    if low == high:
        return [(low, high, float(len(finite)))], fields
    width = (high - low) / bins
    counts = [0] * bins
    for v in finite:
        counts[min(bins - 1, int((v - low) / width))] += 1
    return [(low + i * width, high if i == bins - 1 else low + (i + 1) * width, float(c))
            for i, c in enumerate(counts)], fields


class Text(_Sample):
    """A text, shown as plain text."""
    kind = "text"

    def __init__(self, text):
        self._text = str(text)

    def _size(self):
        return len(self._text)

    def _encoded(self):
        return [(self._text.encode("utf-8", "replace"), {})]


class Table(_Sample):
    """A table of text: rows, each a list of cells (each shown as str(cell)), all as long."""
    kind = "text"

    def __init__(self, rows):
        self._rows = [[str(cell) for cell in row] for row in rows]
        if not self._rows or len({len(row) for row in self._rows}) != 1 or not self._rows[0]:
            raise ValueError("Table: rows of cells, all as long, at least one")

    def _size(self):
        return sum(len(cell) for row in self._rows for cell in row)

    def _encoded(self):
        body = json.dumps(self._rows, ensure_ascii=False, separators=(",", ":")).encode()
        return [(body, {"rows": len(self._rows), "columns": len(self._rows[0])})]


class Audio(_Sample):
    """Audio: samples (a numpy array or torch tensor of frames, or frames x channels; float in
    [-1, 1] or int16) at `rate` frames a second, sent as 16-bit WAV; or the bytes of a WAV file."""
    kind = "audio"

    def __init__(self, samples, rate=None):
        self._bytes = bytes(samples) if isinstance(samples, (bytes, bytearray)) else None
        self._samples = None
        if self._bytes is None:
            if not rate or not 1 <= rate <= 1_000_000:
                raise ValueError("Audio: a sample rate of 1 to 1,000,000 frames a second")
            self._samples = _array(samples)
            if self._samples is None:
                self._samples = array.array("d", samples)
        self._rate = int(rate or 0)

    def _size(self):
        if self._bytes is not None:
            return len(self._bytes)
        return getattr(self._samples, "nbytes", 8 * len(self._samples))

    def _encoded(self):
        if self._bytes is not None:
            return [(self._bytes, {})]
        np = _numpy()
        if np is not None and hasattr(self._samples, "dtype"):
            frames = self._samples if self._samples.ndim == 2 else self._samples.reshape(-1, 1)
            if frames.dtype != np.int16:
                frames = np.rint(np.clip(np.nan_to_num(frames.astype(np.float64)), -1, 1)
                                 * 32767).astype("<i2")
            channels, pcm = frames.shape[1], frames.astype("<i2").tobytes()
        else:
            channels = 1
            pcm = struct.pack("<%dh" % len(self._samples),
                              *(int(round(max(-1.0, min(1.0, v if math.isfinite(v) else 0.0))
                                          * 32767)) for v in self._samples))
        out = _io_bytes()
        with wave.open(out, "wb") as w:
            w.setnchannels(channels)
            w.setsampwidth(2)
            w.setframerate(self._rate)
            w.writeframes(pcm)
        return [(out.getvalue(), {})]


class Run:
    """One run's connection to the collector. Use the module functions unless you need two.

    Only a 2xx answer acknowledges a batch. A batch the collector refuses for its content (400)
    is split until only the bad records are dropped; a collector that fails (5xx, a full disk, a
    timeout) gets the batch again with backoff, and past `max_queue` points waiting the oldest
    are printed as metric lines instead. Each batch carries an id the collector remembers, so a
    batch sent twice is stored once. Every loss is said on stderr, with counts, when it starts
    and at finish().

    resume: None (default) continues a run Signalbox launched (SIGNALBOX_RUN) and otherwise
    picks a new name when the collector has a run by this one; True or "allow" keeps the name
    (continue the run, or start it); "must" raises ValueError unless the collector has the
    run; False or "never" always starts a new run. timeout: seconds one request may take in
    all. finish_timeout: seconds finish() (and exit, and a signal) spends sending before it
    prints the rest. heartbeat: seconds between the sender's "still alive" pushes (0: none).
    proxy: an HTTP proxy for the collector (default $SIGNALBOX_PROXY, else none).
    project: the project the run belongs to on a lab's collector (default $SIGNALBOX_PROJECT,
    else the collector's own): 1 to 64 letters, digits, '.', '_' or '-'.
    max_sample_bytes: bytes of samples (images, histograms, text, audio) queued or waiting for
    another try at most; past it new samples are dropped (counted). Samples are never printed:
    one no collector takes is counted as unsent at finish.
    resume="rewind" or "fork", with resume_step=N (the checkpoint's step; for a rewind, by default
    the first step logged, inclusive): see the module's notes; resume_inclusive=True drops step
    N itself too (TensorBoard's purge_step); fork_from
    names the run to fork (default: `run`, the new run then named run-2...).
    record_code: record what the run ran (default True; SIGNALBOX_RECORD_CODE=0 turns it off):
    the git commit, branch, remote (without credentials) and whether the tree was dirty, the
    command line, Python, the platform and the host on the run; the diff against the commit
    (at most DIFF_BYTES) and the installed packages as texts of the run at "code/diff" and
    "environment/packages". Gathered by the sender thread, never by log()."""

    def __init__(self, run=None, config=None, collector=None, token=None, flush_interval=0.25,
                 max_queue=1_000_000, on_ack=None, out=None, timeout=5.0, resume=None,
                 proxy=None, heartbeat=15.0, finish_timeout=5.0, max_sample_bytes=256 << 20,
                 record_code=None, resume_step=None, resume_inclusive=False, fork_from=None,
                 project=None):
        self.project = project or os.environ.get("SIGNALBOX_PROJECT") or None
        if self.project is not None and not _PROJECT.fullmatch(self.project):
            raise ValueError("%r is not a project name: 1 to 64 letters, digits, '.', '_' or '-'"
                             % (self.project,))
        published = None
        if not collector and not os.environ.get("SIGNALBOX_COLLECTOR"):
            published = _published_collector()
        self.collector = (collector or os.environ.get("SIGNALBOX_COLLECTOR")
                          or (published and published[0]) or DEFAULT_COLLECTOR).rstrip("/")
        self._token = token or os.environ.get("SIGNALBOX_TOKEN") or self._published_token(
            published or _published_collector())
        if proxy is None:
            proxy = os.environ.get("SIGNALBOX_PROXY") or None
        self._endpoint = _Endpoint(self.collector, proxy, self._token)
        self._flush_interval = flush_interval
        self._max_queue = max_queue
        self._limit = max_queue  # log() takes its slow path past this: -1 once it may not queue
        self._on_ack = on_ack
        self._out = out or sys.stdout
        self._timeout = timeout
        self._finish_timeout = finish_timeout
        self._heartbeat = heartbeat or 0
        self._next_beat = time.monotonic() + self._heartbeat
        self._deadline = None  # when finish() stops sending (time.monotonic())
        self._warned = set()
        # The push that says the run resumed (the first batch, under its id for every retry).
        self._resume = self._resume_request(run, resume, resume_step, resume_inclusive, fork_from)
        self._resume_batch = None
        self._printing = False  # once a resume was printed: every batch after it is too
        asked = run or os.environ.get("SIGNALBOX_RUN")
        if self._resume:
            resume = "allow" if self._resume["mode"] == "rewind" else "never"
            run = run if fork_from else self._resume.get("from", run)
        self.name = self._choose_name(run, resume, forking=bool(self._resume and "from" in
                                                                  self._resume))
        if self._resume and self.name == self._resume.get("from"):  # no collector said: a name
            self.name = "%s-%s" % (self.name, time.strftime("%Y%m%d-%H%M%S"))
            self._warn("renamed", "forking run %r into a new run %r" % (run, self.name))
        # Printed lines name the run when whoever forwards them would name another (a fork, a
        # taken name): the job's output goes to the run Signalbox launched.
        self._line_run = None if self.name == asked else self.name
        # What log() gathered since the last send, column by column: one block per stretch of
        # calls that logged the same metrics, (names, steps, times, [values per name]).
        self._lock = threading.Lock()
        self._blocks = []
        self._tail = None  # the block log() appends to
        self._rows = 0  # log() calls in the blocks
        self._taken = []  # blocks the sender took and has not sent yet
        self._sending = []  # the blocks of the batch being sent
        self._sending_id = None
        self._columnar = True  # until a collector from before columnar pushes is met
        self._retry = []  # batches the collector failed to take: (id, blocks), oldest first
        self._retry_rows = 0
        self._backoff = 0.0
        self._batch_prefix = uuid.uuid4().hex[:16]
        self._batches = 0
        self._final = False
        self._step = -1
        if self._resume is not None and self._resume["step"] is not None:
            self._step = self._resume["step"] - (1 if self._resume["inclusive"] else 0)
        self._pid = os.getpid()
        self._samples = []  # what log() took besides numbers: (tag, step, time, _Sample)
        self._sample_bytes = 0  # queued and waiting for another try
        self._max_sample_bytes = max_sample_bytes
        self._samples_retry = []  # encoded pushes the collector failed: (body, items)
        self._record_texts = None  # the record's texts, sent by the sender (after any resume)
        self._forked = False  # a copy of a parent's run in a forked child: it sends nothing
        self.dropped = 0  # values dropped by log(): a full queue, after finish(), after fork
        self.refused = 0  # values the collector refused for their content
        self.invalid = 0  # values log() dropped at the call (not numbers, bad names)
        self.unencoded = 0  # samples the sender could not encode (counted by the sender only)
        self.unsent = 0  # values neither sent nor printed (stdout failed, or finish ran out)
        self.acknowledged = 0
        self.printed = 0
        self._down_until = 0.0
        self._wake = threading.Event()
        self._stop = False
        self._reported = False  # finish() said its counts
        self._info = {"status": "running", "host": socket.gethostname(), "start": time.time()}
        if config:
            self._info["config"] = _plain_config(config)
        if os.environ.get("SIGNALBOX_SWEEP"):  # a trial: the curves view can group by its sweep
            self._info["sweep"] = os.environ["SIGNALBOX_SWEEP"]
        self._pending_info = dict(self._info)
        if record_code is None:
            record_code = os.environ.get("SIGNALBOX_RECORD_CODE", "1").lower() not in (
                "0", "false", "no", "off")
        self._record_code = record_code
        self._thread = threading.Thread(target=self._sender, name="signalbox-sender", daemon=True)
        self._thread.start()
        _live.add(self)
        _install_signal_handlers()

    def _published_token(self, published):
        """The app's per-session secret, only for the collector it published (a loopback host,
        its port): the secret never travels anywhere else."""
        if not published:
            return None
        try:
            mine = urllib.parse.urlsplit(self.collector)
            theirs = urllib.parse.urlsplit(published[0])
            if _is_loopback(mine.hostname or "") and (mine.port or 80) == theirs.port:
                return published[1] or None
        except ValueError:
            pass
        return None

    def _warn(self, key, message):
        """Says `message` on stderr once per key."""
        if key not in self._warned:
            self._warned.add(key)
            print("signalbox: " + message, file=sys.stderr, flush=True)

    @staticmethod
    def _resume_request(run, resume, step, inclusive, fork_from):
        """The push's "resume" for resume="rewind" or "fork", else None."""
        if resume not in ("rewind", "fork"):
            if step is not None or fork_from is not None:
                raise ValueError("resume_step= and fork_from= go with resume='rewind' or 'fork'")
            return None
        if step is None and resume == "fork":
            raise ValueError("resume='fork' needs resume_step=: the step of the checkpoint the "
                             "new run starts from")
        if step is None:  # the first step logged, it included (see the module's notes)
            return {"mode": resume, "step": None, "inclusive": True}
        request = {"mode": resume, "step": _coordinate(step, "resume_step"),
                   "inclusive": bool(inclusive)}
        if resume == "fork":
            parent = fork_from or run or os.environ.get("SIGNALBOX_RUN")
            if not parent:
                raise ValueError("resume='fork' needs the run to fork: run= or fork_from=")
            request["from"] = parent
        elif fork_from is not None:
            raise ValueError("fork_from= goes with resume='fork'")
        return request

    def _choose_name(self, run, resume, forking=False):
        launched = not run and os.environ.get("SIGNALBOX_RUN")
        name = run or launched or "%s-%s" % (
            os.path.splitext(os.path.basename(sys.argv[0] or "python"))[0] or "run",
            time.strftime("%Y%m%d-%H%M%S"))
        mode = {None: "allow" if launched else "never", True: "allow", False: "never"}.get(
            resume, resume)
        if mode not in ("allow", "must", "never"):
            raise ValueError("resume=%r: expected True, False, 'allow', 'must' or 'never'"
                             % (resume,))
        if mode == "allow":
            return name
        taken = self._names_like(name)
        if taken is None:  # no collector answered: the job's output carries the points
            if mode == "must":
                self._warn("resume", "cannot check that run %r exists (no collector answered "
                           "at %s); continuing it" % (name, self.collector))
            return name
        if mode == "must":
            if name not in taken:
                raise ValueError("resume='must': the collector at %s has no run %r"
                                 % (self.collector, name))
            return name
        chosen, number = name, 1
        while chosen in taken:
            number += 1
            chosen = "%s-%d" % (name, number)
        if chosen != name and forking:
            self._warn("renamed", "forking run %r into a new run %r" % (name, chosen))
        elif chosen != name:
            self._warn("renamed", "the collector already has a run %r: logging to a new run %r "
                       "(init(resume=True) continues a run)" % (name, chosen))
        return chosen

    def _names_like(self, name):
        """The names of the collector's runs that mention `name`, or None when it did not say."""
        path = "/api/v1/runs?filter=" + urllib.parse.quote(name.lower(), safe="")
        status, answer = self._request("GET", path, b"", None,
                                       time.monotonic() + min(self._timeout, 5.0), 64 << 20)
        if status != 200:
            return None
        try:
            return {run.get("name") for run in json.loads(answer) if isinstance(run, dict)}
        except (ValueError, TypeError, AttributeError):
            return None

    def log(self, metrics, step=None, wall=None):
        """Records metric values at `step` (default: the previous step + 1). Returns at once.
        A value that is not a number is dropped with a warning (once per metric); the others
        are kept. A step that is not exactly a number within +-2^53 raises ValueError. The
        values are copied: the dict may be changed and passed again. wall: when they were
        taken, in seconds since the epoch (default: now)."""
        if step is None:
            step = self._step + 1
        elif type(step) is int and -MAX_COORDINATE <= step <= MAX_COORDINATE:
            pass  # the common case, checked without a conversion
        else:
            step = _coordinate(step, "step")
        if wall is not None:
            wall = _coordinate(wall, "wall")
        self._step = step
        resume = self._resume  # once: the sender clears it when the collector took it
        if resume is not None and resume["step"] is None:
            with self._lock:  # before the row: no batch holds a point before its resume
                resume["step"] = step
        if not metrics:
            return
        if self._rows >= self._limit:
            self._drop(len(metrics))
            return
        if not self._append(tuple(metrics), metrics.values(), step, wall):
            metrics = self._clean(metrics, step, wall)  # a sample, no float, or a bad name
            if metrics:
                self._append(tuple(metrics), metrics.values(), step, wall)

    @property
    def last_step(self):
        """The step of the last log() call (-1 before the first)."""
        return self._step

    def update_config(self, values):
        """Adds `values` (a dict) to the run's config: its keys replace the config's, the
        others stay. Values that are no JSON (objects, NaN) are kept as their text."""
        values = _plain_config(values)
        with self._lock:
            self._info["config"] = dict(self._info.get("config") or {}, **values)
            self._pending_info = _merged_info(self._pending_info, {"config": values})
        self._wake.set()

    def _drop(self, values):
        self.dropped += values
        if self._forked:
            self._warn("forked", "log() in process %d, forked from process %d after init(): a "
                       "forked copy does not write to its parent's run %r; dropping its points "
                       "(counted; call signalbox.init() in the child to log from it)"
                       % (os.getpid(), self._pid, self.name))
        elif self._stop:
            self._warn("finished", "log() after finish() of run %r: dropped (counted)"
                       % self.name)
        else:
            self._warn("full", "the queue holds %d points and the collector is not taking "
                       "them: dropping new points (counted at finish)" % self._max_queue)

    def _append(self, keys, values, step, wall=None):
        """Appends one row to the block of rows with these metrics; False, having appended
        nothing, when a value is no number or a name is not a non-empty string."""
        wall = time.time() if wall is None else wall
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
                block[1].append(step)
                block[2].append(wall)
            except BaseException as error:  # a KeyboardInterrupt too: no row is left half made
                rows = len(block[2])
                for column in (block[1], *columns):
                    if len(column) > rows:
                        column.pop()
                if rows == 0:  # made for this row (a sample among the values): not left empty
                    self._blocks.pop()
                    self._tail = self._blocks[-1] if self._blocks else None
                if isinstance(error, (TypeError, ValueError, OverflowError)):
                    return False
                raise
            self._rows += 1
        return True

    def _clean(self, metrics, step, wall=None):
        values = {}
        for name, value in metrics.items():
            if not isinstance(name, str) or not name:
                self.invalid += 1
                self._warn(("name", repr(name)), "metric name %r dropped: a name is a "
                           "non-empty string" % (name,))
                continue
            if isinstance(value, _Sample):
                self._queue_sample(name, step, value, wall)
                continue
            number = _as_float(value)
            if number is None:
                self.invalid += 1
                self._warn(("value", name), "metric %r: %.80r is not a number; dropped (said once "
                           "per metric)" % (name, value))
                continue
            values[name] = number
        return values

    def _queue_sample(self, tag, step, sample, wall=None):
        size = sample._size()
        with self._lock:
            if self._limit >= 0 and self._sample_bytes + size <= self._max_sample_bytes:
                self._samples.append((tag, step, time.time() if wall is None else wall, sample))
                self._sample_bytes += size
                return
        if self._limit < 0:  # finished, or a forked copy: said as for numbers
            self._drop(1)
            return
        self.dropped += 1
        self._warn("samples-queue", "%d bytes of samples wait to be sent (max_sample_bytes): "
                   "dropping new samples (counted at finish)" % self._max_sample_bytes)

    def finish(self, status="finished", timeout=None):
        """Sends what is queued (for at most `timeout` seconds, default finish_timeout; the
        rest is printed as metric lines), marks the run with `status`, and stops the sender."""
        self._begin_finish(status, timeout)
        self._end_finish()

    def _begin_finish(self, status, timeout=None):
        if self._forked or self._stop:
            return
        self._deadline = time.monotonic() + (self._finish_timeout if timeout is None else timeout)
        with self._lock:  # added to the info not sent yet: a short run keeps its config
            self._pending_info = dict(self._pending_info or {}, status=status, end=time.time())
            self._limit = -1  # log() from now on is dropped, and counted
            self._stop = True
        _live.discard(self)
        self._wake.set()

    def _end_finish(self):
        if self._forked:
            if self.dropped:
                print("signalbox: process %d (forked after init()) dropped %d values logged to "
                      "run %s" % (os.getpid(), self.dropped, self.name), file=sys.stderr,
                      flush=True)
                self.dropped = 0
            return
        if not self._thread.is_alive() and self._reported:
            return
        # Past the deadline the sender only prints, which takes about 1 s per 250,000 rows.
        self._thread.join(max(0.0, self._deadline - time.monotonic()) + 10.0)
        if self._thread.is_alive():  # stdout blocked: what it still holds is not delivered
            self.unsent += _values(self._blocks) + _values(self._taken) + _values(
                self._sending) + sum(_values(blocks) for _, blocks in self._retry)
            self.unsent += len(self._samples) + sum(len(p) for p in self._samples_retry)
        self._reported = True
        lost = self.dropped + self.refused + self.invalid + self.unencoded + self.unsent
        if lost or self.printed:
            print("signalbox: run %s: %d values acknowledged by the collector, %d printed as metric "
                  "lines, %d dropped (%d by log() with a full queue, after finish or after fork, "
                  "%d refused by the collector, %d not numbers or samples that could not be encoded, %d "
                  "neither sent nor printed)"
                  % (self.name, self.acknowledged, self.printed, lost, self.dropped,
                     self.refused, self.invalid + self.unencoded, self.unsent), file=sys.stderr,
                  flush=True)

    def _forked_copy(self):
        """In a child forked after init(): this copy sends nothing and ends nothing of the
        parent's run (the parent sends what was queued before the fork)."""
        self._forked = True
        self._lock = threading.Lock()  # another thread may have held it at the fork
        self._blocks, self._tail, self._rows, self._taken, self._sending = [], None, 0, [], []
        self._retry, self._retry_rows = [], 0
        self._samples, self._samples_retry, self._sample_bytes = [], [], 0
        self._limit = -1
        self._stop = True
        self.dropped = 0

    def _sender(self):
        recording = None
        if self._record_code:  # beside the sender: a slow git never holds back the points
            recording = threading.Thread(target=self._record, name="signalbox-record",
                                         daemon=True)
            recording.start()
        while True:
            wait = self._flush_interval
            if self._heartbeat:
                wait = max(0.0, min(wait, self._next_beat - time.monotonic()))
            self._wake.wait(wait)
            self._wake.clear()
            stopping = self._stop
            if stopping and recording is not None:  # the record goes with the last batch...
                recording.join(max(0.0, min(RECORD_SECONDS, self._deadline - time.monotonic())))
                recording = None  # ...if it is ready by then
            self._flush_safely(stopping)
            while stopping and (self._blocks or self._retry or self._samples
                                or self._samples_retry):  # finish() sends everything
                self._flush_safely(True)
            if stopping:
                return
            if self._heartbeat and time.monotonic() >= self._next_beat:
                self._beat()

    def _record(self):
        """Adds the code and environment records to the info not sent yet (see record_code):
        on a thread of its own, within RECORD_SECONDS in all."""
        deadline = time.monotonic() + RECORD_SECONDS
        try:
            code, diff = _code_record(_script_directory(), deadline)
            environment, packages = _environment_record()
        except Exception as error:  # a record is a courtesy: the run goes on without it
            self._warn("record", "could not record the run's code and environment (%r)"
                       % (error,))
            return
        with self._lock:
            if self._forked:
                return
            update = {"environment": environment}
            if code:
                update["code"] = code
            self._pending_info = _merged_info(self._pending_info, update)
        # Apart from the user's samples: never counted, and a collector that does not take
        # them (an older one, or none) only loses them.
        texts = [(tag, text.encode("utf-8", "replace")) for tag, text in
                 (("code/diff", diff), ("environment/packages", packages)) if text]
        if texts:
            with self._lock:
                self._record_texts = [({"tag": tag, "kind": "text", "step": 0, "time": time.time(),
                                        "index": 0, "bytes": len(data)}, data)
                                      for tag, data in texts]
            self._wake.set()

    def _beat(self):
        """Tells the collector the run is alive: a push naming only the run. A collector that
        refuses it (400) is older than heartbeats: they stop, silently."""
        self._next_beat = time.monotonic() + self._heartbeat
        body = json.dumps({"run": self.name}).encode()
        status, _ = self._request("POST", "/api/v1/push", body, "application/json",
                                  time.monotonic() + min(self._timeout, self._heartbeat))
        if status == 400:
            self._heartbeat = 0

    def _flush_safely(self, final=False):
        try:
            self._flush(final)
        except Exception as error:  # the sender must never die: print what it holds instead
            self._warn(("sender", type(error).__name__), "sending failed (%r); printing metric "
                       "lines instead" % (error,))
            # Each batch once, under the id it may have been stored with (forwarded lines of a
            # batch that landed after all are then skipped, not stored twice).
            held = list(self._retry)
            if self._resume is not None and self._resume["step"] is not None and all(
                    batch_id != self._resume_batch for batch_id, _ in held):
                held.insert(0, (self._resume_batch or self._batch_prefix + "-r", []))
            if self._sending and all(self._sending is not blocks for _, blocks in held):
                held.append((self._sending_id, self._sending))
            held.append((None, self._taken))
            self._retry, self._retry_rows, self._sending, self._taken = [], 0, [], []
            with self._lock:  # samples cannot be printed: counted
                self.unsent += len(self._samples) + sum(len(p) for p in self._samples_retry)
                self._samples, self._samples_retry, self._sample_bytes = [], [], 0
            for batch_id, blocks in held:
                try:
                    self._print(blocks, batch_id)
                except Exception:  # stdout failed too: counted at finish
                    self.unsent += _values(blocks)

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
        with self._lock:  # what log() gathered since the last flush, taken whole, and the info
            self._taken, self._blocks, self._tail, self._rows = self._blocks, [], None, 0
            info, self._pending_info = self._pending_info, None
        tried = False  # the resume, once a flush: printed and not forwarded, it waits
        while self._taken or info or (self._unsaid_resume() and not tried):
            # A resume goes first and alone: no point lands before it, none is lost with it.
            alone = self._unsaid_resume() and not tried
            tried = tried or alone
            blocks, self._taken = _split(self._taken,
                                         0 if alone else _rows_within(self._taken, BATCH_VALUES))
            self._sending = blocks  # until settled: printed if sending it fails unexpectedly
            self._batches += 1
            batch_id = self._sending_id = "%s-%d" % (self._batch_prefix, self._batches)
            if not alone and self._unsaid_resume():  # it went out as a line: points follow it
                outcome = "print"
            elif self._retry or (time.time() < self._down_until and not final):
                outcome = "retry" if self._backoff or self._retry else "print"
            else:
                outcome = self._send(batch_id, blocks, info)
            if info and outcome != "acked":
                with self._lock:  # sent with a later batch; what came since is newer
                    self._pending_info = _merged_info(info, self._pending_info)
            info = None
            self._settle(batch_id, blocks, outcome)
            self._sending = []
        self._flush_samples(final)

    def _flush_samples(self, final):
        """Sends samples: those that failed before first, then what log() took since, encoded
        here, a push of at most SAMPLES_BODY bytes at a time. None while a resume is not said
        yet: the collector would take them for the run's earlier life (or refuse a fork)."""
        if self._resume is not None and not final:
            return
        with self._lock:
            texts, self._record_texts = self._record_texts, None
        if texts and not self._printing:  # the record's: not counted, lost if not taken
            self._request("POST", "/api/v1/push/samples", _samples_body(self.name, texts),
                          "application/x-signalbox-samples", time.monotonic() + self._timeout)
        while self._samples_retry and (final or time.time() >= self._down_until):
            with self._lock:  # off the list while it is sent: a split half may add to it
                pending = self._samples_retry.pop(0)
                self._sample_bytes -= _sample_size(pending)
            outcome = self._send_samples(pending)
            if outcome == "retry" and not final:
                with self._lock:
                    self._samples_retry.insert(0, pending)
                    self._sample_bytes += _sample_size(pending)
                break
            if outcome == "retry":
                self.unsent += len(pending)
        with self._lock:
            taken, self._samples = self._samples, []
            self._sample_bytes -= sum(sample._size() for _, _, _, sample in taken)
        pending, size = [], 0
        for tag, step, wall, sample in taken:
            try:
                items = []
                for index, (data, fields) in enumerate(sample._encoded()):
                    header = dict(fields, tag=tag, kind=sample.kind, step=step, time=wall,
                                  index=index, bytes=len(data))
                    json.dumps(header, allow_nan=False)  # a NaN edge: refused here, said
                    items.append((header, data))
            except Exception as error:  # noqa: BLE001 - one sample's fault costs only itself
                self.unencoded += 1
                self._warn(("sample", tag), "sample %r at step %s cannot be encoded: %s; dropped "
                           "(said once per tag)" % (tag, step, error))
                continue
            for header, data in items:
                if pending and (size + len(data) > SAMPLES_BODY
                                or len(pending) >= SAMPLES_PER_PUSH):
                    self._push_samples(pending, final)
                    pending, size = [], 0
                pending.append((header, data))
                size += len(data)
        if pending:
            self._push_samples(pending, final)

    def _push_samples(self, pending, final):
        if self._samples_retry or (time.time() < self._down_until and not final):
            outcome = "retry"
        else:
            outcome = self._send_samples(pending)
        if outcome != "retry":
            return
        if final:
            self.unsent += len(pending)
            return
        with self._lock:  # kept for another try, within max_sample_bytes: the oldest go first
            self._samples_retry.append(pending)
            self._sample_bytes += _sample_size(pending)
            while self._sample_bytes > self._max_sample_bytes and self._samples_retry:
                oldest = self._samples_retry.pop(0)
                self._sample_bytes -= _sample_size(oldest)
                self.unsent += len(oldest)
                self._warn("samples-full", "the collector is not taking samples and %d bytes "
                           "wait: dropping the oldest (counted at finish)" % self._max_sample_bytes)

    def _send_samples(self, pending):
        """'acked' (stored, or refused for good: said and counted), or 'retry'. A push refused
        for its content is split until only the bad items are dropped."""
        status, detail = self._request("POST", "/api/v1/push/samples",
                                       _samples_body(self.name, pending),
                                       "application/x-signalbox-samples",
                                       time.monotonic() + self._timeout)
        if 200 <= status < 300:
            self._down_until, self._backoff = 0.0, 0.0
            self.acknowledged += len(pending)
            return "acked"
        if status in (400, 413) and len(pending) > 1:
            half = len(pending) // 2
            for part in (pending[:half], pending[half:]):
                if self._send_samples(part) == "retry":
                    self._push_samples(part, self._final)
            return "acked"
        if status in (400, 404, 413):
            self.refused += len(pending)
            self._warn(("samples-refused", detail), "the collector refused %d samples: %s (said "
                       "once; counted at finish)" % (len(pending), detail if status != 404 else
                                                     "it is older than samples"))
            return "acked"
        self._backoff = min(30.0, max(0.5, self._backoff * 2))
        self._down_until = time.time() + self._backoff
        return "retry"

    def _settle(self, batch_id, blocks, outcome):
        """Keeps a batch for another try (bounded: past max_queue the oldest are printed), or
        prints it, as `outcome` says."""
        if outcome == "retry" and self._final:
            outcome = "print"
        if outcome == "retry" and (blocks or self._resumes(batch_id)):
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
        if batch_id is not None and self._resumes(batch_id):  # first: the lines follow it
            line = {"resume": self._resume, "batch": batch_id}
            if self._line_run:
                line["run"] = self._line_run
            print(PREFIX + json.dumps(line, separators=(",", ":")), file=self._out, flush=False)
            if os.environ.get("SIGNALBOX_RUN"):  # Signalbox forwards the job's output
                self._resume = None
                # A push could reach the collector before the line does, and be rewound by it.
                self._printing = True
                self._warn("printing", "run %r's restart went out as a metric line: its points "
                           "do too from now on (the job's output carries them)" % self.name)
            else:  # nobody forwards it: the next push says it again, before any point
                self._resume_batch = None
        for step, wall, metrics in _records(blocks):
            print(_line(metrics, step, wall, batch_id, self._line_run), file=self._out,
                  flush=False)
            self.printed += len(metrics)
        self._out.flush()

    def _columns(self, batch_id, blocks, info, resume=False):
        """The batch as a columnar push (the collector's /api/v1/push/columns, version 1)."""
        header = {"run": self.name, "batch": batch_id,
                  "groups": [{"rows": len(b[1]), "metrics": list(b[0]), "time": True}
                             for b in blocks]}
        if info:
            header["info"] = info
        if resume:
            header["resume"] = self._resume
        text = json.dumps(header, separators=(",", ":"), default=str).encode()
        parts = [b"SBC1", struct.pack("<I", len(text)), text, bytes(-(8 + len(text)) % 8)]
        for keys, steps, walls, columns in blocks:
            for column in (steps, walls, *columns):
                if sys.byteorder == "big":  # the format is little-endian
                    column = array.array("d", column)
                    column.byteswap()
                parts.append(column)
        return b"".join(parts)

    def _json(self, batch_id, blocks, info, resume=False):
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
        if resume:
            body["resume"] = self._resume
        return json.dumps(body, separators=(",", ":"), default=str).encode()

    def _unsaid_resume(self):
        """Whether a resume whose step is known waits for its batch."""
        resume = self._resume
        return resume is not None and resume["step"] is not None and self._resume_batch is None

    def _resumes(self, batch_id):
        """Whether this batch says the run resumed: the first one sent, and only it (its retries
        and the halves it is split into), so that no later batch rewinds over an earlier one."""
        if self._resume is None or self._resume["step"] is None:  # not yet known: not yet said
            return False
        if self._resume_batch is None:
            self._resume_batch = batch_id
        # Its halves (a, b, ...) and itself without the info ("r"); never another batch.
        return (batch_id.startswith(self._resume_batch)
                and set(batch_id[len(self._resume_batch):]) <= set("abr"))

    def _send(self, batch_id, blocks, info):
        """'acked', 'retry' (the collector failed: send again later), or 'print' (no collector
        answers). A batch refused for its content is split, and only bad records dropped."""
        if self._printing and blocks:
            return "print"
        carries = self._resumes(batch_id)  # decided once: log() may set its step meanwhile
        status, detail = self._post(batch_id, blocks, info, carries)
        if 200 <= status < 300:
            if carries:
                self._resume = None  # said: the run resumed
            self._down_until, self._backoff = 0.0, 0.0
            self.acknowledged += _values(blocks)
            if self._on_ack and blocks:
                self._on_ack(list(_records(blocks)))
            return "acked"
        if status in (400, 413):
            rows = _rows(blocks)
            if not blocks and carries:
                if info:  # which was refused: the resume alone first, then the info alone
                    self._settle(batch_id + "r", [], self._send(batch_id + "r", [], None))
                    return self._send(batch_id + "i", [], info)
                self._resume = None  # the resume refused: the run goes on without
                self._warn(("resume", detail), "the collector refused to resume run %r: %s; "
                           "it goes on without" % (self.name, detail))
                return "acked"
            if not blocks:  # the run's info alone, refused: said, and not sent again
                self._warn(("info", detail), "the collector refused run %r's info: %s"
                           % (self.name, detail))
                return "acked"
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

    def _post(self, batch_id, blocks, info, resume=False):
        """(HTTP status, error text); status 0 when nothing answered, -1 on a timeout."""
        deadline = time.monotonic() + self._timeout
        if self._columnar:
            status, detail = self._request("POST", "/api/v1/push/columns",
                                           self._columns(batch_id, blocks, info, resume),
                                           "application/x-signalbox-columns", deadline)
            if status != 404:
                return status, detail
            self._columnar = False  # a collector from before columnar pushes: JSON from now on
        return self._request("POST", "/api/v1/push", self._json(batch_id, blocks, info, resume),
                             "application/json", deadline)

    def _request(self, method, path, data, content_type, deadline, limit=1 << 20):
        """(HTTP status, answer) — the error text for a status of 400 or more, the body
        otherwise; status 0 when nothing answered, -1 when the answer did not come in time
        (the request's deadline, or finish()'s) or was not HTTP."""
        if self._deadline is not None:
            deadline = min(deadline, self._deadline)
        headers = {}
        if content_type:
            headers["Content-Type"] = content_type
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        if self.project:
            headers["X-Signalbox-Project"] = self.project
        try:
            status, answer = self._endpoint.exchange(method, path, data, headers, deadline, limit)
        except socket.timeout:
            return -1, "timed out: no whole answer within %g s" % self._timeout
        except (OSError, ValueError) as error:  # refused, reset, closed: as if none answered
            return 0, str(error) or type(error).__name__
        if status < 400:
            return status, answer
        text = answer.decode(errors="replace")
        try:
            text = json.loads(text).get("error", text)
        except (ValueError, AttributeError):
            pass
        return status, text


def _samples_body(run, pending):
    """A push of samples (the collector's /api/v1/push/samples, version 1): [(header, bytes)]."""
    text = json.dumps({"run": run, "samples": [h for h, _ in pending]},
                      separators=(",", ":")).encode()
    return b"".join([b"SBS1", struct.pack("<I", len(text)), text, bytes(-(8 + len(text)) % 8)]
                    + [data for _, data in pending])


def _merged_info(older, newer):
    """Info updates `older` then `newer` as one: newer fields win, configs merge key by key."""
    merged = dict(older or {}, **(newer or {}))
    if older and newer and "config" in older and "config" in newer:
        merged["config"] = dict(older["config"], **newer["config"])
    return merged or None


CONFIG_DEPTH = 16  # the collector refuses configs nested deeper than 32 levels
CONFIG_TEXT = 4096  # characters kept of a value that is no JSON, as its text
CONFIG_ITEMS = 1000  # items kept of a list, and entries of a mapping
CONFIG_NODES = 20_000  # values converted in all; past it, the rest is left out
CONFIG_BYTES = 60_000  # the collector takes 64 KiB of config, merged: larger values left out


def _plain_config(config):
    """`config` (a mapping, pairs, or an object with attributes such as argparse's Namespace)
    as JSON the collector takes: keys as text, tuples and sets as lists, NaN and infinities and
    what is no JSON (a class, a tensor, a path) as text; nesting, cycles, long lists and the
    whole size bounded, what is left out said in its place."""
    if not isinstance(config, collections.abc.Mapping):
        try:
            config = dict(config)
        except (TypeError, ValueError):
            config = dict(vars(config))
    plain = _plain(config, 0, set(), [CONFIG_NODES])
    sizes = {key: len(json.dumps(value)) for key, value in plain.items()}
    for key in sorted(sizes, key=sizes.get, reverse=True):  # the largest values go first
        if sum(sizes.values()) <= CONFIG_BYTES:
            break
        plain[key] = "(left out: %d bytes as JSON)" % sizes[key]
        sizes[key] = len(plain[key]) + 8
    return plain


def _plain(value, depth, path, budget):
    budget[0] -= 1
    if value is None or isinstance(value, (bool, int, str)):
        return value[:CONFIG_TEXT] if isinstance(value, str) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    nested = isinstance(value, (collections.abc.Mapping, list, tuple, set, frozenset))
    if nested and (depth >= CONFIG_DEPTH or id(value) in path or budget[0] <= 0):
        return "(left out: %s)" % ("a cycle" if id(value) in path else "too deep or too large")
    if nested:
        path.add(id(value))
        try:
            if isinstance(value, collections.abc.Mapping):
                return {str(key): _plain(item, depth + 1, path, budget)
                        for key, item in itertools.islice(value.items(), CONFIG_ITEMS)}
            return [_plain(item, depth + 1, path, budget)
                    for item in itertools.islice(value, CONFIG_ITEMS)]
        finally:
            path.discard(id(value))
    item = getattr(value, "item", None)  # a numpy or torch scalar
    if callable(item) and getattr(value, "ndim", None) == 0:
        try:
            return _plain(item(), depth, path, budget)
        except Exception:
            pass
    return str(value)[:CONFIG_TEXT]


DIFF_BYTES = 1 << 20  # of the working tree's diff recorded at most (the rest is cut, and said)
RECORD_TEXT = 1024  # characters kept of each recorded value
RECORD_ARGV = 4096  # characters of the command line recorded at most (the collector takes 16 KiB)
RECORD_SECONDS = 5.0  # the whole record's time at most: git in a huge or remote tree gives up
# Command-line words whose value is a secret: --token=..., --api-key X, --password ...
SECRET_WORD = re.compile(r"^--?[\w.-]*(token|key|secret|password|passwd|credential)[\w.-]*",
                         re.IGNORECASE)


def _script_directory():
    """Where the script that runs lives (its git repository is the run's code), else here."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return os.path.dirname(os.path.abspath(main)) if main else os.getcwd()


def _output(argv, cwd, deadline, most=64 << 10):
    """What `argv` prints (at most `most` bytes, and whether it printed more), or (None,
    False) when it fails or is not done by `deadline` (time.monotonic()). Read with a deadline
    and ended as a process group: a descendant (or a fork of this process) holding the pipe
    cannot keep it waiting."""
    import select
    import subprocess
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return None, False
    out, complete = bytearray(), False
    try:
        while len(out) <= most:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                break
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                complete = True
                break
            out += chunk
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # done, cut or late: its whole group ends
        except OSError:
            pass
        status = proc.wait()
        proc.stdout.close()
    if len(out) > most:
        return bytes(out[:most]), True
    return (bytes(out), False) if complete and status == 0 else (None, False)


def _git(directory, deadline, *args):
    out, _ = _output(("git", "--no-optional-locks", "-C", directory) + args, directory, deadline)
    return out.decode("utf-8", "replace").strip() if out is not None else None


def _code_record(directory, deadline):
    """The git repository holding `directory`, as ({commit, branch, dirty, remote, root,
    diff_bytes, diff_cut}, the diff against the commit) or (None, None) outside one. What git
    could not say by `deadline` is left out (never guessed: no answer is not a clean tree)."""
    root = _git(directory, deadline, "rev-parse", "--show-toplevel")
    if not root:
        return None, None
    code = {"root": root[:RECORD_TEXT]}
    commit = _git(directory, deadline, "rev-parse", "HEAD")
    if commit:
        code["commit"] = commit[:64]
    branch = _git(directory, deadline, "rev-parse", "--abbrev-ref", "HEAD")
    if branch and branch != "HEAD":  # HEAD: detached
        code["branch"] = branch[:RECORD_TEXT]
    remote = _git(directory, deadline, "config", "--get", "remote.origin.url")
    if remote:
        code["remote"] = _without_credentials(remote)[:RECORD_TEXT]
    status = _git(directory, deadline, "status", "--porcelain", "--untracked-files=no")
    diff = None
    if status is not None:
        code["dirty"] = bool(status)
    if status and commit:
        out, cut = _output(("git", "--no-optional-locks", "-C", directory, "diff", "--no-color",
                            "--no-ext-diff", "HEAD"), directory, deadline, most=DIFF_BYTES)
        if out:
            diff = out.decode("utf-8", "replace")
            code["diff_bytes"] = len(out)
            code["diff_cut"] = cut
    return code, diff


def _command_line(argv):
    """sys.argv as recorded: secrets' values masked, at most RECORD_ARGV characters."""
    words, masking, left = [], False, RECORD_ARGV
    for word in argv:
        word = str(word)
        if masking and not word.startswith("-"):
            word, masking = "***", False
        elif SECRET_WORD.match(word):
            name, equals, _ = word.partition("=")
            word, masking = (name + "=***", False) if equals else (word, True)
        else:
            masking = False
        if len(word) > left:
            words.append(word[:left] + "...")
            break
        words.append(word)
        left -= len(word) + 1
    return words


def _without_credentials(url):
    """A remote's URL without the user and password (or token) a URL may carry."""
    if "://" not in url:
        return url  # scp-like, user@host:path: a login name, no secret
    parts = urllib.parse.urlsplit(url)
    return parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]).geturl()


def _environment_record():
    """({argv, python, executable, platform, host, cwd}, the installed packages as lines of
    name==version, sorted)."""
    import platform
    environment = {
        "argv": _command_line(sys.argv),
        "python": platform.python_version(),
        "executable": (sys.executable or "")[:RECORD_TEXT],
        "platform": platform.platform()[:RECORD_TEXT],
        "host": socket.gethostname()[:RECORD_TEXT],
        "cwd": os.getcwd()[:RECORD_TEXT],
    }
    packages = None
    try:
        from importlib import metadata
        names = set()
        for dist in metadata.distributions():
            name = dist.metadata["Name"] if dist.metadata else None
            if name:
                names.add("%s==%s" % (name, dist.version))
        packages = "\n".join(sorted(names, key=str.lower)[:10_000]) or None
    except Exception:
        pass
    return environment, packages


def _sample_size(pending):
    return sum(len(data) for _, data in pending)


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
    """Starts a run and makes it the one log() and finish() use. Returns the Run. Options are
    Run's: resume=True continues a run of this name instead of starting name-2."""
    global _current
    if _current is not None:
        _current.finish()
    _current = Run(run=run, config=config, collector=collector, **options)
    return _current


def run():
    """The current Run, or None before init()."""
    return _current


def log(metrics, step=None, wall=None):
    """Logs to the current run, starting one with defaults if init() was not called."""
    if _current is None:
        init()
    _current.log(metrics, step, wall)


def finish(status="finished"):
    global _current
    if _current is not None:
        _current.finish(status)
        _current = None


def _finish_all(status):
    """Ends every run of this process at once, within one finish_timeout."""
    runs = list(_live) + ([_current] if _current is not None else [])
    for each in runs:
        each._begin_finish(status)
    for each in runs:
        each._end_finish()


def _finish_at_exit():
    global _current
    failed = getattr(sys, "last_value", None) is not None
    _finish_all(STATUS_ON_SIGNAL if _signalled else "failed" if failed else "finished")
    _current = None


def _on_signal(signum, frame):
    """SIGINT or SIGTERM: the runs end "stopped", and the signal then does what it did."""
    global _signalled
    _signalled = signum
    previous = _previous_handlers.get(signum)
    if callable(previous):
        # The script's handler (or Python's KeyboardInterrupt) decides; the runs are ended at
        # exit, so a script that goes on after the signal can still log.
        previous(signum, frame)
        return
    for each in list(_live):
        if not each._lock.acquire(timeout=0.05):
            # The signal stopped this thread inside log(), lock held: come again once it let go.
            again = threading.Timer(0.05, os.kill, (os.getpid(), signum))
            again.daemon = True
            again.start()
            return
        each._lock.release()
    _finish_all(STATUS_ON_SIGNAL)
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)  # the process ends by the signal, as it would have


def _install_signal_handlers():
    if threading.current_thread() is not threading.main_thread():
        return  # signal.signal() works only there; exit still flushes
    for signum in (signal.SIGINT, signal.SIGTERM):
        current = signal.getsignal(signum)
        if signum in _previous_handlers or current in (signal.SIG_IGN, None):
            continue  # once (a handler set since may chain to ours), or ignored, or set in C
        _previous_handlers[signum] = current
        signal.signal(signum, _on_signal)


def _after_fork_in_child():
    global _live
    for each in list(_live) + ([_current] if _current is not None else []):
        each._forked_copy()
    _live = set()


_previous_excepthook = sys.excepthook


def _excepthook(kind, value, traceback):
    _finish_all(STATUS_ON_SIGNAL if issubclass(kind, KeyboardInterrupt) or _signalled
                else "failed")
    _previous_excepthook(kind, value, traceback)


sys.excepthook = _excepthook
atexit.register(_finish_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
