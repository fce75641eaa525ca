"""Webhook conversion of custom objects (`spec.conversion.strategy: Webhook`): a ConversionReview POSTed over
HTTPS to the CRD's `clientConfig` (a `url`, or a `service` resolved through its Endpoints as the reference's
aggregator routing does), trusting only its `caBundle`. A failure is a 500 with the reference's message."""
from __future__ import annotations

import base64
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import urllib3

from app.errors import ApiError

#: (namespace, service name, service port) -> (address, port) of a ready endpoint; LookupError when none
ServiceResolver = Callable[[str, str, int], tuple[str, int]]
REVIEW_VERSIONS = ("v1", "v1beta1")
TIMEOUT = 30.0  # the reference's conversion webhook timeout


class ConversionFailed(ApiError):
    def __init__(self, api_version: str, kind: str, why: str) -> None:
        super().__init__(500, "InternalError", f"conversion webhook for {api_version}, Kind={kind} failed: {why}",
                         {"causes": [{"message": why}]})


@dataclass(frozen=True)
class ConversionWebhook:
    group: str  # the apiextensions group of this domain (the review's apiVersion)
    kind: str
    client_config: dict
    review_versions: tuple[str, ...]
    resolve: ServiceResolver | None = None

    def _target(self) -> tuple[str, str | None]:
        """(URL, TLS server name when it differs from the URL's host)."""
        config = self.client_config
        if config.get("url"):
            return str(config["url"]), None
        service = config.get("service") or {}
        namespace, name = str(service.get("namespace", "")), str(service.get("name", ""))
        port = int(service.get("port") or 443)
        if self.resolve is None:
            raise LookupError("services cannot be resolved here")
        host, target_port = self.resolve(namespace, name, port)
        path = str(service.get("path") or "/")
        return f"https://{host}:{target_port}{path}", f"{name}.{namespace}.svc"

    def _context(self) -> ssl.SSLContext:
        bundle = self.client_config.get("caBundle")
        if bundle:
            return ssl.create_default_context(cadata=base64.b64decode(bundle).decode())
        return ssl.create_default_context()

    def convert(self, obj: dict, desired: str) -> dict:
        """One object in the `desired` apiVersion, as the webhook converts it."""
        if obj.get("apiVersion") == desired:
            return obj
        version = next((v for v in self.review_versions if v in REVIEW_VERSIONS), "v1")
        uid = str(uuid.uuid4())
        review = {"apiVersion": f"{self.group}/{version}", "kind": "ConversionReview",
                  "request": {"uid": uid, "desiredAPIVersion": desired, "objects": [obj]}}
        try:
            url, server_name = self._target()
            kwargs: dict[str, Any] = {"ssl_context": self._context(), "retries": False}
            if server_name:
                kwargs["server_hostname"] = server_name
                kwargs["assert_hostname"] = server_name
            with urllib3.PoolManager(**kwargs) as http:
                reply = http.request("POST", url, body=orjson.dumps(review), timeout=urllib3.Timeout(total=TIMEOUT),
                                     headers={"Content-Type": "application/json", "Accept": "application/json"},
                                     redirect=False)
        except (LookupError, urllib3.exceptions.HTTPError, OSError, ValueError) as err:
            raise ConversionFailed(desired, self.kind, f"{err.__class__.__name__}: {err}") from None
        return self._converted(reply, uid, obj, desired)

    def _converted(self, reply: Any, uid: str, obj: dict, desired: str) -> dict:
        if reply.status // 100 != 2:
            raise ConversionFailed(desired, self.kind, f"the webhook answered HTTP {reply.status}")
        try:
            response = orjson.loads(reply.data).get("response") or {}
        except (orjson.JSONDecodeError, AttributeError):
            raise ConversionFailed(desired, self.kind, "the webhook's answer is not a ConversionReview") from None
        if response.get("uid") != uid:
            raise ConversionFailed(desired, self.kind, f"expected response uid {uid!r}, got {response.get('uid')!r}")
        result = response.get("result") or {}
        if result.get("status") != "Success":
            raise ConversionFailed(desired, self.kind, str(result.get("message") or "conversion failed"))
        converted = response.get("convertedObjects") or []
        if len(converted) != 1 or not isinstance(converted[0], dict):
            raise ConversionFailed(desired, self.kind, f"expected 1 converted object, got {len(converted)}")
        out = converted[0]
        if out.get("apiVersion") != desired:
            raise ConversionFailed(desired, self.kind, f"invalid converted object: expected apiVersion {desired}, "
                                                       f"got {out.get('apiVersion')}")
        before, after = obj.get("metadata") or {}, out.get("metadata") or {}
        if any(before.get(k) != after.get(k) for k in ("name", "namespace", "uid")):
            raise ConversionFailed(desired, self.kind, "the webhook changed metadata.name, namespace or uid")
        # only labels and annotations may change in metadata (the reference's rule): keep the rest as sent
        return {**out, "metadata": {**before, **{k: after[k] for k in ("labels", "annotations") if k in after}}}
