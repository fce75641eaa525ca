"""bootstrapsigner: keeps `cluster-info` (public namespace) signed for every bootstrap token marked
`usage-bootstrap-signing: "true"`: one `jws-kubeconfig-<token_id>` per valid token, a detached JWS
(HS256, key = the full token `<id>.<secret>`, payload = the `kubeconfig` value). Expired tokens are
ignored and their signatures removed. `ensure_cluster_info` writes the config map at server start."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re

import yaml

from ..auth.bootstrap import SECRET_PREFIX, expired, secret_type
from ..auth.lookup import secret_value
from ..auth.rbac.defaults import CLUSTER_INFO
from ..errors import AlreadyExists, Conflict, NotFound
from ..registry.keys import collection_prefix, object_key
from .base import Client, Context, Controller

log = logging.getLogger(__name__)

KUBECONFIG_KEY = "kubeconfig"
SIGNATURE_PREFIX = "jws-kubeconfig-"
_TOKEN_ID = re.compile(r"^[a-z0-9]{6}$")
_TOKEN_SECRET = re.compile(r"^[a-z0-9]{16}$")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def detached_jws(payload: str, token_id: str, token_secret: str) -> str:
    """`<header>..<signature>`: the compact JWS of `payload` with its middle part left out."""
    header = _b64url(json.dumps({"alg": "HS256", "kid": token_id}, separators=(",", ":")).encode())
    signing_input = f"{header}.{_b64url(payload.encode())}".encode("ascii")
    key = f"{token_id}.{token_secret}".encode()
    return f"{header}..{_b64url(hmac.new(key, signing_input, hashlib.sha256).digest())}"


def cluster_kubeconfig(server_url: str, ca_pem: bytes) -> str:
    """A client config holding only the cluster: its server and CA data (as the reference's cluster-info)."""
    config: dict = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "cluster": {
                    "certificate-authority-data": base64.b64encode(ca_pem).decode("ascii"),
                    "server": server_url,
                },
                "name": "",
            }
        ],
        "contexts": None,
        "current-context": "",
        "preferences": {},
        "users": None,
    }
    return yaml.safe_dump(config, sort_keys=False)


def ensure_cluster_info(client: Client, server_url: str, ca_pem: bytes) -> None:
    """Create `cluster-info` in the public namespace when absent; an existing one is the admin's to edit
    (e.g. a load balancer's URL), and the signer re-signs whatever kubeconfig it holds."""
    configmaps = client.ctx.kind("", "configmaps")
    namespace = client.ctx.naming.public_namespace
    if client.find(configmaps, namespace, CLUSTER_INFO) is not None:
        return
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": CLUSTER_INFO, "namespace": namespace},
        "data": {KUBECONFIG_KEY: cluster_kubeconfig(server_url, ca_pem)},
    }
    try:
        client.create(configmaps, namespace, body)
    except AlreadyExists:
        pass  # another process created it first


class BootstrapSigner(Controller):
    name = "bootstrapsigner"
    account = "bootstrap-signer"
    resync_seconds = 30.0  # tokens expire without any event

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.secrets = ctx.kind("", "secrets")
        self.configmaps = ctx.kind("", "configmaps")

    def watches(self) -> list:
        return [self.secrets, self.configmaps]

    def watched_keys(self) -> list[str]:
        """Only token secrets' namespace and cluster-info itself: other writes never change a signature."""
        return [
            collection_prefix(self.secrets, self.naming.system_namespace),
            object_key(self.configmaps, self.naming.public_namespace, CLUSTER_INFO),
        ]

    def signing_tokens(self) -> dict[str, str]:
        """token id -> token secret of every valid token marked for signing."""
        now, wanted = self.now(), secret_type(self.naming)
        tokens: dict[str, str] = {}
        for secret in self.client.list(self.secrets, self.naming.system_namespace, field_selector=f"type={wanted}"):
            md = secret.get("metadata") or {}
            token_id, token_secret = secret_value(secret, "token-id"), secret_value(secret, "token-secret")
            if (
                secret.get("type") != wanted
                or md.get("deletionTimestamp")
                or md.get("name") != SECRET_PREFIX + token_id
                or not _TOKEN_ID.match(token_id)
                or not _TOKEN_SECRET.match(token_secret)
                or secret_value(secret, "usage-bootstrap-signing") != "true"
                or expired(secret, now)
            ):
                continue
            tokens[token_id] = token_secret
        return tokens

    def sync(self) -> None:
        namespace = self.naming.public_namespace
        current = self.client.find(self.configmaps, namespace, CLUSTER_INFO)
        if current is None:
            return
        data = dict(current.get("data") or {})
        kubeconfig = data.get(KUBECONFIG_KEY)
        if not kubeconfig:
            return
        signed = {key: value for key, value in data.items() if not key.startswith(SIGNATURE_PREFIX)}
        for token_id, token_secret in self.signing_tokens().items():
            signed[SIGNATURE_PREFIX + token_id] = detached_jws(kubeconfig, token_id, token_secret)
        if signed != data:
            try:
                self.client.update(self.configmaps, namespace, {**current, "data": signed})
            except (Conflict, NotFound):
                pass  # changed meanwhile: the event brings it back
