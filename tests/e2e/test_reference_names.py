"""With `--api-domain k8s.io` a stock tool sees the reference's names: kube-system, kubernetes.io/... keys,
the kubernetes.io/kube-apiserver-client signer; in our own domain no reference spelling leaks out.

Every string of every object the server holds after start (and its discovery documents) is collected in
both domains, so an identifier added later is checked without a test naming it.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from orch_apiserver.naming import Naming

from tests.controllers import CLIENT_USAGES, request_pem

from . import RunningServer, start_server

REFERENCE = Naming("k8s.io")

#: The reference's spellings (v1.23) of what the server emits at start with --api-domain k8s.io.
REFERENCE_SPELLINGS = {
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "kubernetes",
    "kube-apiserver",
    "kubernetes.io/metadata.name",
    "kubernetes.io/bootstrapping",
    "kubernetes.io/service-name",
    "rbac.authorization.kubernetes.io/autoupdate",
    "kubernetes.io/kube-apiserver-client",
    "kubernetes.io/kube-apiserver-client-kubelet",
    "kubernetes.io/kubelet-serving",
    "kubernetes.io/legacy-unknown",
    "kubernetes.io/*",
    "apiserver.kubernetes.io/identity",
    "kube-root-ca.crt",
    "kube-aggregator.kubernetes.io/automanaged",
    "apf.kubernetes.io/autoupdate-spec",  # the priority-and-fairness bootstrap objects
    "kube-system-service-accounts",  # a suggested FlowSchema
}
#: rbac.authorization.k8s.io/aggregate-to-*: the reference's aggregation labels live under the API group
REFERENCE_PATTERNS = [
    re.compile(p)
    for p in (
        r"^([a-z0-9.-]+\.)?k8s\.io(/v[0-9a-z]+)?$",  # API groups and group versions
        r"^rbac\.authorization\.k8s\.io/aggregate-to-[a-z-]+$",
        r"^system:",  # role, binding, user and group names (compared rule by rule in tests/auth)
        r"^kubeadm:",  # the reference's cluster-info reader role, made by kubeadm
        r"^kube-controller-[a-z-]+$",  # our controllers' Leases (the reference's one is kube-controller-manager)
        r"^kube-apiserver-[0-9a-f]+$",  # a replica's endpoint Lease
        r"^kube-(dns|scheduler|controller-manager|proxy)$",  # components named in the default policy
        r"^kubeconfig$",  # the cluster-info ConfigMap's key
        r"^v1\.23\.0-orch\.",  # /version's gitVersion names this build, not the reference's
        r"^kubernetes\.io/(service-account|metadata|bootstrapping)",
    )
]
WORDS = re.compile(r"kube|k8s|orch")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key.removeprefix("f:")
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def emitted(server: RunningServer) -> set[str]:
    """Every string naming our product or domain in discovery and in every object the server holds."""
    get = server.session.get
    documents = [get("/api").json(), get("/apis").json(), get("/version").json()]
    group_versions = ["/api/v1"] + [f"/apis/{g['preferredVersion']['groupVersion']}" for g in documents[1]["groups"]]
    for base in group_versions:
        listing = get(base).json()
        documents.append(listing)
        for resource in listing["resources"]:
            if "/" not in resource["name"] and "list" in resource["verbs"]:
                response = get(f"{base}/{resource['name']}")
                assert response.status_code == 200, (base, resource["name"], response.text)
                documents.append(response.json())
    return {s for doc in documents for s in _strings(doc) if WORDS.search(s)}


@pytest.fixture(scope="module")
def orch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A fresh server of our own domain: the shared one holds what other tests wrote."""
    running = start_server(tmp_path_factory.mktemp("orch-domain"))
    yield running
    running.stop()


def _kubectl(kubectl: str, server: RunningServer, *args: str, stdin: str = "") -> str:
    done = subprocess.run(
        [kubectl, "--kubeconfig", str(server.kubeconfig), *args],
        input=stdin,
        text=True,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_name_the_server_emits_in_the_k8s_io_domain_is_the_reference_s(k8s_server: RunningServer):
    strings = emitted(k8s_server)
    unknown = sorted(
        s for s in strings if s not in REFERENCE_SPELLINGS and not any(p.search(s) for p in REFERENCE_PATTERNS)
    )
    assert not unknown, f"identifiers without a reference spelling: {unknown}"
    assert not [s for s in strings if "orch" in s and not s.startswith("v1.23.0-orch.")]
    assert {"kube-system", "kubernetes.io/metadata.name"} <= strings


def test_our_domain_emits_no_reference_spelling(orch_server: RunningServer):
    leaked = sorted(
        s
        for s in emitted(orch_server)
        if re.search(r"kube|k8s", s) and not re.fullmatch(r"kubeconfig|kubeadm:[a-z:-]+", s)
    )
    assert not leaked, leaked


def test_kubectl_finds_the_system_namespaces_labelled_by_name(kubectl: str, k8s_server: RunningServer):
    listing = json.loads(_kubectl(kubectl, k8s_server, "get", "namespaces", "-o", "json"))
    namespaces = {item["metadata"]["name"]: item for item in listing["items"]}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= set(namespaces)
    for name, namespace in namespaces.items():
        assert namespace["metadata"]["labels"]["kubernetes.io/metadata.name"] == name
        assert namespace["spec"]["finalizers"] == ["kubernetes"]
    _kubectl(kubectl, k8s_server, "create", "namespace", "team-a")
    labels = json.loads(_kubectl(kubectl, k8s_server, "get", "namespace", "team-a", "-o", "json"))["metadata"]["labels"]
    assert labels == {"kubernetes.io/metadata.name": "team-a"}
    assert "team-a" in _kubectl(kubectl, k8s_server, "get", "namespaces", "-l", "kubernetes.io/metadata.name=team-a")


def test_a_csr_for_the_stock_client_signer_is_issued(kubectl: str, k8s_server: RunningServer, tmp_path: Path):
    csr = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "stock-signer"},
        "spec": {
            "request": base64.b64encode(request_pem("jane", ["devs"])).decode(),
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": CLIENT_USAGES,
        },
    }
    _kubectl(kubectl, k8s_server, "apply", "-f", "-", stdin=json.dumps(csr))
    _kubectl(kubectl, k8s_server, "certificate", "approve", "stock-signer")
    deadline = time.monotonic() + 30
    while not (
        certificate := k8s_server.get("/apis/certificates.k8s.io/v1/certificatesigningrequests/stock-signer")
        .json()
        .get("status", {})
        .get("certificate")
    ):
        assert time.monotonic() < deadline, "the approved CSR was never issued"
        time.sleep(0.1)
    issued = x509.load_pem_x509_certificate(base64.b64decode(certificate))
    assert issued.subject.rfc4514_string() == "CN=jane,O=devs"


def test_service_account_token_secret_uses_the_reference_type(kubectl: str, k8s_server: RunningServer):
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/service-account-token",
        "metadata": {
            "name": "builder-token",
            "namespace": "default",
            "annotations": {"kubernetes.io/service-account.name": "builder"},
        },
    }
    _kubectl(kubectl, k8s_server, "create", "serviceaccount", "builder")
    _kubectl(kubectl, k8s_server, "apply", "-f", "-", stdin=json.dumps(secret))
    shown = json.loads(_kubectl(kubectl, k8s_server, "get", "secret", "builder-token", "-o", "json"))
    assert shown["type"] == REFERENCE.key("service-account-token") == "kubernetes.io/service-account-token"


def test_the_official_client_finds_the_reference_s_objects(k8s_server: RunningServer):
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(k8s_server.kubeconfig))
    try:
        core = client.CoreV1Api(api_client)
        system = core.read_namespace("kube-system")
        assert system.metadata.labels["kubernetes.io/metadata.name"] == "kube-system"
        assert system.spec.finalizers == ["kubernetes"]
        deadline = time.monotonic() + 20
        while (
            not (
                endpoints := core.list_namespaced_endpoints("default", field_selector="metadata.name=kubernetes")
            ).items
            or not endpoints.items[0].subsets
        ):
            assert time.monotonic() < deadline, "default/kubernetes endpoints never appeared"
            time.sleep(0.1)
        assert endpoints.items[0].subsets[0].ports[0].port == k8s_server.port
        roles = client.RbacAuthorizationV1Api(api_client).list_cluster_role(
            label_selector="kubernetes.io/bootstrapping=rbac-defaults"
        )
        assert {"system:kube-scheduler", "system:node-proxier", "system:controller:generic-garbage-collector"} <= {
            r.metadata.name for r in roles.items
        }
    finally:
        api_client.close()
