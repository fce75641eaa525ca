"""/healthz, /livez and /readyz: the app's named checks (app/health.py) run in order, reported as the reference
reports them."""

from __future__ import annotations

from collections.abc import Iterable

from flask import Blueprint, Response, request

from ..errors import RouteNotFound
from ..health import HealthCheck, health_registry

bp = Blueprint("health", __name__)


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
