"""Where audit events go: the policy that decides each request's level and the rotated log file, one per app
(app.extensions[EXTENSION_KEY], set where the app is wired; None when auditing is off)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..naming import Naming
from .event import AuditRecord
from .policy import Policy, load_policy
from .writer import AuditWriter

log = logging.getLogger(__name__)

EXTENSION_KEY = "orch.audit"


@dataclass
class AuditSink:
    policy: Policy
    writer: AuditWriter
    naming: Naming
    log_format: str = "json"
    counter: Any = None  # apiserver_audit_event_total

    @property
    def api_version(self) -> str:
        return f"{self.naming.group('audit')}/v1"

    def write(self, record: AuditRecord, stage: str) -> None:
        if not record.wants(stage):
            return
        record.written.add(stage)
        now = datetime.now(UTC)
        line = record.legacy_line(stage, now) if self.log_format == "legacy" else record.json_line(stage, now)
        try:
            self.writer.write(line)
        except OSError as err:  # a full disk must not fail the request; the reference logs and drops too
            log.error("cannot write the audit log: %s", err)
            return
        if self.counter is not None:
            self.counter.inc()

    @property
    def records_bodies(self) -> bool:
        return any(r.level in ("Request", "RequestResponse") for r in self.policy.rules)


def build_audit_sink(config: dict[str, Any], naming: Naming) -> AuditSink | None:
    """None when auditing is off: no log path, or no policy (the reference records nothing without one)."""
    path = config.get("AUDIT_LOG_PATH")
    policy_file = config.get("AUDIT_POLICY_FILE")
    if not path:
        return None
    if not policy_file:
        log.warning("--audit-log-path without --audit-policy-file: no audit events are recorded")
        return None
    policy = load_policy(policy_file, naming)
    writer = AuditWriter(
        path,
        int(config.get("AUDIT_LOG_MAXSIZE") or 0),
        int(config.get("AUDIT_LOG_MAXBACKUP") or 0),
        int(config.get("AUDIT_LOG_MAXAGE") or 0),
    )
    return AuditSink(policy, writer, naming, str(config.get("AUDIT_LOG_FORMAT") or "json"))
