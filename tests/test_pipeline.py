"""The handler chain (app/pipeline.py): its order, its unwinding on refusal, and what each step leaves."""

from __future__ import annotations

from contextvars import ContextVar

import pytest
from flask import Flask, jsonify
from orch_apiserver import pipeline
from orch_apiserver.api.errors import install_error_handlers
from orch_apiserver.context import RequestContext, request_context
from orch_apiserver.errors import Forbidden, RouteNotFound
from orch_apiserver.request_info import parse_request_path
from orch_apiserver.user import current_user

MARK: ContextVar[str | None] = ContextVar("mark", default=None)


def _recording_app(refuse_at: str | None = None) -> tuple[Flask, list[str]]:
    seen: list[str] = []

    def step(name: str) -> pipeline.Step:
        def before(ctx: RequestContext) -> None:
            seen.append(f"before {name}")
            ctx.on_reset(MARK.reset, MARK.set(name))
            if name == refuse_at:
                raise Forbidden(f"{name} says no")

        def after(ctx: RequestContext, response):
            seen.append(f"after {name}")
            response.headers.add("X-Steps", name)
            return response

        def teardown(ctx: RequestContext, exc: BaseException | None) -> None:
            seen.append(f"teardown {name}")

        return pipeline.Step(name, before, after, teardown)

    app = Flask(__name__)
    install_error_handlers(app)
    pipeline.install(app, [step("first"), step("second"), step("third")])

    @app.get("/")
    def handler():
        seen.append(f"handler sees {MARK.get()}")
        return jsonify({})

    return app, seen


def test_steps_run_in_order_and_unwind_in_reverse() -> None:
    app, seen = _recording_app()
    response = app.test_client().get("/")
    assert response.status_code == 200
    assert seen == [
        "before first", "before second", "before third", "handler sees third",
        "after third", "after second", "after first",
        "teardown third", "teardown second", "teardown first",
    ]  # fmt: skip
    assert response.headers.getlist("X-Steps") == ["third", "second", "first"]
    assert MARK.get() is None  # what a step set for the request is reset after it


def test_a_refusing_step_stops_the_chain_and_every_after_part_still_runs() -> None:
    app, seen = _recording_app(refuse_at="second")
    response = app.test_client().get("/")
    assert response.status_code == 403
    assert response.get_json()["message"] == "second says no"
    assert "before third" not in seen and not any(s.startswith("handler") for s in seen)
    assert [s for s in seen if s.startswith("after")] == ["after third", "after second", "after first"]
    assert MARK.get() is None


def test_the_server_chain_is_the_references_order(app) -> None:
    names = [step.name for step in app.extensions[pipeline.EXTENSION_KEY]]
    assert names == [
        "request info",
        "observe",
        "authenticate",
        "impersonate",
        "priority and fairness",
        "authorize",
        "admission effects",
    ]


def test_an_impersonating_request_records_caller_user_and_attributes(app, client) -> None:
    contexts: list[RequestContext] = []

    @app.after_request
    def _keep(response):
        contexts.append(request_context())
        return response

    response = client.get("/api/v1/namespaces/default/pods", headers={"Impersonate-User": "jane"})
    assert response.status_code == 403  # jane has no grant: authorized as jane, not as the admin
    ctx = contexts[-1]
    assert ctx.info is not None and (ctx.info.resource, ctx.info.namespace) == ("pods", "default")
    assert ctx.caller is not None and ctx.caller.username == "admin"
    assert ctx.user is not None and ctx.user.username == "jane"
    assert ctx.attributes is not None
    assert (ctx.attributes.verb, ctx.attributes.resource, ctx.attributes.namespace) == ("list", "pods", "default")
    assert ctx.observed is not None and ctx.observed.audit_id == response.headers["Audit-Id"]
    assert current_user.get() is None  # the request's user does not outlive it


def test_a_path_is_read_once_for_authorization_and_for_the_handler() -> None:
    namespace = parse_request_path("/api/v1/namespaces/team")
    assert (namespace.resource, namespace.name, namespace.namespace) == ("namespaces", "team", None)
    assert namespace.authz_namespace == "team"  # authorized in its own namespace, as the reference
    status = parse_request_path("/api/v1/namespaces/team/status")
    assert (status.resource, status.name, status.subresource) == ("namespaces", "team", "status")
    proxied = parse_request_path("/api/v1/namespaces/team/services/web:http/proxy/a/b/")
    assert (proxied.name, proxied.subresource, proxied.proxy_path) == ("web:http", "proxy", "/a/b/")
    pods = parse_request_path("/apis/metrics.k8s.io/v1beta1/namespaces/team/pods")
    assert (pods.group, pods.version, pods.namespace, pods.resource) == ("metrics.k8s.io", "v1beta1", "team", "pods")
    assert not parse_request_path("/apis/apps/v1").resource_request  # discovery: a non-resource path
    deep = parse_request_path("/api/v1/namespaces/team/pods/web/status/extra")
    assert deep.resource == "pods" and deep.too_long  # authorized as pods/status, then no handler serves it
    with pytest.raises(RouteNotFound):
        deep.routed()


def test_a_path_no_handler_serves_is_refused_after_authorization(app, client) -> None:
    denied = client.get("/api/v1/namespaces/default/pods/web/status/extra", headers={"Impersonate-User": "jane"})
    assert denied.status_code == 403  # jane may not read pods: authorization comes first
    assert client.get("/api/v1/namespaces/default/pods/web/status/extra").status_code == 404
