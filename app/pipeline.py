"""The handler chain every request passes, in one place, in the reference's order.

    recovery           every ApiError or crash is rendered once as a Status (app/api/errors.py); observability's
                       teardown records the audit Panic stage
    start-up           the post-start hooks of an app nobody booted run before its first request (app/lifecycle.py)
    request info       the path read once (app/request_info.py): group, version, namespace, resource, name, ...
    observe            audit ID, in-flight gauge, request body for the audit log (app/observability.py); first,
                       so 401s are counted and audited
    authenticate       the caller, from the --*-auth flags' authenticators (app/auth/setup.py)
    impersonate        the user the request acts as (Impersonate-* headers, authorized by the caller's rights)
    max-in-flight      enforced before a request reaches the app: the worker answers 429 (app/worker.py); with
                       --enable-priority-and-fairness the next step limits instead
    priority and       the request classified by the FlowSchemas; it runs on a seat of its priority level, waits
      fairness         in the level's queues, or gets 429 (app/flowcontrol, docs/flowcontrol.md)
    authorize          the request's attributes, then the --authorization-mode chain; 403 Forbidden otherwise
    admission effects  Warning headers and audit annotations the admission plugins add
    handler            the blueprint's view (app/api)

After the handler the steps' `after` parts run in reverse (admission effects, then observe); at the end every
context variable a step set is reset. What the steps learn travels in one `RequestContext` (app/context.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Flask, request

from .context import RequestContext, request_context
from .user import current_user

if TYPE_CHECKING:
    from .auth.authz import Authorizer
    from .auth.context import Authentication
    from .flowcontrol import PriorityAndFairness, Seat
    from .naming import Naming

#: app.extensions key of the installed chain (its step names, for tests and docs)
EXTENSION_KEY = "orch.pipeline"
#: subresources the reference's priority-and-fairness filter lets through unlimited (long-running, not watches)
UNLIMITED_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
#: the reference's answer when APF turns a request away (Go's http.Error: plain text)
TOO_MANY_REQUESTS = "Too many requests, please try again later.\n"

Before = Callable[[RequestContext], None]
After = Callable[[RequestContext, Any], Any]
Teardown = Callable[[RequestContext, "BaseException | None"], None]


@dataclass(frozen=True)
class Step:
    name: str
    before: Before | None = None
    #: given the response, returns it (possibly changed); runs even when a later step refused the request
    after: After | None = None
    #: at the very end, with the exception that escaped the handler and the error handlers, if any
    teardown: Teardown | None = None


def install(app: Flask, steps: Sequence[Step]) -> None:
    """Run `steps` for every request of `app`: their `before` in order, their `after` in reverse."""
    chain = tuple(steps)
    app.extensions[EXTENSION_KEY] = chain

    @app.before_request
    def _before() -> None:
        ctx = request_context()
        for step in chain:
            if step.before is not None:
                step.before(ctx)

    @app.after_request
    def _after(response: Any) -> Any:
        ctx = request_context()
        for step in reversed(chain):
            if step.after is not None:
                response = step.after(ctx, response)
        return response

    @app.teardown_request
    def _teardown(exc: BaseException | None) -> None:
        ctx = request_context()
        try:
            for step in reversed(chain):
                if step.teardown is not None:
                    step.teardown(ctx, exc)
        finally:
            ctx.reset()


def request_info() -> Step:
    """The path, parsed once for authorization, the handler, metrics and audit."""
    from .request_info import parse_request_path

    def before(ctx: RequestContext) -> None:
        ctx.info = parse_request_path(request.path)

    return Step("request info", before)


def authenticate(authentication: Callable[[], Authentication]) -> Step:
    """The caller; the app's authentication is reachable below Flask for the rest of the request."""
    from .auth.context import current_authentication

    def before(ctx: RequestContext) -> None:
        auth = authentication()
        ctx.on_reset(current_authentication.reset, current_authentication.set(auth))
        ctx.caller = auth.chain.authenticate(request.environ)

    return Step("authenticate", before)


def impersonate(authorizer: Callable[[], Authorizer], naming: Naming) -> Step:
    """The user the request acts as: the caller, or whom its Impersonate-* headers name (when allowed)."""
    from .auth.impersonation import impersonate as impersonated

    def before(ctx: RequestContext) -> None:
        if ctx.caller is None:
            return
        ctx.user = impersonated(request.environ, ctx.caller, authorizer(), naming)
        ctx.on_reset(current_user.reset, current_user.set(ctx.user))

    return Step("impersonate", before)


def authorize(authorizer: Callable[[], Authorizer], skip: Callable[[], bool] = lambda: False) -> Step:
    """The request's authorization attributes, then the decision; `skip` lets a request through undecided
    (health probes before the default RBAC policy exists)."""
    from .auth.attributes import request_attributes
    from .auth.authz import forbidden

    def before(ctx: RequestContext) -> None:
        if ctx.user is None:
            return
        if ctx.attributes is None:  # priority and fairness, when on, has worked them out already
            ctx.attributes = request_attributes(ctx.user, request.method, request.path, request.args, ctx.info)
        if skip():
            return
        decision = authorizer().authorize(ctx.attributes)
        if not decision.allowed:
            raise forbidden(ctx.attributes, decision.reason)

    return Step("authorize", before)


def admission_effects() -> Step:
    """What admission says besides its answer: Warning headers on the response, annotations for the audit
    event (the after part runs before observe's, which writes the event)."""
    from .admission.effects import Effects, request_effects

    def before(ctx: RequestContext) -> None:
        ctx.effects = Effects()
        ctx.on_reset(request_effects.reset, request_effects.set(ctx.effects))

    def after(ctx: RequestContext, response: Any) -> Any:
        effects = ctx.effects
        if effects is not None:
            from .api.fieldvalidation import warning_header

            for text in effects.warnings:
                response.headers.add("Warning", warning_header(text))
            if effects.annotations and ctx.observed is not None:
                ctx.observed.annotations.update(effects.annotations)
        return response

    return Step("admission effects", before, after)


def priority_and_fairness(apf: Callable[[], PriorityAndFairness | None], naming: Naming) -> Step:
    """API Priority and Fairness: a seat of the request's priority level, held until the response is made (a
    watch: until it is set up, as the reference's v1.23 holds a watch's seat while it initialises); the
    connect subresources (exec, log, proxy, ...) pass unlimited, as in the reference."""
    from flask import abort, g
    from werkzeug.wrappers import Response

    from .auth.attributes import request_attributes
    from .flowcontrol import RequestRejected

    schema_header = f"X-{naming.product.capitalize()}-PF-FlowSchema-UID"
    level_header = f"X-{naming.product.capitalize()}-PF-PriorityLevel-UID"

    def before(ctx: RequestContext) -> None:
        limiter = apf()
        if limiter is None or ctx.user is None:
            return
        attrs = ctx.attributes = request_attributes(ctx.user, request.method, request.path, request.args, ctx.info)
        if attrs.resource_request and attrs.subresource in UNLIMITED_SUBRESOURCES:
            return
        try:
            seat = limiter.admit(attrs)
        except RequestRejected as rejected:
            answer = Response(TOO_MANY_REQUESTS, 429, {"Retry-After": "1", "X-Content-Type-Options": "nosniff"})
            answer.content_type = "text/plain; charset=utf-8"
            answer.headers[schema_header] = rejected.seat.schema.uid
            answer.headers[level_header] = rejected.seat.level.uid
            abort(answer)  # the reference's plain-text answer, not a Status
        g.orch_apf_seat = seat
        ctx.on_reset(lambda _token: limiter.release(seat), None)

    def after(ctx: RequestContext, response: Any) -> Any:
        seat: Seat | None = g.pop("orch_apf_seat", None)
        if seat is not None:
            response.headers[schema_header] = seat.schema.uid
            response.headers[level_header] = seat.level.uid
            if ctx.attributes is not None and ctx.attributes.verb == "watch":
                limiter = apf()
                if limiter is not None:
                    limiter.release(seat)  # set up: the stream itself holds no seat
        return response

    return Step("priority and fairness", before, after)
