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
    write_runs(logdir, runs, distinct, lambda i, run_dir: [
        python, WRITER, run_dir, str(tags), str(steps), str(i), str(nan_every)])


def write_runs(logdir, runs, distinct, command):
    """Runs run000, run001... in `logdir`: `distinct` of them written by command(i, run_dir), two
    at a time, the others copies of them."""
    shutil.rmtree(logdir, ignore_errors=True)
    distinct = max(1, min(distinct, runs))
    procs = []
    for i in range(distinct):
        procs.append(subprocess.Popen(command(i, os.path.join(logdir, "run%03d" % i)),
                                      stderr=subprocess.DEVNULL))  # "NaN or Inf found" per NaN
        if len(procs) == 2 or i == distinct - 1:
            for p in procs:
                if p.wait() != 0:
                    raise RuntimeError("writing the logdir failed")
            procs = []
    for i in range(distinct, runs):
        shutil.copytree(os.path.join(logdir, "run%03d" % (i % distinct)),
                        os.path.join(logdir, "run%03d" % i))


def warm(logdir):
    """Reads every file once, so no reader pays for the disk and the next one not."""
    for root, _, files in os.walk(logdir):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                while f.read(1 << 20):
                    pass


def collector(binary, logdir, data_dir):
    """signalbox-collector following `logdir`: (the process, its API's base URL)."""
    port = free_port()
    proc = subprocess.Popen([binary, "--listen", "127.0.0.1:%d" % port, "--data-dir", data_dir,
                             "--watch", logdir], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, "http://127.0.0.1:%d/api/v1" % port


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

    def load(self, start, runs, last_tag):
        """Waits until every one of `runs` shows `last_tag` (its file read to the end): the
        seconds since `start`, and the peak resident memory so far."""
        def done():
            tags = self.tags()
            return tags and len(tags) == runs and all(last_tag in t for t in tags.values())
        wait_until(done, timeout=3600, interval=0.25)
        return time.monotonic() - start, peak_rss_mib(self.proc.pid)


def print_ratios(until, served, rows):
    """A Markdown table of readers (name, seconds, peak RSS in MiB, what each served), the
    first Signalbox, with each one's time and memory as a ratio to it."""
    ours_seconds, ours_rss = rows[0][1], rows[0][2]
    print()
    print("| reader | %s | peak RSS | %s | time vs Signalbox | memory vs Signalbox |"
          % (until, served))
    print("| --- | --- | --- | --- | --- | --- |")
    for name, seconds, rss, what in rows:
        print("| %s | %.2f s | %.0f MiB | %s | %.1fx | %.1fx |"
              % (name, seconds, rss, what, seconds / ours_seconds, rss / ours_rss))


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
