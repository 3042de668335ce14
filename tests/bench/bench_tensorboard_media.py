"""Images, histograms and text from TensorBoard event files: Signalbox's collector against
TensorBoard, side by side on one logdir.

A logdir of 20 runs x STEPS steps (1,000 at SIGNALBOX_BENCH_SCALE=1) x (4 images of 256 x 256,
3 histograms, 1 text), written by tensorboardX (two runs, copied), is opened by each reader in
turn on the same warm files:
  - signalbox-collector --watch LOGDIR (every item kept)
  - tensorboard --load_fast=true (its Rust data server), every item and its default (10 images,
    500 histograms and 100 texts per tag: a reservoir)
  - tensorboard --load_fast=false (its Python loader), likewise
A reader is done when every run shows the scalar its writer logged last (each run's file is read
in order); then every run's every tag is checked to be served, with its last step, and the
items each serves counted (0 where a reader serves none of a kind: the Rust data server 0.7.2
serves no text). Printed: time from launch until done and peak resident memory, with
ratios to Signalbox.

usage: bench_tensorboard_media.py SIGNALBOX_COLLECTOR BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile
import time
import urllib.parse

COLLECTOR, BUILD, SOURCE = sys.argv[1:4]
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import tensorboard_peer as peer  # noqa: E402

SCALE = float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1"))
RUNS, DISTINCT, STEPS = 20, 2, max(50, int(1000 * SCALE))
IMAGE_TAGS = ["samples/%d" % i for i in range(4)]
HISTOGRAM_TAGS = ["weights/%d" % i for i in range(3)]
TEXT_TAGS = ["notes/text_summary"]  # tensorboardX files add_text under TAG/text_summary
LAST_TAG = "zz/end"
EVERY = 10**7  # TensorBoard's --samples_per_plugin for "keep every item"


def log(message):
    print("bench_tensorboard_media: " + message, flush=True)


def logdir_of(python):
    logdir = os.path.join(BUILD, "bench-tfmedia-%dx%d" % (RUNS, STEPS))
    if os.path.exists(os.path.join(logdir, ".complete")):
        return logdir
    log("writing %d runs x %d steps of images, histograms and text with tensorboardX..."
        % (RUNS, STEPS))
    writer = os.path.join(SOURCE, "tests", "harness", "write_media_run.py")
    peer.write_runs(logdir, RUNS, DISTINCT,
                    lambda i, run_dir: [python, writer, run_dir, str(STEPS), str(i)])
    open(os.path.join(logdir, ".complete"), "w").close()
    return logdir


def signalbox(logdir, data_dir):
    start = time.monotonic()
    proc, base = peer.collector(COLLECTOR, logdir, data_dir)

    def done():
        try:
            runs = peer.http_json(base + "/runs")
        except OSError:
            return False
        return len(runs) == RUNS and all(LAST_TAG in r["metrics"] for r in runs)
    try:
        peer.wait_until(done, timeout=3600, interval=0.1)
        seconds = time.monotonic() - start
        rss = peer.peak_rss_mib(proc.pid)
        names = ["run%03d" % i for i in range(RUNS)]
        tags = peer.http_json(base + "/samples?" + urllib.parse.urlencode(
            [("run", name) for name in names]))["tags"]
        served = {}
        for tag in tags:
            if tag["last_step"] != STEPS - 1:
                raise AssertionError("Signalbox serves %s/%s to step %s" % (
                    tag["run"], tag["tag"], tag["last_step"]))
            served.setdefault(tag["kind"], set()).add(tag["points"])
    finally:
        proc.terminate()
        proc.wait()
    return seconds, rss, served


def tensorboard(python, logdir, load_fast, every):
    start = time.monotonic()
    keep = ["--samples_per_plugin", "scalars=%d,images=%d,histograms=%d,text=%d"
            % (EVERY, EVERY, EVERY, EVERY)] if every else []
    board = peer.TensorBoard(python, logdir, load_fast=load_fast, extra=keep)
    try:
        seconds, rss = board.load(start, RUNS, LAST_TAG)
        served = {}
        for run in ("run%03d" % i for i in range(RUNS)):
            for kind, plugin, route, tags in (
                    ("image", "images", "images", IMAGE_TAGS),
                    ("histogram", "histograms", "histograms", HISTOGRAM_TAGS),
                    ("text", "text", "text", TEXT_TAGS)):
                for tag in tags:
                    items = peer.http_json("%s/data/plugin/%s/%s?%s" % (
                        board.base, plugin, route, urllib.parse.urlencode({"run": run,
                                                                           "tag": tag})))
                    served.setdefault(kind, set()).add(len(items))
                    if not items:  # the Rust data server (0.7.2) serves no text: said as 0
                        continue
                    last = items[-1]["step"] if isinstance(items[-1], dict) else items[-1][1]
                    if last != STEPS - 1:
                        raise AssertionError("TensorBoard serves %s/%s to step %s" % (
                            run, tag, last))
    finally:
        board.stop()
    return seconds, rss, served


def main():
    python = peer.ensure_venv(BUILD)
    logdir = logdir_of(python)
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(logdir) for f in fs)
    log("logdir: %d runs x %d steps x (4 images of 256 x 256, 3 histograms, 1 text): %d images, "
        "%.0f MB of event files" % (RUNS, STEPS, RUNS * STEPS * 4, size / 1e6))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        peer.warm(logdir)
        rows.append(("Signalbox collector (every item)",) + signalbox(logdir, os.path.join(tmp, "s")))
        log("%s: %.2f s, %.0f MiB" % rows[-1][:3])
    readers = [("TensorBoard Rust data server, every item", True, True),
               ("TensorBoard Rust data server, default reservoirs", True, False)]
    # The Python loader takes minutes (two at full size): the test command's quarter size
    # leaves it out; SIGNALBOX_BENCH_SCALE=1 or SIGNALBOX_BENCH_FULL=1 measures it.
    if SCALE >= 1 or os.environ.get("SIGNALBOX_BENCH_FULL") == "1":
        readers += [("TensorBoard Python loader, every item", False, True),
                    ("TensorBoard Python loader, default reservoirs", False, False)]
    else:
        log("TensorBoard's Python loader left out at this size (SIGNALBOX_BENCH_SCALE=1 or "
            "SIGNALBOX_BENCH_FULL=1 measures it)")
    for name, load_fast, every in readers:
        peer.warm(logdir)
        rows.append((name,) + tensorboard(python, logdir, load_fast, every))
        log("%s: %.2f s, %.0f MiB" % rows[-1][:3])
    peer.print_ratios(
        "until every item is served", "images / histograms / texts per tag served",
        [(name, seconds, rss, " / ".join("/".join(str(c) for c in sorted(served.get(kind, ())))
                                         for kind in ("image", "histogram", "text")))
         for name, seconds, rss, served in rows])
    print("(%d runs x %d steps: %d images, %d histograms, %d texts; %.0f MB)"
          % (RUNS, STEPS, RUNS * STEPS * 4, RUNS * STEPS * 3, RUNS * STEPS, size / 1e6))


if __name__ == "__main__":
    main()
