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
    faults             with --enable-fault-injection: the Fault the request takes delays or fails it, or
                       marks its answer or watch to be cut (app/faults, docs/testing.md)
    admission effects  Warning headers and audit annotations the admission plugins add
    handler            the blueprint's view (app/api)

After the handler the steps' `after` parts run in reverse (admission effects, then observe); at the end every
context variable a step set is reset. What the steps learn travels in one `RequestContext` (app/context.py).

`check_head` runs the deciding steps (request info, authenticate, impersonate, authorize) for a request whose body
has not arrived yet (the worker's head check, app/head_check.py): a refused request is answered from its head.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, request

from .context import RequestContext, request_context
from .errors import ApiError
from .user import current_user

if TYPE_CHECKING:
    from .auth.authz import Authorizer
    from .auth.context import Authentication
    from .faults import Injector
    from .flowcontrol import PriorityAndFairness, Seat
    from .naming import Naming

#: app.extensions key of the installed chain (its step names, for tests and docs)
EXTENSION_KEY = "orch.pipeline"
#: subresources the reference's priority-and-fairness filter lets through unlimited (long-running, not watches)
UNLIMITED_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
#: the reference's answer when APF turns a request away (Go's http.Error: plain text)
TOO_MANY_REQUESTS = "Too many requests, please try again later.\n"
#: environ key of a head check (`check_head`): its HeadVerdict
HEAD_CHECK_KEY = "orch.head_check"
#: what a head check answers: authentication's and authorization's refusals, not errors a handler may also meet
REFUSALS = frozenset({401, 403})

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
    #: one of the steps that decide from the request's head alone whether it is refused (`check_head`)
    decides: bool = False


@dataclass
class HeadVerdict:
    """What the chain made of a request's head: None while it has not looked (another hook answered first)."""

    refused: bool | None = None


def install(app: Flask, steps: Sequence[Step]) -> None:
    """Run `steps` for every request of `app`: their `before` in order, their `after` in reverse."""
    chain = tuple(steps)
    app.extensions[EXTENSION_KEY] = chain

    @app.before_request
    def _before() -> Response | None:
        ctx = request_context()
        verdict: HeadVerdict | None = request.environ.get(HEAD_CHECK_KEY)
        refusal = None
        if verdict is not None:
            refusal = _refusal_from_head(app, chain)
            verdict.refused = refusal is not None
            if refusal is None:  # nothing ran that records: the request comes again with its body
                return Response(status=204)
        for step in chain:  # a refused head: the whole chain, so that it is answered, counted and audited as ever
            if step.before is not None:
                step.before(ctx)
        if refusal is not None:
            raise refusal  # allowed a moment later (a role just bound): the answer its head got stands
        return None

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


def _refusal_from_head(app: Flask, chain: Sequence[Step]) -> ApiError | None:
    """The deciding steps in a request context of their own, on a copy of the environ (authenticators take the
    credentials out of it), with nothing counted, audited or queued: the 401 or 403 they raise, or None when they
    let the request through or cannot tell without its body."""
    with app.request_context(dict(request.environ)):
        scratch = request_context()
        try:
            for step in chain:
                if step.decides and step.before is not None:
                    step.before(scratch)
        except ApiError as err:
            return err if err.code in REFUSALS else None
        except Exception:  # noqa: BLE001 - undecided: the request meets the same failure when it runs with its body
            return None
        finally:
            scratch.reset()
    return None


def _refused_at_head() -> bool:
    verdict = request.environ.get(HEAD_CHECK_KEY)
    return verdict is not None and bool(verdict.refused)


def check_head(app: Any, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes] | None:
    """Authenticate and authorize the request of `environ`, whose body is not there (no input, `Content-Length:
    0`), as `app`'s chain would: None when the chain lets it through or cannot tell (nothing is recorded and
    nothing answered), else the refusal's answer (401 or 403), made, counted and audited by the chain as for any
    request. The worker's one way into the app before a request is complete."""
    if not isinstance(app, Flask) or EXTENSION_KEY not in app.extensions:
        return None  # not an app with this chain: it would serve the request without its body
    verdict = environ[HEAD_CHECK_KEY] = HeadVerdict()

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
        if verdict.refused:
            return start_response(status, headers, exc_info)
        return lambda _data: None

    body = app(environ, start)
    if verdict.refused:
        return body
    close = getattr(body, "close", None)
    if close is not None:
        close()
    return None


def request_info() -> Step:
    """The path, parsed once for authorization, the handler, metrics and audit."""
    from .request_info import parse_request_path

    def before(ctx: RequestContext) -> None:
        ctx.info = parse_request_path(request.path)

    return Step("request info", before, decides=True)


def authenticate(authentication: Callable[[], Authentication]) -> Step:
    """The caller; the app's authentication is reachable below Flask for the rest of the request."""
    from .auth.context import current_authentication

    def before(ctx: RequestContext) -> None:
        auth = authentication()
        ctx.on_reset(current_authentication.reset, current_authentication.set(auth))
        ctx.caller = auth.chain.authenticate(request.environ)

    return Step("authenticate", before, decides=True)


def impersonate(authorizer: Callable[[], Authorizer], naming: Naming) -> Step:
    """The user the request acts as: the caller, or whom its Impersonate-* headers name (when allowed)."""
    from .auth.impersonation import impersonate as impersonated

    def before(ctx: RequestContext) -> None:
        if ctx.caller is None:
            return
        ctx.user = impersonated(request.environ, ctx.caller, authorizer(), naming)
        ctx.on_reset(current_user.reset, current_user.set(ctx.user))

    return Step("impersonate", before, decides=True)


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

    return Step("authorize", before, decides=True)


def faults(injector: Injector) -> Step:
    """Faults on demand: the Fault (if any) the resource request takes, after authorization (a client is
    failed only where it was allowed) and before admission (an error stores nothing). Its name is on the
    answer's X-Orch-Fault header; an afterWrite error replaces a served write's answer."""
    from flask import g

    from .api.errors import status_response
    from .faults import HEADER, WATCH_CUT_KEY, Injection, RequestFacts

    def before(ctx: RequestContext) -> None:
        attrs, user = ctx.attributes, ctx.user
        if attrs is None or user is None or not attrs.resource_request or _refused_at_head():
            return
        facts = RequestFacts(
            verb=attrs.verb,
            group=attrs.group,
            resource=attrs.resource,
            subresource=attrs.subresource,
            namespace=attrs.namespace,
            name=attrs.name,
            user=user.username,
            groups=tuple(user.groups),
            user_agent=request.headers.get("User-Agent", ""),
            field_manager=request.args.get("fieldManager", ""),
        )
        injection = injector.evaluate(facts)
        if injection is None:
            return
        g.orch_fault = injection
        if injection.watch is not None:
            request.environ[WATCH_CUT_KEY] = injection.watch
        injection.before()

    def after(ctx: RequestContext, response: Any) -> Any:
        injection: Injection | None = g.pop("orch_fault", None)
        if injection is None:
            return response
        if injection.after_write is not None and response.status_code < 400:
            response = status_response(injection.after_write)  # stored, and yet the client hears it failed
        response.headers[HEADER] = injection.fault
        return response

    return Step("faults", before, after)


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
    from .flowcontrol import RequestRejected, Seat

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
            if _refused_at_head():  # classified for its headers, on no seat: it is answered, not run
                schema, level, _flow = limiter.classify(attrs)
                seat = Seat(schema, level)
            else:
                seat = limiter.admit(attrs)
        except RequestRejected as rejected:
            headers = {"Retry-After": str(rejected.retry_after), "X-Content-Type-Options": "nosniff"}
            answer = Response(TOO_MANY_REQUESTS, 429, headers)
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
