"""Logging metrics from a training script, side by side: Signalbox's Python client pushing to its
collector, tensorboardX writing event files, MLflow (its fluent API on a local SQLite store, what
it now recommends over files) and Aim
(its Run on a local repo), each in a fresh Python process as a script would use it, one call per
step with 5 metrics. Printed per logger: points a second until everything is written (flushed,
acknowledged, closed), and CPU per point of the script and, for Signalbox, of its collector.

The slower loggers log fewer steps (their rates are flat in the step count here), so that the
whole comparison takes about a minute. Peers come from PyPI, pinned, in build/venv-peers.

usage: bench_peers.py SIGNALBOX_COLLECTOR BUILD_DIR SOURCE_DIR"""

import json
import os
import subprocess
import sys
import tempfile

COLLECTOR, BUILD, SOURCE = sys.argv[1:4]
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import tensorboard_peer as peer  # noqa: E402 (its virtualenv, port and CPU helpers)
PACKAGES = ["tensorboardX==2.6.5", "mlflow-skinny==3.17.2", "aim==3.29.1"]
SCALE = float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1"))
METRICS = 5
# Steps per logger: each takes seconds here.
STEPS = {"signalbox": 200_000, "tensorboardX": 20_000, "aim": 5_000, "mlflow": 2_000}

# The script each logger runs: logs, then prints its own wall time and CPU as JSON.
SCRIPT = r'''
import json, os, resource, sys, time
kind, steps, where = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = ["train/loss", "train/acc", "lr", "grad_norm", "tokens"]
# Imports are not timed: a script pays for them once, whatever it logs.
if kind == "signalbox":
    import signalbox
elif kind == "tensorboardX":
    from tensorboardX import SummaryWriter
elif kind == "mlflow":
    import mlflow
elif kind == "aim":
    from aim import Run
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
start, cpu_start = time.perf_counter(), cpu()
if kind == "signalbox":
    run = signalbox.Run(run="bench", collector=where, config={"lr": 0.1})
    for step in range(steps):
        run.log({"train/loss": 1 / (step + 1), "train/acc": step % 7 / 7, "lr": 1e-3,
                 "grad_norm": 0.5, "tokens": step * 4096.0}, step=step)
    run.finish()
    assert run.acknowledged == steps * 5, run.acknowledged
elif kind == "tensorboardX":
    writer = SummaryWriter(where)
    for step in range(steps):
        for name, value in zip(names, (1 / (step + 1), step % 7 / 7, 1e-3, 0.5, step * 4096.0)):
            writer.add_scalar(name, value, step)
    writer.close()
elif kind == "mlflow":
    mlflow.set_tracking_uri("sqlite:///" + where + ".db")
    with mlflow.start_run():
        mlflow.log_params({"lr": 0.1})
        for step in range(steps):
            mlflow.log_metrics({"train/loss": 1 / (step + 1), "train/acc": step % 7 / 7,
                                "lr": 1e-3, "grad_norm": 0.5, "tokens": step * 4096.0}, step=step)
elif kind == "aim":
    run = Run(repo=where)
    run["hparams"] = {"lr": 0.1}
    for step in range(steps):
        for name, value in zip(names, (1 / (step + 1), step % 7 / 7, 1e-3, 0.5, step * 4096.0)):
            run.track(value, name=name, step=step)
    run.close()
print(json.dumps({"seconds": time.perf_counter() - start, "cpu": cpu() - cpu_start}))
'''


def log(message):
    print("bench_peers: " + message, file=sys.stderr, flush=True)


def measure(python, kind, steps, tmp):
    """(seconds, script CPU-s, server CPU-s) of one logger logging `steps` steps."""
    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "clients", "python"),
               MLFLOW_ENABLE_ASYNC_LOGGING="false")
    collector, where = None, os.path.join(tmp, kind)
    if kind == "signalbox":
        port = peer.free_port()
        collector = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port, "--data-dir",
                                      where], stdout=subprocess.PIPE, text=True)
        collector.stdout.readline()
        where = "http://127.0.0.1:%d" % port
        before = peer.cpu_seconds(collector.pid)
    try:
        done = subprocess.run([python, "-c", SCRIPT, kind, str(steps), where], env=env,
                              capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise RuntimeError("%s failed: %s" % (kind, done.stderr[-2000:]))
        result = json.loads(done.stdout.strip().splitlines()[-1])
        server = peer.cpu_seconds(collector.pid) - before if collector else 0.0
    finally:
        if collector:
            collector.terminate()
            collector.wait()
    return result["seconds"], result["cpu"], server


def main():
    log("peers from PyPI: %s" % " ".join(PACKAGES))
    python = peer.ensure_venv(BUILD, "venv-peers", PACKAGES)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, steps in STEPS.items():
            steps = max(500, int(steps * SCALE))
            seconds, cpu, server = measure(python, kind, steps, tmp)
            points = steps * METRICS
            rows.append((kind, points, points / seconds, (cpu + server) / points * 1e6, cpu, server))
            log("%s: %d points in %.2f s" % (kind, points, seconds))
    ours_rate, ours_cpu = rows[0][2], rows[0][3]
    print()
    print("| logger (one call per step, 5 metrics) | points | points/s until written | CPU per "
          "point (script + server) | Signalbox's rate vs this | this CPU vs Signalbox's |")
    print("| --- | --- | --- | --- | --- | --- |")
    for kind, points, rate, cpu_us, cpu, server in rows:
        print("| %s | %d | %.0f | %.2f µs (%.2f + %.2f s) | %.1fx | %.1fx |"
              % (kind, points, rate, cpu_us, cpu, server, ours_rate / rate, cpu_us / ours_cpu))


if __name__ == "__main__":
    main()
