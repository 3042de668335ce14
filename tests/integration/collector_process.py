"""Real signalbox-collector processes for the collector_hostile_* tests, and the requests they
make of them; the binaries under test are named once, by take_binaries."""

import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import unittest
import urllib.request

COLLECTOR, CLI = None, None
# The Python client from this tree, for the tests that drive it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))


def take_binaries(argv):
    """signalbox-collector and signalbox-cli from the command line, for Collector and the caller."""
    global COLLECTOR, CLI
    COLLECTOR, CLI = argv[1], argv[2]
    return COLLECTOR, CLI


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def room_for_sockets():
    """This test's own descriptor limit raised, so that it can open more sockets than the
    collector under test may hold."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))


class Collector:
    """One collector process on a data directory of its own (or a given one)."""

    def __init__(self, data=None, watch=None, max_fds=None, extra=(), cwd=None, env=None):
        self.data = data or tempfile.mkdtemp(prefix="sb-hostile-")
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        command = [COLLECTOR, "--listen", "127.0.0.1:%d" % self.port, "--data-dir", self.data]
        if watch:
            command += ["--watch", watch]
        command += list(extra)
        # max_fds: one limit for soft and hard, or a (soft, hard) pair
        fds = max_fds if isinstance(max_fds, tuple) else (max_fds, max_fds)
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, fds)) if max_fds else None
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, preexec_fn=limit, cwd=cwd,
                                        env=dict(os.environ, **env) if env else None)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            raise AssertionError("collector did not start: %r %s" % (line, self.process.stderr.read()))

    def request(self, path, body=None, content_type="application/json", headers=None):
        """(status, parsed JSON or text) of one request; never raises for an HTTP status."""
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data,
                                         headers=dict({"Content-Type": content_type},
                                                      **(headers or {})),
                                         method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def alive(self):
        return self.process.poll() is None and self.request("/api/v1/health")[0] == 200

    def rss_mb(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=20)

    def stop(self):
        self.process.terminate()
        self.process.communicate(timeout=20)


class SharedCollector(unittest.TestCase):
    """One collector for all of a test class's tests, stopped after the last."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()


def q(value):
    return urllib.parse.quote(value, safe="")


def read_head(stream):
    """(status, headers by lower-case name) of an HTTP response's head, read off a stream."""
    status = int(stream.readline().split()[1])
    headers = {}
    for line in iter(stream.readline, b"\r\n"):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def raw(collector, request, timeout=20):
    """(status, headers, body) of the one answer to raw request bytes on a new connection."""
    with collector.connect() as sock:
        sock.settimeout(timeout)
        sock.sendall(request)
        stream = sock.makefile("rb")
        status, headers = read_head(stream)
        return status, headers, stream.read(int(headers.get("content-length", 0)))


def stored_steps(collector, run, metric):
    status, csv = collector.request("/api/v1/export?run=%s&metric=%s" % (q(run), q(metric)))
    if status != 200:
        return []
    return [float(line.split(",")[0]) for line in csv.splitlines()[1:]]


def stored_points(collector, run, metric):
    status, csv = collector.request("/api/v1/export?run=%s&metric=%s" % (q(run), q(metric)))
    return [tuple(float(x) for x in line.split(",")[:2]) for line in csv.splitlines()[1:]] \
        if status == 200 else []
