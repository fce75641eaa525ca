"""Apps with audit logging for the observability tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import _shutdown, admin_app

POLICY_HEADER = "apiVersion: audit.orch.io/v1\nkind: Policy\n"


class AuditedApp:
    """An app whose audit log is a file in tmp_path; `events()` reads it back."""

    def __init__(self, app: Any, log_path: Path) -> None:
        self.app = app
        self.log_path = log_path

    def client(self) -> Any:
        return self.app.test_client()

    def events(self) -> list[dict]:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def events_of(self, audit_id: str) -> list[dict]:
        return [e for e in self.events() if e["auditID"] == audit_id]


@pytest.fixture
def audited(sqlite_url: str, tmp_path: Path) -> Iterator[Callable[..., AuditedApp]]:
    made: list[Any] = []

    def make(rules: str, **config: Any) -> AuditedApp:
        policy = tmp_path / f"policy-{len(made)}.yaml"
        policy.write_text(POLICY_HEADER + rules)
        log_path = tmp_path / f"audit-{len(made)}.log"
        app = admin_app(sqlite_url, tmp_path, AUDIT_LOG_PATH=str(log_path), AUDIT_POLICY_FILE=str(policy), **config)
        made.append(app)
        return AuditedApp(app, log_path)

    yield make
    for app in made:
        _shutdown(app)
