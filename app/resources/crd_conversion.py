"""Webhook conversion of custom objects (`spec.conversion.strategy: Webhook`): a ConversionReview POSTed over
HTTPS to the CRD's `clientConfig` (a `url`, or a `service` resolved through its Endpoints as the reference's
aggregator routing does), trusting only its `caBundle`. A failure is a 500 with the reference's message."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import orjson

from ..errors import ApiError
from ..outbound import CallFailed, ServiceResolver, post_json

REVIEW_VERSIONS = ("v1", "v1beta1")
TIMEOUT = 30.0  # the reference's conversion webhook timeout


class ConversionFailed(ApiError):
    def __init__(self, api_version: str, kind: str, why: str) -> None:
        super().__init__(
            500,
            "InternalError",
            f"conversion webhook for {api_version}, Kind={kind} failed: {why}",
            {"causes": [{"message": why}]},
        )


@dataclass(frozen=True)
class ConversionWebhook:
    group: str  # the apiextensions group of this domain (the review's apiVersion)
    kind: str
    client_config: dict
    review_versions: tuple[str, ...]
    resolve: ServiceResolver | None = None

    def convert(self, obj: dict, desired: str) -> dict:
        """One object in the `desired` apiVersion, as the webhook converts it."""
        return self.convert_many([obj], desired)[0]

    def convert_many(self, objs: list[dict], desired: str) -> list[dict]:
        """Objects in the `desired` apiVersion: one review for all those in another version (a list's page)."""
        todo = [obj for obj in objs if obj.get("apiVersion") != desired]
        if not todo:
            return objs
        version = next((v for v in self.review_versions if v in REVIEW_VERSIONS), "v1")
        uid = str(uuid.uuid4())
        review = {
            "apiVersion": f"{self.group}/{version}",
            "kind": "ConversionReview",
            "request": {"uid": uid, "desiredAPIVersion": desired, "objects": todo},
        }
        source = str(todo[0].get("apiVersion"))  # the reference names the version converted from
        try:
            status, data = post_json(self.client_config, review, TIMEOUT, self.resolve)
        except CallFailed as err:
            raise ConversionFailed(source, self.kind, str(err)) from None
        converted = iter(self._converted(status, data, uid, todo, desired, source))
        return [obj if obj.get("apiVersion") == desired else next(converted) for obj in objs]

    def _converted(self, status: int, data: bytes, uid: str, objs: list[dict], desired: str, source: str) -> list[dict]:
        if status // 100 != 2:
            raise ConversionFailed(source, self.kind, f"the webhook answered HTTP {status}")
        try:
            response = orjson.loads(data).get("response") or {}
        except (orjson.JSONDecodeError, AttributeError):
            raise ConversionFailed(source, self.kind, "the webhook's answer is not a ConversionReview") from None
        if response.get("uid") != uid:
            raise ConversionFailed(source, self.kind, f"expected response uid {uid!r}, got {response.get('uid')!r}")
        result = response.get("result") or {}
        if result.get("status") != "Success":
            raise ConversionFailed(source, self.kind, str(result.get("message") or "conversion failed"))
        converted = response.get("convertedObjects") or []
        if len(converted) != len(objs) or not all(isinstance(out, dict) for out in converted):
            raise ConversionFailed(source, self.kind, f"expected {len(objs)} converted objects, got {len(converted)}")
        return [self._checked(obj, out, desired, source) for obj, out in zip(objs, converted)]

    def _checked(self, obj: dict, out: dict, desired: str, source: str) -> dict:
        if out.get("apiVersion") != desired:
            raise ConversionFailed(
                source,
                self.kind,
                f"invalid converted object: expected apiVersion {desired}, got {out.get('apiVersion')}",
            )
        before, after = obj.get("metadata") or {}, out.get("metadata") or {}
        if any(before.get(k) != after.get(k) for k in ("name", "namespace", "uid")):
            raise ConversionFailed(source, self.kind, "the webhook changed metadata.name, namespace or uid")
        # only labels and annotations may change in metadata (the reference's rule): keep the rest as sent
        return {**out, "metadata": {**before, **{k: after[k] for k in ("labels", "annotations") if k in after}}}
