"""A real ClickHouse server (Debian's clickhouse-server) on loopback for Signalbox's tests.

    with ClickHouse() as server:
        server.query("SELECT version()")

Writes its own minimal configuration into a temporary directory (data, logs and ports there;
listening on 127.0.0.1 only), waits for GET /ping, and stops by SIGTERM. kill() is a kill -9 and
start() brings it back on the same directory and ports, so what it stored survives."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SERVER = shutil.which("clickhouse-server") or "/usr/sbin/clickhouse-server"

CONFIG = """<yandex>
  <logger><level>warning</level><log>{dir}/log/server.log</log>
    <errorlog>{dir}/log/error.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>{http}</http_port>
  <tcp_port>{tcp}</tcp_port>
  <interserver_http_port>{interserver}</interserver_http_port>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/tmp/</tmp_path>
  <user_files_path>{dir}/user_files/</user_files_path>
  <format_schema_path>{dir}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  {remote_servers}
</yandex>
"""

# A cluster of one shard a server (the lab's `Distributed` tables spread runs over them).
CLUSTER = "lab"
SHARD = "<shard><replica><host>127.0.0.1</host><port>{tcp}</port></replica></shard>"

# "reader": what a lab collector answers reads as (installers/lab): it may set its limits, never
# write; its profile bounds what one statement costs.
READER = ("reader", "reader-secret")
USERS = """<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage></default>
    <reader><readonly>2</readonly><max_memory_usage>1000000000</max_memory_usage>
      <max_execution_time>20</max_execution_time><max_threads>2</max_threads></reader></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default>
    <reader><password>reader-secret</password><networks><ip>127.0.0.1</ip></networks>
    <profile>reader</profile><quota>default</quota></reader></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
  </interval></default></quotas>
</yandex>
"""


def available():
    return os.access(SERVER, os.X_OK)


def cluster(count=2):
    """`count` servers, each a shard of the cluster CLUSTER."""
    ports = [free_port() for _ in range(count)]
    servers = []
    try:
        for port in ports:
            servers.append(ClickHouse(tcp=port, cluster_tcp=ports))
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ClickHouse:
    def __init__(self, tcp=None, cluster_tcp=()):
        """`cluster_tcp`: the TCP ports of every server of the cluster CLUSTER (this one's,
        `tcp`, among them)."""
        self.dir = tempfile.mkdtemp(prefix="sb-clickhouse-")
        self.http = free_port()
        self.tcp = tcp or free_port()
        ports = {"http": self.http, "tcp": self.tcp, "interserver": free_port()}
        for folder in ("log", "data", "tmp"):
            os.makedirs(os.path.join(self.dir, folder))
        remote = "<remote_servers><%s>%s</%s></remote_servers>" % (
            CLUSTER, "".join(SHARD.format(tcp=port) for port in cluster_tcp),
            CLUSTER) if cluster_tcp else ""
        with open(os.path.join(self.dir, "config.xml"), "w") as config:
            config.write(CONFIG.format(dir=self.dir, remote_servers=remote, **ports))
        with open(os.path.join(self.dir, "users.xml"), "w") as users:
            users.write(USERS)
        self.url = "http://127.0.0.1:%d" % self.http
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [SERVER, "--config-file=" + os.path.join(self.dir, "config.xml")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.dir)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise AssertionError("clickhouse-server exited: " + self.log())
            try:
                with urllib.request.urlopen(self.url + "/ping", timeout=2) as answer:
                    if answer.read().strip() == b"Ok.":
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        raise AssertionError("clickhouse-server did not answer /ping: " + self.log())

    def log(self):
        try:
            with open(os.path.join(self.dir, "log", "error.log")) as log:
                return log.read()[-2000:]
        except OSError:
            return ""

    def query(self, sql, user=None):
        """The answer's text (TabSeparated), or an AssertionError with the server's words;
        as `user` ((name, password)) when given."""
        who = "?" + urllib.parse.urlencode({"user": user[0], "password": user[1]}) if user else ""
        request = urllib.request.Request(self.url + "/" + who, data=sql.encode(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError("%s: %s" % (sql, error.read().decode()[:500]))

    def kill(self):
        """kill -9: what it had acknowledged stays on disk."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()
