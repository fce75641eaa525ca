"""A real operator written with kopf (PyPI) against a real server: it watches a custom kind, adds its finalizer,
creates an owned child ConfigMap, writes status, posts Events and cleans up on delete."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from . import RunningServer, poll
from .test_custom_resources import CRDS, crd, create_crd

pytestmark = pytest.mark.e2e

OPERATOR = textwrap.dedent("""
    import os

    import kopf
    import kubernetes

    # $KUBECONFIG read now (the client reads it once, at import: the operator may run inside a test process)
    kubernetes.config.load_kube_config(config_file=os.environ["KUBECONFIG"])


    @kopf.on.login()
    def login(**kwargs):
        return kopf.login_with_kubeconfig(**kwargs)


    @kopf.on.create("{group}", "v1", "widgets")
    def made(body, name, namespace, spec, **_):
        child = {{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": f"{{name}}-child"}},
                 "data": {{"mode": spec["mode"]}}}}
        kopf.adopt(child)
        kubernetes.client.CoreV1Api().create_namespaced_config_map(namespace, child)
        kopf.info(body, reason="ChildMade", message=f"made {{name}}-child")
        return {{"child": f"{{name}}-child"}}


    @kopf.on.delete("{group}", "v1", "widgets")
    def gone(name, namespace, **_):
        kubernetes.client.CoreV1Api().create_namespaced_config_map(
            namespace, {{"metadata": {{"name": f"{{name}}-cleaned"}}}})
""")


def test_a_kopf_operator_reconciles_a_custom_kind(k8s_server: RunningServer, tmp_path: Path):
    server = k8s_server
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    body = crd(group)
    body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    create_crd(server, body)
    ns = f"kopf-{uuid.uuid4().hex[:6]}"
    assert server.session.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR.format(group=group))
    env = {**os.environ, "KUBECONFIG": str(server.kubeconfig)}
    env.pop("REQUESTS_CA_BUNDLE", None)
    log = (tmp_path / "kopf.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "kopf", "run", "--verbose", "--standalone", "--namespace", ns, str(operator)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    widgets = f"/apis/{group}/v1/namespaces/{ns}/widgets"
    try:
        made = server.session.post(
            widgets,
            json={"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"mode": "fast"}},
        )
        assert made.status_code == 201, made.text

        def reconciled() -> dict | None:
            obj = server.get(f"{widgets}/w").json()
            return obj if (obj.get("status") or {}).get("made") == {"child": "w-child"} else None

        try:
            obj = poll(reconciled)
        except AssertionError:
            pytest.fail((tmp_path / "kopf.log").read_text()[-4000:])
        assert any(f.startswith("kopf.zalando.org/") for f in obj["metadata"]["finalizers"])
        child = server.get(f"/api/v1/namespaces/{ns}/configmaps/w-child").json()
        assert child["data"] == {"mode": "fast"}
        assert child["metadata"]["ownerReferences"][0]["uid"] == obj["metadata"]["uid"]

        def child_made_event() -> bool:  # kopf posts it after the status patch the poll above saw
            events = server.get(f"/api/v1/namespaces/{ns}/events").json()["items"]
            return any(e["reason"] == "ChildMade" and e["involvedObject"]["name"] == "w" for e in events)

        poll(child_made_event)

        assert server.session.delete(f"{widgets}/w").status_code == 200
        try:
            poll(lambda: server.get(f"{widgets}/w").status_code == 404)  # kopf ran its handler, then let go
        except AssertionError:
            pytest.fail(server.get(f"{widgets}/w").text)
        assert server.get(f"/api/v1/namespaces/{ns}/configmaps/w-cleaned").status_code == 200
        poll(lambda: server.get(f"/api/v1/namespaces/{ns}/configmaps/w-child").status_code == 404)  # collected
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
    assert server.session.delete(f"{CRDS}/widgets.{group}").status_code == 200
