#!/usr/bin/env python3
"""Real sshd nodes on loopback for Signalbox's tests and benchmarks.

    sshnodes.py WORKDIR NAME[=CAPTURE[@idle][*GPUS]] ...

Starts one OpenSSH server per node on 127.0.0.1 with its own host key, home directory and a
fake `nvidia-smi` first on its PATH that replays a real capture from tests/data/nvidia-smi
(utilization and power vary from second to second; compute processes are live placeholder
processes with real pids, users and command lines). "@idle" replays the capture's idle GPUs
while the processes still hold them; "@free" replays them idle with no processes at all. "*8" makes a node of eight GPUs, the
captured one over again, a quarter of them idle and free. A node without CAPTURE is CPU-only.

Prints one JSON line describing the nodes, then takes commands on stdin, one per line, and
answers each with "ok" or "error: ...":
    stop NAME   SIGSTOP the node's sshd and every process below it (a hung node)
    cont NAME   SIGCONT them
    kill NAME   kill them (a dead node)
    start NAME  start the node's sshd again on the same port with the same host key
    rekey NAME  give the node a new host key (a changed host key) and restart it
End of input stops everything.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "nvidia-smi")
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
FRAMES = 6  # the fake nvidia-smi cycles through this many variants, one per second


def section(text, title):
    """The body of a capture section such as 'load :: query-gpu'."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# " + title):
            body = []
            for row in lines[i + 3:]:
                if row.startswith("####"):
                    break
                body.append(row)
            return "\n".join(body).strip() + "\n"
    raise SystemExit(f"sshnodes: no section '{title}'")


def vary(csv, frame):
    """The query-gpu CSV with utilization, power and temperature moved for this frame."""
    rows = csv.strip().splitlines()
    header = [h.strip() for h in rows[0].split(",")]
    factor = 0.55 + 0.09 * frame
    out = [rows[0]]
    for row in rows[1:]:
        cells = [c.strip() for c in row.split(", ")]
        for i, name in enumerate(header):
            if i >= len(cells):
                break
            m = re.fullmatch(r"([0-9.]+)( ?%| W)?", cells[i])
            if m and (name.startswith("utilization.gpu") or name.startswith("power.draw")
                      or name.startswith("temperature.gpu")):
                value = float(m.group(1)) * (factor if not name.startswith("temp") else 1)
                value += frame if name.startswith("temp") else 0
                if name.startswith("utilization"):
                    value = min(100, round(value))
                    cells[i] = f"{value} %"
                elif name.startswith("power"):
                    cells[i] = f"{value:.2f} W"
                else:
                    cells[i] = f"{value:.0f}"
        out.append(", ".join(cells))
    return "\n".join(out) + "\n"


def fake_nvidia_smi(directory, name, capture):
    """Writes DIRECTORY/bin/nvidia-smi replaying CAPTURE (see the module's description) and
    returns the placeholder processes that stand for its compute processes."""
    placeholders = []
    os.makedirs(os.path.join(directory, "bin"), exist_ok=True)
    capture, _, count = capture.partition("*")
    capture, _, phase = capture.partition("@")
    gpus = int(count or 1)
    text = open(os.path.join(DATA, capture), encoding="utf-8").read()
    smi = os.path.join(directory, "smi")
    os.makedirs(smi, exist_ok=True)
    gpu = section(text, f"{'load' if phase in ('', 'load') else 'idle'} :: query-gpu")
    # A node of N GPUs: the captured GPU N times over, each with its own index, uuid and bus
    # id; the last quarter idle and free, the rest running copies of the captured processes.
    busy = gpus - gpus // 4 if gpus > 1 else gpus
    uuids = [None]
    if gpus > 1:
        rows = gpu.strip().splitlines()
        idle_row = section(text, "idle :: query-gpu").strip().splitlines()[1]
        header = [h.strip() for h in rows[0].split(",")]
        out = [rows[0]]
        uuids = []
        for i in range(gpus):
            cells = [c.strip() for c in (rows[1] if i < busy else idle_row).split(", ")]
            for at, name in enumerate(header):
                if name == "index":
                    cells[at] = str(i)
                elif name == "uuid":
                    cells[at] = cells[at][:-2] + f"{i:02d}"
                    uuids.append(cells[at])
                elif name == "pci.bus_id":
                    cells[at] = cells[at][:-7] + f"{0x18 + i:02X}:00.0"
            out.append(", ".join(cells))
        gpu = "\n".join(out) + "\n"
    for frame in range(FRAMES):
        with open(os.path.join(smi, f"gpu.{frame}.csv"), "w") as f:
            f.write(vary(gpu, frame))
    # Each captured compute process becomes a live placeholder with the same name.
    apps = section(text, "load :: query-compute-apps").strip().splitlines()
    header = [h.strip() for h in apps[0].split(",")]
    pid_at = header.index("pid")
    uuid_at = header.index("gpu_uuid")
    name_at = header.index("process_name")
    rows = [apps[0]]
    renamed = {}  # (captured pid, GPU index) -> placeholder pid
    for index in range(busy if phase != "free" else 0):
        for row in apps[1:]:
            cells = row.split(", ")
            argv0 = cells[name_at].strip()
            command = f"{argv0} --config experiments/{name}.yaml"
            child = subprocess.Popen(["bash", "-c", f'exec -a "{command}" sleep 1000000'],
                                     start_new_session=True)
            placeholders.append(child)
            renamed[(cells[pid_at].strip(), index)] = str(child.pid)
            cells[pid_at] = str(child.pid)
            if uuids[0]:
                cells[uuid_at] = uuids[index]
            rows.append(", ".join(cells))
    # pmon's rows for the same processes, under the placeholders' pids and their GPUs.
    pmon = []
    for line in section(text, "load :: pmon").splitlines():
        cells = line.split()
        if line.startswith("#"):
            pmon.append(line)
            continue
        for index in range(busy):
            if len(cells) > 1 and (cells[1], index) in renamed:
                pmon.append(line.replace(f" {cells[0]} ", f" {index} ", 1)
                            .replace(f" {cells[1]} ", f" {renamed[(cells[1], index)]} ", 1))
    with open(os.path.join(smi, "pmon.txt"), "w") as f:
        f.write("\n".join(pmon) + "\n")
    with open(os.path.join(smi, "apps.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(os.path.join(directory, "bin", "nvidia-smi"), "w") as f:
        f.write(f"""#!/bin/sh
# Replays a real capture ({capture}); one variant per second.
d={smi}
case "$*" in
  *--query-compute-apps*) cat "$d/apps.csv" ;;
  pmon*) cat "$d/pmon.txt" ;;
  *--query-gpu=*)
    # The requested fields, in the requested order, under nvidia-smi's canonical names.
    fields=$(printf '%s\n' "$@" | sed -n 's/^--query-gpu=//p')
    exec awk -v want="$fields" -F', ' '
      NR == 1 {{
        n = split(want, w, ",")
        for (i = 1; i <= NF; i++) {{ h = $i; sub(/ \[.*$/, "", h); col[h] = i }}
        for (j = 1; j <= n; j++) {{
          f = w[j]
          if (f == "clocks.sm") f = "clocks.current.sm"
          if (f == "clocks.mem") f = "clocks.current.memory"
          sub(/^clocks_throttle_reasons\./, "clocks_event_reasons.", f)
          if (!(f in col)) {{ print "Field \\"" w[j] "\\" is not a valid field to query."; exit 2 }}
          pick[j] = col[f]
        }}
      }}
      {{ line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? ", " : "") $(pick[j]); print line }}
    ' "$d/gpu.$(( $(date +%s) % {FRAMES} )).csv" ;;
  *) echo "fake nvidia-smi: unsupported arguments: $*" >&2; exit 2 ;;
esac
""")
    os.chmod(os.path.join(directory, "bin", "nvidia-smi"), 0o755)
    return placeholders


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path):
    if os.path.exists(path):
        os.remove(path)
        os.remove(path + ".pub")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path], check=True)


def fingerprint(pub):
    out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", pub], check=True,
                         capture_output=True, text=True).stdout
    return out.split()[1]


class Node:
    def __init__(self, work, name, capture, authorized, env=None):
        self.name = name
        self.dir = os.path.join(work, name)
        self.home = os.path.join(self.dir, "home")
        self.port = free_port()
        self.placeholders = []
        os.makedirs(os.path.join(self.dir, "bin"), exist_ok=True)
        os.makedirs(self.home, exist_ok=True)
        self.hostkey = os.path.join(self.dir, "host_key")
        keygen(self.hostkey)
        if capture:
            self.fake_nvidia_smi(capture)
        extra = "".join(f" {k}={v}" for k, v in (env or {}).items())
        with open(os.path.join(self.dir, "sshd_config"), "w") as f:
            f.write(f"""ListenAddress 127.0.0.1:{self.port}
HostKey {self.hostkey}
AuthorizedKeysFile {authorized}
PidFile {self.dir}/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 64
Subsystem sftp internal-sftp
MaxStartups 200
SetEnv PATH={self.dir}/bin:/usr/local/bin:/usr/bin:/bin HOME={self.home}{extra}
""")
        self.proc = None
        self.start()

    def fake_nvidia_smi(self, capture):
        self.placeholders.extend(fake_nvidia_smi(self.dir, self.name, capture))

    def start(self):
        os.makedirs("/run/sshd", exist_ok=True)
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", os.path.join(self.dir, "sshd_config")],
                                     stderr=open(os.path.join(self.dir, "sshd.log"), "a"),
                                     start_new_session=True)
        # Ready once it accepts connections.
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit(f"sshnodes: sshd for {self.name} exited; see {self.dir}/sshd.log")
                import time
                time.sleep(0.05)
        raise SystemExit(f"sshnodes: sshd for {self.name} did not start")

    def tree(self):
        """The sshd and every process below it, found through /proc."""
        children = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children.get(pid, []))
        return found

    def signal(self, sig):
        for pid in self.tree():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def kill(self):
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        self.proc.wait()

    def describe(self):
        return {"name": self.name, "host": "127.0.0.1", "port": self.port, "pid": self.proc.pid,
                "home": self.home, "dir": self.dir,
                "fingerprint": fingerprint(self.hostkey + ".pub"),
                "gpuPids": [p.pid for p in self.placeholders]}


def identity_and_authorized(work):
    """A client key pair for the tests, and the authorized_keys file every node shares."""
    identity = os.path.join(work, "id_ed25519")
    keygen(identity)
    authorized = os.path.join(work, "authorized_keys")
    shutil.copy(identity + ".pub", authorized)
    return identity, authorized


def serve(nodes, description, cleanup=lambda: None):
    """Prints the description, then answers the commands of the module's docstring."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # cleans up as at end of input
    print(json.dumps(description), flush=True)
    try:
        for line in sys.stdin:
            verb, _, name = line.strip().partition(" ")
            node = nodes.get(name)
            if node is None:
                print(f"error: no node {name!r}", flush=True)
                continue
            if verb == "stop":
                node.signal(signal.SIGSTOP)
            elif verb == "cont":
                node.signal(signal.SIGCONT)
            elif verb == "kill":
                node.kill()
            elif verb == "start":
                node.start()
            elif verb == "rekey":
                node.kill()
                keygen(node.hostkey)
                node.start()
            else:
                print(f"error: unknown command {verb!r}", flush=True)
                continue
            print("ok", flush=True)
    finally:
        for node in nodes.values():
            node.kill()
            for child in node.placeholders:
                child.kill()
        cleanup()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    work = os.path.abspath(sys.argv[1])
    os.makedirs(work, exist_ok=True)
    identity, authorized = identity_and_authorized(work)
    nodes = {}
    for spec in sys.argv[2:]:
        name, _, capture = spec.partition("=")
        nodes[name] = Node(work, name, capture, authorized)
    serve(nodes, {"identity": identity, "user": os.environ.get("USER") or "root",
                  "nodes": [n.describe() for n in nodes.values()]})


if __name__ == "__main__":
    main()
