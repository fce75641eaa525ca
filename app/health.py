"""The named health checks of one app (name -> callable that raises on failure), as /healthz, /livez and /readyz
report them (app/api/health.py). Later work adds checks (`poststarthook/<name>`, ...) with
`health_registry(app).add(...)`, never by editing handlers; the process's start-up steps (app/lifecycle.py) do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from flask import Flask, current_app

from .context import services

ENDPOINTS = ("healthz", "livez", "readyz")
EXTENSION_KEY = "orch.health"
CheckFn = Callable[[], None]


@dataclass(frozen=True)
class HealthCheck:
    name: str
    run: CheckFn  # raises on failure; the exception text is the reason
    last: bool = False  # kept after every ordinary check (readyz's `shutdown`)


@dataclass
class HealthRegistry:
    _checks: dict[str, list[HealthCheck]] = field(default_factory=lambda: {e: [] for e in ENDPOINTS})

    def add(self, name: str, run: CheckFn, endpoints: Iterable[str] = ENDPOINTS, last: bool = False) -> None:
        """Install a check on the given endpoints (replacing one of the same name)."""
        for endpoint in endpoints:
            checks = [c for c in self._checks[endpoint] if c.name != name]
            checks.append(HealthCheck(name, run, last))
            self._checks[endpoint] = checks

    def checks(self, endpoint: str) -> list[HealthCheck]:
        """Registration order, with `last` checks at the end."""
        checks = self._checks[endpoint]
        return [c for c in checks if not c.last] + [c for c in checks if c.last]

    def find(self, endpoint: str, name: str) -> HealthCheck | None:
        return next((c for c in self._checks[endpoint] if c.name == name), None)


def ping() -> None:
    """Always passes: the process answers HTTP."""


def log() -> None:
    """Always passes: logging never blocks here (the reference checks for a stuck log flush)."""


def store() -> None:
    services().storage.ping()


def shutdown() -> None:
    if services().shutting_down:
        raise RuntimeError("process is shutting down")


def default_registry() -> HealthRegistry:
    registry = HealthRegistry()
    registry.add("ping", ping)
    registry.add("log", log)
    registry.add("store", store)
    registry.add("shutdown", shutdown, endpoints=("readyz",), last=True)
    return registry


def health_registry(app: Flask | None = None) -> HealthRegistry:
    """The app's registry, created with the default checks on first use."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    if EXTENSION_KEY not in app.extensions:
        app.extensions[EXTENSION_KEY] = default_registry()
    return app.extensions[EXTENSION_KEY]
