"""AdmissionReview: the request a webhook gets and what its answer may say (the reference's v1 checks; a
v1beta1 answer is read as leniently as the reference reads it)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field

import orjson

from ..catalog import ResourceType
from ..errors import ApiError
from ..registry.admission import DELETE, Attributes


class ReviewFailed(ApiError):
    """The webhook was not reached or its answer is not a valid review (not: it refused)."""

    def __init__(self, webhook: str, why: str, code: int = 500) -> None:
        message = f'failed calling webhook "{webhook}": {why}'
        super().__init__(code, "InternalError", message, {"causes": [{"message": why}]})


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    status: dict = field(default_factory=dict)
    patch: bytes = b""
    warnings: tuple[str, ...] = ()
    audit_annotations: dict = field(default_factory=dict)

    def denial(self, webhook: str) -> ApiError:
        """The reference's rejection: the webhook's code (at least 400) and reason, its message prefixed."""
        denied_by = f'admission webhook "{webhook}" denied the request'
        status = self.status
        code: int = status["code"] if isinstance(status.get("code"), int) else 0
        message, reason = str(status.get("message") or ""), str(status.get("reason") or "")
        text = (
            f"{denied_by}: {message}"
            if message
            else f"{denied_by}: {reason}"
            if reason
            else f"{denied_by} without explanation"
        )
        details = status.get("details") if isinstance(status.get("details"), dict) else None
        return ApiError(max(code, 400), reason, text, details)


def _gvk(rt: ResourceType) -> dict:
    return {"group": rt.group, "version": rt.version, "kind": rt.kind}


def _gvr(rt: ResourceType) -> dict:
    return {"group": rt.group, "version": rt.version, "resource": rt.plural}


def review_request(
    api_version: str, uid: str, attrs: Attributes, matched: ResourceType, obj: dict | None, old: dict | None
) -> dict:
    request: dict = {
        "uid": uid,
        "kind": attrs.object_kind or _gvk(matched),
        "resource": _gvr(matched),
        "requestKind": attrs.object_kind or _gvk(attrs.rt),
        "requestResource": _gvr(attrs.rt),
        "name": attrs.name,
        "operation": attrs.operation,
        "userInfo": attrs.user.to_api() if attrs.user is not None else {},
        "object": obj if attrs.operation != DELETE else None,
        "oldObject": old,
        "dryRun": attrs.dry_run,
        "options": attrs.options,
    }
    if attrs.subresource:
        request["subResource"] = request["requestSubResource"] = attrs.subresource
    if attrs.namespace:
        request["namespace"] = attrs.namespace
    return {"apiVersion": api_version, "kind": "AdmissionReview", "request": request}


def verdict(webhook: str, api_version: str, uid: str, http_status: int, data: bytes, mutating: bool) -> Verdict:
    """The webhook's answer, checked. ReviewFailed when it is not a valid AdmissionReview response."""
    if http_status // 100 != 2:
        excerpt = data[:200].decode(errors="replace").strip()
        raise ReviewFailed(
            webhook,
            f"failed to call webhook: the server responded with HTTP {http_status}"
            + (f" ({excerpt})" if excerpt else ""),
            503,
        )

    def invalid(why: str) -> ReviewFailed:
        return ReviewFailed(webhook, f"received invalid webhook response: {why}", 503)

    try:
        review = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise invalid(f"the answer is not JSON: {err}") from None
    if not isinstance(review, dict):
        raise invalid("the answer is not an AdmissionReview")
    v1 = api_version.endswith("/v1")
    response = review.get("response")
    if not isinstance(response, dict):
        raise invalid("webhook response was absent")
    if v1:
        got = f"{review.get('apiVersion', '')}, Kind={review.get('kind', '')}"
        if review.get("apiVersion") != api_version or review.get("kind") != "AdmissionReview":
            raise invalid(f"expected webhook response of {api_version}, Kind=AdmissionReview, got {got}")
        if response.get("uid") != uid:
            raise invalid(f'expected response.uid="{uid}", got "{response.get("uid", "")}"')
    patch_text, patch_type = response.get("patch"), response.get("patchType")
    if not mutating and v1 and (patch_text or patch_type is not None):
        raise invalid(
            "validating webhook may not return response.patch"
            if patch_text
            else "validating webhook may not return response.patchType"
        )
    patch = b""
    if mutating and patch_text:
        if v1 and patch_type is None:
            raise invalid("webhook returned response.patch but not response.patchType")
        if v1 and patch_type != "JSONPatch":
            raise invalid(f'webhook returned invalid response.patchType of "{patch_type}"')
        try:
            patch = base64.b64decode(str(patch_text), validate=True)
        except (binascii.Error, ValueError):
            raise invalid("response.patch is not base64") from None
    elif mutating and v1 and patch_type is not None:
        raise invalid("webhook returned response.patchType but not response.patch")
    status: dict = response["status"] if isinstance(response.get("status"), dict) else {}
    warnings = tuple(str(w) for w in response.get("warnings") or () if isinstance(w, str))
    annotations: dict = response["auditAnnotations"] if isinstance(response.get("auditAnnotations"), dict) else {}
    return Verdict(
        bool(response.get("allowed")), status, patch, warnings, {str(k): str(v) for k, v in annotations.items()}
    )
