"""The CLI on a terminal, against a real signalbox-collector holding hostile names: run and
metric names with escape sequences (retitle, clear), newlines, C1 controls and bidi overrides.
Every byte the CLI prints moves, retitles and reorders nothing; each run is one line of `runs`,
each metric one line of `metrics`; its JSON outputs read back to the exact names; its errors and
the collector's own stderr are as inert.

usage: test_cli_terminal.py SIGNALBOX_CLI SIGNALBOX_COLLECTOR (loopback only, bounded time)"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import unittest
import urllib.request

CLI, COLLECTOR = None, None

NAMES = [
    "retitle\x1b]0;pwned\x07\x1b[2J\x1b[H",
    "forged\nfake-run   finished   loss=0",
    "c1-csi\u009b31mred",
    "\u202eevil\u2066isolate\u200f",
    "del\x7f and tab\there",
    "back\\slash",
]
# What may never reach a terminal raw: C0 (but the CLI's own newlines), DEL, C1, bidi marks.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text):
    """The CLI's escaping of one name (core/util/PlainText.cpp, printable())."""
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif RAW.match(c) and ord(c) < 0x100:
            out.append("\\x%02x" % ord(c))
        elif RAW.match(c):
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Terminal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.data = tempfile.mkdtemp(prefix="sb-cli-terminal-")
        cls.url = "http://127.0.0.1:%d" % free_port()
        cls.collector = subprocess.Popen(
            [COLLECTOR, "--listen", cls.url[len("http://"):], "--data-dir", cls.data],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = cls.collector.stdout.readline().decode()
        assert "listening on" in line, line
        for name in NAMES:
            body = json.dumps({"run": name, "series": {name: {"step": [1, 2], "value": [3, 4]}}})
            request = urllib.request.Request(cls.url + "/api/v1/push", data=body.encode(),
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=20) as response:
                assert response.status == 200, name

    @classmethod
    def tearDownClass(cls):
        cls.collector.terminate()
        _, err = cls.collector.communicate(timeout=20)
        text = err.decode("utf-8", "replace")
        assert not RAW.search(text.replace("\n", "")), "collector stderr: %r" % text

    def cli(self, *args, rc=0):
        result = subprocess.run([CLI, "--collector", self.url, *args], capture_output=True,
                                timeout=60)
        out, err = result.stdout.decode(), result.stderr.decode()
        self.assertEqual(result.returncode, rc, (args, out, err))
        for stream in (out, err):
            self.assertIsNone(RAW.search(stream.replace("\n", "")), (args, stream))
        return out, err

    def test_runs_are_one_line_each(self):
        out, _ = self.cli("runs")
        lines = out.splitlines()
        self.assertEqual(len(lines), len(NAMES), out)
        for name in NAMES:
            mine = [line for line in lines if line.startswith(printable(name) + " ")]
            self.assertEqual(len(mine), 1, (name, out))
            self.assertIn(printable(name) + "=4", mine[0])  # its metric, as escaped

    def test_metrics_are_one_line_each(self):
        out, _ = self.cli("metrics")
        self.assertEqual(sorted(out.splitlines()), sorted(printable(n) for n in NAMES), out)

    def test_json_reads_back_to_the_exact_names(self):
        for name in NAMES:
            out, _ = self.cli("series", name, name)
            series = json.loads(out)
            self.assertEqual(series["metric"], name)
            self.assertEqual(series["series"][0]["run"], name)
            self.assertEqual(series["series"][0]["y"], [3, 4])
        out, _ = self.cli("health")
        json.loads(out)

    def test_errors_name_what_they_refuse_inertly(self):
        missing = "missing\x1b]0;pwned\x07\nforged line"
        _, err = self.cli("export", missing, "loss", rc=1)
        self.assertTrue(err.startswith("signalbox-cli: "), err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        _, err = self.cli("frobnicate\x1b[2J", rc=1)
        self.assertIn("frobnicate\\x1b[2J", err)
        self.assertIn("Usage: signalbox-cli", err)  # the usage itself, as written

    def test_parse_names_the_file_and_line_inertly(self):
        folder = tempfile.mkdtemp(prefix="sb-cli-terminal-")
        path = os.path.join(folder, "log\x1b]0;x\x07\u202e.txt")
        with open(path, "w") as f:
            f.write('@signalbox {"loss\x1b[2J": "nope\u202e"}\n@signalbox not json\x1b[H\n')
        out, err = self.cli("parse", "metric-lines", path, rc=1)
        self.assertIn(printable(path) + ":2:", err)


def main():
    global CLI, COLLECTOR
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    CLI, COLLECTOR = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)


if __name__ == "__main__":
    main()
