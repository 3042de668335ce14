"""Cost of signalbox.log() on the training thread, side by side with printing a metric line
(its peer: what a script does without a client). A real collector receives the pushes.

usage: bench_client.py PATH/TO/signalbox-collector"""

import io
import os
import socket
import subprocess
import sys
import tempfile
import time

import signalbox

CALLS = int(300_000 * float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1")) or 1000)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    port = free_port()
    data = tempfile.mkdtemp(prefix="sb-bench-client-")
    collector = subprocess.Popen([sys.argv[1], "--listen", "127.0.0.1:%d" % port, "--data-dir", data],
                                 stdout=subprocess.PIPE, text=True)
    collector.stdout.readline()
    try:
        run = signalbox.Run(run="bench", collector="http://127.0.0.1:%d" % port)
        metrics = {"loss": 0.5, "acc": 0.9, "lr": 0.001}
        start = time.perf_counter()
        for step in range(CALLS):
            metrics["loss"] = 1.0 / (step + 1)
            run.log(metrics, step=step)
        logged = time.perf_counter() - start
        run.finish()
        with_flush = time.perf_counter() - start

        with open(os.devnull, "w") as devnull:
            start = time.perf_counter()
            for step in range(CALLS):
                metrics["loss"] = 1.0 / (step + 1)
                print(signalbox.metric_line(metrics, step), file=devnull)
            printed = time.perf_counter() - start

        per_log = logged / CALLS * 1e6
        per_print = printed / CALLS * 1e6
        print("python client: %d log() calls of 3 metrics, sender pushing to a real collector" % CALLS)
        print("  log(): %.2f us per call on the training thread (target <= 5 us: ratio %.2f); "
              "%.2f us including the final flush" % (per_log, per_log / 5, with_flush / CALLS * 1e6))
        print("  printing a metric line instead: %.2f us per call; log() costs %.2fx of that"
              % (per_print, per_log / per_print))
        print("  acknowledged %d points, dropped %d, printed %d" % (run.acknowledged, run.dropped, run.printed))
    finally:
        collector.terminate()
        collector.wait()


if __name__ == "__main__":
    main()
