"""A real signalbox-collector is killed with SIGKILL while the Python client pushes to it.
After a restart every point the collector acknowledged is there, none twice, and the points
sent while it was down were printed as metric lines: nothing is lost.

usage: test_collector_crash.py SIGNALBOX_COLLECTOR SIGNALBOX_CLI"""

import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import signalbox


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, data, port):
    process = subprocess.Popen([binary, "--listen", "127.0.0.1:%d" % port, "--data-dir", data],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if "listening on" not in line:
        raise SystemExit("collector did not start: %r %s" % (line, process.stderr.read()))
    return process


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def main():
    collector_binary, cli = sys.argv[1], sys.argv[2]
    data = tempfile.mkdtemp(prefix="sb-crash-")
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    process = start(collector_binary, data, port)

    acked = set()
    lock = threading.Lock()

    def on_ack(records):
        with lock:
            acked.update(step for step, _, _ in records)

    out = io.StringIO()
    run = signalbox.Run(run="crash", collector=url, flush_interval=0.02, on_ack=on_ack, out=out,
                        config={"test": "crash"})
    total = 6000
    killed_at = None
    for step in range(total):
        run.log({"x": float(step), "y": step * 0.5}, step=step)
        time.sleep(0.0003)
        if killed_at is None and len(acked) > 1500:
            process.send_signal(signal.SIGKILL)  # mid-ingest: batches are in flight
            process.wait()
            killed_at = step
        if killed_at is not None and step == killed_at + 1500:
            process = start(collector_binary, data, port)
    time.sleep(2.5)  # let the client's retry find the restarted collector
    for step in range(total, total + 200):
        run.log({"x": float(step), "y": step * 0.5}, step=step)
    run.finish()

    stored_csv = get(url + "/api/v1/export?run=crash&metric=x").splitlines()[1:]
    stored = [float(line.split(",")[0]) for line in stored_csv]
    printed = {record["step"] for record in
               (json.loads(l[len(signalbox.PREFIX):]) for l in out.getvalue().splitlines()
                if l.startswith(signalbox.PREFIX))}
    missing_acked = sorted(s for s in acked if s not in set(stored))
    duplicates = len(stored) - len(set(stored))
    lost = set(range(total + 200)) - set(stored) - printed
    health = json.loads(get(url + "/api/v1/health"))
    runs = subprocess.run([cli, "--collector", url, "runs"], capture_output=True, text=True)
    metrics = subprocess.run([cli, "--collector", url, "metrics", "crash"], capture_output=True, text=True)
    process.terminate()
    process.wait()

    print("killed at step %s; acknowledged %d steps, stored %d, printed while down %d"
          % (killed_at, len(acked), len(stored), len(printed)))
    print("collector recovery notes after the kill: %s" % health.get("recovery"))
    failures = []
    if killed_at is None:
        failures.append("the collector was never killed")
    if missing_acked:
        failures.append("acknowledged but missing: %s" % missing_acked[:10])
    if duplicates:
        failures.append("%d duplicate points" % duplicates)
    if lost:
        failures.append("%d points neither stored nor printed" % len(lost))
    if len(acked) <= 1500 or not stored or stored[-1] < total:
        failures.append("the client did not resume pushing after the restart")
    if "crash" not in runs.stdout or runs.returncode != 0:
        failures.append("signalbox-cli runs did not list the run: %s %s" % (runs.stdout, runs.stderr))
    if metrics.stdout.split() != ["x", "y"]:
        failures.append("signalbox-cli metrics crash printed %r" % metrics.stdout)
    for failure in failures:
        print("FAIL:", failure)
    print("%d passed, %d failed" % (6 - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
