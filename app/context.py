"""The wired services of one app (`services()`), and what the handler chain learns about the request being
served (`request_context()`, built by app/pipeline.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import current_app, g, has_request_context

try:  # Flask's own context variables: no LocalProxy hop (~1 us) for each of the ~12 lookups of a request
    from flask.globals import _cv_app, _cv_request
except ImportError:  # a Flask without them: through its proxies
    _cv_app = _cv_request = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from .admission.effects import Effects
    from .auth.authz import Attributes
    from .catalog import Catalog
    from .naming import Naming
    from .observability import Observed
    from .registry.store import Registry
    from .request_info import RequestInfo
    from .storage.hub import WatchHub
    from .storage.store import Storage
    from .user import UserInfo


@dataclass
class Services:
    naming: Naming
    catalog: Catalog
    storage: Storage
    registry: Registry
    hub: WatchHub
    settings: dict[str, Any] = field(default_factory=dict)
    #: set when the process is shutting down (readiness then fails).
    shutting_down: bool = False


def services() -> Services:
    app_context = _cv_app.get(None) if _cv_app is not None else None
    if app_context is None:
        return current_app.extensions["orch"]  # raises outside an app context, as ever
    return app_context.app.extensions["orch"]


@dataclass
class RequestContext:
    """One request as the handler chain has seen it so far; each step fills its part."""

    #: the request path as the reference's RequestInfoFactory reads it, parsed once
    info: RequestInfo | None = None
    #: who authenticated (the audit log names this caller behind an impersonation)
    caller: UserInfo | None = None
    #: whom the request acts as: the caller, or the user it impersonates
    user: UserInfo | None = None
    #: the authorization attributes (verb, resource, namespace, ... or the non-resource path)
    attributes: Attributes | None = None
    #: Warning headers and audit annotations admission adds
    effects: Effects | None = None
    #: observability's state: audit ID and record, timings, annotations
    observed: Observed | None = None
    #: set by the handler of a deprecated API version (group, version, resource, ...), for metrics and audit
    deprecated_api: dict | None = None
    _resets: list[tuple[Callable[[Any], Any], Any]] = field(default_factory=list)

    def on_reset(self, reset: Callable[[Any], Any], token: Any) -> None:
        """Call `reset(token)` when the request ends (a context variable a step set for it)."""
        self._resets.append((reset, token))

    def reset(self) -> None:
        while self._resets:
            reset, token = self._resets.pop()
            reset(token)


_KEY = "orch_request"


def request_context() -> RequestContext:
    """The current request's context, made on first use (kept on Flask's request context: it ends with it)."""
    holder: Any = _cv_request.get(None) if _cv_request is not None else None
    if holder is None:
        holder = g  # raises outside a request, as ever
    ctx = getattr(holder, _KEY, None)
    if ctx is None:
        ctx = RequestContext()
        setattr(holder, _KEY, ctx)
    return ctx


def current_request_context() -> RequestContext | None:
    """The current request's context, or None outside a request (a controller's write, a test's call)."""
    return request_context() if has_request_context() else None
