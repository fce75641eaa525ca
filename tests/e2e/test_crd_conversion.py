"""Conversion webhooks: a CRD whose versions convert through a real HTTPS server written here (by URL, and
by Service through its Endpoints), as the reference's apiextensions server calls them."""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver import pki

from tests.auth.helpers import https_server

from . import RunningServer, poll
from .test_custom_resources import CRDS, crd

pytestmark = pytest.mark.e2e


def convert(_method: str, _path: str, _headers: dict, body: bytes) -> tuple[int, Any]:
    """v1 keeps `spec.size`, v2 calls it `spec.replicas`."""
    review = json.loads(body)
    request = review["request"]
    desired = request["desiredAPIVersion"]
    out = []
    for obj in request["objects"]:
        spec = dict(obj.get("spec") or {})
        if desired.endswith("/v2") and "size" in spec:
            spec["replicas"] = spec.pop("size")
        elif desired.endswith("/v1") and "replicas" in spec:
            spec["size"] = spec.pop("replicas")
        out.append({**obj, "apiVersion": desired, "spec": spec})
    return 200, {
        "apiVersion": review["apiVersion"],
        "kind": "ConversionReview",
        "response": {"uid": request["uid"], "result": {"status": "Success"}, "convertedObjects": out},
    }


def converting_crd(group: str, client_config: dict) -> dict:
    body = crd(group)
    v1 = body["spec"]["versions"][0]
    v1["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
        "type": "object",
        "properties": {"size": {"type": "integer"}, "mode": {"type": "string"}},
    }
    v1["additionalPrinterColumns"] = []
    v2 = json.loads(json.dumps(v1))
    v2.update(name="v2", storage=False)
    v2["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "mode": {"type": "string"}},
    }
    body["spec"]["versions"].append(v2)
    body["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": client_config},
    }
    return body


@pytest.fixture(scope="module")
def ca() -> pki.CertKey:
    return pki.create_ca("conversion-test-ca")


def bundle(ca: pki.CertKey) -> str:
    return base64.b64encode(ca.cert_pem).decode()


def test_objects_convert_through_the_webhook_both_ways(server: RunningServer, ca: pki.CertKey, tmp_path: Path):
    with https_server(ca, tmp_path) as hook:
        hook.routes["/convert"] = convert
        group = f"c{uuid.uuid4().hex[:8]}.example.com"
        made = server.session.post(
            CRDS.replace("k8s.io", "orch.io"),
            json={
                **converting_crd(group, {"url": hook.url + "/convert", "caBundle": bundle(ca)}),
                "apiVersion": "apiextensions.orch.io/v1",
            },
        )
        assert made.status_code == 201, made.text
        poll(lambda: server.get(f"/apis/{group}/v2").status_code == 200)
        v2 = f"/apis/{group}/v2/namespaces/default/widgets"
        created = server.session.post(
            v2, json={"apiVersion": f"{group}/v2", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": 3}}
        )
        assert created.status_code == 201, created.text
        assert created.json()["spec"] == {"replicas": 3} and created.json()["apiVersion"] == f"{group}/v2"
        stored = server.get(f"/apis/{group}/v1/namespaces/default/widgets/w").json()
        assert stored["spec"] == {"size": 3}  # stored in v1, converted by the webhook
        listed = server.get(v2).json()["items"]
        assert [(w["apiVersion"], w["spec"]) for w in listed] == [(f"{group}/v2", {"replicas": 3})]
        reviews = [json.loads(body) for _, path, _, body in hook.calls if path == "/convert"]
        assert reviews and all(
            r["apiVersion"] == "apiextensions.orch.io/v1" and r["kind"] == "ConversionReview" for r in reviews
        )
        for n in range(4):  # stored as v1, so each of these is converted to v2 when listed there
            assert (
                server.session.post(
                    v2.replace("/v2/", "/v1/"),
                    json={
                        "apiVersion": f"{group}/v1",
                        "kind": "Widget",
                        "metadata": {"name": f"more-{n}"},
                        "spec": {"size": n},
                    },
                ).status_code
                == 201
            )
        before = len(hook.calls)
        listed = server.get(v2).json()["items"]
        assert [w["spec"] for w in listed] == [{"replicas": n} for n in range(4)] + [{"replicas": 3}]
        batch = [json.loads(body)["request"]["objects"] for _, _, _, body in hook.calls[before:]]
        assert [len(objects) for objects in batch] == [5]  # one review for the whole list, as the reference

        hook.routes["/convert"] = lambda *_: (500, {})
        failed = server.get(f"{v2}/w")
        assert failed.status_code == 500
        assert failed.json()["message"] == (
            f"conversion webhook for {group}/v1, Kind=Widget failed: the webhook answered HTTP 500"  # from v1
        )
        assert server.get(f"/apis/{group}/v1/namespaces/default/widgets/w").status_code == 200  # no conversion


def test_a_service_reference_is_reached_through_its_endpoints(server: RunningServer, ca: pki.CertKey, tmp_path: Path):
    ns = f"conv-{uuid.uuid4().hex[:6]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    with https_server(ca, tmp_path, hosts=(f"converter.{ns}.svc",)) as hook:
        hook.routes["/convert"] = convert
        port = int(hook.url.rsplit(":", 1)[1])
        assert (
            server.session.post(
                f"/api/v1/namespaces/{ns}/services",
                json={"metadata": {"name": "converter"}, "spec": {"ports": [{"port": 443, "targetPort": port}]}},
            ).status_code
            == 201
        )
        assert (
            server.session.post(
                f"/api/v1/namespaces/{ns}/endpoints",
                json={
                    "metadata": {"name": "converter"},
                    "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": port}]}],
                },
            ).status_code
            == 201
        )
        group = f"s{uuid.uuid4().hex[:8]}.example.com"
        config = {
            "service": {"namespace": ns, "name": "converter", "path": "/convert", "port": 443},
            "caBundle": bundle(ca),
        }
        made = server.session.post(
            "/apis/apiextensions.orch.io/v1/customresourcedefinitions",
            json={**converting_crd(group, config), "apiVersion": "apiextensions.orch.io/v1"},
        )
        assert made.status_code == 201, made.text
        poll(lambda: server.get(f"/apis/{group}/v2").status_code == 200)
        created = server.session.post(
            f"/apis/{group}/v2/namespaces/default/widgets",
            json={"apiVersion": f"{group}/v2", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": 2}},
        )
        assert created.status_code == 201, created.text
        assert server.get(f"/apis/{group}/v1/namespaces/default/widgets/w").json()["spec"] == {"size": 2}


def test_a_webhook_without_a_client_config_is_refused(server: RunningServer):
    group = f"b{uuid.uuid4().hex[:8]}.example.com"
    body = {**converting_crd(group, {}), "apiVersion": "apiextensions.orch.io/v1"}
    refused = server.session.post("/apis/apiextensions.orch.io/v1/customresourcedefinitions", json=body)
    assert refused.status_code == 422
    assert refused.json()["details"]["causes"][0]["field"] == "spec.conversion.webhook.clientConfig"
