"""Cost of signalbox.log() on the training thread, side by side with printing a metric line
(its peer: what a script does without a client), and the CPU the client's sender spends per
point beside the collector's for the same points. A real collector receives the pushes.

usage: bench_client.py PATH/TO/signalbox-collector"""

import io
import os
import subprocess
import sys
import tempfile
import time

import signalbox

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from tensorboard_peer import cpu_seconds, free_port  # noqa: E402

CALLS = int(300_000 * float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1")) or 1000)


def samples(collector):
    """log() with a 256 x 256 image and a histogram of 1 M values, on the training thread,
    beside its peer: what a script without a client does, writing the PNG itself (Pillow) and
    binning the values itself (numpy.histogram), as TensorBoard's writers do at the call."""
    try:
        import numpy as np
        from PIL import Image as PilImage
    except ImportError:
        print("  samples: skipped (numpy and Pillow are needed: Debian's python3-numpy, "
              "python3-pil)")
        return
    calls = max(20, CALLS // 3000)
    rng = np.random.default_rng(0)
    image = (rng.random((256, 256, 3)) * 255).astype(np.uint8)
    weights = rng.normal(size=1_000_000).astype(np.float32)
    run = signalbox.Run(run="bench-samples", collector=collector, heartbeat=0)
    start = time.perf_counter()
    for step in range(calls):
        run.log({"samples": signalbox.Image(image), "weights": signalbox.Histogram(weights)},
                step=step)
    logged = (time.perf_counter() - start) / calls
    run.finish()
    sent = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(calls):
        out = io.BytesIO()
        PilImage.fromarray(image).save(out, format="PNG")
        np.histogram(weights, bins=64)
    peer = (time.perf_counter() - start) / calls
    print("python client: %d log() calls, each a 256 x 256 RGB image and a histogram of 1 M "
          "values" % calls)
    print("  log(): %.2f ms per call on the training thread (copies; the sender encodes); "
          "encoding at the call (a PNG with Pillow, numpy.histogram) costs %.2f ms: %.1fx"
          % (logged * 1e3, peer * 1e3, peer / logged))
    print("  all %d sent and acknowledged in %.2f s (%d acknowledged, %d unsent)"
          % (calls, sent, run.acknowledged, run.unsent))


def main():
    port = free_port()
    data = tempfile.mkdtemp(prefix="sb-bench-client-")
    collector = subprocess.Popen([sys.argv[1], "--listen", "127.0.0.1:%d" % port, "--data-dir", data],
                                 stdout=subprocess.PIPE, text=True)
    collector.stdout.readline()
    try:
        run = signalbox.Run(run="bench", collector="http://127.0.0.1:%d" % port)
        metrics = {"loss": 0.5, "acc": 0.9, "lr": 0.001, "grad_norm": 1.0, "tokens": 0.0}
        collector_cpu = cpu_seconds(collector.pid)
        process_cpu, thread_cpu = time.process_time(), time.thread_time()
        start = time.perf_counter()
        for step in range(CALLS):
            metrics["loss"] = 1.0 / (step + 1)
            metrics["tokens"] = step * 4096.0
            run.log(metrics, step=step)
        logged = time.perf_counter() - start
        run.finish()
        with_flush = time.perf_counter() - start
        thread_cpu = time.thread_time() - thread_cpu  # log() calls, on the training thread
        sender_cpu = time.process_time() - process_cpu - thread_cpu
        collector_cpu = cpu_seconds(collector.pid) - collector_cpu
        points = CALLS * len(metrics)

        with open(os.devnull, "w") as devnull:
            start = time.perf_counter()
            for step in range(CALLS):
                metrics["loss"] = 1.0 / (step + 1)
                print(signalbox.metric_line(metrics, step), file=devnull)
            printed = time.perf_counter() - start

        per_log = logged / CALLS * 1e6
        per_print = printed / CALLS * 1e6
        print("python client: %d log() calls of %d metrics, sender pushing to a real collector"
              % (CALLS, len(metrics)))
        print("  log(): %.2f us per call on the training thread (target <= 2 us: ratio %.2f); "
              "%.2f us including the final flush" % (per_log, per_log / 2, with_flush / CALLS * 1e6))
        print("  CPU per point: sender thread %.3f us, collector %.3f us (sender/collector %.2f; "
              "target <= 1)" % (sender_cpu / points * 1e6, collector_cpu / points * 1e6,
                                sender_cpu / max(collector_cpu, 1e-9)))
        print("  printing a metric line instead: %.2f us per call; log() costs %.2fx of that"
              % (per_print, per_log / per_print))
        print("  acknowledged %d points, dropped %d, printed %d" % (run.acknowledged, run.dropped, run.printed))
        samples("http://127.0.0.1:%d" % port)
    finally:
        collector.terminate()
        collector.wait()


if __name__ == "__main__":
    main()
