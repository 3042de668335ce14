#!/usr/bin/env python3
"""A real Slurm cluster on loopback for Signalbox's tests, reached through a real sshd.

    slurmcluster.py WORKDIR [MIN_JOB_AGE] [--rest]

Starts, all under WORKDIR and on free loopback ports, as the current user:
- MariaDB (a datadir of its own, a socket, no networking) and slurmdbd on it, so `sacct`
  answers from real accounting once a job has left `squeue`;
- munged with a fresh key;
- slurmctld and two slurmd's ("gpu1", "gpu2", one host, distinct ports: Debian builds Slurm
  with multiple-slurmd support), each with four fake H100s (`gres.conf` File= plain files,
  AutoDetect=off), in partitions "gpu" (default) and "short" (a 1-minute time limit);
- the login node "login": an sshd as in sshnodes.py whose sessions get SLURM_CONF and a fake
  nvidia-smi of four idle H100s on their PATH, which the jobs and steps they start inherit.

With --rest (as root only): slurmrestd on a loopback port with JWT authentication (auth/jwt
beside munge), serving REST v0.0.38 as "nobody". Slurm 22.05 refuses root's tokens, so the jobs
it takes belong to a user of their own, "sbrest" (made with useradd if missing), a Slurm user of
the account who may also log in to the login node with the same key. The JSON line then has
"rest" (the URL), "restSocket" (its Unix socket, which slurmrestd also listens on), "restUser",
"restToken" (from `scontrol token`) and "restWorkspace", a directory on the shared filesystem
that user owns.

As root, also "otherUser" in the JSON line: a second Slurm user of the account ("sbother", made
with useradd if missing) who submits jobs of their own (runuser -u sbother -- sbatch ...), such
as jobs with hostile names for a Signalbox that shows every user's jobs.

MinJobAge is 2 s unless given (Slurm's default is 300), so finished jobs leave `squeue` quickly
and must come from `sacct`.
Prints one JSON line as sshnodes.py does (plus "slurmConf"), then takes its commands ("stop
login", "cont login", ...). End of input stops everything.
"""
import os
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sshnodes  # noqa: E402


def wait_for(what, ready, proc, log, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if ready():
            return
        if proc.poll() is not None:
            raise SystemExit(f"slurmcluster: {what} exited; see {log}")
        time.sleep(0.1)
    raise SystemExit(f"slurmcluster: {what} did not start; see {log}")


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


REST_USER = "sbrest"
OTHER_USER = "sbother"


def ensure_user(name):
    if subprocess.run(["id", name], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--system", "--shell", "/bin/sh", "--no-create-home",
                        "--home-dir", "/nonexistent", name], check=True, capture_output=True)
    # No password, yet not locked ("!"), which sshd without PAM refuses even for a key.
    subprocess.run(["usermod", "--password", "*", name], check=True, capture_output=True)


class Cluster:
    def __init__(self, work, min_job_age, rest):
        self.work = work
        self.min_job_age = min_job_age
        self.rest = rest
        self.procs = []
        self.env = dict(os.environ, SLURM_CONF=os.path.join(work, "slurm.conf"),
                        MYSQL_UNIX_PORT=os.path.join(work, "db.sock"))
        for d in ("log", "state", "db", "munge", "gpu", "spool/gpu1", "spool/gpu2"):
            os.makedirs(os.path.join(work, d), exist_ok=True)
        os.chmod(os.path.join(work, "munge"), 0o755)
        for i in range(4):
            open(os.path.join(work, "gpu", f"nvidia{i}"), "w").close()
        self.ports = {name: sshnodes.free_port()
                      for name in ("ctld", "dbd", "gpu1", "gpu2", "rest")}

    def spawn(self, name, args, env=None):
        log = os.path.join(self.work, "log", name + ".out")
        proc = subprocess.Popen(args, env=env or self.env, stdout=open(log, "a"),
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc, log

    def run(self, args):
        subprocess.run(args, env=self.env, check=True, capture_output=True, timeout=60)

    def start(self):
        w = self.work
        subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={w}/db", "--user=root",
                        "--auth-root-authentication-method=normal", "--skip-test-db"],
                       check=True, capture_output=True)
        db, log = self.spawn("mariadb", ["mariadbd", "--no-defaults", f"--datadir={w}/db",
                                         f"--socket={w}/db.sock", "--skip-networking",
                                         "--user=root", f"--pid-file={w}/db.pid",
                                         "--innodb-buffer-pool-size=32M"])
        wait_for("mariadbd", lambda: os.path.exists(f"{w}/db.sock"), db, log)

        with open(f"{w}/munge.key", "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(f"{w}/munge.key", 0o600)
        munge, log = self.spawn("munged", ["munged", "-f", "-F", f"--socket={w}/munge/sock",
                                           f"--key-file={w}/munge.key",
                                           f"--pid-file={w}/munge/pid",
                                           f"--seed-file={w}/munge/seed",
                                           f"--log-file={w}/log/munged.log"])
        wait_for("munged", lambda: os.path.exists(f"{w}/munge/sock"), munge, log)

        host = socket.gethostname().split(".")[0]
        auth = f"AuthType=auth/munge\nAuthInfo=socket={w}/munge/sock\n"
        if self.rest:
            with open(f"{w}/jwt.key", "wb") as f:
                f.write(os.urandom(32))
            os.chmod(f"{w}/jwt.key", 0o600)
            auth += f"AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={w}/jwt.key\n"
        with open(f"{w}/slurmdbd.conf", "w") as f:
            f.write(f"""{auth}DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={self.ports['dbd']}
SlurmUser=root
LogFile={w}/log/slurmdbd.log
PidFile={w}/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
""")
        os.chmod(f"{w}/slurmdbd.conf", 0o600)
        node = f"NodeHostname={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 Gres=gpu:h100:4"
        with open(f"{w}/slurm.conf", "w") as f:
            f.write(f"""ClusterName=lab
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={self.ports['ctld']}
SlurmUser=root
SlurmdUser=root
{auth}CredType=cred/munge
StateSaveLocation={w}/state
SlurmdSpoolDir={w}/spool/%n
SlurmctldPidFile={w}/slurmctld.pid
SlurmdPidFile={w}/slurmd-%n.pid
SlurmctldLogFile={w}/log/slurmctld.log
SlurmdLogFile={w}/log/slurmd-%n.log
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={self.ports['dbd']}
AccountingStoragePass={w}/munge/sock
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/none
MinJobAge={self.min_job_age}
KillWait=3
OverTimeLimit=0
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=gpu1 {node} Port={self.ports['gpu1']}
NodeName=gpu2 {node} Port={self.ports['gpu2']}
PartitionName=gpu Nodes=gpu1,gpu2 Default=YES MaxTime=INFINITE State=UP
PartitionName=short Nodes=gpu1,gpu2 MaxTime=1 State=UP
""")
        with open(f"{w}/gres.conf", "w") as f:
            f.write(f"AutoDetect=off\nNodeName=gpu[1-2] Name=gpu Type=h100 File={w}/gpu/nvidia[0-3]\n")

        dbd, log = self.spawn("slurmdbd", ["slurmdbd", "-D"])
        wait_for("slurmdbd", lambda: listening(self.ports["dbd"]), dbd, log)
        self.run(["sacctmgr", "-i", "add", "cluster", "lab"])
        self.run(["sacctmgr", "-i", "add", "account", "lab-ml", "Cluster=lab"])
        others = [OTHER_USER] if os.geteuid() == 0 else []
        for user in [os.environ.get("USER") or "root"] + ([REST_USER] if self.rest else []) + others:
            self.run(["sacctmgr", "-i", "add", "user", user, "Account=lab-ml"])
        ctld, log = self.spawn("slurmctld", ["slurmctld", "-D", "-i"])
        wait_for("slurmctld", lambda: listening(self.ports["ctld"]), ctld, log)
        for name in ("gpu1", "gpu2"):
            self.spawn("slurmd-" + name, ["slurmd", "-D", "-N", name])
        deadline = time.time() + 60
        while time.time() < deadline:
            out = subprocess.run(["sinfo", "-h", "-p", "gpu", "-o", "%T %D"], env=self.env,
                                 capture_output=True, text=True).stdout.split()
            if out[:2] == ["idle", "2"]:
                break
            time.sleep(0.2)
        else:
            raise SystemExit(f"slurmcluster: the nodes did not come up; see {w}/log")
        self.rest_info = self.start_rest() if self.rest else {}
        if others:
            self.rest_info["otherUser"] = OTHER_USER

    def start_rest(self):
        w = self.work
        os.chmod(w, 0o755)  # the REST user reads slurm.conf
        os.makedirs(f"{w}/rest-workspace", exist_ok=True)
        shutil.chown(f"{w}/rest-workspace", REST_USER)
        os.makedirs(f"{w}/rest-run", exist_ok=True)  # slurmrestd binds as nobody
        shutil.chown(f"{w}/rest-run", "nobody")
        rest, log = self.spawn("slurmrestd", [
            "slurmrestd", "-a", "rest_auth/jwt", "-s", "openapi/v0.0.38,openapi/dbv0.0.38",
            "-u", "nobody", "-g", "nogroup", f"127.0.0.1:{self.ports['rest']}",
            f"unix:{w}/rest-run/rest.sock"],
            env=dict(self.env, SLURM_JWT="daemon"))
        wait_for("slurmrestd", lambda: listening(self.ports["rest"]), rest, log)
        os.chmod(f"{w}/rest-run/rest.sock", 0o666)  # the REST user's SSH sessions forward to it
        token = subprocess.run(["scontrol", "token", f"username={REST_USER}", "lifespan=86400"],
                               env=self.env, check=True, capture_output=True, text=True)
        return {"rest": f"http://127.0.0.1:{self.ports['rest']}", "restUser": REST_USER,
                "restToken": token.stdout.strip().removeprefix("SLURM_JWT="),
                "restWorkspace": f"{w}/rest-workspace", "restSocket": f"{w}/rest-run/rest.sock"}

    def stop(self):
        # Jobs first: with proctrack/linuxproc, a job's processes outlive a stopped slurmd.
        try:
            for user in [os.environ.get("USER") or "root", OTHER_USER]:
                subprocess.run(["scancel", "--user", user], env=self.env, capture_output=True,
                               timeout=15)
            time.sleep(1)
        except (OSError, subprocess.TimeoutExpired):
            pass  # a controller that is gone cancels nothing; stop the daemons all the same
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def main():
    args = [a for a in sys.argv[1:] if a != "--rest"]
    rest = "--rest" in sys.argv[1:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    if rest and os.geteuid() != 0:
        sys.exit("slurmcluster: --rest runs slurmrestd and jobs as another user: run as root")
    for program in ("slurmctld", "slurmd", "slurmdbd", "munged", "mariadbd", "sshd"):
        if not shutil.which(program) and not os.path.exists("/usr/sbin/" + program):
            sys.exit(f"slurmcluster: {program} is missing; run scripts/setup-deps")
    if rest:
        ensure_user(REST_USER)
    if os.geteuid() == 0:
        ensure_user(OTHER_USER)
    work = os.path.abspath(args[0])
    cluster = Cluster(work, int(args[1]) if len(args) == 2 else 2, rest)
    try:
        cluster.start()
        identity, authorized = sshnodes.identity_and_authorized(work)
        # Its sessions, and so the jobs and steps they start, find a fake nvidia-smi of four
        # idle H100s (the compute nodes' GPUs, for sampling a job's GPUs with srun).
        login = sshnodes.Node(work, "login", "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt@free*4",
                              authorized,
                              env={"SLURM_CONF": cluster.env["SLURM_CONF"]})
    except BaseException:
        cluster.stop()
        raise
    sshnodes.serve({"login": login},
                   {"identity": identity, "user": os.environ.get("USER") or "root",
                    "nodes": [login.describe()], "slurmConf": cluster.env["SLURM_CONF"],
                    **cluster.rest_info},
                   cluster.stop)


if __name__ == "__main__":
    main()
