"""TensorBoard event files: Signalbox's collector against TensorBoard, side by side.

A logdir of RUNS x TAGS x STEPS scalars written by tensorboardX (SIGNALBOX_BENCH_SCALE scales
STEPS) is opened by each reader in turn, one after the other on the same warm files:
  - signalbox-collector --watch LOGDIR
  - tensorboard --load_fast=false (its Python loader), every point kept, and with its default
    (a reservoir of 1,000 points per curve)
  - tensorboard --load_fast=true (its Rust data server), likewise
and the time from launch until every scalar is queryable and the peak resident memory are
printed, with ratios to Signalbox. Then many small runs: 1,000 runs x 3 tags x 100 steps, five
times each (Signalbox's store deleted in between), beside the Rust data server. A reader is done when every run shows the tag its writer
logged last (each run's file is read in order); the point counts are then checked.

TensorBoard's Python loader takes minutes on the full logdir (about 10 of the test command's
minutes), so by default it is compared on a logdir a tenth the size, with Signalbox measured
again on that one; SIGNALBOX_BENCH_FULL=1 measures every reader on the full logdir.

usage: bench_tensorboard.py SIGNALBOX_COLLECTOR BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile
import time

COLLECTOR, BUILD, SOURCE = sys.argv[1:4]
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import tensorboard_peer as peer  # noqa: E402

SCALE = float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1"))
RUNS, TAGS, STEPS = 20, 10, max(1000, int(20000 * SCALE))
FULL = os.environ.get("SIGNALBOX_BENCH_FULL") == "1"
LAST_TAG = "zz/end"


def log(message):
    print("bench_tensorboard: " + message, flush=True)


def signalbox(logdir, data_dir, runs=RUNS, tags=TAGS):
    start = time.monotonic()
    proc, base = peer.collector(COLLECTOR, logdir, data_dir)
    url = base + "/runs"

    def done():
        try:
            found = peer.http_json(url)
        except OSError:
            return False
        return len(found) == runs and all(
            LAST_TAG in r["metrics"] and len(r["metrics"]) == tags + 1 for r in found)
    peer.wait_until(done, timeout=3600, interval=0.1)
    seconds = time.monotonic() - start
    rss = peer.peak_rss_mib(proc.pid)
    counts = {m["count"] for r in peer.http_json(url) for name, m in r["metrics"].items()
              if name != LAST_TAG}
    proc.terminate()
    proc.wait()
    return seconds, rss, counts


def tensorboard(python, logdir, load_fast, samples, runs=RUNS):
    start = time.monotonic()
    board = peer.TensorBoard(python, logdir, load_fast=load_fast, samples=samples)
    try:
        seconds, rss = board.load(start, runs, LAST_TAG)
        names = sorted(board.tags())
        counts = {len(points) for points in board.scalars("metric/00", names).values()}
    finally:
        board.stop()
    return seconds, rss, counts


def logdir_of(python, steps):
    logdir = os.path.join(BUILD, "bench-tfevents-%dx%dx%d" % (RUNS, TAGS, steps))
    marker = os.path.join(logdir, ".complete")
    if not os.path.exists(marker):
        log("writing %d runs x %d tags x %d steps with tensorboardX..." % (RUNS, TAGS, steps))
        start = time.monotonic()
        peer.write_logdir(python, logdir, RUNS, TAGS, steps)
        open(marker, "w").close()
        log("written in %.0f s" % (time.monotonic() - start))
    return logdir


def compare(python, steps, peers):
    """Signalbox, then each of `peers` (name, load_fast, samples), on one logdir: a table."""
    logdir = logdir_of(python, steps)
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(logdir) for f in fs)
    points = RUNS * TAGS * steps
    log("logdir: %d runs x %d tags x %d steps = %.1f M points, %.0f MB of event files"
        % (RUNS, TAGS, steps, points / 1e6, size / 1e6))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        peer.warm(logdir)
        seconds, rss, counts = signalbox(logdir, os.path.join(tmp, "store"))
        rows.append(("Signalbox collector (every point)", seconds, rss, counts))
        log("Signalbox: %.2f s, %.0f MiB" % (seconds, rss))
    for name, load_fast, samples in peers:
        peer.warm(logdir)
        seconds, rss, counts = tensorboard(python, logdir, load_fast, samples)
        rows.append((name, seconds, rss, counts))
        log("%s: %.2f s, %.0f MiB" % (name, seconds, rss))

    peer.print_ratios("until every scalar is queryable", "points per curve served",
                      [(name, seconds, rss, "/".join(str(c) for c in sorted(counts)))
                       for name, seconds, rss, counts in rows])
    ours_seconds = rows[0][1]
    print("(%d runs x %d tags x %d steps = %.1f M points, %.0f MB; %.2f M points/s for Signalbox)"
          % (RUNS, TAGS, steps, points / 1e6, size / 1e6, points / ours_seconds / 1e6))


def many_runs(python, runs=1000, tags=3, steps=100, repeats=5):
    """Many small runs, where a store with a file per series was slow: each reader `repeats`
    times, Signalbox on a new store each time."""
    logdir = os.path.join(BUILD, "bench-tfevents-%dx%dx%d" % (runs, tags, steps))
    if not os.path.exists(os.path.join(logdir, ".complete")):
        log("writing %d runs x %d tags x %d steps with tensorboardX..." % (runs, tags, steps))
        peer.write_logdir(python, logdir, runs, tags, steps)
        open(os.path.join(logdir, ".complete"), "w").close()
    ours, theirs = [], []
    for _ in range(repeats):
        peer.warm(logdir)
        with tempfile.TemporaryDirectory() as tmp:
            ours.append(signalbox(logdir, os.path.join(tmp, "store"), runs, tags)[0])
        peer.warm(logdir)
        theirs.append(tensorboard(python, logdir, True, None, runs)[0])
    print()
    print("| %d runs x %d tags x %d steps, until every scalar is queryable (%d times) | min | "
          "median | max |" % (runs, tags, steps, repeats))
    print("| --- | --- | --- | --- |")
    for name, times in (("Signalbox collector (a new store each time)", ours),
                        ("TensorBoard Rust data server", theirs)):
        times = sorted(times)
        print("| %s | %.2f s | %.2f s | %.2f s |" % (name, times[0], times[len(times) // 2],
                                                     times[-1]))
    print("(median ratio, TensorBoard / Signalbox: %.1fx)"
          % (sorted(theirs)[repeats // 2] / sorted(ours)[repeats // 2]))


def main():
    python = peer.ensure_venv(BUILD)
    many_runs(python)
    rust = [("TensorBoard Rust data server, every point", True, peer.ALL_SAMPLES),
            ("TensorBoard Rust data server, default 1,000 per curve", True, None)]
    loader = [("TensorBoard Python loader, every point", False, peer.ALL_SAMPLES),
              ("TensorBoard Python loader, default 1,000 per curve", False, None)]
    if FULL:
        compare(python, STEPS, rust + loader)
        return
    compare(python, STEPS, rust)
    # A tenth of the logdir, with Signalbox measured again on it: the same ratios in minutes less.
    compare(python, max(1000, STEPS // 10), loader)


if __name__ == "__main__":
    main()
