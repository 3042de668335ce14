"""Hostile HTTP against a real signalbox-collector process: huge bodies, slow and idle sockets,
cross-site requests and rebinding Host names, protocol corner cases, unbounded requests, and the
address and token the CLI finds. Every case asserts that the bad request is refused, saying why,
and that the collector keeps answering.

usage: test_collector_http.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI (loopback only, bounded time)"""

import contextlib
import json
import math
import os
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import collector_process
from collector_process import (SharedCollector, free_port, room_for_sockets, Collector, q, raw,
                               read_head, stored_steps)

COLLECTOR, CLI = None, None


def read_response(sock):
    """(status, body) of one HTTP response read off a raw socket (Content-Length or chunked)."""
    stream = sock.makefile("rb")
    status, headers = read_head(stream)
    if "content-length" in headers:
        return status, stream.read(int(headers["content-length"]))
    body = b""
    while True:
        size = int(stream.readline(), 16)
        if size == 0:
            return status, body
        body += stream.read(size)
        stream.readline()


class Sockets(unittest.TestCase):
    """Finding 6 and the socket half of 17: huge bodies, slow senders, idle sockets, big exports."""

    def test_a_huge_body_is_refused_with_413_and_never_held(self):
        collector = Collector()
        try:
            sock = collector.connect()
            declared = 1_500_000_000
            sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                         b"\r\nContent-Length: %d\r\n\r\n" % declared)
            piece = b"[" + b"1," * (1 << 19)
            sent = 0
            with contextlib.suppress(OSError):
                while sent < 200 << 20:  # 200 MB of it, then the sender gives up
                    sock.sendall(piece)
                    sent += len(piece)
            sock.shutdown(socket.SHUT_WR)
            status, body = read_response(sock)
            sock.close()
            self.assertEqual(status, 413)
            self.assertIn(b"at most 67108864", body)
            self.assertLess(collector.rss_mb(), 100, "the body was held in memory")
            self.assertTrue(collector.alive())
        finally:
            collector.stop()

    def test_a_slow_sender_does_not_hold_up_other_clients(self):
        collector = Collector()
        try:
            body = json.dumps({"run": "slow", "series": {"x": {"step": [1, 2], "value": [3, 4]}}})
            sock = collector.connect()
            sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n"
                         % len(body) + body[:10].encode())
            for _ in range(5):  # answered while the push is half-sent
                self.assertEqual(collector.request("/api/v1/health")[0], 200)
            sock.sendall(body[10:].encode())
            self.assertEqual(read_response(sock), (200, b'{"accepted":2}'))
            sock.close()
        finally:
            collector.stop()

    def test_idle_sockets_do_not_starve_a_client(self):
        # Before: under a 1,024 descriptor limit, 1,064 idle sockets left no room for anyone.
        room_for_sockets()
        collector = Collector(max_fds=1024)
        idle = []
        try:
            for _ in range(1100):
                with contextlib.suppress(OSError):
                    idle.append(collector.connect())
            idle[0].sendall(b"GET /api/v1/hea")  # and some that never finish their request
            status, health = collector.request("/api/v1/health")
            self.assertEqual(status, 200)
            self.assertEqual(health["service"], "signalbox-collector")
        finally:
            for sock in idle:
                sock.close()
            collector.stop()

    def test_an_export_streams_at_the_readers_pace(self):
        collector = Collector()
        try:
            points = 2_000_000
            for start in range(0, points, 500_000):
                steps = list(range(start, start + 500_000))
                status, _ = collector.request("/api/v1/push", {
                    "run": "big", "series": {"loss": {"step": steps, "value": steps,
                                                      "time": [1.5e9] * len(steps)}}})
                self.assertEqual(status, 200)
            before = collector.rss_mb()
            sock = collector.connect()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
            sock.sendall(b"GET /api/v1/export?run=big&metric=loss HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            stream = sock.makefile("rb")
            self.assertIn(b"200", stream.readline())
            peak, lines, tail = before, 0, b""
            for line in iter(stream.readline, b"\r\n"):
                self.assertNotIn(b"content-length", line.lower())
            while True:  # a slow reader: 64 KB at a time
                size = int(stream.readline(), 16)
                if size == 0:
                    break
                chunk = tail + stream.read(size)
                stream.readline()
                lines += chunk.count(b"\n")
                tail = chunk[chunk.rfind(b"\n") + 1:]
                if lines % 50 == 0:
                    time.sleep(0.001)
                    peak = max(peak, collector.rss_mb())
            sock.close()
            print("\nexport of %d points: collector RSS %.1f MB before, %.1f MB at most while "
                  "streaming" % (points, before, peak), file=sys.stderr)
            self.assertEqual(lines, points + 1)
            self.assertLess(peak - before, 40, "the export was built in memory")
        finally:
            collector.stop()


def run_names(collector):
    status, runs = collector.request("/api/v1/runs")
    assert status == 200, runs
    return [run["name"] for run in runs]


class CrossSite(unittest.TestCase):
    """Finding 9 of issue 29: any web page could write to the token-less loopback collector (a
    cross-site text/plain POST was stored), and DNS rebinding read every run. Browsers' requests
    for other sites, and Host names that are not this machine, are refused before anything runs."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()
        status, _ = cls.collector.request("/api/v1/push", {
            "run": "private-run", "info": {"note": "secret note"},
            "series": {"loss": {"step": [1], "value": [0.5]}}})
        assert status == 200

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()

    def send(self, method, target, headers, body=b""):
        head = "%s %s HTTP/1.1\r\n" % (method, target)
        head += "".join("%s: %s\r\n" % item for item in headers)
        if body:
            head += "Content-Length: %d\r\n" % len(body)
        return raw(self.collector, head.encode() + b"Connection: close\r\n\r\n" + body)

    def host(self):
        return "127.0.0.1:%d" % self.collector.port

    def test_a_cross_site_text_plain_post_is_refused_and_nothing_is_stored(self):
        line = b'@signalbox {"step": 1, "loss": 0.5}\n'
        push = json.dumps({"run": "csrf-push", "series": {"x": {"step": [1], "value": [1]}}})
        cases = [
            # A form or fetch(no-cors) from another site: the browser says where it comes from.
            ("/api/v1/lines?run=csrf-lines", [("Origin", "https://evil.example"),
                                              ("Content-Type", "text/plain")], line),
            ("/api/v1/push", [("Origin", "https://evil.example"),
                              ("Content-Type", "text/plain;charset=UTF-8")], push.encode()),
            ("/api/v1/push", [("Origin", "null"), ("Content-Type", "text/plain")], push.encode()),
            ("/api/v1/push", [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "no-cors"),
                              ("Content-Type", "text/plain")], push.encode()),
            ("/api/v1/push", [("Sec-Fetch-Mode", "no-cors"),
                              ("Content-Type", "application/x-www-form-urlencoded")],
             push.encode()),
            ("/api/v1/push", [("Origin", "http://%s" % self.host()),
                              ("Content-Type", "multipart/form-data; boundary=x")], push.encode()),
            ("/api/v1/recovery/acknowledge", [("Origin", "https://evil.example")], b""),
        ]
        for target, headers, body in cases:
            status, _, answer = self.send("POST", target, [("Host", self.host())] + headers, body)
            self.assertEqual(status, 403, (target, headers, answer))
            self.assertIn(b"refused", answer)
        names = run_names(self.collector)
        self.assertNotIn("csrf-lines", names)
        self.assertNotIn("csrf-push", names)
        # Scripts and the app send no Origin: their writes go on as before.
        status, _, answer = self.send("POST", "/api/v1/lines?run=script-lines",
                                      [("Host", self.host()), ("Content-Type", "text/plain")],
                                      line)
        self.assertEqual(status, 200, answer)
        self.assertIn("script-lines", run_names(self.collector))

    def test_origins_other_than_its_own_are_refused(self):
        for origin in ("https://evil.example", "http://evil.example:%d" % self.collector.port,
                       "null", "http://localhost:%d" % self.collector.port,
                       "http://127.0.0.1:%d" % (self.collector.port + 1),
                       "https://127.0.0.1:%d" % self.collector.port, "chrome-extension://abc",
                       "file://"):
            status, _, answer = self.send("GET", "/api/v1/runs",
                                          [("Host", self.host()), ("Origin", origin)])
            self.assertEqual(status, 403, origin)
            self.assertNotIn(b"private-run", answer)
        status, _, answer = self.send("GET", "/api/v1/runs",
                                      [("Host", self.host()), ("Origin", "http://" + self.host())])
        self.assertEqual(status, 200)
        self.assertIn(b"private-run", answer)

    def test_what_a_browser_sends_for_another_site_is_refused(self):
        for site, expected in (("cross-site", 403), ("same-site", 403), ("Cross-Site", 403),
                               ("same-origin", 200), ("none", 200)):
            status, _, answer = self.send("GET", "/api/v1/runs",
                                          [("Host", self.host()), ("Sec-Fetch-Site", site)])
            self.assertEqual(status, expected, (site, answer))

    def test_dns_rebinding_names_are_refused_and_read_nothing(self):
        port = self.collector.port
        for host in ("rebind.evil.example", "rebind.evil.example:%d" % port, "REBIND.EVIL.EXAMPLE.",
                     "127.0.0.1.nip.io:%d" % port, "127.0.0.1.evil.example", "localhost.evil.example",
                     "0x7f000001:%d" % port, "2130706433", "127.1:%d" % port, "0177.0.0.1",
                     "127.000.000.001", "0.0.0.0:%d" % port, "[::]:%d" % port, "[::ffff:7f00:1]x",
                     "192.168.1.10:%d" % port, "evil.example:80@127.0.0.1"):
            for target in ("/api/v1/runs", "/api/v1/health", "/api/v1/export?run=private-run&metric=loss"):
                status, _, answer = self.send("GET", target, [("Host", host)])
                self.assertIn(status, (400, 421), (host, target))
                self.assertNotIn(b"private-run", answer)
                self.assertNotIn(b"secret note", answer)
        status, _, answer = self.send("GET", "/api/v1/runs", [("Host", "rebind.evil.example")])
        self.assertEqual(status, 421)
        self.assertIn(b"rebind.evil.example", answer)
        for host in ("127.0.0.1:%d" % port, "127.0.0.1", "localhost:%d" % port, "LocalHost",
                     "127.0.0.2:%d" % port, "[::1]:%d" % port, "app.localhost:%d" % port):
            status, _, answer = self.send("GET", "/api/v1/runs", [("Host", host)])
            self.assertEqual(status, 200, host)
            self.assertIn(b"private-run", answer)
        # An HTTP/1.0 tool may name no host at all.
        status, _, _ = raw(self.collector, b"GET /api/v1/health HTTP/1.0\r\n\r\n")
        self.assertEqual(status, 200)
        # The same rule for the host an absolute-form target names.
        status, _, answer = self.send("GET", "http://rebind.evil.example:%d/api/v1/runs" % port,
                                      [("Host", self.host())])
        self.assertEqual(status, 421)
        self.assertNotIn(b"private-run", answer)

    def test_a_host_name_given_on_the_command_line_is_its_own(self):
        collector = Collector(extra=["--host-name", "Box.Internal"])
        try:
            for host, expected in (("box.internal:%d" % collector.port, 200), ("BOX.INTERNAL", 200),
                                   ("box.internal.evil.example", 421)):
                status, _, _ = raw(collector, b"GET /api/v1/health HTTP/1.1\r\nHost: %s\r\n"
                                   b"Connection: close\r\n\r\n" % host.encode())
                self.assertEqual(status, expected, host)
        finally:
            collector.stop()


class SlowAndMany(unittest.TestCase):
    """Finding 12 of issue 29: eight slow connections held the whole body budget and every push got
    503; idle connections from 127.0.0.2...127.0.0.9 counted as other peers and took every
    descriptor."""

    def push_ok(self, collector, run, step):
        status, answer = collector.request("/api/v1/push", {
            "run": run, "series": {"x": {"step": [step], "value": [step]}}})
        self.assertEqual(status, 200, answer)

    def test_eight_trickling_bodies_do_not_block_a_push(self):
        collector = Collector()
        slow = []
        try:
            for i in range(8):
                sock = collector.connect()
                framing = (b"Content-Length: 67108864" if i % 2 == 0 else
                           b"Transfer-Encoding: chunked")
                sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\n" + framing + b"\r\n\r\n")
                slow.append((sock, i % 2 == 0))
            for step in range(10):  # a byte from each now and then, and a push between
                for sock, sized in slow:
                    sock.sendall(b"[" if sized else b"1\r\n[\r\n")
                self.push_ok(collector, "normal", step)
                time.sleep(0.2)
            self.assertEqual(stored_steps(collector, "normal", "x"), list(map(float, range(10))))
        finally:
            for sock, _ in slow:
                sock.close()
            collector.stop()

    def test_bodies_that_stall_after_a_burst_give_their_room_back(self):
        collector = Collector()
        slow = []
        try:
            # 8 x 40 MiB of 64 MiB bodies, then nothing: more than half of the 512 MiB budget held
            # by bodies that do not move. Before, the sizes declared took the whole budget.
            piece = b"1," * (1 << 19)
            for _ in range(8):
                sock = collector.connect()
                sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\nContent-Length: 67108864\r\n\r\n[")
                for _ in range(40):
                    sock.sendall(piece)
                slow.append(sock)
            # Cut, oldest first, until they hold no more than half; well before the 30 s stall rule.
            cut, pending, deadline = 0, list(slow), time.time() + 20
            while cut < 2 and time.time() < deadline:
                for sock in select.select(pending, [], [], 1)[0]:
                    status, body = read_response(sock)
                    self.assertEqual(status, 408, body)
                    self.assertIn(b"slower than", body)
                    cut += 1
                    pending.remove(sock)
            self.assertGreaterEqual(cut, 2)
            self.push_ok(collector, "after", 1)
        finally:
            for sock in slow:
                sock.close()
            collector.stop()

    def test_a_thousand_idle_sockets_from_many_loopback_addresses(self):
        room_for_sockets()
        collector = Collector(max_fds=1024)
        idle = []
        try:
            for i in range(1100):
                with contextlib.suppress(OSError):
                    sock = socket.socket()
                    sock.settimeout(20)
                    sock.bind(("127.0.0.%d" % (2 + i % 8), 0))
                    idle.append(sock)
                    sock.connect(("127.0.0.1", collector.port))
            with contextlib.suppress(OSError):  # and one that never finishes its request
                idle[-1].sendall(b"GET /api/v1/hea")
            status, health = collector.request("/api/v1/health")
            self.assertEqual(status, 200)
            self.assertEqual(health["service"], "signalbox-collector")
            self.push_ok(collector, "after-idle", 1)
        finally:
            for sock in idle:
                sock.close()
            collector.stop()

    def test_the_descriptor_limit_is_raised_to_the_hard_limit(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        collector = Collector(max_fds=(min(soft, 1024), hard))
        try:
            with open("/proc/%d/limits" % collector.process.pid) as limits:
                line = next(l for l in limits if l.startswith("Max open files"))
            self.assertEqual(int(line.split()[3]), min(hard, 16384), line)
        finally:
            collector.stop()


class HttpProtocol(SharedCollector):
    """Finding 16 of issue 29, its HTTP half: HEAD had a body, absolute-form targets got 404, and
    invalid UTF-8 in a parameter merged different runs."""

    def test_head_is_answered_with_headers_only(self):
        with self.collector.connect() as sock:
            sock.sendall(b"HEAD /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"HEAD /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"HEAD /api/v1/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            stream = sock.makefile("rb")
            lengths = []
            for expected in (200, 200, 404):
                self.assertEqual(int(stream.readline().split()[1]), expected)
                headers = dict(line.decode().lower().split(": ", 1)
                               for line in iter(stream.readline, b"\r\n"))
                lengths.append(int(headers["content-length"]))
            # Had a body come, it would be read here as the next status line.
            status_line = stream.readline()
            self.assertTrue(status_line.startswith(b"HTTP/1.1 200"), status_line)
            headers = dict(line.decode().lower().split(": ", 1)
                           for line in iter(stream.readline, b"\r\n"))
            body = stream.read(int(headers["content-length"]))
            self.assertEqual(len(body), lengths[0])
            self.assertEqual(json.loads(body)["service"], "signalbox-collector")

    def test_an_absolute_form_target_is_answered(self):
        port = self.collector.port
        for target in ("http://127.0.0.1:%d/api/v1/health" % port,
                       "HTTP://LOCALHOST:%d/api/v1/health" % port,
                       "http://[::1]:%d/api/v1/health?x=1" % port):
            status, _, body = raw(self.collector, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  b"Connection: close\r\n\r\n" % target.encode())
            self.assertEqual(status, 200, (target, body))
            self.assertEqual(json.loads(body)["service"], "signalbox-collector")
        for target in ("ftp://127.0.0.1/api/v1/health", "http://u:p@127.0.0.1/api/v1/health"):
            status, _, _ = raw(self.collector, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               b"Connection: close\r\n\r\n" % target.encode())
            self.assertEqual(status, 400, target)

    def test_invalid_utf8_in_a_parameter_is_refused_by_name(self):
        line = b'@signalbox {"step": 1, "loss": 0.5}\n'
        for query, name in (("run=%FF", "run"), ("run=%FE", "run"), ("run=a%C0%80", "run"),
                            ("run=%ED%A0%80", "run"), ("run=ok&%FF=1", "\\ufffd"),
                            ("run=%F4%90%80%80", "run"), ("run=%E2%82", "run")):
            status, answer = self.collector.request("/api/v1/lines?" + query, line,
                                                    content_type="text/plain")
            self.assertEqual(status, 400, (query, answer))
            self.assertIn("not valid UTF-8", answer["error"])
            if name == "run":
                self.assertIn('"run"', answer["error"])
        for path in ("/api/v1/series?run=%FF&metric=loss", "/api/v1/runs?filter=%FE",
                     "/api/v1/metrics?run=%FF", "/api/v1/export?run=x&metric=%FF"):
            status, answer = self.collector.request(path)
            self.assertEqual(status, 400, path)
        self.assertEqual([name for name in run_names(self.collector) if "\ufffd" in name], [])
        # Valid UTF-8, a BOM included, names distinct runs.
        for run in ("é", "\ufeffé", "名前"):
            status, _ = self.collector.request("/api/v1/lines?run=" + q(run), line,
                                               content_type="text/plain")
            self.assertEqual(status, 200, run)
        names = run_names(self.collector)
        for run in ("é", "\ufeffé", "名前"):
            self.assertIn(run, names)


class PublishedCollector(unittest.TestCase):
    """The app publishes its embedded collector's address and secret in the user's runtime
    directory; signalbox-cli (and the Python client) find both there when not told otherwise."""

    def setUp(self):
        self.runtime = tempfile.mkdtemp(prefix="sb-runtime-")
        self.folder = os.path.join(self.runtime, "signalbox")
        os.mkdir(self.folder, 0o700)
        token = os.path.join(self.runtime, "token")
        with open(token, "w") as f:
            f.write("published-secret\n")
        self.collector = Collector(extra=["--token-file", token])

    def tearDown(self):
        self.collector.stop()
        shutil.rmtree(self.runtime)

    def publish(self, pid):
        with open(os.open(os.path.join(self.folder, "collector.token"),
                          os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("published-secret\n")
        with open(os.path.join(self.folder, "collector.url"), "w") as f:
            f.write("%s\n%d\n" % (self.collector.url, pid))

    def cli(self, *args):
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime)
        env.pop("SIGNALBOX_COLLECTOR", None)
        env.pop("SIGNALBOX_TOKEN", None)
        return subprocess.run([CLI] + list(args) + ["health"], capture_output=True, text=True,
                              env=env, timeout=30)

    def test_the_cli_finds_the_published_collector_and_its_secret(self):
        self.publish(self.collector.process.pid)
        result = self.cli()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("signalbox-collector", result.stdout)
        # Named by hand, as localhost: still the published one, so the secret goes with it.
        result = self.cli("--collector", "http://localhost:%d" % self.collector.port)
        self.assertEqual(result.returncode, 0, result.stderr)
        # A folder others may write to is not trusted: no secret is taken from it.
        os.chmod(self.folder, 0o777)
        result = self.cli("--collector", self.collector.url)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("token", result.stderr)


class Tls(unittest.TestCase):
    """--tls-certificate and --tls-key: the listener speaks https, with a certificate made here
    by openssl; a client that does not trust it, plain HTTP and a handshake that stalls are all
    refused, and none of them holds up a client that does."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="sb-tls-")
        cls.cert = os.path.join(cls.folder, "cert.pem")
        cls.key = os.path.join(cls.folder, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                        "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                        "-keyout", cls.key, "-out", cls.cert], check=True,
                       capture_output=True)
        cls.collector = Collector(extra=["--tls-certificate", cls.cert, "--tls-key", cls.key])
        cls.url = "https://127.0.0.1:%d" % cls.collector.port

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def trusting(self):
        import ssl
        return ssl.create_default_context(cafile=self.cert)

    def test_https_answers_and_pushes_are_stored(self):
        body = json.dumps({"run": "tls", "series": {"loss": {"step": [0, 1], "value": [2.0, 1.0]}}})
        request = urllib.request.Request(self.url + "/api/v1/push", data=body.encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10, context=self.trusting()) as answer:
            self.assertEqual(json.loads(answer.read())["accepted"], 2)
        with urllib.request.urlopen(self.url + "/api/v1/runs", timeout=10,
                                    context=self.trusting()) as answer:
            self.assertEqual([r["name"] for r in json.loads(answer.read())], ["tls"])
        # The CLI trusts the lab's CA named by SIGNALBOX_CA_FILE, and only then.
        env = dict(os.environ, SIGNALBOX_CA_FILE=self.cert)
        done = subprocess.run([CLI, "--collector", self.url, "runs"], capture_output=True,
                              text=True, timeout=30, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stdout.startswith("tls "), done.stdout)
        done = subprocess.run([CLI, "--collector", self.url, "runs"], capture_output=True,
                              text=True, timeout=30)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("self-signed", done.stderr)

    def test_untrusted_plain_and_stalled_clients_are_refused_and_hold_up_no_one(self):
        import ssl
        with self.assertRaises(urllib.error.URLError) as untrusted:
            urllib.request.urlopen(self.url + "/api/v1/health", timeout=10)
        self.assertIsInstance(untrusted.exception.reason, ssl.SSLCertVerificationError)
        # Plain HTTP gets no answer of HTTP: the connection is closed.
        with socket.create_connection(("127.0.0.1", self.collector.port), timeout=10) as plain:
            plain.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            self.assertNotIn(b"200 OK", plain.recv(4096))
        # Handshakes begun and dropped at once, more than a TLS server holds pending (30 by
        # default): it goes on accepting.
        for _ in range(40):
            socket.create_connection(("127.0.0.1", self.collector.port), timeout=10).close()
        # Handshakes that never come: the server keeps answering, and drops them after 5 s.
        stalled = [socket.create_connection(("127.0.0.1", self.collector.port), timeout=10)
                   for _ in range(40)]
        try:
            start = time.monotonic()
            with urllib.request.urlopen(self.url + "/api/v1/health", timeout=10,
                                        context=self.trusting()) as answer:
                self.assertEqual(answer.status, 200)
            self.assertLess(time.monotonic() - start, 5)
            stalled[0].settimeout(20)
            self.assertEqual(stalled[0].recv(1), b"")  # closed by the server
        finally:
            for sock in stalled:
                sock.close()

    def test_a_key_that_is_not_the_certificates_is_said_when_clients_fail(self):
        import ssl
        other = os.path.join(self.folder, "other-key.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-out", other], check=True,
                       capture_output=True)
        collector = Collector(extra=["--tls-certificate", self.cert, "--tls-key", other])
        try:
            for _ in range(3):
                with self.assertRaises((ssl.SSLError, urllib.error.URLError, ConnectionError)):
                    urllib.request.urlopen("https://127.0.0.1:%d/api/v1/health" % collector.port,
                                           timeout=10, context=self.trusting())
        finally:
            collector.process.terminate()
            _, said = collector.process.communicate(timeout=20)
        self.assertEqual(said.count("TLS handshake with 127.0.0.1 failed"), 1, said)

    def test_a_bad_certificate_or_key_is_said_and_nothing_listens(self):
        for cert, key, said in ((self.cert, "/nonexistent", "cannot read the TLS key"),
                                (self.key, self.key, "holds no PEM certificate"),
                                (self.cert, self.cert, "holds no unencrypted PEM key"),
                                (self.cert, None, "both a certificate and its key")):
            extra = ["--tls-certificate", cert] + (["--tls-key", key] if key else [])
            done = subprocess.run([COLLECTOR, "--listen", "127.0.0.1:%d" % free_port(),
                                   "--data-dir", tempfile.mkdtemp(prefix="sb-tls-bad-")] + extra,
                                  capture_output=True, text=True, timeout=30)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn(said, done.stderr)


class TokenFile(unittest.TestCase):
    def test_the_token_comes_from_a_file_and_stays_out_of_the_process_list(self):
        folder = tempfile.mkdtemp(prefix="sb-token-")
        path = os.path.join(folder, "token")
        with open(path, "w") as f:
            f.write("s3cret-from-file\n")
        port = free_port()
        process = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port, "--data-dir",
                                    os.path.join(folder, "data"), "--token-file", path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn("listening on", process.stdout.readline())
            with open("/proc/%d/cmdline" % process.pid, "rb") as f:
                self.assertNotIn(b"s3cret", f.read())
            url = "http://127.0.0.1:%d/api/v1/health" % port
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url, timeout=10)
            self.assertEqual(refused.exception.code, 401)
            request = urllib.request.Request(url, headers={"Authorization": "Bearer s3cret-from-file"})
            with urllib.request.urlopen(request, timeout=10) as response:
                self.assertEqual(response.status, 200)
            cli = subprocess.run([CLI, "--collector", "http://127.0.0.1:%d" % port, "--token-file",
                                  path, "health"], capture_output=True, text=True, timeout=30)
            self.assertEqual(cli.returncode, 0, cli.stderr)
        finally:
            process.terminate()
            process.communicate(timeout=20)
        for bad, why in (("/dev/zero", "not a regular file"), (os.path.join(folder, "none"), ""),
                         (folder, "")):
            result = subprocess.run([COLLECTOR, "--data-dir", os.path.join(folder, "d2"),
                                     "--token-file", bad], capture_output=True, text=True,
                                    timeout=30)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn(bad, result.stderr)
            self.assertIn(why, result.stderr)


class RunsWhere(SharedCollector):
    """`signalbox-cli runs --where` and /runs?where=: only the runs that pass, a query that cannot
    be read refused with where it goes wrong, and hostile queries answered, never hung on."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for i, (lr, opt, last) in enumerate([(1e-4, "adam", 0.3), (1e-3, "sgd", "NaN"),
                                             (3e-4, "AdamW", 0.7)]):
            body = {"run": "r%d" % i, "info": {"config": {"lr": lr, "optimizer": opt},
                                               "tags": ["baseline"] if i == 0 else []},
                    "series": {"val/loss": {"step": [0, 1], "value": [1.0, last]}}}
            status, reply = cls.collector.request("/api/v1/push", body)
            assert status == 200, reply

    def cli(self, *args):
        return subprocess.run([CLI, "--collector", self.collector.url, "runs", *args],
                              capture_output=True, text=True, timeout=30)

    def listed(self, result):
        self.assertEqual(result.returncode, 0, result.stderr)
        return [line.split()[0] for line in result.stdout.splitlines()]

    def test_the_cli_lists_the_runs_that_pass(self):
        self.assertEqual(self.listed(self.cli("--where", "config.lr < 5e-4")), ["r0", "r2"])
        self.assertEqual(self.listed(self.cli("--where", 'config.optimizer ~ "^adam" and '
                                              'best(val/loss) < 0.5 and tags has baseline')),
                         ["r0"])
        self.assertEqual(self.listed(self.cli("--where", "val/loss = nan")), ["r1"])
        self.assertEqual(self.listed(self.cli("r", "--where", "val/loss > 0.5")), ["r2"])

    def test_a_query_that_cannot_be_read_says_where(self):
        result = self.cli("--where", "config.lr <")
        self.assertEqual(result.returncode, 1)
        self.assertIn("--where: column 12: expected a value", result.stderr)
        status, reply = self.collector.request("/api/v1/runs?where=" + q("status in running"))
        self.assertEqual(status, 400, reply)
        self.assertIn("column 11", reply["error"])

    def test_hostile_queries_are_answered(self):
        # A backtracking pattern, deep nesting, a long query: refused or answered, and the
        # collector answers the next request.
        for query in ['name ~ "(a+)+$" or note ~ "(x|x)*y"', "(" * 5000 + "a=1" + ")" * 5000,
                      "name = " + "x" * 10000, "config.lr < 1e999", "name = \u0000"]:
            status, reply = self.collector.request("/api/v1/runs?where=" + q(query))
            self.assertIn(status, (200, 400), reply)
        self.assertTrue(self.collector.alive())

    def test_answers_follow_the_runs_as_they_change(self):
        # A query over every run reads columns the collector keeps between queries: a new run, a
        # changed config, a new series and a new last value each show in the next answer.
        collector = Collector()
        try:
            def push(run, **body):
                status, reply = collector.request("/api/v1/push", dict(body, run=run))
                self.assertEqual(status, 200, reply)

            def where(query):
                status, reply = collector.request("/api/v1/runs?where=" + q(query))
                self.assertEqual(status, 200, reply)
                return [run["name"] for run in reply]

            push("q1", info={"config": {"batch": 64}})
            self.assertEqual(where("config.batch = 64"), ["q1"])
            push("q2", info={"config": {"batch": 64}})
            self.assertEqual(where("config.batch = 64"), ["q1", "q2"])
            push("q1", info={"config": {"batch": 32}})
            self.assertEqual(where("config.batch = 64"), ["q2"])
            self.assertEqual(where("acc > 0.5"), [])
            push("q2", series={"acc": {"step": [0], "value": [0.9]}})
            self.assertEqual(where("acc > 0.5"), ["q2"])
            push("q1", series={"acc": {"step": [0], "value": [0.7]}})
            self.assertEqual(where("acc > 0.5 and config.batch = 32"), ["q1"])
            push("q1", series={"acc": {"step": [1], "value": [0.1]}})
            self.assertEqual(where("acc > 0.5"), ["q2"])
            self.assertEqual(where("count(acc) = 2"), ["q1"])
        finally:
            collector.stop()


class LogX(SharedCollector):
    """/series and /groups with log_x=1: columns even in log10(x), so a log-log chart has its
    first decades; nothing at or below zero."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for seed in range(2):
            steps = list(range(0, 100001))
            body = {"run": "pl%d" % seed,
                    "series": {"loss": {"step": steps,
                                        "value": [3.0 / (s + 1) ** 0.5 + seed for s in steps],
                                        "time": [1.7e9 + s * 0.5 for s in steps]}}}
            status, reply = cls.collector.request("/api/v1/push", body)
            assert status == 200, reply

    def test_series_columns_are_even_in_log_x(self):
        status, reply = self.collector.request(
            "/api/v1/series?run=pl0&metric=loss&width=100&log_x=1")
        self.assertEqual(status, 200, reply)
        xs = reply["series"][0]["x"]
        self.assertTrue(all(x > 0 for x in xs))
        self.assertTrue({1, 2, 3, 4, 5}.issubset(set(xs)))
        status, linear = self.collector.request("/api/v1/series?run=pl0&metric=loss&width=100")
        self.assertEqual(sum(1 for x in linear["series"][0]["x"] if x < 10), 1)  # step 0 alone

    def test_groups_on_a_log_grid(self):
        status, reply = self.collector.request("/api/v1/groups", {
            "metric": "loss", "width": 50, "log_x": True, "band": "minmax",
            "groups": [{"name": "both", "runs": ["pl0", "pl1"]}]})
        self.assertEqual(status, 200, reply)
        xs = reply["groups"][0]["x"]
        self.assertEqual(len(xs), 50)
        self.assertAlmostEqual(xs[0], 10 ** 0.05, places=6)  # 1..1e5: ten columns a decade
        self.assertAlmostEqual(xs[-1], 10 ** 4.95, places=1)
        # On relative time: from each run's start, the first half second above zero onwards.
        status, reply = self.collector.request("/api/v1/groups", {
            "metric": "loss", "x": "relative", "width": 40, "log_x": True,
            "groups": [{"name": "both", "runs": ["pl0", "pl1"]}]})
        self.assertEqual(status, 200, reply)
        xs = reply["groups"][0]["x"]
        self.assertEqual(len(xs), 40)
        self.assertTrue(0.5 <= xs[0] < 1 and 40000 < xs[-1] <= 50000, (xs[0], xs[-1]))


class DeleteRuns(unittest.TestCase):
    """`signalbox-cli delete` and /runs/delete on a collector process: the runs go from every
    answer, stay gone after a kill -9 right after the answer, and a name not held deletes
    nothing."""

    def setUp(self):
        self.collector = Collector()
        for run, points in (("keep", 50), ("gone", 3000), ("also-gone", 10)):
            body = {"run": run, "info": {"config": {"lr": 0.1}},
                    "series": {"loss": {"step": list(range(points)),
                                        "value": [1.0 / (i + 1) for i in range(points)]}}}
            status, reply = self.collector.request("/api/v1/push", body)
            self.assertEqual(status, 200, reply)

    def tearDown(self):
        if self.collector.process.poll() is None:
            self.collector.stop()

    def names(self):
        status, runs = self.collector.request("/api/v1/runs")
        self.assertEqual(status, 200, runs)
        return [run["name"] for run in runs]

    def test_deleted_runs_stay_gone_after_a_kill(self):
        result = subprocess.run([CLI, "--collector", self.collector.url, "delete", "gone"],
                                capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "deleted gone\n3000 points and 0 samples deleted\n")
        self.assertEqual(self.names(), ["also-gone", "keep"])
        self.assertEqual(stored_steps(self.collector, "gone", "loss"), [])
        status, reply = self.collector.request("/api/v1/runs/delete", {"runs": ["also-gone"]})
        self.assertEqual((status, reply["deleted"], reply["points"]), (200, ["also-gone"], 10))
        self.collector.process.kill()  # at once after the answer
        self.collector.process.wait(timeout=20)
        self.collector = Collector(data=self.collector.data)
        self.assertEqual(self.names(), ["keep"])
        self.assertEqual(len(stored_steps(self.collector, "keep", "loss")), 50)
        # The name again: a new run, only its own points.
        status, _ = self.collector.request("/api/v1/push", {
            "run": "gone", "series": {"loss": {"step": [0], "value": [7.0]}}})
        self.assertEqual(status, 200)
        self.assertEqual(stored_steps(self.collector, "gone", "loss"), [0.0])

    def test_a_name_not_held_deletes_nothing(self):
        status, reply = self.collector.request("/api/v1/runs/delete", {"runs": ["gone", "ghost"]})
        self.assertEqual(status, 404, reply)
        self.assertIn("ghost", reply["error"])
        for body in ({"runs": []}, {"runs": "gone"}, {"run": ["gone"]}, {"runs": [""]}):
            status, reply = self.collector.request("/api/v1/runs/delete", body)
            self.assertEqual(status, 400, (body, reply))
        self.assertEqual(self.names(), ["also-gone", "gone", "keep"])
        result = subprocess.run([CLI, "--collector", self.collector.url, "delete", "ghost"],
                                capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        self.assertEqual(result.returncode, 1)
        self.assertIn('there is no run named "ghost"', result.stderr)


class RequestBounds(unittest.TestCase):
    """Every request's work and answer are bounded whatever it names (issue 29, finding 10): what
    is over is refused with 400 and a message saying what to ask instead."""

    @classmethod
    def setUpClass(cls):
        cls.collector = Collector()
        status, _ = cls.collector.request("/api/v1/push", {"run": "r", "series": {"loss": {
            "step": list(range(20000)), "value": [math.sin(i / 50.0) for i in range(20000)]}}})
        assert status == 200

    @classmethod
    def tearDownClass(cls):
        cls.collector.stop()

    def tearDown(self):
        self.assertTrue(self.collector.alive(), "the collector stopped answering")

    def test_a_run_named_thousands_of_times_is_answered_once(self):
        before = self.collector.rss_mb()
        query = "&".join(["run=r"] * 3000)
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=20000&smoothing=0.9" % query)
        self.assertEqual(status, 400, reply)
        self.assertIn("width must be 1 to 10000", reply["error"])
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=10000&smoothing=0.9" % query)
        self.assertEqual(status, 200)
        self.assertEqual([s["run"] for s in reply["series"]], ["r"])
        status, reply = self.collector.request("/api/v1/metrics?%s" % query)
        self.assertEqual((status, reply), (200, ["loss"]))
        self.assertLess(self.collector.rss_mb() - before, 200)

    def test_widths_and_smoothing_past_the_bounds_are_refused_or_clamped(self):
        for width in ("1000000000", "1e300", "0", "-5", "10001"):
            status, reply = self.collector.request(
                "/api/v1/series?run=r&metric=loss&width=%s" % width)
            self.assertEqual(status, 400, (width, reply))
            self.assertIn("width", reply["error"])
        for smoothing in ("0.999999999", "1e300", "-1"):  # clamped to a bounded window
            status, reply = self.collector.request(
                "/api/v1/series?run=r&metric=loss&width=2000&smoothing_kind=average&smoothing=%s"
                % smoothing)
            self.assertEqual(status, 200, (smoothing, reply))

    def test_many_runs_at_a_large_width_are_refused_with_what_to_ask(self):
        query = "&".join("run=run-%d" % i for i in range(600))
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=2000" % query)
        self.assertEqual(status, 400, reply)
        self.assertIn("fewer runs", reply["error"])
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&width=1000" % query)
        self.assertEqual(status, 200)
        self.assertEqual(len(reply["series"]), 600)
        many = "&".join("run=n%d" % i for i in range(10001))
        status, reply = self.collector.request("/api/v1/metrics?" + many)
        self.assertEqual(status, 400, reply)

    def test_several_metrics_of_a_run_in_one_answer_count_against_the_bound(self):
        status, _ = self.collector.request("/api/v1/push", {"run": "r", "series": {"acc": {
            "step": [0, 1, 2], "value": [0.1, 0.5, 0.9]}}})
        self.assertEqual(status, 200)
        status, reply = self.collector.request(
            "/api/v1/series?run=r&metric=loss&metric=acc&metric=nope&metric=loss&width=100")
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["metric"], "loss")
        self.assertEqual([(s["metric"], "error" in s) for s in reply["series"]],
                         [("loss", False), ("acc", False), ("nope", True)])
        self.assertEqual(reply["series"][1]["y"], [0.1, 0.5, 0.9])
        query = "&".join("run=run-%d" % i for i in range(600))
        status, reply = self.collector.request(
            "/api/v1/series?%s&metric=loss&metric=acc&width=1000" % query)
        self.assertEqual(status, 400, reply)
        self.assertIn("fewer runs or metrics", reply["error"])
        # Each curve is a look-up: their count is bounded whatever the width.
        many = "&".join("metric=m%d" % i for i in range(200))
        status, reply = self.collector.request("/api/v1/series?%s&%s&width=1" % (query, many))
        self.assertEqual(status, 400, reply)
        self.assertIn("more curves than one answer holds", reply["error"])

    def test_an_answer_to_bad_lines_is_never_larger_than_a_few_errors(self):
        body = b"@signalbox {\n" * 200000 + b'@signalbox {"step": 1, "ok": 1}\n' + b'{"x": 1}\n' * 3
        status, reply = self.collector.request("/api/v1/lines?run=bad-lines", body, "text/plain")
        self.assertEqual(status, 200)
        self.assertEqual(reply["accepted"], 1)
        self.assertEqual(len(reply["errors"]), 101)
        self.assertEqual(reply["errors"][-1], "and 199900 more malformed lines")
        records = b"".join(b'@signalbox {"step": %d, "y": 1}\n' % i for i in range(50000))
        status, reply = self.collector.request("/api/v1/lines", records, "text/plain")
        self.assertEqual((status, reply["errors"]), (200, ["50000 metric records name no run"]))

    def test_groups_are_bounded_in_count_width_and_members(self):
        before = self.collector.rss_mb()
        groups = [{"name": "g%d" % i, "runs": ["r"]} for i in range(20000)]
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 20000, "groups": groups})
        self.assertEqual(status, 400, reply)
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 2000, "groups": groups})
        self.assertEqual(status, 400, reply)
        self.assertIn("fewer groups", reply["error"])
        members = ["r"] + ["m%d" % i for i in range(99999)]
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 500, "groups": [{"name": "big",
                                                                           "runs": members}]})
        self.assertEqual(status, 200, reply)
        self.assertEqual(reply["groups"][0]["runs"], ["r"])
        self.assertEqual(len(reply["groups"][0]["missing"]), 99999)
        status, reply = self.collector.request(
            "/api/v1/groups", {"metric": "loss", "width": 500, "groups": [
                {"name": "big", "runs": members}, {"name": "more", "runs": ["x", "y"]}]})
        self.assertEqual(status, 400, reply)
        self.assertLess(self.collector.rss_mb() - before, 300)


if __name__ == "__main__":
    COLLECTOR, CLI = collector_process.take_binaries(sys.argv)
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)  # then test names, if any
