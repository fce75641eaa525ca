"""One audited request: the `audit.<domain>/v1` Event, written once per stage."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from ..auth.authz import Attributes
from ..user import UserInfo
from .policy import Decision


def timestamp(moment: datetime) -> str:
    """RFC 3339 with microseconds, UTC (the reference's MicroTime)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def user_info(user: UserInfo | None) -> dict[str, Any]:
    return user.to_api() if user is not None else {}


def object_ref(attrs: Attributes) -> dict[str, str] | None:
    if not attrs.resource_request:
        return None
    ref = {
        "resource": attrs.resource,
        "namespace": attrs.namespace,
        "name": attrs.name,
        "apiGroup": attrs.group,
        "apiVersion": attrs.version,
        "subresource": attrs.subresource,
    }
    return {k: v for k, v in ref.items() if v}


def _without_managed_fields(obj: Any) -> Any:
    if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict) and "managedFields" in obj["metadata"]:
        obj = {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k != "managedFields"}}
    if isinstance(obj, dict) and isinstance(obj.get("items"), list):
        obj = {**obj, "items": [_without_managed_fields(i) for i in obj["items"]]}
    return obj


@dataclass
class AuditRecord:
    """The event of one request; `stage_event` renders it for one stage."""

    audit_id: str
    decision: Decision
    api_version: str
    request_uri: str
    verb: str
    user: UserInfo | None
    impersonated_user: UserInfo | None
    source_ips: list[str]
    user_agent: str
    attrs: Attributes | None
    received: datetime
    annotations: dict[str, str] = field(default_factory=dict)
    response_status: dict[str, Any] | None = None
    request_object: Any = None
    response_object: Any = None
    written: set[str] = field(default_factory=set)

    def wants(self, stage: str) -> bool:
        return self.decision.enabled and stage not in self.decision.omit_stages and stage not in self.written

    def stage_event(self, stage: str, now: datetime) -> dict[str, Any]:
        event: dict[str, Any] = {
            "kind": "Event",
            "apiVersion": self.api_version,
            "level": self.decision.level,
            "auditID": self.audit_id,
            "stage": stage,
            "requestURI": self.request_uri,
            "verb": self.verb,
            "user": user_info(self.user),
        }
        if self.impersonated_user is not None:
            event["impersonatedUser"] = user_info(self.impersonated_user)
        event["sourceIPs"] = self.source_ips
        if self.user_agent:
            event["userAgent"] = self.user_agent
        ref = object_ref(self.attrs) if self.attrs is not None else None
        if ref:
            event["objectRef"] = ref
        if self.response_status is not None and stage != "RequestReceived":
            event["responseStatus"] = self.response_status
        if self.request_object is not None and self.decision.at_least("Request"):
            event["requestObject"] = self._trimmed(self.request_object)
        if (
            self.response_object is not None
            and stage == "ResponseComplete"
            and self.decision.at_least("RequestResponse")
        ):
            event["responseObject"] = self._trimmed(self.response_object)
        event["requestReceivedTimestamp"] = timestamp(self.received)
        event["stageTimestamp"] = timestamp(now)
        if self.annotations:
            event["annotations"] = dict(self.annotations)
        return event

    def _trimmed(self, obj: Any) -> Any:
        return _without_managed_fields(obj) if self.decision.omit_managed_fields else obj

    def json_line(self, stage: str, now: datetime) -> bytes:
        return orjson.dumps(self.stage_event(stage, now)) + b"\n"

    def legacy_line(self, stage: str, now: datetime) -> bytes:
        """The reference's `legacy` format: one space-separated line."""
        user = self.user.username if self.user else ""
        groups = ",".join(self.user.groups) if self.user else ""
        as_user = self.impersonated_user.username if self.impersonated_user else "<self>"
        namespace = (self.attrs.namespace if self.attrs else "") or "<none>"
        code = self.response_status.get("code") if self.response_status else None
        response = str(code) if code is not None and stage != "RequestReceived" else "<deferred>"
        ips = ",".join(self.source_ips)
        return (
            f'{now.astimezone(UTC).isoformat()} AUDIT: id="{self.audit_id}" stage="{stage}" '
            f'ip="{ips}" method="{self.verb}" user="{user}" groups="{groups}" as="{as_user}" '
            f'asgroups="<lookup>" user-agent="{self.user_agent}" namespace="{namespace}" '
            f'uri="{self.request_uri}" response="{response}"\n'
        ).encode()
