"""The aggregation layer end to end: an extension API server (tests/extension_server.py, real HTTPS) registered
with a Service, its Endpoints and an APIService, reached through this server by kubectl (`top`, `get --raw`,
`api-resources`, `get apiservices`), with the front proxy's identity, RBAC first, streaming, and faults."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import yaml
from orch_apiserver import pki
from orch_apiserver.storage.schema import ensure_schema

from tests.extension_server import Extension, extension_server, registration

from . import RunningServer, poll, scratch_database, start_server
from .test_custom_resources import kubectl_run

pytestmark = pytest.mark.e2e

ORCH_GROUP = "metrics.orch.io"


@pytest.fixture(scope="module")
def ca() -> pki.CertKey:
    return pki.create_ca("extension-ca")


@pytest.fixture(scope="module")
def orch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server(tmp_path_factory.mktemp("aggregation"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def metrics(
    orch: RunningServer, ca: pki.CertKey, kubectl: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Extension]:
    tmp = tmp_path_factory.mktemp("extension")
    with extension_server(
        ca, tmp, ORCH_GROUP, "metrics-server", "orch-system", orch.data_dir / "pki" / "front-proxy-ca.crt"
    ) as ext:
        objects = registration(ORCH_GROUP, "metrics-server", "orch-system", ext.port, ca, "apiregistration.orch.io")
        kubectl_run(kubectl, orch, "apply", "-f", "-", stdin=yaml.safe_dump_all(objects))
        kubectl_run(
            kubectl,
            orch,
            "wait",
            "--for",
            "condition=Available",
            f"apiservice/v1beta1.{ORCH_GROUP}",
            "--timeout",
            "30s",
        )
        yield ext


def test_kubectl_reaches_the_extension_with_the_callers_identity(kubectl: str, orch: RunningServer, metrics: Extension):
    raw = json.loads(
        kubectl_run(kubectl, orch, "get", "--raw", f"/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods").stdout
    )
    assert raw["kind"] == "PodMetricsList" and raw["items"][0]["containers"][0]["usage"]["cpu"] == "150m"
    call = metrics.api_calls()[-1]
    assert call.header("X-Remote-User") == ["admin"]
    assert set(call.header("X-Remote-Group")) == {"system:masters", "system:authenticated"}
    assert call.header("Authorization") == []
    assert "CN=front-proxy-client" in call.client.replace("commonName", "CN")
    resources = kubectl_run(kubectl, orch, "api-resources", "--api-group", ORCH_GROUP).stdout
    assert "NodeMetrics" in resources and "PodMetrics" in resources
    group = orch.get(f"/apis/{ORCH_GROUP}").json()
    assert group["preferredVersion"]["groupVersion"] == f"{ORCH_GROUP}/v1beta1"
    names = [g["name"] for g in orch.get("/apis").json()["groups"]]
    assert names[0] == "apiregistration.orch.io" and names.index(ORCH_GROUP) > names.index(
        "flowcontrol.apiserver.orch.io"
    )
    described = kubectl_run(kubectl, orch, "describe", "apiservice", f"v1beta1.{ORCH_GROUP}").stdout
    assert "all checks passed" in described and "metrics-server" in described
    v2 = orch.get("/openapi/v2").json()  # the extension's document merged into the server's
    assert v2["definitions"]["io.example.metrics.v1beta1.PodMetrics"]["properties"]["window"]
    assert f"/apis/{ORCH_GROUP}/v1beta1/namespaces/{{namespace}}/pods/{{name}}" in v2["paths"]
    assert "core.v1.Pod" in v2["definitions"]  # and the server's own
    v3 = orch.get("/openapi/v3").json()["paths"]
    assert v3[f"apis/{ORCH_GROUP}/v1beta1"] == {"serverRelativeURL": f"/openapi/v3/apis/{ORCH_GROUP}/v1beta1"}


def test_an_impersonated_users_extras_reach_the_extension_and_the_callers_headers_do_not(
    orch: RunningServer, metrics: Extension
):
    answer = orch.get(
        f"/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods",
        headers={
            "Impersonate-User": "jane",
            "Impersonate-Group": "system:masters",
            "Impersonate-Extra-Scopes": "view",
            "X-Remote-User": "mallory",
            "X-Remote-Extra-Forged": "yes",
        },
    )
    assert answer.status_code == 200, answer.text
    call = metrics.api_calls()[-1]
    assert call.header("X-Remote-User") == ["jane"]
    assert call.header("X-Remote-Extra-Scopes") == ["view"]
    assert call.header("X-Remote-Extra-Forged") == [] and call.header("Impersonate-User") == []
    upgrade = orch.get(
        f"/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods/web/exec",
        headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1"},
    )
    assert upgrade.status_code == 400 and "upgrade requests are not proxied" in upgrade.json()["message"]


def test_a_caller_without_permission_never_reaches_the_extension(
    orch: RunningServer, metrics: Extension, tmp_path: Path
):
    ca = pki.load_pair(orch.data_dir / "pki" / "ca.crt", orch.data_dir / "pki" / "ca.key")
    pki.write_pair(pki.issue_client_cert(ca, "nobody", ["team"]), tmp_path / "u.crt", tmp_path / "u.key")
    before = len(metrics.calls)
    denied = orch.new_session((str(tmp_path / "u.crt"), str(tmp_path / "u.key"))).get(
        f"/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods"
    )
    assert denied.status_code == 403
    assert denied.json()["message"] == (
        f'pods.{ORCH_GROUP} is forbidden: User "nobody" cannot list resource "pods" '
        f'in API group "{ORCH_GROUP}" in the namespace "default"'
    )
    assert len(metrics.calls) == before


def test_a_watch_streams_through_unbuffered(orch: RunningServer, metrics: Extension):
    metrics.release.clear()
    url = f"{orch.url}/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods?watch=true"
    with orch.session.get(url, stream=True, timeout=30) as answer:
        lines = answer.iter_lines()
        first = json.loads(next(lines))  # arrives while the extension still holds the stream open
        assert first["type"] == "ADDED" and not metrics.release.is_set()
        metrics.release.set()
        assert json.loads(next(lines))["type"] == "MODIFIED"


def test_faults_of_the_extension_end_clearly(orch: RunningServer, metrics: Extension):
    pods = f"/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods"
    try:
        metrics.mode, metrics.release = "hang", threading.Event()
        started = time.monotonic()
        hung = orch.get(pods, params={"timeout": "2s"})
        assert hung.status_code == 504 and hung.json()["reason"] == "Timeout"
        assert time.monotonic() - started < 10
        metrics.release.set()
        metrics.mode = "fail"
        failed = orch.get(pods)
        assert failed.status_code == 500 and failed.json()["message"] == "the metrics backend is down"
        metrics.mode = "cut"
        with pytest.raises(requests.exceptions.RequestException):
            orch.get(pods).json()
    finally:
        metrics.mode = "ok"
    assert orch.get("/api/v1/namespaces/default").status_code == 200  # everything else still served
    assert orch.get(pods).status_code == 200


def test_an_apiservice_without_its_service_is_unavailable(kubectl: str, orch: RunningServer, ca: pki.CertKey):
    objects = registration("missing.example.com", "nowhere", "default", 1, ca, "apiregistration.orch.io")
    kubectl_run(kubectl, orch, "apply", "-f", "-", stdin=yaml.safe_dump(objects[2]))
    name = "v1beta1.missing.example.com"
    poll(lambda: _condition(orch, name).get("reason") == "ServiceNotFound")
    assert _condition(orch, name)["message"] == 'service/nowhere in "default" is not present'
    table = orch.get(
        f"/apis/apiregistration.orch.io/v1/apiservices/{name}",
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.orch.io"},
    ).json()
    assert table["rows"][0]["cells"][1:3] == ["default/nowhere", "False (ServiceNotFound)"]
    refused = orch.get("/apis/missing.example.com/v1beta1/things")
    assert (refused.status_code, refused.text) == (503, "service unavailable\n")  # the aggregator's plain text
    scraped = orch.get("/metrics").text
    assert f'aggregator_unavailable_apiservice{{name="{name}"}} 1.0' in scraped
    assert 'aggregator_unavailable_apiservice{name="v1.apps"} 0.0' in scraped
    # the Service appears, with no ready address behind its port: the next check says so
    service, endpoints = (
        objects[0],
        {
            **objects[1],
            "subsets": [{"notReadyAddresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": 1}]}],
        },
    )
    kubectl_run(kubectl, orch, "apply", "-f", "-", stdin=yaml.safe_dump_all([service, endpoints]))
    kubectl_run(kubectl, orch, "annotate", "apiservice", name, "touched=yes")  # a change: checked at once
    poll(lambda: _condition(orch, name).get("reason") == "MissingEndpoints")
    assert _condition(orch, name)["message"] == (
        'endpoints for service/nowhere in "default" have no addresses with port name "https"'
    )
    kubectl_run(kubectl, orch, "delete", "apiservice", name)


def test_the_front_proxys_trust_is_published(orch: RunningServer):
    cm = poll(
        lambda: (
            orch.get("/api/v1/namespaces/orch-system/configmaps/extension-apiserver-authentication").json()
            if orch.get("/api/v1/namespaces/orch-system/configmaps/extension-apiserver-authentication").status_code
            == 200
            else None
        )
    )
    data = cm["data"]
    assert data["client-ca-file"].startswith("-----BEGIN CERTIFICATE-----")
    front_proxy_ca = (orch.data_dir / "pki" / "front-proxy-ca.crt").read_text()
    assert data["requestheader-client-ca-file"] == front_proxy_ca
    assert json.loads(data["requestheader-allowed-names"]) == ["front-proxy-client"]
    assert json.loads(data["requestheader-username-headers"]) == ["X-Remote-User"]
    assert json.loads(data["requestheader-extra-headers-prefix"]) == ["X-Remote-Extra-"]


def _condition(server: RunningServer, name: str) -> dict:
    got = server.get(f"/apis/apiregistration.orch.io/v1/apiservices/{name}").json()
    return next((c for c in (got.get("status") or {}).get("conditions") or [] if c["type"] == "Available"), {})


# ---------------------------------------------------------------------------------------------
# the reference's domain (kubectl's tables): Local APIServices, kubectl top against a stand-in metrics-server


def test_every_served_group_version_has_a_local_apiservice(kubectl: str, k8s: RunningServer):
    poll(lambda: k8s.get("/apis/apiregistration.k8s.io/v1/apiservices/v1.apps").status_code == 200)
    rows = kubectl_run(kubectl, k8s, "get", "apiservices").stdout.splitlines()
    assert rows[0].split() == ["NAME", "SERVICE", "AVAILABLE", "AGE"]
    local = {r.split()[0]: r.split()[1:3] for r in rows[1:]}
    for name in ("v1.", "v1.apps", "v1.apiregistration.k8s.io", "v1.rbac.authorization.k8s.io", "v2.autoscaling"):
        assert local.get(name) == ["Local", "True"], rows
    described = kubectl_run(kubectl, k8s, "describe", "apiservice", "v1.apps").stdout
    assert "Local APIServices are always available" in described
    # deleted, it comes back (the server keeps its own)
    kubectl_run(kubectl, k8s, "delete", "apiservice", "v1.batch")
    poll(lambda: k8s.get("/apis/apiregistration.k8s.io/v1/apiservices/v1.batch").status_code == 200)
    # pointed elsewhere, it is put back: a group version served here stays served here
    kubectl_run(
        kubectl,
        k8s,
        "patch",
        "apiservice",
        "v1.apps",
        "--type",
        "merge",
        "-p",
        json.dumps({"spec": {"service": {"namespace": "default", "name": "elsewhere"}, "insecureSkipTLSVerify": True}}),
    )
    poll(lambda: "service" not in k8s.get("/apis/apiregistration.k8s.io/v1/apiservices/v1.apps").json()["spec"])
    assert k8s.get("/apis/apps/v1/namespaces/default/deployments").status_code == 200


def test_kubectl_top(kubectl: str, k8s: RunningServer, ca: pki.CertKey, tmp_path: Path):
    group = "metrics.k8s.io"
    with extension_server(
        ca, tmp_path, group, "metrics-server", "kube-system", k8s.data_dir / "pki" / "front-proxy-ca.crt"
    ) as ext:
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node-1"},
            "status": {"capacity": {"cpu": "2", "memory": "4Gi"}, "allocatable": {"cpu": "2", "memory": "4Gi"}},
        }
        objects = [node, *registration(group, "metrics-server", "kube-system", ext.port, ca, "apiregistration.k8s.io")]
        kubectl_run(kubectl, k8s, "apply", "-f", "-", stdin=yaml.safe_dump_all(objects))
        kubectl_run(
            kubectl, k8s, "wait", "--for", "condition=Available", f"apiservice/v1beta1.{group}", "--timeout", "30s"
        )
        pods = kubectl_run(kubectl, k8s, "top", "pod", "-n", "default").stdout.splitlines()
        assert pods[0].split() == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
        assert pods[1].split() == ["web", "150m", "64Mi"]
        nodes = kubectl_run(kubectl, k8s, "top", "node").stdout.splitlines()
        assert nodes[0].split()[:2] == ["NAME", "CPU(cores)"]
        assert nodes[1].split()[:3] == ["node-1", "500m", "25%"]
        assert ext.api_calls()[-1].header("X-Remote-User") == ["admin"]
        explained = kubectl_run(kubectl, k8s, "explain", "podmetrics.window").stdout
        assert "The length of that window." in explained  # the extension's OpenAPI v3 document, through here
        kubectl_run(kubectl, k8s, "delete", "apiservice", f"v1beta1.{group}")


def test_two_replicas_serve_an_extension_without_fighting_over_it(ca: pki.CertKey, tmp_path: Path):
    with scratch_database() as url:
        ensure_schema(url, upgrade=True)
        first = start_server(tmp_path / "shared", database_url=url)
        second = start_server(tmp_path / "shared", database_url=url)  # same data dir: same CAs and certificates
        try:
            with extension_server(
                ca,
                tmp_path,
                ORCH_GROUP,
                "metrics-server",
                "orch-system",
                tmp_path / "shared" / "pki" / "front-proxy-ca.crt",
            ) as ext:
                objects = registration(
                    ORCH_GROUP, "metrics-server", "orch-system", ext.port, ca, "apiregistration.orch.io"
                )
                paths = [
                    "/api/v1/namespaces/orch-system/services",
                    "/api/v1/namespaces/orch-system/endpoints",
                    "/apis/apiregistration.orch.io/v1/apiservices",
                ]
                for path, obj in zip(paths, objects):
                    assert first.session.post(f"{first.url}{path}", json=obj).status_code == 201
                pods = f"/apis/{ORCH_GROUP}/v1beta1/namespaces/default/pods"
                poll(lambda: second.get(pods).status_code == 200)  # learnt and checked on its own
                assert first.get(pods).status_code == 200
                apiservice = f"/apis/apiregistration.orch.io/v1/apiservices/v1beta1.{ORCH_GROUP}"
                settled = first.get(apiservice).json()["metadata"]["resourceVersion"]
                time.sleep(1.5)  # a window for a second writer to show itself; both have probed by now
                assert second.get(apiservice).json()["metadata"]["resourceVersion"] == settled
                local = second.get("/apis/apiregistration.orch.io/v1/apiservices").json()["items"]
                assert len([i for i in local if i["metadata"]["name"] == "v1.apps"]) == 1
        finally:
            second.stop()
            first.stop()


# ---------------------------------------------------------------------------------------------
# aggregated discovery and an APIService that is down: kubectl must not crawl (issue 56)

V2 = "application/json;g=apidiscovery.{};v={};as=APIGroupDiscoveryList"


def test_aggregated_discovery_is_negotiated_and_derived_from_the_catalog(orch: RunningServer, ca: pki.CertKey):
    objects = registration("down.example.com", "down", "default", 1, ca, "apiregistration.orch.io")
    orch.session.post("/apis/apiregistration.orch.io/v1/apiservices", json=objects[2]).raise_for_status()
    name = "v1beta1.down.example.com"
    poll(lambda: _condition(orch, name).get("reason") == "ServiceNotFound")
    try:
        refused = orch.get("/apis/down.example.com/v1beta1/things")
        assert (refused.status_code, refused.text) == (503, "service unavailable\n")  # the aggregator's words
        assert refused.headers["Content-Type"] == "text/plain; charset=utf-8" and "Retry-After" not in refused.headers
        for version in ("v2", "v2beta1"):
            accept = f"{V2.format('orch.io', version)},application/json"
            answer = orch.get("/apis", headers={"Accept": accept})
            assert answer.headers["Content-Type"] == V2.format("orch.io", version).replace(",", "")
            assert answer.headers["Vary"] == "Accept"
            doc = answer.json()
            assert (doc["kind"], doc["apiVersion"]) == ("APIGroupDiscoveryList", f"apidiscovery.orch.io/{version}")
            groups = {g["metadata"]["name"]: g["versions"] for g in doc["items"]}
            legacy = orch.get("/apis").json()["groups"]
            assert list(groups) == [g["name"] for g in legacy]  # the same groups, in the same order
            (apps,) = groups["apps"]
            deployments = next(r for r in apps["resources"] if r["resource"] == "deployments")
            assert deployments["responseKind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
            assert (deployments["scope"], deployments["singularResource"]) == ("Namespaced", "deployment")
            assert {
                "subresource": "scale",
                "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                "verbs": ["get", "patch", "update"],
            } in deployments["subresources"]
            assert groups["down.example.com"] == [{"version": "v1beta1", "freshness": "Stale"}]
        core = orch.get("/api", headers={"Accept": V2.format("orch.io", "v2")}).json()
        (item,) = core["items"]
        assert item["metadata"] == {"creationTimestamp": None} and [v["version"] for v in item["versions"]] == ["v1"]
        pods = next(r for r in item["versions"][0]["resources"] if r["resource"] == "pods")
        assert pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"} and "po" in pods["shortNames"]
        # the reference's spelling of the group asks a server of this domain for nothing: the legacy list
        legacy = orch.get("/apis", headers={"Accept": f"{V2.format('k8s.io', 'v2')},application/json"})
        assert legacy.json()["kind"] == "APIGroupList" and legacy.headers["Vary"] == "Accept"
        first = orch.get("/apis", headers={"Accept": V2.format("orch.io", "v2")})
        again = orch.get(
            "/apis", headers={"Accept": V2.format("orch.io", "v2"), "If-None-Match": first.headers["ETag"]}
        )
        assert again.status_code == 304
    finally:
        orch.session.delete(f"/apis/apiregistration.orch.io/v1/apiservices/{name}")


def test_an_unavailable_apiservice_costs_kubectl_no_request(
    kubectl: str, k8s: RunningServer, ca: pki.CertKey, tmp_path: Path
):
    """kubectl 1.26+ reads discovery in two requests and skips a Stale group version; it used to ask for the
    unavailable one, and retry it on its Retry-After, at every discovery."""
    version = json.loads(kubectl_run(kubectl, k8s, "version", "--client", "-o", "json").stdout)["clientVersion"]
    if (int(version["major"]), int(version["minor"].rstrip("+"))) < (1, 26):
        pytest.skip(f"kubectl {version['gitVersion']} does not read aggregated discovery (1.26+ does)")
    objects = registration("down.example.com", "down", "default", 1, ca, "apiregistration.k8s.io")
    kubectl_run(kubectl, k8s, "apply", "-f", "-", stdin=yaml.safe_dump(objects[2]))
    name = "v1beta1.down.example.com"
    poll(
        lambda: (
            k8s.get(f"/apis/apiregistration.k8s.io/v1/apiservices/{name}")
            .json()
            .get("status", {})
            .get("conditions", [{}])[0]
            .get("reason")
            == "ServiceNotFound"
        )
    )
    try:
        done = kubectl_run(kubectl, k8s, "get", "configmaps", "-n", "default", "-v=6", "--cache-dir", str(tmp_path))
        sent = [line.split(" GET ", 1)[1] for line in done.stderr.splitlines() if " GET https://" in line]
        assert not [url for url in sent if "down.example.com" in url], sent
        discovery = [url.split("?")[0].rsplit("/", 1)[1] for url in sent if "/configmaps" not in url]
        assert sorted(discovery) == ["api", "apis"], sent
    finally:
        kubectl_run(kubectl, k8s, "delete", "apiservice", name)
