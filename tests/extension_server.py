"""A stand-in extension API server for the aggregation tests: HTTPS with a serving certificate for
`<service>.<namespace>.svc`, the front proxy's client certificate checked when offered, serving a metrics
group (NodeMetrics, PodMetrics) as metrics-server does; and faults on demand (hang, 500, a cut answer)."""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from orch_apiserver import pki

from tests.stand_in import QuietHandler, serving

STAMP = "2026-01-02T03:04:05Z"


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: list[tuple[str, str]]
    client: str  # the client certificate's subject ("" without one)

    def header(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


@dataclass
class Extension:
    group: str
    port: int = 0
    calls: list[Call] = field(default_factory=list)
    #: "ok", "hang" (no answer until released), "fail" (500) or "cut" (the connection closes mid-answer)
    mode: str = "ok"
    release: threading.Event = field(default_factory=threading.Event)

    def api_calls(self) -> list[Call]:
        return [c for c in self.calls if c.path.startswith(f"/apis/{self.group}/v1beta1/")]


def resource_list(group: str) -> dict:
    verbs = ["get", "list"]
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/v1beta1",
        "resources": [
            {"name": "nodes", "singularName": "", "namespaced": False, "kind": "NodeMetrics", "verbs": verbs},
            {"name": "pods", "singularName": "", "namespaced": True, "kind": "PodMetrics", "verbs": verbs},
        ],
    }


def openapi_v3(group: str) -> dict:
    """The group version's OpenAPI v3 document (what `kubectl explain` reads)."""
    string = {"type": "string"}
    pod_metrics_schema = {
        "description": "PodMetrics sets resource usage metrics of a pod.",
        "type": "object",
        "properties": {
            "apiVersion": string,
            "kind": string,
            "metadata": {"type": "object"},
            "timestamp": {
                "type": "string",
                "format": "date-time",
                "description": "The end of the window in which the usage was measured.",
            },
            "window": {"type": "string", "description": "The length of that window."},
            "containers": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Metrics for all containers, collected within the same window.",
            },
        },
        "x-kubernetes-group-version-kind": [{"group": group, "version": "v1beta1", "kind": "PodMetrics"}],
    }
    gvk = {"group": group, "version": "v1beta1", "kind": "PodMetrics"}
    ref = {"$ref": "#/components/schemas/io.example.metrics.v1beta1.PodMetrics"}
    get = {
        "x-kubernetes-group-version-kind": gvk,
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": ref}}}},
    }
    return {
        "openapi": "3.0.0",
        "info": {"title": "metrics", "version": "v1beta1"},
        "paths": {f"/apis/{group}/v1beta1/namespaces/{{namespace}}/pods/{{name}}": {"get": get}},
        "components": {"schemas": {"io.example.metrics.v1beta1.PodMetrics": pod_metrics_schema}},
    }


def pod_metrics(group: str, namespace: str) -> dict:
    return {
        "kind": "PodMetricsList",
        "apiVersion": f"{group}/v1beta1",
        "metadata": {},
        "items": [
            {
                "metadata": {"name": "web", "namespace": namespace, "creationTimestamp": STAMP},
                "timestamp": STAMP,
                "window": "30s",
                "containers": [{"name": "app", "usage": {"cpu": "150m", "memory": "64Mi"}}],
            }
        ],
    }


def node_metrics(group: str) -> dict:
    return {
        "kind": "NodeMetricsList",
        "apiVersion": f"{group}/v1beta1",
        "metadata": {},
        "items": [
            {
                "metadata": {"name": "node-1", "creationTimestamp": STAMP},
                "timestamp": STAMP,
                "window": "30s",
                "usage": {"cpu": "500m", "memory": "1Gi"},
            }
        ],
    }


@contextmanager
def extension_server(
    ca: pki.CertKey, tmp: Path, group: str, service: str, namespace: str, front_proxy_ca: Path | None = None
) -> Iterator[Extension]:
    certificate = pki.issue_serving_cert(ca, f"{service}.{namespace}.svc", [f"{service}.{namespace}.svc", "127.0.0.1"])
    pki.write_pair(certificate, tmp / "extension.crt", tmp / "extension.key")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp / "extension.crt", tmp / "extension.key")
    if front_proxy_ca is not None:
        context.verify_mode = ssl.CERT_OPTIONAL
        context.load_verify_locations(cafile=str(front_proxy_ca))
    state = Extension(group)

    class Handle(QuietHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            state.calls.append(Call(self.command, parts.path, query, list(self.headers.items()), self.client_subject()))
            base = f"/apis/{group}/v1beta1"
            if parts.path == base:
                self.reply_json(200, resource_list(group))
                return
            if parts.path == f"/openapi/v3{base}":
                self.reply_json(200, openapi_v3(group))
                return
            if parts.path == "/openapi/v2":
                v3 = openapi_v3(group)
                self.reply_json(
                    200,
                    {
                        "swagger": "2.0",
                        "info": {"title": "metrics", "version": "v1beta1"},
                        "paths": {
                            p: {
                                "get": {"x-kubernetes-group-version-kind": op["get"]["x-kubernetes-group-version-kind"]}
                            }
                            for p, op in v3["paths"].items()
                        },
                        "definitions": v3["components"]["schemas"],
                    },
                )
                return
            if state.mode == "hang":
                state.release.wait(30)
                return
            if state.mode == "fail":
                self.reply_json(
                    500,
                    {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "status": "Failure",
                        "code": 500,
                        "reason": "InternalError",
                        "message": "the metrics backend is down",
                    },
                )
                return
            if state.mode == "cut":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "4096")
                self.end_headers()
                self.wfile.write(b'{"kind": "PodMetricsList", "items": [')
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)  # gone now, with 4,060 bytes still owed
                self.close_connection = True
                return
            if query.get("watch") == ["true"]:
                self._watch(pod_metrics(group, "default")["items"][0])
            elif parts.path == f"{base}/nodes":
                self.reply_json(200, node_metrics(group))
            elif parts.path.startswith(f"{base}/namespaces/") and parts.path.endswith("/pods"):
                self.reply_json(200, pod_metrics(group, parts.path.split("/")[5]))
            else:
                self.reply_json(
                    404,
                    {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "status": "Failure",
                        "code": 404,
                        "reason": "NotFound",
                        "message": "not found",
                    },
                )

        do_POST = do_DELETE = do_PUT = do_PATCH = do_GET

        def _watch(self, item: dict[str, Any]) -> None:
            """One event at once, the next after the test releases it, then the end of the stream."""
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in ({"type": "ADDED", "object": item}, None):
                if event is None:
                    state.release.wait(30)
                    event = {"type": "MODIFIED", "object": item}
                data = json.dumps(event).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

    with serving(Handle, context=context) as port:
        state.port = port
        try:
            yield state
        finally:
            state.release.set()


def registration(
    group: str, service: str, namespace: str, port: int, ca: pki.CertKey, apiregistration: str
) -> list[dict]:
    """The Service, its Endpoints and the APIService that register the extension server."""
    import base64

    return [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": service, "namespace": namespace},
            "spec": {"ports": [{"name": "https", "port": 443, "targetPort": port}]},
        },
        {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {"name": service, "namespace": namespace},
            "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": port}]}],
        },
        {
            "apiVersion": f"{apiregistration}/v1",
            "kind": "APIService",
            "metadata": {"name": f"v1beta1.{group}"},
            "spec": {
                "group": group,
                "version": "v1beta1",
                "groupPriorityMinimum": 100,
                "versionPriority": 100,
                "service": {"namespace": namespace, "name": service, "port": 443},
                "caBundle": base64.b64encode(ca.cert_pem).decode(),
            },
        },
    ]
