"""The stock kubectl's protobuf request bodies, captured from a throwaway HTTP listener, decode correctly.

Each typed `kubectl create` subcommand POSTs an enveloped protobuf body; the listener records it and answers
201 with the decoded object as JSON (so kubectl also prints the name it got back). Re-encoding the decoded
object must reproduce kubectl's bytes exactly.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.schema import decode_object, encode_object

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
CLIENT_PROTOBUF = "application/vnd.kubernetes.protobuf"  # what the stock client sends, not our spelling


@dataclass
class Request:
    path: str
    content_type: str
    body: bytes
    decoded: dict[str, Any] | None = None
    error: str | None = None


class _Handler(BaseHTTPRequestHandler):
    requests: list[Request]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, code: int, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404, "reason": "NotFound"})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        request = Request(self.path, self.headers.get("Content-Type", ""), body)
        self.requests.append(request)
        try:
            request.decoded = decode_object(body)
        except Exception as exc:  # noqa: BLE001 - reported by the test, not the listener
            request.error = repr(exc)
            self._reply(
                500, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500, "message": request.error}
            )
            return
        self._reply(201, request.decoded)


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not Path(KUBECTL).exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"kubectl not found at {KUBECTL} (required in CI)")
        pytest.skip(f"kubectl is not installed at {KUBECTL}; install the kubectl binary there to run these tests")
    requests: list[Request] = []
    handler = type("Handler", (_Handler,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    home = tmp_path_factory.mktemp("kubectl-home")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "KUBECONFIG": str(home / "none")}

    def run(*args: str) -> Request:
        before = len(requests)
        proc = subprocess.run(
            [
                KUBECTL,
                f"--server=http://127.0.0.1:{server.server_port}",
                f"--cache-dir={home / 'cache'}",
                "--request-timeout=20s",
                "create",
                *args,
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        posts = requests[before:]
        assert len(posts) == 1, f"kubectl {args}: {proc.stdout}{proc.stderr}"
        request = posts[0]
        assert request.error is None, request.error
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.rstrip().endswith(" created"), proc.stdout  # kubectl read our JSON answer
        assert request.content_type == CLIENT_PROTOBUF
        assert request.decoded is not None
        assert encode_object(request.decoded) == request.body  # byte-exact with Go's marshaller
        return request

    yield run
    server.shutdown()
    server.server_close()


def test_namespace(kubectl: Any) -> None:
    request = kubectl("namespace", "team-a")
    assert request.path.startswith("/api/v1/namespaces?")
    assert request.decoded == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-a"},
        "spec": {},
        "status": {},
    }


def test_configmap(kubectl: Any) -> None:
    request = kubectl("configmap", "c", "--from-literal=a=b", "--from-literal=k=v w")
    assert request.decoded == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c"},
        "data": {"a": "b", "k": "v w"},
    }


def test_configmap_binary_data(kubectl: Any, tmp_path: Path) -> None:
    blob = bytes(range(256))
    (tmp_path / "blob").write_bytes(blob)
    request = kubectl("configmap", "bin", f"--from-file={tmp_path / 'blob'}")
    assert base64.b64decode(request.decoded["binaryData"]["blob"]) == blob


def test_secret_generic(kubectl: Any) -> None:
    request = kubectl("secret", "generic", "s", "--from-literal=user=admin", "--from-literal=empty=", "--type=Opaque")
    assert request.decoded == {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"empty": "", "user": base64.b64encode(b"admin").decode()},
        "type": "Opaque",
    }


def test_deployment(kubectl: Any) -> None:
    request = kubectl("deployment", "web", "--image=nginx:1.27", "--replicas=0", "--port=80", "--", "nginx", "-g")
    assert request.path.startswith("/apis/apps/v1/namespaces/default/deployments?")
    assert request.decoded == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 0,  # a pointer on the wire: an explicit zero survives
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "image": "nginx:1.27",
                            "command": ["nginx", "-g"],
                            "ports": [{"containerPort": 80}],
                            "resources": {},
                        }
                    ]
                },
            },
            "strategy": {},
        },
        "status": {},
    }


def test_service_clusterip(kubectl: Any) -> None:
    request = kubectl("service", "clusterip", "svc", "--tcp=80:8080", "--tcp=443:https")
    spec = request.decoded["spec"]
    assert spec["type"] == "ClusterIP" and spec["selector"] == {"app": "svc"}
    assert spec["ports"] == [
        {"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080},
        {"name": "443-https", "protocol": "TCP", "port": 443, "targetPort": "https"},
    ]
    assert request.decoded["status"] == {"loadBalancer": {}}


def test_service_nodeport(kubectl: Any) -> None:
    request = kubectl("service", "nodeport", "np", "--tcp=5678:8080", "--node-port=30001")
    assert request.decoded["spec"]["ports"][0]["nodePort"] == 30001


def test_serviceaccount(kubectl: Any) -> None:
    request = kubectl("serviceaccount", "robot")
    assert request.decoded == {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}


def test_job(kubectl: Any) -> None:
    request = kubectl("job", "j", "--image=busybox", "--", "echo", "hi")
    assert request.decoded["apiVersion"] == "batch/v1"
    pod_spec = request.decoded["spec"]["template"]["spec"]
    assert pod_spec["restartPolicy"] == "Never"
    assert pod_spec["containers"] == [{"name": "j", "image": "busybox", "command": ["echo", "hi"], "resources": {}}]


def test_cronjob(kubectl: Any) -> None:
    request = kubectl("cronjob", "cj", "--image=busybox", "--schedule=*/5 * * * *", "--", "date")
    spec = request.decoded["spec"]
    assert spec["schedule"] == "*/5 * * * *"
    assert spec["jobTemplate"]["metadata"] == {"name": "cj"}
    assert spec["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"


def test_quota(kubectl: Any) -> None:
    request = kubectl("quota", "q", "--hard=cpu=1,memory=1G,pods=2", "--scopes=BestEffort")
    assert request.decoded["spec"] == {"hard": {"cpu": "1", "memory": "1G", "pods": "2"}, "scopes": ["BestEffort"]}


def test_poddisruptionbudget(kubectl: Any) -> None:
    request = kubectl("poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=50%")
    assert request.path.startswith("/apis/policy/v1/namespaces/default/poddisruptionbudgets?")
    assert request.decoded["spec"] == {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}
    other = kubectl("poddisruptionbudget", "pdb0", "--selector=app=web", "--max-unavailable=0")
    assert other.decoded["spec"]["maxUnavailable"] == 0  # *IntOrString: an explicit zero survives
