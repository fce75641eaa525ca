"""The stock kubectl against the real server: discovery, create/get/label/annotate/scale/delete, watch, errors."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from . import REPO_ROOT, SHARED_SERVER_ARGS, RunningServer, start_server

pytestmark = pytest.mark.e2e

SYSTEM_NAMESPACES = {"default", "orch-system", "orch-public", "orch-node-lease"}
COMMAND_TIMEOUT = 60.0  # seconds for one kubectl call; they take well under one
WAIT = 30.0  # seconds to wait for something the server does on its own (namespace deletion, a watch event)


@dataclass
class Kubectl:
    """kubectl with the admin kubeconfig of one server and its own HOME and discovery cache."""

    binary: str
    kubeconfig: Path
    home: Path

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCH_", "KUBE"))}
        env.update(HOME=str(self.home), KUBECACHEDIR=str(self.home / "cache"))
        return env

    def argv(self, args: tuple[str, ...]) -> list[str]:
        return [self.binary, "--kubeconfig", str(self.kubeconfig), *args]

    def run(
        self, *args: str, input: str | None = None, timeout: float = COMMAND_TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        """Run to completion; the caller checks the outcome."""
        return subprocess.run(
            self.argv(args),
            check=False,
            cwd=REPO_ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            timeout=timeout,
        )

    def ok(self, *args: str, input: str | None = None) -> str:
        """Run, require exit status 0, return stdout."""
        result = self.run(*args, input=input)
        assert result.returncode == 0, (
            f"kubectl {' '.join(args)} exited {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
        )
        return result.stdout

    def fails(self, *args: str, input: str | None = None) -> str:
        """Run, require exit status 1 (what kubectl returns for a server error), return stderr."""
        result = self.run(*args, input=input)
        assert result.returncode == 1, (
            f"kubectl {' '.join(args)} exited {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
        )
        return result.stderr

    def json(self, *args: str) -> dict:
        return json.loads(self.ok(*args, "-o", "json"))

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(args),
            cwd=REPO_ROOT,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )


def kubectl_for(binary: str, server: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    # one HOME per server (and pytest-xdist worker): the discovery cache is shared by that server's tests only
    home = tmp_path_factory.getbasetemp() / f"kubectl-home-{server.port}"
    home.mkdir(exist_ok=True)
    return Kubectl(binary, server.kubeconfig, home)


@pytest.fixture
def kube(any_server: RunningServer, kubectl: str, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    """kubectl against each store in turn."""
    return kubectl_for(kubectl, any_server, tmp_path_factory)


@pytest.fixture
def kube1(server: RunningServer, kubectl: str, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    """kubectl against the SQLite server only, for what the store cannot change (discovery, request decoding)."""
    return kubectl_for(kubectl, server, tmp_path_factory)


def unique(prefix: str = "e2e") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def namespace_yaml(name: str) -> str:
    return f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n"


@contextlib.contextmanager
def fresh_namespace(kube: Kubectl) -> Iterator[str]:
    """A new namespace (created from YAML, i.e. a JSON request body), deleted afterwards without waiting."""
    name = unique()
    kube.ok("create", "-f", "-", input=namespace_yaml(name))
    try:
        yield name
    finally:
        kube.run("delete", "namespace", name, "--wait=false", "--ignore-not-found")


@pytest.fixture
def ns(kube: Kubectl) -> Iterator[str]:
    with fresh_namespace(kube) as name:
        yield name


@pytest.fixture
def ns1(kube1: Kubectl) -> Iterator[str]:
    with fresh_namespace(kube1) as name:
        yield name


def table(text: str) -> list[dict[str, str]]:
    """Parse kubectl's column output by the header's column starts (cells may be empty)."""
    lines = [line for line in text.splitlines() if line.strip()]
    header = lines[0]
    starts = [i for i, ch in enumerate(header) if ch != " " and (i == 0 or header[i - 1] == " ")]
    names = header.split()
    assert len(starts) == len(names), header
    bounds = list(zip(starts, [*starts[1:], None]))
    return [{name: line[a:b].strip() for name, (a, b) in zip(names, bounds)} for line in lines[1:]]


def wait_until(predicate, timeout: float = WAIT, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# --- discovery -----------------------------------------------------------------------------------------------


def test_version_prints_the_server_version(kube1: Kubectl, server: RunningServer) -> None:
    served = server.get("/version").json()
    assert f"Server Version: {served['gitVersion']}" in kube1.ok("version")
    info = json.loads(kube1.ok("version", "-o", "json"))
    assert info["serverVersion"]["gitVersion"] == served["gitVersion"]
    assert (info["serverVersion"]["major"], info["serverVersion"]["minor"]) == (served["major"], served["minor"])


def test_api_versions(kube1: Kubectl) -> None:
    versions = set(kube1.ok("api-versions").split())
    assert {"v1", "apps/v1", "batch/v1", "policy/v1", "coordination.orch.io/v1", "certificates.orch.io/v1"} <= versions
    assert not any("k8s.io" in version for version in versions), versions


def test_api_resources(kube1: Kubectl) -> None:
    rows = {(row["NAME"], row["APIVERSION"]): row for row in table(kube1.ok("api-resources"))}
    expected = [
        ("pods", "po", "v1", "true", "Pod"),
        ("namespaces", "ns", "v1", "false", "Namespace"),
        ("configmaps", "cm", "v1", "true", "ConfigMap"),
        ("deployments", "deploy", "apps/v1", "true", "Deployment"),
        ("jobs", "", "batch/v1", "true", "Job"),
        ("poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget"),
        ("certificatesigningrequests", "csr", "certificates.orch.io/v1", "false", "CertificateSigningRequest"),
        ("leases", "", "coordination.orch.io/v1", "true", "Lease"),
    ]
    for name, short, version, namespaced, kind in expected:
        row = rows.get((name, version))
        assert row is not None, f"{name} ({version}) missing from kubectl api-resources"
        assert (row["SHORTNAMES"], row["NAMESPACED"], row["KIND"]) == (short, namespaced, kind), row
    # the short names resolve: kubectl get csr / po / deploy go through discovery
    assert kube1.ok("get", "po,deploy,csr", "-n", "orch-public", "-o", "name") == ""


def test_get_namespaces_lists_the_system_namespaces(kube1: Kubectl) -> None:
    names = {row["NAME"] for row in table(kube1.ok("get", "namespaces"))}
    assert names >= SYSTEM_NAMESPACES
    phases = json.loads(kube1.ok("get", "ns", *sorted(SYSTEM_NAMESPACES), "-o", "json"))
    assert {item["status"]["phase"] for item in phases["items"]} == {"Active"}


# --- create, get, replace --------------------------------------------------------------------------------------

MULTI_DOCUMENT = """\
apiVersion: v1
kind: Namespace
metadata:
  name: {ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: {ns}
data:
  color: blue
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: {ns}
spec:
  selector: {{app: web}}
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: {ns}
stringData:
  password: hunter2
"""


@pytest.fixture
def app_ns(kube: Kubectl, tmp_path: Path) -> Iterator[str]:
    """A namespace with a configmap, a deployment, a service and a secret, made by one `kubectl create -f`."""
    name = unique()
    manifest = tmp_path / "app.yaml"
    manifest.write_text(MULTI_DOCUMENT.format(ns=name))
    out = kube.ok("create", "-f", str(manifest))
    assert out.splitlines() == [
        f"namespace/{name} created",
        "configmap/settings created",
        "deployment.apps/web created",
        "service/web created",
        "secret/creds created",
    ]
    yield name
    kube.run("delete", "namespace", name, "--wait=false", "--ignore-not-found")


def test_create_multi_document_yaml(kube: Kubectl, app_ns: str) -> None:
    names = kube.ok("get", "configmaps,deployments,services,secrets", "-n", app_ns, "-o", "name").split()
    assert {"configmap/settings", "deployment.apps/web", "service/web", "secret/creds"} <= set(names)

    secret = kube.json("get", "secret", "creds", "-n", app_ns)
    assert secret["data"] == {"password": b64("hunter2")}
    assert "stringData" not in secret
    assert secret["type"] == "Opaque"

    deployment = kube.json("get", "deployment", "web", "-n", app_ns)
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.25"
    assert deployment["metadata"]["namespace"] == app_ns and deployment["metadata"]["uid"]

    service = kube.json("get", "service", "web", "-n", app_ns)
    assert service["spec"]["ports"][0]["port"] == 80 and service["spec"]["ports"][0]["protocol"] == "TCP"
    assert service["spec"]["type"] == "ClusterIP"

    # the same file again: every object already exists
    err = kube.fails("create", "-f", "-", input=MULTI_DOCUMENT.format(ns=app_ns))
    assert (
        f'Error from server (AlreadyExists): error when creating "STDIN": namespaces "{app_ns}" already exists' in err
    )
    assert 'configmaps "settings" already exists' in err and 'deployments.apps "web" already exists' in err


def test_get_json_round_trip_through_replace(kube: Kubectl, app_ns: str, tmp_path: Path) -> None:
    fetched = kube.json("get", "configmap", "settings", "-n", app_ns)
    assert fetched["apiVersion"] == "v1" and fetched["kind"] == "ConfigMap"
    assert fetched["data"] == {"color": "blue"}
    fetched["data"]["color"] = "red"
    edited = tmp_path / "settings.json"
    edited.write_text(json.dumps(fetched))

    assert kube.ok("replace", "-f", str(edited)).strip() == "configmap/settings replaced"
    replaced = kube.json("get", "configmap", "settings", "-n", app_ns)
    assert replaced["data"] == {"color": "red"}
    assert replaced["metadata"]["uid"] == fetched["metadata"]["uid"]
    assert replaced["metadata"]["resourceVersion"] != fetched["metadata"]["resourceVersion"]

    # the file still carries the old resourceVersion: optimistic concurrency refuses it
    err = kube.fails("replace", "-f", str(edited))
    assert "Error from server (Conflict): error when replacing" in err
    assert 'Operation cannot be fulfilled on configmaps "settings": the object has been modified' in err


def test_get_missing_configmap_is_not_found(kube: Kubectl, ns: str) -> None:
    err = kube.fails("get", "configmap", "nope", "-n", ns)
    assert err.strip() == 'Error from server (NotFound): configmaps "nope" not found'


# --- label, annotate, scale, delete ------------------------------------------------------------------------------


def test_label(kube: Kubectl, app_ns: str) -> None:
    target = ("configmap", "settings", "-n", app_ns)
    assert kube.ok("label", *target, "tier=front").strip() == "configmap/settings labeled"
    assert kube.ok("get", "configmaps", "-n", app_ns, "-l", "tier=front", "-o", "name").split() == [
        "configmap/settings"
    ]

    err = kube.fails("label", *target, "tier=back")
    assert "'tier' already has a value (front), and --overwrite is false" in err
    kube.ok("label", *target, "tier=back", "--overwrite")
    assert kube.ok("get", *target, "-o", "jsonpath={.metadata.labels.tier}") == "back"
    assert kube.ok("get", "configmaps", "-n", app_ns, "-l", "tier=front", "-o", "name") == ""

    assert kube.ok("label", *target, "tier-").strip() == "configmap/settings unlabeled"
    assert "tier" not in (kube.json("get", *target)["metadata"].get("labels") or {})
    assert kube.ok("get", "configmaps", "-n", app_ns, "-l", "tier", "-o", "name") == ""


def test_annotate(kube: Kubectl, app_ns: str) -> None:
    target = ("deployment", "web", "-n", app_ns)
    assert kube.ok("annotate", *target, "owner=team-a").strip() == "deployment.apps/web annotated"
    assert kube.json("get", *target)["metadata"]["annotations"] == {"owner": "team-a"}

    err = kube.fails("annotate", *target, "owner=team-b")
    assert "'owner' already has a value (team-a)" in err
    kube.ok("annotate", *target, "owner=team-b", "note=two words", "--overwrite")
    assert kube.json("get", *target)["metadata"]["annotations"] == {"owner": "team-b", "note": "two words"}

    kube.ok("annotate", *target, "owner-")
    assert kube.json("get", *target)["metadata"]["annotations"] == {"note": "two words"}
    assert kube.json("get", *target)["spec"]["replicas"] == 1  # a metadata patch leaves the spec alone


def test_scale_deployment(kube: Kubectl, app_ns: str) -> None:
    before = kube.json("get", "deployment", "web", "-n", app_ns)
    assert kube.ok("scale", "deployment", "web", "-n", app_ns, "--replicas=3").strip() == "deployment.apps/web scaled"
    assert kube.ok("get", "deploy", "web", "-n", app_ns, "-o", "jsonpath={.spec.replicas}") == "3"
    after = kube.json("get", "deploy", "web", "-n", app_ns)
    assert after["metadata"]["generation"] == before["metadata"]["generation"] + 1
    # --current-replicas is a precondition: it fails when the count differs
    err = kube.fails("scale", "deployment", "web", "-n", app_ns, "--current-replicas=2", "--replicas=5")
    assert "Expected replicas to be 2, was 3" in err
    kube.ok("scale", "deploy/web", "-n", app_ns, "--current-replicas=3", "--replicas=0")
    assert kube.ok("get", "deploy", "-n", app_ns, "-o", "jsonpath={.items[*].spec.replicas}") == "0"


def test_delete_configmap_then_namespace(kube: Kubectl, app_ns: str) -> None:
    assert kube.ok("delete", "configmap", "settings", "-n", app_ns).strip() == 'configmap "settings" deleted'
    err = kube.fails("get", "configmap", "settings", "-n", app_ns)
    assert 'Error from server (NotFound): configmaps "settings" not found' in err

    assert kube.ok("delete", "namespace", app_ns, "--wait=false").strip() == f'namespace "{app_ns}" deleted'

    def gone() -> bool:
        return f"namespace/{app_ns}" not in kube.ok("get", "namespaces", "-o", "name").split()

    assert wait_until(gone), f"namespace {app_ns} still listed {WAIT:.0f}s after kubectl delete"
    err = kube.fails("get", "namespace", app_ns)
    assert f'Error from server (NotFound): namespaces "{app_ns}" not found' in err
    # its contents went with it
    assert kube.ok("get", "deployments,services,secrets", "-n", app_ns, "-o", "name") == ""


# --- watch -----------------------------------------------------------------------------------------------------


class LineReader:
    """Collects a background process's output lines on a thread, so the test can wait for one with a deadline."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(process,), daemon=True)
        self._thread.start()

    def _pump(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        with process.stdout:
            for line in process.stdout:
                self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def join(self, timeout: float = 10) -> None:
        self._thread.join(timeout)

    def wait_for(self, predicate, timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"output ended before the expected line: {self.lines}")
            self.lines.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"expected line not seen within {timeout:.0f}s: {self.lines}")


def first_column(line: str) -> str:
    return line.split()[0] if line.split() else ""


def test_get_watch_shows_a_new_configmap(kube: Kubectl, ns: str) -> None:
    kube.ok(
        "create", "-f", "-", input=f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n  namespace: {ns}\n"
    )
    process = kube.popen("get", "configmaps", "-n", ns, "-w")
    output = LineReader(process)
    try:
        output.wait_for(lambda line: first_column(line) == "before")  # the initial list has been printed
        kube.ok(
            "create", "-f", "-", input=f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n  namespace: {ns}\n"
        )
        output.wait_for(lambda line: first_column(line) == "after")
        assert process.poll() is None, "kubectl get -w ended on its own"
    finally:
        process.terminate()
        process.wait(timeout=10)
        output.join()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[RunningServer]:
    """A server of its own: a test that may tie up its threads must not starve the shared one."""
    running = start_server(tmp_path / "data", SHARED_SERVER_ARGS)
    yield running
    running.stop()


def test_get_watch_ends_after_request_timeout(
    own_server: RunningServer, kubectl: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`--request-timeout` bounds `kubectl get -w` on a quiet collection (it is kubectl's HTTP client timeout).

    This needs the watch response's status line and headers as soon as the watch starts: when they only come
    with the first event, the client times out awaiting headers and client-go retries the watch 10 times.
    """
    kube = kubectl_for(kubectl, own_server, tmp_path_factory)
    kube.ok(
        "create", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: quiet\n  namespace: default\n"
    )
    started = time.monotonic()
    try:
        result = kube.run("get", "configmaps", "-n", "default", "-w", "--request-timeout=2s", timeout=15)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"kubectl get -w --request-timeout=2s still running after {err.timeout:.0f}s")
    elapsed = time.monotonic() - started
    assert [first_column(line) for line in result.stdout.splitlines()] == ["NAME", "quiet"], result.stdout
    assert elapsed < 10, f"kubectl get -w --request-timeout=2s took {elapsed:.1f}s"


# --- typed create subcommands (protobuf request bodies) -----------------------------------------------------------


def test_create_namespace(kube1: Kubectl) -> None:
    name = unique()
    try:
        assert kube1.ok("create", "namespace", name).strip() == f"namespace/{name} created"
        assert kube1.json("get", "namespace", name)["status"]["phase"] == "Active"
    finally:
        kube1.run("delete", "namespace", name, "--wait=false", "--ignore-not-found")


def test_create_configmap_from_literal(kube1: Kubectl, ns1: str) -> None:
    assert kube1.ok("create", "configmap", "c", "-n", ns1, "--from-literal=a=b").strip() == "configmap/c created"
    assert kube1.json("get", "configmap", "c", "-n", ns1)["data"] == {"a": "b"}


def test_create_deployment(kube1: Kubectl, ns1: str) -> None:
    assert kube1.ok("create", "deployment", "d", "-n", ns1, "--image=nginx").strip() == "deployment.apps/d created"
    deployment = kube1.json("get", "deployment", "d", "-n", ns1)
    assert deployment["spec"]["selector"] == {"matchLabels": {"app": "d"}}
    assert deployment["spec"]["replicas"] == 1
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert (container["name"], container["image"]) == ("nginx", "nginx")


def test_create_secret_generic(kube1: Kubectl, ns1: str) -> None:
    assert kube1.ok("create", "secret", "generic", "s", "-n", ns1, "--from-literal=k=v").strip() == "secret/s created"
    secret = kube1.json("get", "secret", "s", "-n", ns1)
    assert (secret["type"], secret["data"]) == ("Opaque", {"k": b64("v")})


def test_create_serviceaccount(kube1: Kubectl, ns1: str) -> None:
    assert kube1.ok("create", "serviceaccount", "sa", "-n", ns1).strip() == "serviceaccount/sa created"
    account = kube1.json("get", "serviceaccount", "sa", "-n", ns1)
    assert (account["kind"], account["metadata"]["name"], account["metadata"]["namespace"]) == (
        "ServiceAccount",
        "sa",
        ns1,
    )


def test_create_job(kube1: Kubectl, ns1: str) -> None:
    assert kube1.ok("create", "job", "j", "-n", ns1, "--image=busybox").strip() == "job.batch/j created"
    job = kube1.json("get", "job", "j", "-n", ns1)
    assert job["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox"
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


# -- the writes issue: patch types, set image, client- and server-side apply, dry-run, diff --
def deployment_yaml(ns: str, replicas: int = 2, image: str = "nginx:1.25") -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {ns}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: {image}
      - name: log
        image: busybox
"""


def spec(kube: Kubectl, ns: str) -> dict:
    return kube.json("-n", ns, "get", "deployment", "web")["spec"]


def test_client_side_apply_patch_types_and_set_image(kube1: Kubectl, ns1: str) -> None:
    kube = kube1
    assert "created" in kube.ok("apply", "-f", "-", input=deployment_yaml(ns1))
    assert "configured" in kube.ok("apply", "-f", "-", input=deployment_yaml(ns1, replicas=3, image="nginx:1.26"))
    assert spec(kube, ns1)["replicas"] == 3
    kube.ok("-n", ns1, "set", "image", "deployment/web", "web=nginx:1.27")
    images = [c["image"] for c in spec(kube, ns1)["template"]["spec"]["containers"]]
    assert images == ["nginx:1.27", "busybox"]  # strategic merge by container name kept the second one
    kube.ok("-n", ns1, "patch", "deployment", "web", "-p", '{"spec":{"replicas":4}}')
    kube.ok("-n", ns1, "patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"replicas":5}}')
    kube.ok(
        "-n",
        ns1,
        "patch",
        "deployment",
        "web",
        "--type=json",
        "-p",
        '[{"op":"replace","path":"/spec/replicas","value":6}]',
    )
    assert spec(kube, ns1)["replicas"] == 6
    failed = kube.fails(
        "-n",
        ns1,
        "patch",
        "deployment",
        "web",
        "--type=json",
        "-p",
        '[{"op":"test","path":"/spec/replicas","value":1}]',
    )
    # the reference's NewGenericServerResponse(422) message, without the JSON-patch library's detail
    assert "the server rejected our request due to an error in our request" in failed and "class" not in failed
    assert spec(kube, ns1)["replicas"] == 6


def test_server_side_apply_conflicts_and_force(kube1: Kubectl, ns1: str) -> None:
    kube = kube1
    assert "serverside-applied" in kube.ok("apply", "--server-side", "-f", "-", input=deployment_yaml(ns1))
    conflict = kube.fails(
        "apply", "--server-side", "--field-manager=other", "-f", "-", input=deployment_yaml(ns1, replicas=4)
    )
    assert "conflict" in conflict and ".spec.replicas" in conflict and "--force-conflicts" in conflict
    kube.ok(
        "apply",
        "--server-side",
        "--field-manager=other",
        "--force-conflicts",
        "-f",
        "-",
        input=deployment_yaml(ns1, replicas=4),
    )
    obj = json.loads(kube.ok("-n", ns1, "get", "deployment", "web", "-o", "json", "--show-managed-fields"))
    managers = {(e["manager"], e["operation"]) for e in obj["metadata"]["managedFields"]}
    assert {("kubectl", "Apply"), ("other", "Apply")} <= managers
    assert obj["spec"]["replicas"] == 4


def test_server_dry_run_and_diff(kube1: Kubectl, ns1: str) -> None:
    kube = kube1
    out = kube.ok("create", "--dry-run=server", "-f", "-", "-o", "json", input=deployment_yaml(ns1))
    assert json.loads(out)["spec"]["revisionHistoryLimit"] == 10  # defaulted by the server
    assert kube.run("-n", ns1, "get", "deployment", "web").returncode == 1  # nothing stored
    kube.ok("apply", "--server-side", "-f", "-", input=deployment_yaml(ns1))
    kube.ok("apply", "--server-side", "--dry-run=server", "-f", "-", input=deployment_yaml(ns1, replicas=9))
    assert spec(kube, ns1)["replicas"] == 2
    diff = kube.run("diff", "-f", "-", input=deployment_yaml(ns1, replicas=7))
    assert diff.returncode == 1 and "+  replicas: 7" in diff.stdout
    same = kube.run("diff", "-f", "-", input=deployment_yaml(ns1))
    assert same.returncode == 0, same.stdout + same.stderr
