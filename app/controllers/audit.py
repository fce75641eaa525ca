"""Controllers' writes in the audit log: one ResponseComplete event per write, the controller's service
account as the user (the audit hooks of app/observability.py see HTTP requests only)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..audit.event import AuditRecord
from ..audit.sink import EXTENSION_KEY as AUDIT_SINK_KEY
from ..auth.authz import Attributes

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

#: (attributes of the write, HTTP-equivalent status code, the resulting object or None)
AuditHook = Callable[[Attributes, int, Any], None]


def request_uri(attrs: Attributes) -> str:
    """The path the same write would have had over HTTP."""
    root = f"/apis/{attrs.group}/{attrs.version}" if attrs.group else f"/api/{attrs.version}"
    parts = [root]
    if attrs.namespace:
        parts.append(f"namespaces/{attrs.namespace}")
    parts.append(attrs.resource)
    if attrs.name:
        parts.append(attrs.name)
    if attrs.subresource:
        parts.append(attrs.subresource)
    return "/".join(parts)


def audit_hook(app: Flask, user_agent: str = "orch-apiserver/controllers") -> AuditHook | None:
    """A writer of controllers' audit events into the app's audit sink; None when auditing is off."""
    sink = app.extensions.get(AUDIT_SINK_KEY)
    if sink is None:
        return None

    def record(attrs: Attributes, code: int, obj: Any) -> None:
        try:
            user = attrs.user
            decision = sink.policy.evaluate(attrs, user.username, user.groups)
            if not decision.enabled:
                return
            event = AuditRecord(
                audit_id=str(uuid.uuid4()),
                decision=decision,
                api_version=sink.api_version,
                request_uri=request_uri(attrs),
                verb=attrs.verb,
                user=user,
                impersonated_user=None,
                source_ips=[],
                user_agent=user_agent,
                attrs=attrs,
                received=datetime.now(UTC),
                response_status={"metadata": {}, "code": code},
                response_object=obj if decision.at_least("RequestResponse") else None,
            )
            sink.write(event, "ResponseComplete")
        except Exception:  # auditing must never stop a controller
            log.exception("could not audit a controller's write")

    return record
