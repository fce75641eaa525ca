"""Webhook token authentication: POST a TokenReview to a remote service and believe its status.

The remote is described by a kubeconfig-format file (`clusters` = the service, `users` = our client
credentials). Answers are cached for the TTL; a remote that is down or slow fails closed (401)
within a bounded time, and such failures are not cached.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import yaml

from ..user import UserInfo
from .authn import AuthenticationError, TokenResult, intersect
from .outbound import OutboundError, post_review, review_status

log = logging.getLogger(__name__)
CACHE_SIZE = 4096


@dataclass(frozen=True)
class Remote:
    server: str
    verify: str | bool
    cert: tuple[str, str] | None = None
    token: str | None = None


def _pick(config: dict, section: str, name: str | None) -> dict:
    entries = [e for e in config.get(section) or [] if isinstance(e, dict)]
    chosen = next((e for e in entries if e.get("name") == name), None) if name else None
    chosen = chosen or (entries[0] if entries else None)
    key = section[:-1]  # clusters -> cluster, users -> user
    if chosen is None or not isinstance(chosen.get(key), dict):
        raise ValueError(f"no {key} in {section}")
    return chosen[key]


class _Materials:
    """Inline PEM data from the config, written to private files (the TLS library reads files)."""

    def __init__(self) -> None:
        self.directory: str | None = None

    def write(self, name: str, b64: str) -> str:
        if self.directory is None:
            self.directory = tempfile.mkdtemp(prefix="orch-webhook-")  # 0700
            atexit.register(shutil.rmtree, self.directory, True)
        path = os.path.join(self.directory, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(base64.b64decode(b64))
        return path


def load_remote(path: str) -> Remote:
    """The remote service and our credentials from a kubeconfig-format file; ValueError when unusable."""
    try:
        with open(path, encoding="utf-8") as handle:
            config = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ValueError(f"{path}: {err}") from err
    if not isinstance(config, dict):
        raise ValueError(f"{path}: not a kubeconfig file")
    base = os.path.dirname(os.path.abspath(path))
    current = next(
        (
            c.get("context")
            for c in config.get("contexts") or []
            if isinstance(c, dict) and c.get("name") == config.get("current-context")
        ),
        None,
    )
    current = current if isinstance(current, dict) else {}
    try:
        cluster = _pick(config, "clusters", current.get("cluster"))
        user = _pick(config, "users", current.get("user")) if config.get("users") else {}
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    server = cluster.get("server")
    if not isinstance(server, str) or not server.startswith(("https://", "http://")):
        raise ValueError(f"{path}: the cluster has no server URL")
    materials = _Materials()

    def local(key: str, data_key: str, name: str) -> str | None:
        if user.get(data_key) or cluster.get(data_key):
            return materials.write(name, str(user.get(data_key) or cluster.get(data_key)))
        value = user.get(key) or cluster.get(key)
        return os.path.join(base, value) if isinstance(value, str) and value else None

    verify: str | bool = local("certificate-authority", "certificate-authority-data", "ca.crt") or True
    if cluster.get("insecure-skip-tls-verify") is True:
        verify = False
    cert, key = (
        local("client-certificate", "client-certificate-data", "client.crt"),
        local("client-key", "client-key-data", "client.key"),
    )
    if bool(cert) != bool(key):
        raise ValueError(f"{path}: a client certificate needs its key")
    token = user.get("token") if isinstance(user.get("token"), str) else None
    return Remote(server, verify, (cert, key) if cert and key else None, token)


@dataclass
class _Cache:
    ttl: float
    entries: OrderedDict[bytes, tuple[float, TokenResult | None, str]] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: bytes) -> tuple[TokenResult | None, str] | None:
        with self.lock:
            found = self.entries.get(key)
            if found is None:
                return None
            if found[0] < time.monotonic():
                del self.entries[key]
                return None
            return found[1], found[2]

    def put(self, key: bytes, result: TokenResult | None, error: str) -> None:
        if self.ttl <= 0:
            return
        with self.lock:
            self.entries[key] = (time.monotonic() + self.ttl, result, error)
            self.entries.move_to_end(key)
            while len(self.entries) > CACHE_SIZE:
                self.entries.popitem(last=False)


@dataclass
class WebhookTokens:
    remote: Remote
    api_version: str  # authentication.<domain>/v1 or /v1beta1
    api_audiences: tuple[str, ...]
    cache_ttl: float = 120.0
    timeout: float = 5.0  # per attempt
    deadline: float = 10.0  # all attempts together
    cache: _Cache = field(init=False)

    def __post_init__(self) -> None:
        self.cache = _Cache(self.cache_ttl)

    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        # keyed by a digest: the cache never holds a usable token
        key = hashlib.sha256("\0".join((token, *audiences)).encode()).digest()
        cached = self.cache.get(key)
        if cached is None:
            reply = self._review(token, audiences)  # raises (uncached) when the remote fails
            cached = self._decide(reply, audiences)
            self.cache.put(key, *cached)
        result, error = cached
        if result is None and error:
            raise AuthenticationError(error)
        return result

    def _decide(self, status: dict, audiences: tuple[str, ...]) -> tuple[TokenResult | None, str]:
        if not status.get("authenticated"):
            error = status.get("error")
            return None, error if isinstance(error, str) else ""  # error is ignored when authenticated
        offered = status.get("audiences") or self.api_audiences
        wanted = intersect(audiences, offered) if audiences else ()
        if audiences and not wanted:
            return None, ""
        user = status["user"] if isinstance(status.get("user"), dict) else {}
        username = user.get("username")
        if not isinstance(username, str) or not username:
            return None, "webhook: authenticated without a username"
        groups = user["groups"] if isinstance(user.get("groups"), list) else []
        extra = user["extra"] if isinstance(user.get("extra"), dict) else {}
        info = UserInfo(
            username,
            str(user.get("uid") or ""),
            tuple(str(g) for g in groups),
            {str(k): tuple(str(v) for v in vs) for k, vs in extra.items() if isinstance(vs, list)},
        )
        return TokenResult(info, wanted), ""

    def _review(self, token: str, audiences: tuple[str, ...]) -> dict:
        body = {
            "apiVersion": self.api_version,
            "kind": "TokenReview",
            "spec": {"token": token, **({"audiences": list(audiences)} if audiences else {})},
        }
        try:
            return review_status(
                post_review(self.remote, body, self.timeout, self.deadline), "TokenReview", self.api_version
            )
        except OutboundError as err:
            log.error("token webhook %s failed: %s", self.remote.server, err)
            raise AuthenticationError(f"webhook token authenticator: {err}") from None
