"""Bootstrap discovery against a real server: cluster-info signed with a real bootstrap token (JWS made here)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from orch_apiserver import pki
from orch_apiserver.client import BootstrapError, Client, discover_cluster_info, load_config
from orch_apiserver.client.config import config_from_document

from tests.auth.helpers import HttpsServer, https_server
from tests.e2e import RunningServer, free_port

from .helpers import NAMING

pytestmark = pytest.mark.e2e

TOKEN_ID, TOKEN_SECRET = "abcdef", "0123456789abcdef"
TOKEN = f"{TOKEN_ID}.{TOKEN_SECRET}"
PUBLIC = NAMING.public_namespace


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def detached_jws(payload: str, key: str, header: dict | None = None) -> str:
    """An independent HS256 detached JWS: <header>..<signature> over <header>.<b64url(payload)>."""
    encoded_header = b64url(json.dumps(header or {"alg": "HS256", "kid": key.split(".")[0]}).encode())
    signing_input = f"{encoded_header}.{b64url(payload.encode())}".encode()
    return f"{encoded_header}..{b64url(hmac.new(key.encode(), signing_input, hashlib.sha256).digest())}"


@pytest.fixture(scope="module")
def cluster_info(api_server: RunningServer) -> Iterator[str]:
    """The bootstrap token secret and a signed cluster-info, as the bootstrapsigner controller would write them."""
    admin = Client(load_config(str(api_server.kubeconfig), environ={}))
    ca_b64 = base64.b64encode(api_server.ca_file.read_bytes()).decode()
    kubeconfig = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "", "cluster": {"server": api_server.url, "certificate-authority-data": ca_b64}}],
        }
    )
    token_data = {
        "token-id": TOKEN_ID,
        "token-secret": TOKEN_SECRET,
        "usage-bootstrap-authentication": "true",
        "usage-bootstrap-signing": "true",
    }
    admin.apply(
        f"/api/v1/namespaces/{NAMING.system_namespace}/secrets/bootstrap-token-{TOKEN_ID}",
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": NAMING.group("bootstrap") + "/token",
            "metadata": {"name": f"bootstrap-token-{TOKEN_ID}", "namespace": NAMING.system_namespace},
            "stringData": token_data,
        },
        field_manager="client-tests",
        force=True,
    )
    data = {"kubeconfig": kubeconfig, f"jws-kubeconfig-{TOKEN_ID}": detached_jws(kubeconfig, TOKEN)}
    admin.apply(
        f"/api/v1/namespaces/{PUBLIC}/configmaps/cluster-info",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "cluster-info", "namespace": PUBLIC},
            "data": data,
        },
        field_manager="client-tests",
        force=True,
    )
    yield kubeconfig
    admin.close()


def ca_pin(server: RunningServer) -> str:
    cert = x509.load_pem_x509_certificate(server.ca_file.read_bytes())
    spki = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return "sha256:" + hashlib.sha256(spki).hexdigest()


def test_a_verified_cluster_info_yields_the_ca_and_the_token_then_works(
    api_server: RunningServer, cluster_info: str
) -> None:
    discovered = discover_cluster_info(api_server.url, TOKEN, ca_hashes=[ca_pin(api_server)])
    cluster = discovered["clusters"][0]["cluster"]
    assert cluster["server"] == api_server.url
    assert base64.b64decode(cluster["certificate-authority-data"]) == api_server.ca_file.read_bytes()
    # the trusted CA and the bootstrap token are enough to talk to the server, verified
    document = {
        **discovered,
        "users": [{"name": "boot", "user": {"token": TOKEN}}],
        "contexts": [{"name": "boot", "context": {"cluster": discovered["clusters"][0]["name"], "user": "boot"}}],
        "current-context": "boot",
    }
    with Client(config_from_document(document)) as client:
        review = client.create(f"/apis/{NAMING.group('authentication')}/v1/selfsubjectreviews", {})
    assert review["status"]["userInfo"]["username"] == f"system:bootstrap:{TOKEN_ID}"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        (f"{TOKEN_ID}.ffffffffffffffff", "does not match"),  # the right token ID with a wrong secret
        ("nosign.0123456789abcdef", "no signature for token ID"),
    ],
)
def test_the_wrong_token_is_rejected(api_server: RunningServer, cluster_info: str, token: str, message: str) -> None:
    with pytest.raises(BootstrapError, match=message):
        discover_cluster_info(api_server.url, token)


def impostor_cluster_info(impostor: HttpsServer, kubeconfig: str, signature: str) -> None:
    impostor.json_route(
        f"/api/v1/namespaces/{PUBLIC}/configmaps/cluster-info",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "cluster-info", "namespace": PUBLIC},
            "data": {"kubeconfig": kubeconfig, f"jws-kubeconfig-{TOKEN_ID}": signature},
        },
    )


def impostor_kubeconfig(impostor: HttpsServer) -> str:
    ca_b64 = base64.b64encode(impostor.ca.cert_pem).decode()
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "", "cluster": {"server": impostor.url, "certificate-authority-data": ca_b64}}],
        }
    )


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda config: detached_jws(config, f"{TOKEN_ID}.guessedsecret000"), "does not match"),
        (lambda config: b64url(json.dumps({"alg": "none"}).encode()) + "..", "only HS256"),
        (lambda config: detached_jws(config, TOKEN, {"alg": "HS512"}), "only HS256"),
        (lambda config: detached_jws(config, TOKEN, {"alg": "HS256", "crit": ["exp"]}), "unsupported fields"),
        (lambda config: "not-a-jws", "not a detached JWS"),
    ],
)
def test_an_impostors_cluster_info_is_rejected(tmp_path: Path, forge, message: str) -> None:  # type: ignore[no-untyped-def]
    """A server in the middle, with its own CA, cannot produce a signature for its kubeconfig without the token."""
    with https_server(pki.create_ca("impostor"), tmp_path) as impostor:
        kubeconfig = impostor_kubeconfig(impostor)
        impostor_cluster_info(impostor, kubeconfig, forge(kubeconfig))
        with pytest.raises(BootstrapError, match=message):
            discover_cluster_info(impostor.url, TOKEN)


def test_a_replayed_genuine_cluster_info_fails_the_verified_reread(
    api_server: RunningServer, cluster_info: str, tmp_path: Path
) -> None:
    """An impostor replaying the real, validly signed cluster-info cannot pass the TLS check with the real CA."""
    with https_server(pki.create_ca("impostor"), tmp_path) as impostor:
        impostor_cluster_info(impostor, cluster_info, detached_jws(cluster_info, TOKEN))
        with pytest.raises(BootstrapError, match="cannot read"):
            discover_cluster_info(impostor.url, TOKEN)


def test_a_pin_mismatch_is_rejected(api_server: RunningServer, cluster_info: str) -> None:
    with pytest.raises(BootstrapError, match="matches the pinned hashes"):
        discover_cluster_info(api_server.url, TOKEN, ca_hashes=["sha256:" + "0" * 64])
    with pytest.raises(BootstrapError, match="sha256:<64 hex digits>"):
        discover_cluster_info(api_server.url, TOKEN, ca_hashes=["md5:1234"])


@pytest.mark.parametrize("token", ["ABCDEF.0123456789abcdef", "abcdef.short", "abcdef0123456789abcdef", ""])
def test_a_malformed_token_fails_before_any_request(token: str) -> None:
    unreachable = f"https://127.0.0.1:{free_port()}"
    with pytest.raises(BootstrapError, match="bootstrap token must look like"):
        discover_cluster_info(unreachable, token)
