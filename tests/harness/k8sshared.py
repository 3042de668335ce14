#!/usr/bin/env python3
"""One Kubernetes control plane (k8scluster.py) for all the tests of a ctest run.

    k8sshared.py start DIR [GPU_NODES]   start it in the background; returns once it is up
    k8sshared.py stop DIR                stop it

DIR holds description.json (k8scluster.py's description), control.sock (its commands; each
test sends "reset" first, see tests/support/K8sCluster.h), cluster.log and pid. ctest runs these
as the setup and cleanup of the fixture "k8s" (tests/CMakeLists.txt); the tests that share the
cluster take turns (a resource lock), so each finds it as it started.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def start(directory, nodes):
    stop(directory)  # one left over from a run that was killed
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    description = os.path.join(directory, "description.json")
    log = os.path.join(directory, "cluster.log")
    env = dict(os.environ, SIGNALBOX_K8S_CONTROL=os.path.join(directory, "control.sock"))
    with open(description + ".part", "wb") as out, open(log, "ab") as err:
        # Its own session and no pipe of ctest's: it outlives this setup test.
        process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "k8scluster.py"), os.path.join(directory, "work"),
             str(nodes)], stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
            start_new_session=True)
    with open(os.path.join(directory, "pid"), "w") as f:
        f.write(str(process.pid))
    deadline = time.time() + 1800  # the first run builds the control plane (minutes)
    while time.time() < deadline:
        with open(description + ".part", "rb") as f:
            line = f.readline()
        if line.endswith(b"\n"):
            json.loads(line)
            os.rename(description + ".part", description)
            print("k8sshared: the cluster is up in", directory, flush=True)
            return 0
        if process.poll() is not None:
            break
        time.sleep(0.5)
    with open(log, "rb") as f:
        sys.stderr.write(f.read()[-4000:].decode(errors="replace"))
    print("k8sshared: the cluster did not start", file=sys.stderr)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # it stops what it started
        process.wait(60)
    os.unlink(os.path.join(directory, "pid"))
    return 1


def stop(directory):
    try:
        with open(os.path.join(directory, "pid")) as f:
            pid = int(f.read())
    except (OSError, ValueError):
        return 0
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
            control.settimeout(30)
            control.connect(os.path.join(directory, "control.sock"))
            control.sendall(b"stop\n")
            control.recv(16)
    except OSError:
        pass  # not listening (yet, or any more): signalled below
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.2)
    else:
        os.killpg(pid, signal.SIGTERM)  # its own finally stops what it started
    for name in ("pid", "description.json"):  # the tests start clusters of their own again
        if os.path.exists(os.path.join(directory, name)):
            os.unlink(os.path.join(directory, name))
    return 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit(__doc__)
    if sys.argv[1] == "start":
        return start(os.path.abspath(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    return stop(os.path.abspath(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
