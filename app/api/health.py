"""/healthz, /livez and /readyz: named checks run in order, reported as the reference reports them.

Checks live in a per-app HealthRegistry (name -> callable that raises on failure); later work adds
checks (`poststarthook/<name>`, ...) with `health_registry(app).add(...)`, never by editing handlers.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from flask import Blueprint, Flask, Response, current_app, request

from app.context import services
from app.errors import RouteNotFound

bp = Blueprint("health", __name__)

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


# ---------------------------------------------------------------------------------------------
# Reports (pure: the check results are computed by the caller)


def _quoted(names: Iterable[str]) -> str:
    return ",".join(f'"{n}"' for n in names)


def run_checks(checks: list[HealthCheck], excluded: Iterable[str]) -> tuple[list[str], bool]:
    """Runs the checks; returns the report lines and whether every non-excluded check passed."""
    unmatched = set(excluded)
    lines: list[str] = []
    healthy = True
    for check in checks:
        if check.name in unmatched:
            unmatched.discard(check.name)
            lines.append(f"[+]{check.name} excluded: ok")
            continue
        try:
            check.run()
        except Exception:  # noqa: BLE001 - any failure fails the check; the reason stays private
            healthy = False
            lines.append(f"[-]{check.name} failed: reason withheld")
        else:
            lines.append(f"[+]{check.name} ok")
    if unmatched:
        lines.append(f"warn: some health checks cannot be excluded: no matches for {_quoted(sorted(unmatched))}")
    return lines, healthy


def _text(body: str, code: int = 200) -> Response:
    resp = Response(body, status=code)
    resp.headers["Content-Type"] = "text/plain; charset=utf-8"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


def report(endpoint: str) -> Response:
    lines, healthy = run_checks(health_registry().checks(endpoint), request.args.getlist("exclude"))
    body = "".join(line + "\n" for line in lines)
    if not healthy:
        return _text(f"{body}{endpoint} check failed\n", 500)  # always verbose on failure
    if "verbose" not in request.args:
        return _text("ok")
    return _text(f"{body}{endpoint} check passed\n")


def single(endpoint: str, name: str) -> Response:
    check = health_registry().find(endpoint, name)
    if check is None:
        raise RouteNotFound()
    try:
        check.run()
    except Exception as exc:  # noqa: BLE001 - the individual endpoint shows the error text
        return _text(f"internal server error: {exc}\n", 500)
    return _text("ok")


@bp.get("/healthz")
def healthz() -> Response:
    return report("healthz")


@bp.get("/livez")
def livez() -> Response:
    return report("livez")


@bp.get("/readyz")
def readyz() -> Response:
    return report("readyz")


@bp.get("/<any(healthz, livez, readyz):endpoint>/<path:name>")
def one_check(endpoint: str, name: str) -> Response:
    return single(endpoint, name)
