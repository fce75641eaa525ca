"""bootstrapsigner: cluster-info carries one detached HS256 JWS per valid signing token, checked here by
an independent HMAC computation; expired tokens lose their signature; anonymous users may read it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml
from flask.testing import FlaskClient
from orch_apiserver.controllers.base import Client, Context
from orch_apiserver.controllers.bootstrapsigner import BootstrapSigner, ensure_cluster_info

from tests.controllers import NAMING
from tests.controllers.conftest import FakeClock
from tests.controllers.test_cleaners import token_secret

CLUSTER_INFO = f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps/cluster-info"
SERVER = "https://127.0.0.1:6443"
SECRET = "0123456789abcdef"


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(signature: str, payload: str, token: str) -> bool:
    """RFC 7515 detached compact JWS, verified from scratch: HS256 only, HMAC over header.payload."""
    header, middle, mac = signature.split(".")
    assert middle == ""
    assert json.loads(unb64url(header))["alg"] == "HS256"
    encoded = base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()
    expected = hmac.new(token.encode(), f"{header}.{encoded}".encode(), hashlib.sha256).digest()
    return hmac.compare_digest(expected, unb64url(mac))


def data(client: Any) -> dict:
    return client.get(CLUSTER_INFO).json["data"]


def test_cluster_info_is_signed_per_signing_token(cclient: Any, ctx: Context, clock: FakeClock) -> None:
    ca_pem = Path(ctx.settings["CLUSTER_CA_CERT_FILE"]).read_bytes()
    ensure_cluster_info(Client(ctx, None), SERVER, ca_pem)
    kubeconfig = yaml.safe_load(data(cclient)["kubeconfig"])
    assert kubeconfig["clusters"][0]["cluster"] == {
        "certificate-authority-data": base64.b64encode(ca_pem).decode(),
        "server": SERVER,
    }
    assert not kubeconfig.get("users")
    token_secret(cclient, "aaaaaa", clock.now + timedelta(hours=1), **{"usage-bootstrap-signing": "true"})
    token_secret(cclient, "bbbbbb", None, **{"usage-bootstrap-signing": "true"})
    token_secret(cclient, "cccccc", None, **{"usage-bootstrap-authentication": "true"})  # not for signing
    signer = BootstrapSigner(ctx)
    signer.sync()
    signed = data(cclient)
    assert sorted(k for k in signed if k.startswith("jws-")) == ["jws-kubeconfig-aaaaaa", "jws-kubeconfig-bbbbbb"]
    assert verify(signed["jws-kubeconfig-aaaaaa"], signed["kubeconfig"], f"aaaaaa.{SECRET}")
    assert verify(signed["jws-kubeconfig-bbbbbb"], signed["kubeconfig"], f"bbbbbb.{SECRET}")
    assert not verify(signed["jws-kubeconfig-bbbbbb"], signed["kubeconfig"], f"aaaaaa.{SECRET}")
    clock.advance(hours=2)
    signer.sync()
    assert sorted(k for k in data(cclient) if k.startswith("jws-")) == ["jws-kubeconfig-bbbbbb"]


def test_an_edited_kubeconfig_is_signed_again(cclient: Any, ctx: Context) -> None:
    ensure_cluster_info(Client(ctx, None), SERVER, b"ca one")
    token_secret(cclient, "bbbbbb", None, **{"usage-bootstrap-signing": "true"})
    BootstrapSigner(ctx).sync()
    ensure_cluster_info(Client(ctx, None), "https://elsewhere:6443", b"ca two")  # exists: left alone
    assert "elsewhere" not in data(cclient)["kubeconfig"]
    current = cclient.get(CLUSTER_INFO).json
    current["data"]["kubeconfig"] = current["data"]["kubeconfig"].replace(SERVER, "https://elsewhere:6443")
    assert cclient.put(CLUSTER_INFO, json=current).status_code == 200  # the admin edits it
    BootstrapSigner(ctx).sync()
    signed = data(cclient)
    assert "elsewhere" in signed["kubeconfig"]
    assert verify(signed["jws-kubeconfig-bbbbbb"], signed["kubeconfig"], f"bbbbbb.{SECRET}")


def test_anonymous_users_may_read_cluster_info_only(cclient: Any, ctx: Context) -> None:
    ensure_cluster_info(Client(ctx, None), SERVER, b"ca")
    other = {"metadata": {"name": "private"}, "data": {"a": "b"}}
    assert cclient.post(f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps", json=other).status_code == 201
    anonymous = FlaskClient(cclient.application)
    assert anonymous.get(CLUSTER_INFO).status_code == 200
    assert anonymous.get(CLUSTER_INFO.replace("cluster-info", "private")).status_code == 403
