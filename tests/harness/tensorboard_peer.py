"""TensorBoard from PyPI beside Signalbox: a virtualenv under the build directory, a logdir
written by a real writer (tensorboardX), and TensorBoard's server started on it and asked over
HTTP what its scalars dashboard would show. Used by the compatibility test and the benchmark.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

PACKAGES = ["tensorboard==2.21.0", "tensorboardX==2.6.5"]
# Keeps and serves every point: with --samples_per_plugin scalars=0, TensorBoard 2.21 keeps
# every point but its scalars dashboard then serves none (it downsamples to 0).
ALL_SAMPLES = 10**7
WRITER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "write_tfevents.py")


def ensure_venv(build_dir, name="venv-tensorboard", packages=PACKAGES):
    """The virtualenv's python, created and filled on first use (never the system Python)."""
    venv = os.path.join(build_dir, name)
    python = os.path.join(venv, "bin", "python")
    marker = os.path.join(venv, ".installed-" + "-".join(packages))
    if not os.path.exists(marker):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
                       + packages, check=True)
        open(marker, "w").close()
    return python


def write_logdir(python, logdir, runs, tags, steps, distinct=4, nan_every=0):
    """runs x tags x steps scalars. `distinct` runs are written by tensorboardX (two at a time);
    the others are copies of them, since the writer, pure Python, is far slower than any reader."""
    shutil.rmtree(logdir, ignore_errors=True)
    distinct = max(1, min(distinct, runs))
    procs = []
    for i in range(distinct):
        procs.append(subprocess.Popen([python, WRITER, os.path.join(logdir, "run%03d" % i),
                                       str(tags), str(steps), str(i), str(nan_every)],
                                      stderr=subprocess.DEVNULL))  # "NaN or Inf found" per NaN
        if len(procs) == 2:
            for p in procs:
                if p.wait() != 0:
                    raise RuntimeError("writing the logdir failed")
            procs = []
    for p in procs:
        if p.wait() != 0:
            raise RuntimeError("writing the logdir failed")
    for i in range(distinct, runs):
        shutil.copytree(os.path.join(logdir, "run%03d" % (i % distinct)),
                        os.path.join(logdir, "run%03d" % i))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User and system CPU a process has used so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def http_json(url, form=None, timeout=600):
    data = urllib.parse.urlencode(form, doseq=True).encode() if form is not None else None
    with urllib.request.urlopen(url, data=data, timeout=timeout) as reply:
        return json.loads(reply.read())


class TensorBoard:
    """`tensorboard --logdir` as a user starts it; load_fast picks the Rust data server."""

    def __init__(self, python, logdir, load_fast, samples=None, extra=()):
        self.port = free_port()
        args = [python, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1",
                "--port", str(self.port), "--load_fast", "true" if load_fast else "false"]
        if samples is not None:
            args += ["--samples_per_plugin", "scalars=%d" % samples]
        args += list(extra)
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.base = "http://127.0.0.1:%d" % self.port

    def tags(self):
        try:
            return http_json(self.base + "/data/plugin/scalars/tags", timeout=60)
        except OSError:
            return None  # not listening yet

    def scalars(self, tag, runs):
        """{run: [[wall_time, step, value], ...]} as the dashboard fetches it."""
        return http_json(self.base + "/data/plugin/scalars/scalars_multirun",
                         {"tag": tag, "runs": runs})

    def stop(self):
        os.killpg(self.proc.pid, 15)
        self.proc.wait()


def wait_until(predicate, timeout, interval=0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("gave up after %d s" % timeout)


def peak_rss_mib(pid):
    """Peak resident memory of a process and its children (VmHWM, summed), in MiB."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                             text=True).stdout
        pids += [int(p) for p in out.split()]
    except OSError:
        pass
    for p in pids:
        try:
            with open("/proc/%d/status" % p) as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024.0
