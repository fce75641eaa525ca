"""Request metrics, the deprecated-API gauge and audit events around every request.

`install_observability(app)` gives the handler chain's `observe` step (app/pipeline.py), first in the chain:
its before part runs first (401s are counted and audited) and its after part runs last (it sees the final
response). The audit's RequestReceived stage is written when the user is known: the authorizer
is wrapped, so the stage is written just before authorization (as the reference's filter order) and
the decision becomes the `authorization.<domain>/decision` annotation.
"""

from __future__ import annotations

import io
import logging
import operator
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
from flask import Flask, Response, request
from werkzeug.datastructures import MultiDict

from .api.handoff import at_stream_end
from .audit.event import AuditRecord
from .audit.policy import Decision as AuditDecision
from .audit.sink import EXTENSION_KEY as AUDIT_SINK_KEY
from .audit.sink import AuditSink, build_audit_sink
from .auth.attributes import request_attributes
from .auth.authz import Attributes, Authorizer
from .auth.authz import Decision as AuthzDecision
from .context import RequestContext, current_request_context, request_context
from .logs import BatchedLines
from .metrics import COMPONENT, ServerMetrics, build_metrics, child, observe_many
from .metrics import EXTENSION_KEY as METRICS_KEY
from .metrics.storage import StorageObjectsCollector, instrument_storage
from .naming import Naming
from .pipeline import Step
from .user import UserInfo

log = logging.getLogger(__name__)
access_log = logging.getLogger(f"{__package__}.httplog")

EXTENSION_KEY = "orch.observability"
#: app.extensions key of `(ResourceType) -> count(size)`, called for every watch event sent (app/api/resources.py)
WATCH_EVENT_COUNTER_KEY = "orch.watch_event_counter"
AUDIT_ID_HEADER = "Audit-Id"
CONNECT_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
REPORTED_VERBS = frozenset(
    {
        "APPLY",
        "CONNECT",
        "CREATE",
        "DELETE",
        "DELETECOLLECTION",
        "GET",
        "LIST",
        "PATCH",
        "POST",
        "PROXY",
        "PUT",
        "UPDATE",
        "WATCH",
        "WATCHLIST",
    }
)
APPLY_PATCH = "application/apply-patch+yaml"
BODY_METHODS = ("POST", "PUT", "PATCH")
MUTATING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_AUDITED_BODY = 3 * 1024 * 1024


# ---------------------------------------------------------------------------------------------
# Labels as the reference reports them


def scope_of(attrs: Attributes) -> str:
    if attrs.name or attrs.verb == "create":
        return "resource"
    if attrs.namespace:
        return "namespace"
    return "cluster" if attrs.resource_request else ""


def reported_verb(method: str, attrs: Attributes, args: Any, content_type: str) -> str:
    """GET/LIST/WATCH/POST/PUT/PATCH/APPLY/DELETE/CONNECT..., as the reference's cleanVerb."""
    verb = method.upper()
    scope = scope_of(attrs)
    if verb in ("GET", "HEAD"):
        verb = "LIST" if scope not in ("resource", "") else "GET"
        watch = args.getlist("watch") if hasattr(args, "getlist") else []
        if watch and watch[0].lower() not in ("0", "false"):
            verb = "WATCH"
    if verb == "PATCH" and content_type.split(";")[0].strip().lower() == APPLY_PATCH:
        verb = "APPLY"
    if attrs.resource_request and attrs.subresource in CONNECT_SUBRESOURCES:
        verb = "CONNECT"
    return verb if verb in REPORTED_VERBS else "other"


def dry_run_label(args: Any) -> str:
    values = args.getlist("dryRun") if hasattr(args, "getlist") else []
    if not values:
        return ""
    if any(v != "All" for v in values):
        return "invalid"
    return ",".join(sorted(set(values)))


def resource_labels(attrs: Attributes) -> dict[str, str]:
    if not attrs.resource_request:
        return {"group": "", "version": "", "resource": "", "subresource": "", "scope": ""}
    return {
        "group": attrs.group,
        "version": attrs.version,
        "resource": attrs.resource,
        "subresource": attrs.subresource,
        "scope": scope_of(attrs),
    }


def source_ips(environ: dict[str, Any]) -> list[str]:
    """X-Forwarded-For, X-Real-Ip, then the peer (the reference's SourceIPs; recorded, never trusted)."""
    ips: list[str] = []
    for part in environ.get("HTTP_X_FORWARDED_FOR", "").split(","):
        if part.strip():
            ips.append(part.strip())
    real = environ.get("HTTP_X_REAL_IP", "").strip()
    if real and real not in ips:
        ips.append(real)
    remote = environ.get("REMOTE_ADDR", "")
    if remote and remote not in ips:
        ips.append(remote)
    return ips


# ---------------------------------------------------------------------------------------------
# Per-request state


@dataclass
class Observed:
    started: float
    received: datetime
    audit_id: str
    request_body: bytes | None = None
    attrs: Attributes | None = None
    record: AuditRecord | None = None
    annotations: dict[str, str] = field(default_factory=dict)
    finished: bool = False
    streaming: bool = False  # a watch: its stream's close completes it
    inflight: Any = None  # this request's apiserver_current_inflight_requests child, until it is answered
    #: the environ as it came, when impersonating: impersonation strips its headers, the audit names the caller


class ObservedAuthorizer:
    """Wraps the request authorizer: the first call of a request writes RequestReceived and keeps the decision."""

    def __init__(
        self,
        inner: Authorizer,
        before: Callable[[Attributes], None],
        after: Callable[[Attributes, AuthzDecision], None],
    ) -> None:
        self.inner = inner
        self._before = before
        self._after = after

    def authorize(self, attributes: Attributes) -> AuthzDecision:
        ctx = current_request_context()
        first = ctx is not None and ctx.observed is not None and ctx.observed.attrs is None
        if first:
            self._before(attributes)
        decision = self.inner.authorize(attributes)
        if first:
            self._after(attributes, decision)
        return decision

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Observability:
    metrics: ServerMetrics
    audit: AuditSink | None
    naming: Naming
    #: where the one line per request goes (None: --request-log=false)
    request_log: BatchedLines | None = None


def _json_body(data: bytes | None, content_type: str) -> Any:
    """A body as JSON for the log; YAML apply patches as text; protobuf and others are omitted."""
    if not data:
        return None
    media = content_type.split(";")[0].strip().lower()
    if media.endswith("json"):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
    if media in (APPLY_PATCH, "application/yaml"):
        import yaml

        from .api import yamldoc

        try:
            return yamldoc.load(data)
        except yaml.YAMLError:
            return None
    return None


def install_observability(app: Flask) -> Step:
    """Metrics, audit and the request log; the returned step is the handler chain's `observe` (app/pipeline.py)."""
    svc = app.extensions["orch"]
    naming: Naming = svc.naming
    metrics = build_metrics()
    known = sorted(
        {
            rt.plural if not rt.group else f"{rt.plural}.{rt.group}"
            for rt in svc.catalog.storage_types()
            if not rt.virtual
        }
    )
    metrics.add_collector(StorageObjectsCollector(svc.storage, known))
    instrument_storage(svc.storage, metrics)
    audit = build_audit_sink(app.config, naming)
    if audit is not None:
        audit.counter = metrics.audit_events
    # the server writes its request lines in batches (REQUEST_LOG_BATCH_SECONDS); an app in a test logs at once
    batch = float(app.config.get("REQUEST_LOG_BATCH_SECONDS", 0))
    request_log = BatchedLines(access_log, batch) if app.config.get("REQUEST_LOG", True) else None
    obs = Observability(metrics, audit, naming, request_log)
    app.extensions[EXTENSION_KEY] = obs
    app.extensions[METRICS_KEY] = metrics
    app.extensions[AUDIT_SINK_KEY] = audit
    app.extensions[WATCH_EVENT_COUNTER_KEY] = _watch_event_counter(metrics)
    decision_key = f"{naming.group('authorization')}/decision"
    reason_key = f"{naming.group('authorization')}/reason"
    wrap_lock = threading.Lock()

    from .metrics.http import bp

    app.register_blueprint(bp)

    def new_record(
        state: Observed, attrs: Attributes, user: UserInfo | None, impersonated: UserInfo | None
    ) -> AuditRecord | None:
        """The request's audit record, or None when the policy says level None."""
        if audit is None:
            return None
        decision = audit.policy.evaluate(attrs, user.username if user else "", user.groups if user else ())
        if not decision.enabled:
            return None
        return AuditRecord(
            audit_id=state.audit_id,
            decision=decision,
            api_version=audit.api_version,
            request_uri=request.full_path.rstrip("?") if request.query_string else request.path,
            verb=attrs.verb,
            user=user,
            impersonated_user=impersonated,
            source_ips=source_ips(request.environ),
            user_agent=request.headers.get("User-Agent", ""),
            attrs=attrs,
            received=state.received,
            request_object=_json_body(state.request_body, request.content_type or "")
            if decision.at_least("Request")
            else None,
        )

    def original_caller(ctx: RequestContext) -> UserInfo | None:
        """The authenticated user behind an impersonating request (ctx.user is the impersonated one)."""
        caller = ctx.caller  # impersonation hands back the caller itself when not asked to impersonate
        return caller if caller is not None and caller is not ctx.user else None

    def before_authorize(attrs: Attributes) -> None:
        ctx = request_context()
        state = ctx.observed
        assert state is not None
        state.attrs = attrs
        caller = original_caller(ctx)
        user, impersonated = (caller, attrs.user) if caller is not None else (attrs.user, None)
        state.record = new_record(state, attrs, user, impersonated)
        if audit is not None and state.record is not None:
            audit.write(state.record, "RequestReceived")

    def after_authorize(attrs: Attributes, decision: AuthzDecision) -> None:
        state = request_context().observed
        assert state is not None
        state.annotations[decision_key] = "allow" if decision.allowed else "forbid"
        if decision.reason:
            state.annotations[reason_key] = decision.reason

    def ensure_wrapped() -> None:
        current = app.extensions.get("orch.authz")
        if current is None or isinstance(current, ObservedAuthorizer):
            return
        with wrap_lock:
            current = app.extensions["orch.authz"]
            if not isinstance(current, ObservedAuthorizer):
                app.extensions["orch.authz"] = ObservedAuthorizer(current, before_authorize, after_authorize)

    def observe_request(ctx: RequestContext) -> None:
        ensure_wrapped()
        state = Observed(time.monotonic(), datetime.now(UTC), request.headers.get("Audit-ID") or str(uuid.uuid4()))
        ctx.observed = state
        state.inflight = child(metrics.inflight, request_kind(request.method))
        state.inflight.inc()
        if audit is not None and audit.records_bodies and request.method in BODY_METHODS:
            length = request.content_length
            if length is None or length <= MAX_AUDITED_BODY:
                data = request.get_data(cache=True)
                state.request_body = data
                # the handlers read request.stream: hand them the same bytes again
                request.environ["wsgi.input"] = io.BytesIO(data)
                request.__dict__.pop("stream", None)

    def observe_response(ctx: RequestContext, response: Response) -> Response:
        req = request._get_current_object()  # type: ignore[attr-defined]  # once, not through the proxy each time
        state = ctx.observed
        if state is None:  # an earlier hook failed before ours ran
            response.headers[AUDIT_ID_HEADER] = req.headers.get("Audit-ID") or str(uuid.uuid4())
            return response
        response.headers[AUDIT_ID_HEADER] = state.audit_id
        _answered(state)  # a watch streams on as a long-running request, outside the in-flight count
        attrs = state.attrs or ctx.attributes
        if attrs is None:  # failed before authorization (401, bad impersonation): no user or the caller only
            user = ctx.user or UserInfo("")
            attrs = request_attributes(user, req.method, req.path, req.args, ctx.info)
            state.attrs = attrs
            record = new_record(state, attrs, ctx.user or original_caller(ctx), None)
            if record is not None:
                state.record = record
                if audit is not None:
                    audit.write(record, "RequestReceived")
        deprecated = ctx.deprecated_api
        if isinstance(deprecated, dict):
            state.annotations[naming.api_key("deprecated")] = "true"
            if deprecated.get("removed_release"):
                state.annotations[naming.api_key("removed-release")] = str(deprecated["removed_release"])
        record = state.record
        if record is not None:
            record.response_status = _response_status(response)
            record.annotations.update(state.annotations)
            if record.decision.at_least("RequestResponse") and not response.is_streamed:
                record.response_object = _json_body(response.get_data(), response.content_type or "")
        labels = resource_labels(attrs)
        verb = reported_verb(req.method, attrs, req.args, req.content_type or "")
        dry_run = dry_run_label(req.args)
        if response.is_streamed:
            state.streaming = True
            if audit is not None and record is not None:
                audit.write(record, "ResponseStarted")
            gauge = metrics.longrunning.labels(verb=verb, component=COMPONENT, **labels)
            gauge.inc()
            watchers = _watchers_gauge(obs, svc.catalog, labels) if verb == "WATCH" else None
            if watchers is not None:
                watchers.inc()
            finish = _finisher(obs, state, record, verb, dry_run, labels, response.status_code, deprecated, None, req)

            def _closed() -> None:
                gauge.dec()
                if watchers is not None:
                    watchers.dec()
                finish()

            at_stream_end(req.environ, response, _closed)  # a detached watch: when its stream ends
        else:
            size = response.calculate_content_length()
            _finisher(obs, state, record, verb, dry_run, labels, response.status_code, deprecated, size, req)()
        return response

    def observe_panic(ctx: RequestContext, exc: BaseException | None) -> None:
        state = ctx.observed
        if state is not None:
            _answered(state)
        if exc is None or state is None or state.finished or state.streaming:
            return
        state.finished = True
        if audit is not None and state.record is not None:
            state.record.response_status = {"metadata": {}, "code": 500}
            audit.write(state.record, "Panic")

    return Step("observe", observe_request, observe_response, observe_panic)


#: resource_labels() as values, in the order of the request metrics' labels
_resource_label_values = operator.itemgetter("group", "version", "resource", "subresource", "scope")


def _watch_labels(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def _watchers_gauge(obs: Observability, catalog: Any, labels: dict[str, str]) -> Any:
    rt = catalog.lookup(labels.get("group", ""), labels.get("version", ""), labels.get("resource", ""))
    if rt is None:
        return None
    return obs.metrics.registered_watchers.labels(**_watch_labels(rt.group, rt.version, rt.kind))


def _watch_event_counter(metrics: ServerMetrics) -> Callable[[Any], Callable[[int, int], None]]:
    """`count(size, times)` for each kind: one object per kind, so the fan-out writer can add up a turn's events."""
    counters: dict[tuple[str, str, str], Callable[[int, int], None]] = {}

    def for_kind(rt: Any) -> Callable[[int, int], None]:
        key = (rt.group, rt.version, rt.kind)
        count = counters.get(key)
        if count is None:
            labels = _watch_labels(*key)
            events, sizes = metrics.watch_events.labels(**labels), metrics.watch_event_sizes.labels(**labels)

            def count(size: int, times: int) -> None:
                events.inc(times)
                observe_many(sizes, size, times)

            count = counters.setdefault(key, count)
        return count

    return for_kind


def _response_status(response: Response) -> dict[str, Any]:
    status: dict[str, Any] = {"metadata": {}, "code": response.status_code}
    if response.status_code >= 400 and not response.is_streamed and "json" in (response.content_type or ""):
        try:
            body = orjson.loads(response.get_data())
        except orjson.JSONDecodeError:
            body = None
        if isinstance(body, dict) and body.get("kind") == "Status":
            for key in ("status", "message", "reason"):
                if body.get(key):
                    status[key] = body[key]
    return status


def _answered(state: Observed) -> None:
    if state.inflight is not None:
        state.inflight.dec()
        state.inflight = None


def _finisher(
    obs: Observability,
    state: Observed,
    record: AuditRecord | None,
    verb: str,
    dry_run: str,
    labels: dict[str, str],
    code: int,
    deprecated: Any,
    size: int | None,
    req: Any,
) -> Callable[[], None]:
    """Counts the request and writes ResponseComplete (at once, or when a stream closes)."""
    request_log = obs.request_log
    request_line = _request_line(verb, code, state, req) if request_log is not None else None  # req is gone by then

    def finish() -> None:
        if state.finished:
            return
        state.finished = True
        elapsed = time.monotonic() - state.started
        metrics = obs.metrics
        where = (*_resource_label_values(labels), COMPONENT)
        child(metrics.request_total, verb, dry_run, *where, str(code)).inc()
        child(metrics.request_duration, verb, dry_run, *where).observe(elapsed)
        if size is not None:
            child(metrics.response_sizes, verb, *where).observe(size)
        if request_log is not None:
            assert request_line is not None  # made with it
            request_log.info(f"{request_line[0]} latency={elapsed * 1000:.3f}ms {request_line[1]}")
        if isinstance(deprecated, dict):
            metrics.deprecated.labels(
                **{
                    k: str(deprecated.get(k) or "")
                    for k in ("group", "version", "resource", "subresource", "removed_release")
                }
            ).set(1)
        if obs.audit is not None and record is not None:
            obs.audit.write(record, "ResponseComplete")

    return finish


def _request_line(verb: str, code: int, state: Observed, req: Any) -> tuple[str, str]:
    """The fields of the reference's httplog, in logfmt, before and after the latency (known at the end)."""
    user = request_context().user
    head = f"verb={verb} URI={_quoted(req.full_path.rstrip('?'))}"
    tail = (
        f"user={_quoted(user.username if user else '')} userAgent={_quoted(req.headers.get('User-Agent', ''))} "
        f"audit-ID={state.audit_id} srcIP={_quoted(req.remote_addr or '')} resp={code}"
    )
    return head, tail


def _quoted(text: str) -> str:
    return orjson.dumps(text).decode()


def count_tls_handshake_error(app: Any) -> None:
    """A connection dropped during its TLS handshake (called by the gunicorn worker, outside any request)."""
    obs = app.extensions.get(EXTENSION_KEY) if isinstance(app, Flask) else None
    if obs is not None:
        obs.metrics.tls_handshake_errors.inc()


def request_kind(method: str) -> str:
    """The in-flight class of a request: "mutating" or "readOnly"."""
    return "mutating" if method.upper() in MUTATING_METHODS else "readOnly"


def is_long_running(attrs: Attributes) -> bool:
    """The reference's long-running check: watches and the connect subresources (log, exec, proxy, ...)."""
    return attrs.verb == "watch" or (attrs.resource_request and attrs.subresource in CONNECT_SUBRESOURCES)


def line_attributes(method: str, target: str) -> tuple[Attributes, MultiDict]:
    """What a request line alone tells (the worker's view, before authentication): attributes and query."""
    url = urlsplit(target)
    args = MultiDict(parse_qsl(url.query, keep_blank_values=True))
    return request_attributes(UserInfo(""), method, url.path, args), args


def count_request_termination(app: Any, method: str, attrs: Attributes, args: MultiDict, code: int) -> None:
    """A request the worker refused in self-defense (in-flight limit), before the app saw it."""
    obs = app.extensions.get(EXTENSION_KEY) if isinstance(app, Flask) else None
    if obs is not None:
        obs.metrics.request_terminations.labels(
            verb=reported_verb(method, attrs, args, ""), component=COMPONENT, code=str(code), **resource_labels(attrs)
        ).inc()


def observability(app: Flask) -> Observability:
    return app.extensions[EXTENSION_KEY]


__all__ = ["AuditDecision", "install_observability", "observability"]
