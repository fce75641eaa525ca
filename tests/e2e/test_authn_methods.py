"""Every authentication method against the real server process, with kubectl where it can take part.

One server runs with all methods on: a token CSV, bootstrap tokens, two extra client CAs, a front
proxy CA, an OIDC issuer and a token webhook (both real HTTPS servers in this test process).
"""

from __future__ import annotations

import base64
import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from orch_apiserver import pki

from tests.auth.helpers import HttpsServer, SigningKey, https_server, kubeconfig

from . import REPO_ROOT, RunningServer, server_env, start_server

pytestmark = pytest.mark.e2e

WHOAMI = "/apis/authentication.orch.io/v1/selfsubjectreviews"
NS = "/api/v1/namespaces/default"
REVIEW_MANIFEST = "apiVersion: authentication.orch.io/v1\nkind: SelfSubjectReview\n"


@dataclass
class World:
    server: RunningServer
    tmp: Path
    oidc: HttpsServer
    oidc_key: SigningKey
    proxy: tuple[str, str]
    team_cert: tuple[str, str]


def _webhook_review(_m: str, _p: str, _h: dict[str, str], body: bytes) -> tuple[int, Any]:
    review = json.loads(body)
    ok = review["spec"]["token"] == "webhook-token"
    status = {"authenticated": True, "user": {"username": "hooked", "groups": ["remote"]}} if ok else {}
    return 200, {"apiVersion": review["apiVersion"], "kind": "TokenReview", "status": status}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("authn")
    (tmp / "tokens.csv").write_text('static-token,alice,1001,"dev,ops"\n')
    outside_ca = pki.create_ca("outside-ca")
    (tmp / "outside-ca.crt").write_bytes(outside_ca.cert_pem)
    team_a, team_b = pki.create_ca("team-a"), pki.create_ca("team-b")
    (tmp / "teams.crt").write_bytes(team_a.cert_pem + team_b.cert_pem)
    pki.write_pair(pki.issue_client_cert(team_b, "bob", ["team-b"]), tmp / "bob.crt", tmp / "bob.key")
    proxy_ca = pki.create_ca("front-proxy-ca")
    (tmp / "proxy-ca.crt").write_bytes(proxy_ca.cert_pem)
    pki.write_pair(pki.issue_client_cert(proxy_ca, "front-proxy"), tmp / "proxy.crt", tmp / "proxy.key")
    key = SigningKey.rsa("k1")
    with https_server(outside_ca, tmp) as oidc, https_server(outside_ca, tmp) as webhook:
        oidc.json_route("/.well-known/openid-configuration", {"issuer": oidc.url, "jwks_uri": f"{oidc.url}/keys"})
        oidc.json_route("/keys", {"keys": [key.jwk()]})
        webhook.routes["/review"] = _webhook_review
        hook_config = kubeconfig(tmp / "webhook.kubeconfig", webhook.url + "/review", tmp / "outside-ca.crt")
        server = start_server(
            tmp / "data",
            args=[
                "--token-auth-file",
                str(tmp / "tokens.csv"),
                "--enable-bootstrap-token-auth",
                "--client-ca-file",
                str(tmp / "teams.crt"),
                "--requestheader-client-ca-file",
                str(tmp / "proxy-ca.crt"),
                "--requestheader-username-headers",
                "X-Remote-User",
                "--requestheader-group-headers",
                "X-Remote-Group",
                "--requestheader-extra-headers-prefix",
                "X-Remote-Extra-",
                "--requestheader-allowed-names",
                "front-proxy",
                "--oidc-issuer-url",
                oidc.url,
                "--oidc-client-id",
                "orch",
                "--oidc-ca-file",
                str(tmp / "outside-ca.crt"),
                "--oidc-groups-claim",
                "groups",
                "--oidc-username-prefix",
                "oidc:",
                "--authentication-token-webhook-config-file",
                str(hook_config),
                "--authorization-mode",
                "AlwaysAllow",  # these tests are about who is asking
            ],
        )
        try:
            yield World(
                server,
                tmp,
                oidc,
                key,
                (str(tmp / "proxy.crt"), str(tmp / "proxy.key")),
                (str(tmp / "bob.crt"), str(tmp / "bob.key")),
            )
        finally:
            server.stop()


def kubectl_run(
    kubectl: str, world: World, *args: str, stdin: str | None = None, admin: bool = False
) -> subprocess.CompletedProcess[str]:
    """kubectl against the server: the admin kubeconfig, or only the server and its CA (credentials by flags)."""
    target = (
        ["--kubeconfig", str(world.server.kubeconfig)]
        if admin
        else [
            "--kubeconfig",
            "/dev/null",
            "--server",
            world.server.url,
            "--certificate-authority",
            str(world.server.ca_file),
        ]
    )
    return subprocess.run(
        [kubectl, *target, *args],
        check=False,
        cwd=REPO_ROOT,
        env=server_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def kubectl_whoami(kubectl: str, world: World, *flags: str, admin: bool = False) -> dict:
    """The user kubectl is, through `kubectl create -f` of a SelfSubjectReview (our group's spelling)."""
    # --validate=false: client-side schema validation would fetch the OpenAPI document first
    result = kubectl_run(
        kubectl,
        world,
        *flags,
        "create",
        "--validate=false",
        "-f",
        "-",
        "-o",
        "json",
        stdin=REVIEW_MANIFEST,
        admin=admin,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["status"]["userInfo"]


def whoami(world: World, **session: Any) -> requests.Response:
    with world.server.new_session(cert=session.pop("cert", None)) as s:
        return s.post(WHOAMI, json={}, **session)


def test_kubectl_with_a_static_token(world: World, kubectl: str) -> None:
    listed = kubectl_run(kubectl, world, "--token", "static-token", "get", "namespaces", "-o", "name")
    assert listed.returncode == 0, listed.stderr
    assert "namespace/default" in listed.stdout.split()
    assert kubectl_whoami(kubectl, world, "--token", "static-token") == {
        "username": "alice",
        "uid": "1001",
        "groups": ["dev", "ops", "system:authenticated"],
    }


def test_kubectl_with_a_bad_token_is_unauthorized(world: World, kubectl: str) -> None:
    result = kubectl_run(kubectl, world, "--token", "not-a-token", "get", "namespaces")
    assert result.returncode != 0
    assert "Unauthorized" in result.stderr or "must be logged in" in result.stderr


def test_a_client_certificate_from_an_extra_ca(world: World) -> None:
    response = whoami(world, cert=world.team_cert)
    assert response.status_code == 201
    assert response.json()["status"]["userInfo"] == {"username": "bob", "groups": ["team-b", "system:authenticated"]}


def test_bootstrap_token_from_a_secret_made_with_kubectl(world: World, kubectl: str) -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "bootstrap.orch.io/token",
        "metadata": {"name": "bootstrap-token-abcdef", "namespace": "orch-system"},
        "stringData": {
            "token-id": "abcdef",
            "token-secret": "0123456789abcdef",
            "usage-bootstrap-authentication": "true",
            "auth-extra-groups": "system:bootstrappers:nodes",
        },
    }
    made = kubectl_run(kubectl, world, "apply", "--validate=false", "-f", "-", stdin=json.dumps(secret), admin=True)
    assert made.returncode == 0, made.stderr
    user = kubectl_whoami(kubectl, world, "--token", "abcdef.0123456789abcdef")
    assert user == {
        "username": "system:bootstrap:abcdef",
        "groups": ["system:bootstrappers", "system:bootstrappers:nodes", "system:authenticated"],
    }
    wrong = kubectl_run(kubectl, world, "--token", "abcdef.0000000000000000", "get", "ns")
    assert wrong.returncode != 0


def test_service_account_token_by_rest_then_kubectl(world: World, kubectl: str) -> None:
    assert kubectl_run(kubectl, world, "create", "serviceaccount", "robot", admin=True).returncode == 0
    reply = world.server.session.post(
        f"{NS}/serviceaccounts/robot/token",
        json={"apiVersion": "authentication.orch.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 600}},
    )
    assert reply.status_code == 201, reply.text
    token = reply.json()["status"]["token"]
    user = kubectl_whoami(kubectl, world, "--token", token)
    assert user["username"] == "system:serviceaccount:default:robot"
    assert user["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    assert kubectl_run(kubectl, world, "delete", "serviceaccount", "robot", admin=True).returncode == 0
    assert kubectl_run(kubectl, world, "--token", token, "get", "ns").returncode != 0


def test_legacy_token_secret_is_filled_in_by_the_server(world: World, kubectl: str) -> None:
    manifests = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "legacy", "namespace": "default"}},
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "orch.io/service-account-token",
            "metadata": {
                "name": "legacy-token",
                "namespace": "default",
                "annotations": {"orch.io/service-account.name": "legacy"},
            },
        },
    ]
    for manifest in manifests:
        made = kubectl_run(
            kubectl, world, "apply", "--validate=false", "-f", "-", stdin=json.dumps(manifest), admin=True
        )
        assert made.returncode == 0, made.stderr
    deadline, token = time.monotonic() + 20, ""
    while not token and time.monotonic() < deadline:
        got = kubectl_run(kubectl, world, "get", "secret", "legacy-token", "-o", "jsonpath={.data.token}", admin=True)
        token = base64.b64decode(got.stdout).decode() if got.stdout else ""
        time.sleep(0.2)
    assert token, "the token controller did not fill the secret in"
    assert kubectl_whoami(kubectl, world, "--token", token)["username"] == "system:serviceaccount:default:legacy"


def test_oidc_id_token_with_kubectl(world: World, kubectl: str) -> None:
    now = int(time.time())
    claims = {"iss": world.oidc.url, "aud": "orch", "sub": "jane", "groups": ["eng"], "iat": now, "exp": now + 300}
    user = kubectl_whoami(kubectl, world, "--token", world.oidc_key.sign(claims))
    assert user == {"username": "oidc:jane", "groups": ["eng", "system:authenticated"]}
    expired = world.oidc_key.sign({**claims, "exp": now - 10})
    assert kubectl_run(kubectl, world, "--token", expired, "get", "ns").returncode != 0


def test_webhook_token_with_kubectl(world: World, kubectl: str) -> None:
    assert kubectl_whoami(kubectl, world, "--token", "webhook-token") == {
        "username": "hooked",
        "groups": ["remote", "system:authenticated"],
    }
    assert kubectl_run(kubectl, world, "--token", "webhook-nope", "get", "ns").returncode != 0


def test_front_proxy_with_its_certificate(world: World) -> None:
    headers = {"X-Remote-User": "jane", "X-Remote-Group": "dev", "X-Remote-Extra-Scopes": "read"}
    response = whoami(world, cert=world.proxy, headers=headers)
    assert response.status_code == 201, response.text
    assert response.json()["status"]["userInfo"] == {
        "username": "jane",
        "groups": ["dev", "system:authenticated"],
        "extra": {"scopes": ["read"]},
    }


def test_proxy_headers_without_the_proxy_certificate_are_ignored(world: World) -> None:
    headers = {"X-Remote-User": "root", "X-Remote-Group": "system:masters"}
    assert whoami(world, headers=headers).json()["status"]["userInfo"]["username"] == "system:anonymous"
    as_admin = whoami(world, cert=world.server.client_cert, headers=headers)
    assert as_admin.json()["status"]["userInfo"]["username"] == "admin"


def test_kubectl_impersonation(world: World, kubectl: str) -> None:
    user = kubectl_whoami(
        kubectl, world, "--as", "jane", "--as-group", "dev", "--as-group", "ops", "--as-uid", "u-1", admin=True
    )
    assert user == {"username": "jane", "uid": "u-1", "groups": ["dev", "ops", "system:authenticated"]}
    sa = kubectl_whoami(kubectl, world, "--as", "system:serviceaccount:default:builder", admin=True)
    assert sa["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    lone_group = kubectl_run(kubectl, world, "--as-group", "dev", "get", "ns", admin=True)
    assert lone_group.returncode != 0


def test_impersonated_extra_over_http(world: World) -> None:
    headers = {"Impersonate-User": "jane", "Impersonate-Extra-Acme.com%2Fproject": "apollo"}
    response = whoami(world, cert=world.server.client_cert, headers=headers)
    assert response.json()["status"]["userInfo"]["extra"] == {"acme.com/project": ["apollo"]}
    lone = whoami(world, cert=world.server.client_cert, headers={"Impersonate-Uid": "u-1"})
    assert lone.status_code == 400 and "without impersonating a user" in lone.json()["message"]


def test_kubectl_create_token(world: World, kubectl: str) -> None:
    """`kubectl create token` POSTs a protobuf TokenRequest spelled `authentication.k8s.io/v1`."""
    assert kubectl_run(kubectl, world, "create", "serviceaccount", "stock", admin=True).returncode == 0
    result = kubectl_run(kubectl, world, "create", "token", "stock", admin=True)
    assert result.returncode == 0, result.stderr
    assert (
        kubectl_whoami(kubectl, world, "--token", result.stdout.strip())["username"]
        == "system:serviceaccount:default:stock"
    )


@pytest.mark.xfail(
    strict=True,
    reason="kubectl asks for /apis/authentication.k8s.io; the API serves the "
    "group under the configured domain only (see the closing note)",
)
def test_kubectl_auth_whoami(world: World, kubectl: str) -> None:
    """`kubectl auth whoami` POSTs to the client-spelled group `authentication.k8s.io`."""
    result = kubectl_run(kubectl, world, "--token", "static-token", "auth", "whoami", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"]["userInfo"]["username"] == "alice"
