"""Signalbox reads event files as TensorBoard does, and smooths as its dashboard does.

Against TensorBoard itself (from PyPI, in a virtualenv under the build directory): for the
checked-in logdir and one written by tensorboardX with NaNs in it, `signalbox-cli parse
tfevents` finds the same runs and tags, point counts, and first and last values as
TensorBoard's Python loader and its Rust data server serve them. Images, histograms, text,
audio and hyperparameters written by tensorboardX and by TensorBoard's own writer are found as
TensorBoard's reader finds them (by `parse tfevents`, and stored and served by a collector that
follows the logdir), and hostile ones are refused with a reason while the rest is read. Then the collector's smoothed series equals what TensorBoard's own smoothing code, taken
from the frontend bundle it ships, computes on the same points.

usage: test_tensorboard_compat.py SIGNALBOX_CLI SIGNALBOX_COLLECTOR BUILD_DIR SOURCE_DIR
"""
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import urllib.request
import zipfile

CLI, COLLECTOR, BUILD, SOURCE = sys.argv[1:5]
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import tensorboard_peer as peer  # noqa: E402

PYTHON = peer.ensure_venv(BUILD)
HARNESS = os.path.join(SOURCE, "tests", "harness")



def parsed(logdir):
    """`signalbox-cli parse tfevents`: (the objects it printed, what it said on stderr)."""
    done = subprocess.run([CLI, "parse", "tfevents", logdir], capture_output=True, text=True,
                          check=True)
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def ours(logdir):
    tags = {}
    for row in parsed(logdir)[0]:
        if "kind" not in row:  # scalars; the other kinds say theirs
            tags[(row["run"], row["tag"])] = (row["points"], row["first"], row["last"])
    return tags


def cli_json(args):
    """`signalbox-cli ARGS`: the JSON objects it printed, a line each."""
    done = subprocess.run([CLI] + args, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def kinds(rows):
    """The other kinds' objects by run, tag and kind."""
    return {(r["run"], r.get("tag"), r["kind"]): r for r in rows if "kind" in r}


def theirs(board, expected):
    """What TensorBoard serves once it has loaded as many points as we found (or gives up)."""
    def loaded():
        listing = board.tags()
        if not listing:
            return None
        found = {}
        for tag in sorted({t for tags in listing.values() for t in tags}):
            runs = [r for r, tags in listing.items() if tag in tags]
            for run, points in board.scalars(tag, runs).items():
                found[(run, tag)] = points
        counts = {key: len(points) for key, points in found.items()}
        return found if counts == {key: v[0] for key, v in expected.items()} else None
    try:
        return peer.wait_until(loaded, timeout=120, interval=1)
    except TimeoutError:
        return loaded.__closure__ and None


def same(a, b):
    if a is None or b is None:  # NaN reaches our JSON as null
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


class TensorBoardCompat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.written = os.path.join(cls.tmp.name, "written")
        peer.write_logdir(PYTHON, cls.written, runs=3, tags=3, steps=300, distinct=3, nan_every=7)
        cls.checked_in = os.path.join(SOURCE, "tests", "data", "tfevents", "logdir")

    def compare_with(self, load_fast, unread_by_peer=()):
        for logdir in (self.checked_in, self.written):
            expected = ours(logdir)
            for key in unread_by_peer:
                expected.pop(key, None)
            self.assertTrue(expected)
            board = peer.TensorBoard(PYTHON, logdir, load_fast=load_fast,
                                     samples=peer.ALL_SAMPLES)
            try:
                found = theirs(board, expected)
            finally:
                board.stop()
            self.assertIsNotNone(found, "TensorBoard never served the same points as Signalbox "
                                        "for %s: ours %s" % (logdir, expected))
            for key, (count, first, last) in expected.items():
                points = found[key]
                self.assertEqual(len(points), count, key)
                self.assertEqual(points[0][1], first["step"], key)
                self.assertTrue(same(points[0][2], first["value"]), (key, points[0], first))
                self.assertEqual(points[-1][1], last["step"], key)
                self.assertTrue(same(points[-1][2], last["value"]), (key, points[-1], last))

    def test_same_scalars_as_python_loader(self):
        self.compare_with(load_fast=False)

    def test_same_scalars_as_rust_data_server(self):
        # Its Rust data server (0.7.2) passes over rank-0 DT_DOUBLE tensors, which the Python
        # loader and Signalbox read as scalars.
        self.compare_with(load_fast=True,
                          unread_by_peer=[("tensors", "loss/double_val"),
                                          ("tensors", "loss/tensor_content")])

    def test_other_kinds_as_tensorboards_reader_finds_them(self):
        logdir = os.path.join(self.tmp.name, "media")
        subprocess.run([PYTHON, os.path.join(HARNESS, "write_media.py"), logdir, "6"],
                       check=True, stderr=subprocess.DEVNULL)
        rows, _ = parsed(logdir)
        found = kinds(rows)
        reference = subprocess.run([PYTHON, os.path.join(HARNESS, "tensorboard_kinds.py"), logdir],
                                   capture_output=True, text=True, check=True).stdout
        expected = kinds(json.loads(line) for line in reference.splitlines())
        self.assertEqual(set(found), set(expected))
        self.assertEqual({k for _, _, k in expected},
                         {"image", "histogram", "text", "audio", "hparams"})
        for key, theirs_row in expected.items():
            ours_row = found[key]
            if key[2] == "hparams":
                self.assertEqual(ours_row["hparams"], theirs_row["hparams"], key)
                continue
            self.assertEqual(ours_row["points"], theirs_row["points"], key)
            for field, value in theirs_row["last"].items():
                mine = ours_row["last"][field]
                if isinstance(value, float):  # TensorBoard keeps TF1 histograms as float32
                    self.assertTrue(abs(mine - value) <= 1e-6 * max(1.0, abs(value)),
                                    (key, field, mine, value))
                else:
                    self.assertEqual(mine, value, (key, field))
        # The scalars beside them are still read, and only they print without a kind.
        self.assertEqual(ours(logdir)[("tbx", "loss")][0], 6)
        # The collector following the logdir gives each hparams session as its run's config.
        port = peer.free_port()
        collector = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port, "--data-dir",
                                      os.path.join(self.tmp.name, "media-store"), "--watch",
                                      logdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            def configs():
                try:
                    runs = peer.http_json("http://127.0.0.1:%d/api/v1/runs" % port)
                except OSError:
                    return None
                found = {run["name"]: run.get("config") for run in runs}
                return found if found.get("tb") and found.get("tbx/session") else None
            found = peer.wait_until(configs, timeout=60, interval=0.2)
            for run in ("tb", "tbx/session"):
                self.assertEqual(found[run], expected[(run, None, "hparams")]["hparams"], run)
            self.assertFalse(found.get("tbx"))  # hyperparameters stay with their session's run
            self.served_as_tensorboard_finds_them(port, expected)
        finally:
            collector.terminate()
            collector.wait()

    def served_as_tensorboard_finds_them(self, port, expected):
        """The collector stores every image, histogram, text and audio item it followed, and
        serves them (and `signalbox-cli samples` and `blob` print them) as TensorBoard's reader
        finds them: each step, each item of a batch, and the bytes as written."""
        base = "http://127.0.0.1:%d" % port
        wanted = {k: v for k, v in expected.items() if k[2] != "hparams"}
        runs = sorted({run for run, _, _ in wanted})

        def listed():
            query = urllib.parse.urlencode([("run", run) for run in runs])
            tags = peer.http_json(base + "/api/v1/samples?" + query)["tags"]
            found = {(t["run"], t["tag"], t["kind"]): t for t in tags}
            done = all(key in found and found[key]["last_step"] == row["last"]["step"]
                       for key, row in wanted.items())
            return found if done else None
        tags = peer.wait_until(listed, timeout=60, interval=0.2)
        self.assertEqual(set(tags), set(wanted))
        for (run, tag, kind), theirs_row in wanted.items():
            items = cli_json(["--collector", base, "samples", run, tag])
            self.assertEqual(len(items), tags[(run, tag, kind)]["points"])
            steps = sorted({item["step"] for item in items})
            self.assertEqual(len(steps), theirs_row["points"], (run, tag))
            self.assertEqual([i["step"] for i in items], sorted(i["step"] for i in items))
            last = [item for item in items if item["step"] == theirs_row["last"]["step"]]
            want = theirs_row["last"]
            if kind in ("image", "audio"):  # a batch: one item each, by index
                self.assertEqual([i["index"] for i in last],
                                 list(range(want.get("images", want.get("clips")))))
            first = last[0]
            for field in {"image": ("width", "height"),
                          "audio": ("sample_rate", "channels", "frames")}.get(kind, ()):
                self.assertEqual(first[field], want[field], (run, tag, field))
            if kind == "histogram":
                self.assertEqual(len(first["buckets"]), want["buckets"], (run, tag))
                for field in ("min", "max", "num"):
                    near = abs(first[field] - want[field]) <= 1e-6 * max(1, abs(want[field]))
                    self.assertTrue(near, (run, tag, field, first[field], want[field]))
            if kind == "text":
                text = first["text"]
                if first["rows"]:  # a table: JSON rows
                    text = "\n".join("\t".join(row) for row in json.loads(text))
                self.assertEqual(text, want["text"], (run, tag))
            # The bytes as written: the digest is theirs, and `blob` writes them whole.
            with urllib.request.urlopen(base + "/api/v1/blobs/" + first["blob"]) as reply:
                blob = reply.read()
                self.assertEqual(reply.headers["X-Content-Type-Options"], "nosniff")
                if kind == "image":
                    self.assertIn(reply.headers["Content-Type"], ("image/png", "image/jpeg"))
            self.assertEqual(hashlib.sha256(blob).hexdigest(), first["blob"])
            self.assertEqual(len(blob), first["bytes"])
            saved = os.path.join(self.tmp.name, "blob")
            subprocess.run([CLI, "--collector", base, "blob", first["blob"], saved], check=True)
            with open(saved, "rb") as f:
                self.assertEqual(f.read(), blob)
        listing = cli_json(["--collector", base, "samples", runs[0]])
        self.assertEqual({(t["run"], t["tag"]) for t in listing},
                         {(r, t) for r, t, _ in tags if r == runs[0]})

    def test_hostile_samples_are_refused_and_the_rest_read(self):
        logdir = os.path.join(self.tmp.name, "hostile")
        subprocess.run([PYTHON, os.path.join(HARNESS, "write_hostile_media.py"), logdir],
                       check=True)
        rows, said = parsed(logdir)
        found = kinds(rows)
        # Every hostile value was refused, the good ones around them kept.
        self.assertEqual(found[(".", "good", "image")]["points"], 2)
        self.assertEqual(found[(".", "good", "image")]["last"]["step"], 9)
        self.assertEqual(ours(logdir)[(".", "after")][0], 1)
        for name in ("huge", "cut", "nan_edges", "many_buckets", "lying_wav"):
            self.assertNotIn((".", name, "image"), found)
            self.assertFalse(any(k[1] == name for k in found), name)
        self.assertIn("5 samples refused", said)
        self.assertIn("records of over 64 MiB passed over", said)

    def test_smoothing_equals_tensorboards(self):
        # TensorBoard's smoothing, as its frontend bundle ships it (minified; names pinned by
        # the version in tensorboard_peer.PACKAGES).
        webfiles = os.path.join(os.path.dirname(PYTHON), "..", "lib",
                                "python%d.%d" % sys.version_info[:2], "site-packages",
                                "tensorboard", "webfiles.zip")
        bundle = zipfile.ZipFile(webfiles).read("index.js").decode()
        match = re.search(r"Number\.isFinite\((\w)\)\|\|\(\1=0\),\1=Math\.max\(0,Math\.min\(\1,1\)\);"
                          r"let (\w)=\[\];for\(let \w of (\w)\)\{.*?\}return \2\}", bundle)
        self.assertIsNotNone(match, "TensorBoard's smoothing function is not in index.js")
        weight_name, data_name = match.group(1), match.group(3)
        body = match.group(0)[:-1]
        smooth_js = ("function smooth(%s,%s){%s}\n" % (data_name, weight_name, body) +
                     "const input=JSON.parse(require('fs').readFileSync(0,'utf8'));\n"
                     "const ys=input.y.map(v=>v===null?NaN:v);\n"
                     "const out=smooth([{id:'s',points:ys.map((y,i)=>({x:i,y}))}],input.w);\n"
                     "console.log(JSON.stringify(out[0].points.map(p=>Number.isFinite(p.y)?p.y:null)));\n")

        data = os.path.join(self.tmp.name, "collector")
        port = peer.free_port()
        collector = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port,
                                      "--data-dir", data, "--watch", self.written],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = "http://127.0.0.1:%d/api/v1" % port

            def loaded():
                try:
                    runs = peer.http_json(base + "/runs")
                except OSError:
                    return False
                # Each run's last record is zz/end (write_tfevents.py).
                return len(runs) == 3 and all("zz/end" in r["metrics"] for r in runs)
            peer.wait_until(loaded, timeout=60)
            for weight in (0.0, 0.6, 0.95, 0.999):
                series = peer.http_json(base + "/series?run=run001&metric=metric/00&width=10000"
                                        "&smoothing=%s" % weight)
                series = series[0] if isinstance(series, list) else series["series"][0]
                raw = series.get("rawY", series["y"])
                self.assertEqual(len(raw), 300)
                expected = json.loads(subprocess.run(
                    ["node", "-e", smooth_js], input=json.dumps({"y": raw, "w": weight}),
                    capture_output=True, text=True, check=True).stdout)
                self.assertEqual(len(series["y"]), len(expected))
                for i, (a, b) in enumerate(zip(series["y"], expected)):
                    self.assertTrue(same(a, b), "weight %s, point %d: ours %s, TensorBoard's %s"
                                    % (weight, i, a, b))
        finally:
            collector.terminate()
            collector.wait()


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
