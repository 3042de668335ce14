#!/usr/bin/env python3
"""A real Kubernetes control plane on loopback for Signalbox's tests and benchmarks.

    k8scluster.py WORKDIR [GPU_NODES]

Builds (once, cached) and starts etcd, kube-apiserver (TLS on 127.0.0.1), kube-controller-manager
(the Job controller), kube-scheduler and kwok, which plays GPU_NODES fake nodes (default 2) with
8 `nvidia.com/gpu` each and moves their pods through Running to the end (a pod that is
deleted ends Failed with exit code 143 first, as a kubelet's SIGTERM leaves it, and its
finalizers are left to their owners). A Job pod's run lasts
its first container's environment variable HARNESS_RUN (a duration, default "2s") and ends with
the exit code in HARNESS_EXIT_CODE (default 0). kwok also serves the nodes' kubelet API, so
pod logs can be read through the API server: every container's log is the file named podLog in
the description, in the container runtime's format ("TIME stdout F LINE"), for tests to append to. Exec into a pod
of the default namespace runs the command on this machine (kwok's ClusterExec) with a fake
nvidia-smi of two busy H100s first on its PATH; pods of other namespaces have no exec.

Writes a certificate authority, a wrong one, and kubeconfigs for a client certificate
(cert.kubeconfig), a bearer token (token.kubeconfig), a token file (tokenfile.kubeconfig), an
exec credential plugin (exec.kubeconfig; the plugin counts its runs in exec-runs) and a wrong CA
(wrong-ca.kubeconfig). Prints one JSON line describing them, then takes commands on stdin, one
per line, each answered with "ok" or "error: ...":
    restart-apiserver   stop the API server and start it again on the same port
    compact             compact etcd to its latest revision (old resourceVersions become 410)
    reset [GPU_NODES]   put the cluster back as it started, with GPU_NODES fake nodes: every
                        object a test made gone (Jobs, pods, ConfigMaps, Services, namespaces,
                        CRDs, nodes), the pod log empty
End of input stops everything. With SIGNALBOX_K8S_CONTROL set to a path, the commands come
instead over a Unix socket there (one connection at a time, a command a line), stdin is not
read, and "stop" stops everything: one cluster shared by the tests of a run (k8sshared.py).
"""
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import ssl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sshnodes  # noqa: E402  (its fake nvidia-smi)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOKEN = "signalbox-test-token"
EXEC_TOKEN = "signalbox-exec-token"
PROCESSES = {}
PLACEHOLDERS = []  # the fake nvidia-smi's compute processes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def certificates(work):
    """A CA, the API server's certificate, an admin client certificate, a service-account key
    pair, and a second CA that signed nothing here."""
    for ca in ("ca", "wrong-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                f"/CN={ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.crt", cwd=work)
    with open(os.path.join(work, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n")
    for name, subject, ext in (("apiserver", "/CN=kube-apiserver", ["-extfile", "san.ext"]),
                               ("admin", "/O=system:masters/CN=signalbox-admin", [])):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout",
                f"{name}.key", "-out", f"{name}.csr", cwd=work)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-out", f"{name}.crt", *ext, cwd=work)
    openssl("genrsa", "-out", "sa.key", "2048", cwd=work)
    openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=work)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def b64(path):
    return base64.b64encode(read(path)).decode()


def kubeconfig(work, name, server, ca, user):
    """A kubeconfig of one context, `name`, written as WORK/NAME.kubeconfig (JSON is YAML)."""
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": "harness", "cluster": {
            "server": server, "certificate-authority-data": b64(os.path.join(work, ca))}}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {
            "cluster": "harness", "user": name, "namespace": "default"}}],
    }
    path = os.path.join(work, f"{name}.kubeconfig")
    with open(path, "w") as f:
        json.dump(config, f, indent=1)
    return path


CONTAINER_LOGS = """
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata: {{name: pod-log}}
spec:
  selector: {{matchNamespaces: [default]}}
  logs:
  - {{logsFile: {log}, follow: true}}
"""

CONTAINER_EXEC = """
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata: {{name: pod-exec}}
spec:
  selector: {{matchNamespaces: [default]}}
  execs:
  - local:
      envs:
      - {{name: PATH, value: {path}}}
"""

POD_STAGES = """
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-ready}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: DoesNotExist}
    - {key: '.status.podIP', operator: DoesNotExist}
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - {name: {{ .name | Quote }}, image: {{ .image | Quote }}, ready: true, restartCount: 0,
         state: {running: {startedAt: {{ $now | Quote }}}}}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - {name: {{ .name | Quote }}, image: {{ .image | Quote }}, ready: true, restartCount: 0,
         state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }},
                              finishedAt: {{ $now | Quote }}}}}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName false .metadata.uid .metadata.name .metadata.namespace | Quote }}
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-end}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: DoesNotExist}
    - {key: '.status.phase', operator: In, values: [Running]}
    - {key: '.metadata.ownerReferences.[].kind', operator: In, values: [Job]}
  delay:
    durationMilliseconds: 2000
    durationFrom:
      expressionFrom: '.spec.containers.[0].env.[] | select(.name == "HARNESS_RUN") | .value'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $code := "0" }}
      {{ range (index .spec.containers 0).env }}{{ if eq .name "HARNESS_EXIT_CODE" }}{{ $code = .value }}{{ end }}{{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - {name: {{ .name | Quote }}, image: {{ .image | Quote }}, ready: false, restartCount: 0,
         state: {terminated: {exitCode: {{ $code }},
                              reason: {{ if eq $code "0" }}Completed{{ else }}Error{{ end }},
                              startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}}
      {{ end }}
      phase: {{ if eq $code "0" }}Succeeded{{ else }}Failed{{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-killed}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: Exists}
    - {key: '.status.phase', operator: In, values: [Running, Pending]}
  next:
    statusTemplate: |
      {{ $now := Now }}
      containerStatuses:
      {{ range .spec.containers }}
      - {name: {{ .name | Quote }}, image: {{ .image | Quote }}, ready: false, restartCount: 0,
         state: {terminated: {exitCode: 143, reason: Error,
                              startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}}
      {{ end }}
      phase: Failed
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-delete}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: Exists}
    - {key: '.status.phase', operator: NotIn, values: [Running, Pending]}
  next:
    delete: true  # the Job controller's finalizer stays until it has counted the pod
"""


def start(name, argv, work):
    log = open(os.path.join(work, f"{name}.log"), "ab")
    PROCESSES[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)


def stop(*names):
    """Stops the processes named at once: SIGTERM, and SIGKILL for any left after 15 s."""
    stopping = [p for p in (PROCESSES.pop(name, None) for name in names) if p and p.poll() is None]
    for process in stopping:
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.time() + 15
    for process in stopping:
        try:
            process.wait(max(0.0, deadline - time.time()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def stop_all():
    # The API server's clients first (without it they retry for a while before they exit), then
    # the API server, then etcd.
    stop(*[name for name in PROCESSES if name not in ("kube-apiserver", "etcd")])
    stop("kube-apiserver")
    stop("etcd")


def api(server, work, path, method="GET", body=None, timeout=5,
        content_type="application/json"):
    context = ssl.create_default_context(cafile=os.path.join(work, "ca.crt"))
    context.load_cert_chain(os.path.join(work, "admin.crt"), os.path.join(work, "admin.key"))
    request = urllib.request.Request(server + path, method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, context=context, timeout=timeout) as reply:
        body = reply.read()
    return json.loads(body) if body.startswith(b"{") else body.decode()


def wait_until(what, check, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if check():
                return
        except Exception:  # not up yet
            pass
        for name, process in PROCESSES.items():
            if process.poll() is not None:
                raise SystemExit(f"k8scluster: {name} exited while waiting for {what}")
        time.sleep(0.2)
    raise SystemExit(f"k8scluster: timed out waiting for {what}")


def gpu_node(i):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"gpu-{i}", "labels": {"type": "kwok",
                                                        "nvidia.com/gpu.product": "H100"},
                         "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {"taints": []},
            "status": {"capacity": {"cpu": "32", "memory": "256Gi", "pods": "110",
                                    "nvidia.com/gpu": "8"},
                       "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110",
                                       "nvidia.com/gpu": "8"}}}


def nodes_ready(server, work, nodes):
    items = api(server, work, "/api/v1/nodes")["items"]
    return len(items) == nodes and all(
        c["type"] == "Ready" and c["status"] == "True"
        for n in items for c in n["status"].get("conditions", []) if c["type"] == "Ready")


# What a fresh cluster has of each kind a test may make; the rest goes on a reset.
KEPT_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}
KEPT_IN_DEFAULT = {"configmaps": {"kube-root-ca.crt"}, "services": {"kubernetes"},
                   "endpoints": {"kubernetes"}, "serviceaccounts": {"default"}, "secrets": set()}


def reset(server, work, nodes, pod_log):
    """Back to the cluster as it started, for the next test of a shared cluster."""
    names = lambda path: [item["metadata"]["name"] for item in api(server, work, path)["items"]]

    def delete(path):
        try:
            api(server, work, path, "DELETE")
        except urllib.error.HTTPError as e:
            if e.code not in (404, 409):  # gone already, or going
                raise
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    for name in names(crds):
        delete(f"{crds}/{name}")
    for name in set(names("/api/v1/namespaces")) - KEPT_NAMESPACES:
        delete(f"/api/v1/namespaces/{name}")
    for name in names("/apis/batch/v1/namespaces/default/jobs"):
        delete(f"/apis/batch/v1/namespaces/default/jobs/{name}?propagationPolicy=Background")
    for kind, kept in KEPT_IN_DEFAULT.items():
        for name in set(names(f"/api/v1/namespaces/default/{kind}")) - kept:
            delete(f"/api/v1/namespaces/default/{kind}/{name}")
    delete("/api/v1/namespaces/default/events")

    def pods_gone():
        pods = api(server, work, "/api/v1/pods")["items"]
        for pod in pods:  # at once, finalizers (the Job controller's) and grace period aside
            where = f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}"
            if pod["metadata"].get("finalizers"):
                api(server, work, where, "PATCH", {"metadata": {"finalizers": None}},
                    content_type="application/merge-patch+json")
            delete(where + "?gracePeriodSeconds=0")
        return not pods
    wait_until("the pods to go", pods_gone)
    wanted = {f"gpu-{i}" for i in range(nodes)}
    present = set(names("/api/v1/nodes"))
    for name in present - wanted:
        delete(f"/api/v1/nodes/{name}")
    for i in range(nodes):
        if f"gpu-{i}" not in present:
            api(server, work, "/api/v1/nodes", "POST", gpu_node(i))
    wait_until("the fake GPU nodes", lambda: nodes_ready(server, work, nodes))
    wait_until("the namespaces and CRDs to go", lambda: not names(crds) and not (
        set(names("/api/v1/namespaces")) - KEPT_NAMESPACES) and not names(
        "/apis/batch/v1/namespaces/default/jobs"))
    open(pod_log, "w").close()


def commands_from_socket(path):
    """Lines from connections to a Unix socket at `path`, each with a function that answers it."""
    if os.path.exists(path):
        os.unlink(path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(4)
        while True:
            connection, _ = server.accept()
            with connection, connection.makefile("rw") as stream:
                for line in stream:
                    def answer(text, stream=stream):
                        stream.write(text + "\n")
                        stream.flush()
                    yield line, answer


def commands_from_stdin():
    for line in sys.stdin:
        yield line, lambda text: print(text, flush=True)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # through the finally below
    work = os.path.abspath(sys.argv[1])
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    os.makedirs(work, exist_ok=True)
    binaries = subprocess.run([os.path.join(ROOT, "scripts", "k8s-harness")], check=True,
                              stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]
    binary = lambda name: os.path.join(binaries, name)
    certificates(work)
    with open(os.path.join(work, "tokens.csv"), "w") as f:
        f.write(f'{TOKEN},token-user,1,"system:masters"\n')
        f.write(f'{EXEC_TOKEN},exec-user,2,"system:masters"\n')
    with open(os.path.join(work, "token"), "w") as f:
        f.write(TOKEN + "\n")
    plugin = os.path.join(work, "credential-plugin")
    with open(plugin, "w") as f:
        f.write("#!/bin/sh\n# Counts its runs; prints a token valid for an hour.\n"
                f'echo run >> "{work}/exec-runs"\n'
                'expires=$(date -u -d "+1 hour" +%Y-%m-%dT%H:%M:%SZ)\n'
                'printf \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
                f'"status":{{"token":"{EXEC_TOKEN}","expirationTimestamp":"%s"}}}}\\n\' "$expires"\n')
    os.chmod(plugin, 0o755)

    etcd_port, peer_port, api_port = free_port(), free_port(), free_port()
    etcd_url = f"http://127.0.0.1:{etcd_port}"
    server = f"https://127.0.0.1:{api_port}"
    start("etcd", [binary("etcd"), "--data-dir", os.path.join(work, "etcd"),
                   "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
                   "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
                   "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                   "--initial-cluster", f"default=http://127.0.0.1:{peer_port}",
                   "--quota-backend-bytes", str(4 << 30)], work)
    apiserver = [binary("kube-apiserver"), "--etcd-servers", etcd_url,
                 "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
                 "--secure-port", str(api_port), "--cert-dir", os.path.join(work, "certs"),
                 "--tls-cert-file", os.path.join(work, "apiserver.crt"),
                 "--tls-private-key-file", os.path.join(work, "apiserver.key"),
                 "--client-ca-file", os.path.join(work, "ca.crt"),
                 "--token-auth-file", os.path.join(work, "tokens.csv"),
                 "--service-account-key-file", os.path.join(work, "sa.pub"),
                 "--service-account-signing-key-file", os.path.join(work, "sa.key"),
                 "--service-account-issuer", "https://kubernetes.default.svc",
                 "--service-cluster-ip-range", "10.96.0.0/16",
                 "--authorization-mode", "Node,RBAC",
                 "--disable-admission-plugins", "ServiceAccount",
                 "--etcd-compaction-interval", "0",
                 "--endpoint-reconciler-type", "none"]  # loopback is no endpoint address
    start("kube-apiserver", apiserver, work)
    wait_until("the API server", lambda: api(server, work, "/readyz", timeout=2) == "ok")

    admin = kubeconfig(work, "cert", server, "ca.crt", {
        "client-certificate": os.path.join(work, "admin.crt"),
        "client-key": os.path.join(work, "admin.key")})
    configs = {
        "cert": admin,
        "token": kubeconfig(work, "token", server, "ca.crt", {"token": TOKEN}),
        "tokenFile": kubeconfig(work, "tokenfile", server, "ca.crt",
                                {"tokenFile": os.path.join(work, "token")}),
        "exec": kubeconfig(work, "exec", server, "ca.crt", {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "command": plugin,
            "interactiveMode": "Never"}}),
        "wrongCa": kubeconfig(work, "wrong-ca", server, "wrong-ca.crt", {"token": TOKEN}),
    }
    start("kube-controller-manager", [
        binary("kube-controller-manager"), "--kubeconfig", admin, "--leader-elect=false",
        "--bind-address", "127.0.0.1", "--secure-port", "0",
        "--service-account-private-key-file", os.path.join(work, "sa.key"),
        "--root-ca-file", os.path.join(work, "ca.crt"),
        "--controllers", "*,-nodeipam,-cloud-node-lifecycle"], work)
    start("kube-scheduler", [binary("kube-scheduler"), "--kubeconfig", admin,
                             "--leader-elect=false", "--bind-address", "127.0.0.1",
                             "--secure-port", "0"], work)
    # kwok also plays the nodes' kubelet API for the API server: every container's log is
    # pod.log, in the container runtime's format, which tests append to.
    pod_log = os.path.join(work, "pod.log")
    open(pod_log, "a").close()
    # Exec into a pod of the default namespace runs the command here, with a fake nvidia-smi
    # of two busy H100s first on its PATH; other namespaces have no exec (an image without sh).
    PLACEHOLDERS.extend(sshnodes.fake_nvidia_smi(os.path.join(work, "exec"), "pod",
                                                 "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt*2"))
    exec_path = os.path.join(work, "exec", "bin") + ":/usr/local/bin:/usr/bin:/bin"
    with open(os.path.join(work, "kwok.yaml"), "w") as f:
        f.write(POD_STAGES + CONTAINER_LOGS.format(log=json.dumps(pod_log))
                + CONTAINER_EXEC.format(path=json.dumps(exec_path)))
    kubelet_port = free_port()
    start("kwok", [binary("kwok"), "--kubeconfig", admin, "--config",
                   os.path.join(work, "kwok.yaml"), "--manage-all-nodes=false",
                   "--manage-nodes-with-label-selector", "type=kwok",
                   "--cidr", "10.244.0.0/16", "--node-ip", "127.0.0.1",
                   "--node-port", str(kubelet_port),
                   "--server-address", f"127.0.0.1:{kubelet_port}",
                   "--tls-cert-file", os.path.join(work, "apiserver.crt"),
                   "--tls-private-key-file", os.path.join(work, "apiserver.key")], work)
    for i in range(nodes):
        api(server, work, "/api/v1/nodes", "POST", gpu_node(i))
    wait_until("the fake GPU nodes", lambda: nodes_ready(server, work, nodes))
    wait_until("the default service account",
               lambda: api(server, work, "/api/v1/namespaces/default/serviceaccounts/default"))

    print(json.dumps({"server": server, "kubeconfigs": configs, "work": work,
                      "ca": os.path.join(work, "ca.crt"), "execRuns": os.path.join(work, "exec-runs"),
                      "etcd": etcd_url, "bin": binaries, "podLog": pod_log}), flush=True)
    control = os.environ.get("SIGNALBOX_K8S_CONTROL")
    for line, answer in commands_from_socket(control) if control else commands_from_stdin():
        command, _, argument = line.strip().partition(" ")
        if not command:
            continue
        if command == "stop" and control:
            answer("ok")
            break
        try:
            if command == "reset":
                reset(server, work, int(argument or nodes), pod_log)
            elif command == "restart-apiserver":
                stop("kube-apiserver")
                start("kube-apiserver", apiserver, work)
                wait_until("the API server", lambda: api(server, work, "/readyz", timeout=2) == "ok")
            elif command == "compact":
                with urllib.request.urlopen(urllib.request.Request(
                        etcd_url + "/v3/kv/range", data=json.dumps({"key": "AA=="}).encode())) as r:
                    revision = json.loads(r.read())["header"]["revision"]
                urllib.request.urlopen(urllib.request.Request(
                    etcd_url + "/v3/kv/compaction",
                    data=json.dumps({"revision": revision, "physical": True}).encode())).read()
            else:
                raise ValueError(f"unknown command {command!r}")
            answer("ok")
        except (Exception, SystemExit) as e:  # the test reads why
            answer(f"error: {e}")


if __name__ == "__main__":
    try:
        main()
    finally:
        stop_all()
        for placeholder in PLACEHOLDERS:
            placeholder.kill()
