"""The `Webhook` authorization mode: POST a SubjectAccessReview to a remote service and follow its status.

The remote is described by a kubeconfig-format file, as the token webhook's (`clusters` = the service,
`users` = our client credentials). `status.allowed` allows, `status.denied` denies, anything else has no
opinion (the next mode decides). Allow and deny/no-opinion answers are cached for their own TTLs; a remote
that is down, slow or answers nonsense has no opinion within a bounded time (fail closed), uncached.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from .authz import Attributes, Decision
from .outbound import OutboundError, post_review, review_status
from .webhook import Remote

log = logging.getLogger(__name__)
CACHE_SIZE = 10000


def review_spec(attributes: Attributes) -> dict[str, Any]:
    """The SubjectAccessReview spec of the request attributes (empty fields left out, as the reference)."""
    user = attributes.user.to_api()
    spec: dict[str, Any] = {"user": user.pop("username"), **user}  # same fields, `user` for the name
    if attributes.resource_request:
        fields = {
            "namespace": attributes.namespace,
            "verb": attributes.verb,
            "group": attributes.group,
            "version": attributes.version,
            "resource": attributes.resource,
            "subresource": attributes.subresource,
            "name": attributes.name,
        }
        spec["resourceAttributes"] = {key: value for key, value in fields.items() if value}
    else:
        spec["nonResourceAttributes"] = {"path": attributes.path, "verb": attributes.verb}
    return spec


@dataclass
class _DecisionCache:
    authorized_ttl: float
    unauthorized_ttl: float
    entries: OrderedDict[str, tuple[float, Decision]] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: str) -> Decision | None:
        with self.lock:
            found = self.entries.get(key)
            if found is None:
                return None
            if found[0] < time.monotonic():
                del self.entries[key]
                return None
            return found[1]

    def put(self, key: str, decision: Decision) -> None:
        ttl = self.authorized_ttl if decision.allowed else self.unauthorized_ttl
        if ttl <= 0:
            return
        with self.lock:
            self.entries[key] = (time.monotonic() + ttl, decision)
            self.entries.move_to_end(key)
            while len(self.entries) > CACHE_SIZE:
                self.entries.popitem(last=False)


@dataclass
class WebhookAuthorizer:
    remote: Remote
    api_version: str  # authorization.<domain>/v1
    authorized_ttl: float = 300.0
    unauthorized_ttl: float = 30.0
    timeout: float = 5.0  # per attempt
    deadline: float = 10.0  # all attempts together
    cache: _DecisionCache = field(init=False)

    def __post_init__(self) -> None:
        self.cache = _DecisionCache(self.authorized_ttl, self.unauthorized_ttl)

    def authorize(self, attributes: Attributes) -> Decision:
        spec = review_spec(attributes)
        key = json.dumps(spec, sort_keys=True)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        try:
            status = self._review(spec)
        except OutboundError as err:
            log.error("authorization webhook %s failed: %s", self.remote.server, err)
            return Decision.abstain(f"webhook authorizer: {err}")  # fail closed, not cached
        decision = self._decide(status)
        self.cache.put(key, decision)
        return decision

    @staticmethod
    def _decide(status: dict) -> Decision:
        reason: str = status["reason"] if isinstance(status.get("reason"), str) else ""
        if status.get("allowed") is True:
            return Decision.allow(reason)
        if status.get("denied") is True:
            return Decision.deny(reason)
        return Decision.abstain(reason)

    def _review(self, spec: dict) -> dict:
        body = {"apiVersion": self.api_version, "kind": "SubjectAccessReview", "spec": spec}
        response = post_review(self.remote, body, self.timeout, self.deadline)
        return review_status(response, "SubjectAccessReview", self.api_version)
