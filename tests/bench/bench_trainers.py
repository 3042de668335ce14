"""What logging costs a training loop: Signalbox's adapters against each framework's own logger
(Lightning's TensorBoardLogger, the Trainer's report_to="tensorboard") and, at full size
(SIGNALBOX_BENCH_SCALE=1 or SIGNALBOX_BENCH_FULL=1), against W&B (offline), MLflow (a local file
store) and Aim, in the same PyTorch Lightning and Hugging Face Trainer loops on CPU, each in a
fresh process (tests/bench/trainer_loggers.py), three rounds, medians (one round below full
size). Printed per logger: µs per step and CPU µs per logged point beyond the loop without a
logger, over a whole run (its start, such as Signalbox's name check, included: short runs show
it), Signalbox's collector's CPU beside its own, as ratios to Signalbox; then the client wheel's
size and import time. Asserts nothing about time.

usage: bench_trainers.py SIGNALBOX_COLLECTOR BUILD_DIR SOURCE_DIR"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

COLLECTOR, BUILD, SOURCE = sys.argv[1:4]
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import tensorboard_peer as peer  # noqa: E402
import trainers_venv  # noqa: E402

SCALE = float(os.environ.get("SIGNALBOX_BENCH_SCALE", "1"))
FULL = SCALE >= 1 or os.environ.get("SIGNALBOX_BENCH_FULL") == "1"
STEPS = {"lightning": max(300, int(3000 * SCALE)), "transformers": max(60, int(600 * SCALE))}
ROUNDS = 3 if FULL else 1  # medians of three at full size; one round in the test command
CLIENT = os.path.join(SOURCE, "clients", "python")
LOOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trainer_loggers.py")
LOGGERS = ["none", "signalbox", "own"] + (["wandb", "mlflow", "aim"] if FULL else [])
NAMES = {"own": {"lightning": "TensorBoardLogger", "transformers": "report_to=tensorboard"},
         "signalbox": "Signalbox", "wandb": "W&B (offline)", "mlflow": "MLflow (files)",
         "aim": "Aim"}


def loop(python, collector, framework, logger):
    """One run: (seconds, CPU seconds of the script, CPU seconds of the collector, points)."""
    with tempfile.TemporaryDirectory(prefix="sb-bench-trainer-") as where:
        env = dict(os.environ, PYTHONPATH=CLIENT, SIGNALBOX_COLLECTOR=collector[1],
                   SIGNALBOX_RECORD_CODE="0", WANDB_MODE="offline", WANDB_SILENT="true",
                   WANDB_DIR=where, MLFLOW_TRACKING_URI="file:" + os.path.join(where, "mlruns"),
                   CUDA_VISIBLE_DEVICES="", TOKENIZERS_PARALLELISM="false")
        before = peer.cpu_seconds(collector[0].pid)
        done = subprocess.run([python, LOOP, framework, logger, str(STEPS[framework]), where],
                              capture_output=True, text=True, env=env, cwd=where)
        if done.returncode != 0:
            raise RuntimeError("%s with %s failed:\n%s" % (framework, logger, done.stderr[-3000:]))
        result = json.loads(done.stdout.strip().splitlines()[-1])
        served = peer.cpu_seconds(collector[0].pid) - before
        return result["seconds"], result["cpu"], served, result["points"]


def compare(python, collector, framework):
    runs = {logger: [] for logger in LOGGERS}
    for _ in range(ROUNDS):  # rounds interleaved: a slow spell of the machine hits every logger
        for logger in LOGGERS:
            runs[logger].append(loop(python, collector, framework, logger))
    median = {logger: [statistics.median(r[i] for r in results) for i in range(4)]
              for logger, results in runs.items()}
    base_seconds, base_cpu = median["none"][0], median["none"][1]
    steps = STEPS[framework]
    rows = []
    for logger in LOGGERS[1:]:
        seconds, cpu, served, points = median[logger]
        name = NAMES[logger][framework] if isinstance(NAMES[logger], dict) else NAMES[logger]
        rows.append((name, max(0.0, seconds - base_seconds) / steps * 1e6,
                     max(0.0, cpu - base_cpu) / points * 1e6, served / points * 1e6))
    print("\n%s: %d steps (%.0f µs a step without a logger), %d points a run"
          % (framework, steps, base_seconds / steps * 1e6, median["signalbox"][3]))
    print("| logger | µs a step over none | CPU µs a point over none | its collector, µs a point "
          "| step cost vs Signalbox | CPU vs Signalbox |")
    print("| --- | --- | --- | --- | --- | --- |")
    ours = rows[0]
    for name, step, cpu, served in rows:
        print("| %s | %.1f | %.1f | %s | %s | %s |" % (
            name, step, cpu, "%.1f" % served if name == "Signalbox" else "-",
            ratio(step, ours[1]), ratio(cpu, ours[2])))


def ratio(theirs, ours):
    return "%.1fx" % (theirs / ours) if ours > 0 else "-"


def wheel_and_import(python):
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "client")
        shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([python, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "--wheel-dir", tmp, source], check=True)
        wheel = [f for f in os.listdir(tmp) if f.endswith(".whl")][0]
        size = os.path.getsize(os.path.join(tmp, wheel))

    def seconds(code):
        times = []
        for _ in range(10):
            start = time.perf_counter()
            subprocess.run([python, "-c", code], check=True, env=dict(
                os.environ, PYTHONPATH=CLIENT, PYTHONDONTWRITEBYTECODE="1"))
            times.append(time.perf_counter() - start)
        return statistics.median(times)
    cost = seconds("import signalbox") - seconds("pass")
    print("\nclient wheel %s: %.1f KiB; `import signalbox` adds %.1f ms to Python's start "
          "(median of 10, sources not byte-compiled)" % (wheel, size / 1024, cost * 1000))


def answers(url):
    try:
        peer.http_json(url, timeout=5)
        return True
    except OSError:
        return False


def main():
    python = trainers_venv.ensure(BUILD, peers=FULL)
    data = tempfile.mkdtemp(prefix="sb-bench-trainers-")
    port = peer.free_port()
    proc = subprocess.Popen([COLLECTOR, "--listen", "127.0.0.1:%d" % port, "--data-dir", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    collector = (proc, "http://127.0.0.1:%d" % port)
    try:
        peer.wait_until(lambda: answers(collector[1] + "/api/v1/health"), timeout=60)
        print("== logging from training loops (CPU, one thread), scale %.2f%s"
              % (SCALE, "" if FULL else "; W&B, MLflow and Aim at full size only"))
        for framework in STEPS:
            compare(python, collector, framework)
        wheel_and_import(python)
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
