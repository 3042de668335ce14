"""Cold start: from launching the app to its first frame, with a history of RUNS runs (RUNS
finished jobs in the jobs table, RUNS runs x 3 metrics in the collector's store), side by side
with TensorBoard (its Rust data server) launched on a logdir of RUNS runs until its server lists
every run's scalars. The median of REPEATS launches each.

Signalbox's first frame: `signalbox --screenshot FILE --after 0` (offscreen) renders the window
once the event loop runs and writes it; the time is until FILE exists (the PNG's encoding
included). TensorBoard's is until /data/plugin/scalars/tags lists every run, before any browser
has drawn anything: the peer's figure is a lower bound of what a user waits for.

usage: bench_startup.py SIGNALBOX SIGNALBOX_COLLECTOR BUILD_DIR SOURCE_DIR
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

APP, COLLECTOR, BUILD, SOURCE = sys.argv[1:5]
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import tensorboard_peer as peer  # noqa: E402

RUNS, STEPS, REPEATS = 1000, 100, 5


def log(message):
    print("bench_startup: " + message, flush=True)


def history(data):
    """RUNS finished local jobs, as the app writes its jobs.json."""
    jobs = []
    for i in range(RUNS):
        run = "train-%06x" % i
        jobs.append({
            "backend": "local", "exitCode": 0, "id": run, "node": "laptop", "state": "succeeded",
            "logPath": os.path.join(data, "runs", run, "log"), "message": "", "gpuIds": "",
            "submitted": "2026-11-20T10:00:00.000", "started": "2026-11-20T10:00:01.000",
            "finished": "2026-11-20T11:00:00.000", "processGroup": 0,
            "spec": {"backend": "local", "name": "train", "target": "", "workers": 1, "gpus": 0,
                     "codeDirectory": "", "environment": {}, "workingDirectory": "/tmp",
                     "command": ["python3", "train.py", "--lr", str(0.001 * (i + 1))]}})
    with open(os.path.join(data, "jobs.json"), "w") as f:
        json.dump(jobs, f)


def store(data):
    """RUNS runs x 3 metrics x STEPS points in the collector's store, pushed as clients do."""
    port = peer.free_port()
    collector = subprocess.Popen([COLLECTOR, "--data-dir", os.path.join(data, "collector"),
                                  "--listen", "127.0.0.1:%d" % port], stdout=subprocess.DEVNULL)
    try:
        url = "http://127.0.0.1:%d/api/v1/push" % port
        peer.wait_until(lambda: _answers(port), timeout=30, interval=0.05)
        steps = list(range(STEPS))
        for i in range(RUNS):
            body = {"run": "train-%06x" % i,
                    "info": {"config": {"lr": 0.001 * (i + 1)}, "status": "finished"},
                    "series": {name: {"step": steps,
                                      "value": [1.0 / (s + 1 + i % 7) for s in steps]}
                               for name in ("train/loss", "val/loss", "val/accuracy")}}
            request = urllib.request.Request(url, json.dumps(body).encode(),
                                             {"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=30).read()
    finally:
        collector.terminate()
        collector.wait()


def _answers(port):
    try:
        urllib.request.urlopen("http://127.0.0.1:%d/api/v1/runs" % port, timeout=5).read()
        return True
    except OSError:
        return False


def signalbox_first_frame(data, home):
    picture = os.path.join(home, "first-frame.png")
    if os.path.exists(picture):
        os.remove(picture)
    env = dict(os.environ, HOME=home, QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=home)
    start = time.monotonic()
    app = subprocess.Popen([APP, "--data-dir", data, "--view", "jobs", "--screenshot", picture,
                            "--after", "0"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    while not os.path.exists(picture) and app.poll() is None:
        time.sleep(0.002)
    seconds = time.monotonic() - start
    app.wait()
    if not os.path.exists(picture):
        raise SystemExit("signalbox exited with %s before its first frame" % app.returncode)
    return seconds


def tensorboard_first_listing(python, logdir):
    start = time.monotonic()
    board = peer.TensorBoard(python, logdir, load_fast=True)
    try:
        peer.wait_until(lambda: len(board.tags() or {}) == RUNS, timeout=600, interval=0.02)
        return time.monotonic() - start
    finally:
        board.stop()


def median_of(measure):
    times = [measure() for _ in range(REPEATS)]
    return statistics.median(times), min(times), max(times)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        empty, full = os.path.join(tmp, "empty"), os.path.join(tmp, "full")
        for d in (home, empty, full):
            os.makedirs(d)
        log("writing a history of %d runs..." % RUNS)
        history(full)
        store(full)
        signalbox_first_frame(full, home)  # files warm in the page cache, as on a second start
        rows = [("Signalbox, empty history", median_of(lambda: signalbox_first_frame(empty, home))),
                ("Signalbox, %d runs" % RUNS, median_of(lambda: signalbox_first_frame(full, home)))]
        python = peer.ensure_venv(BUILD)
        logdir = os.path.join(tmp, "logdir")
        log("writing a logdir of %d runs x 3 tags x %d steps with tensorboardX..." % (RUNS, STEPS))
        peer.write_logdir(python, logdir, RUNS, 3, STEPS)
        tensorboard_first_listing(python, logdir)  # warm, likewise
        rows.append(("TensorBoard (Rust data server), %d runs, until its server lists them" % RUNS,
                     median_of(lambda: tensorboard_first_listing(python, logdir))))
    ours = rows[1][1][0]
    print()
    print("| cold start | median | min | max | vs Signalbox with %d runs |" % RUNS)
    print("| --- | --- | --- | --- | --- |")
    for name, (median, low, high) in rows:
        print("| %s | %.3f s | %.3f s | %.3f s | %.1fx |" % (name, median, low, high, median / ours))
    print("(median of %d launches each; Signalbox to its first frame, offscreen)" % REPEATS)


if __name__ == "__main__":
    main()
