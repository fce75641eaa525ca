"""/metrics through the Flask test client: counters per verb/resource/code, histogram, gauges, access."""

from __future__ import annotations

from orch_apiserver.context import request_context

from tests.observability.helpers import MONITOR, anonymous_client, samples, scrape, value

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}, "data": {"a": "b"}}


def test_requests_are_counted_per_verb_resource_scope_and_code(client):
    base = "/api/v1/namespaces/default/configmaps"
    assert client.post(base, json=CM).status_code == 201
    assert client.get(f"{base}/one").status_code == 200
    assert client.get(f"{base}/missing").status_code == 404
    assert client.get(base).status_code == 200
    assert client.get("/api/v1/configmaps").status_code == 200
    assert (
        client.patch(
            f"{base}/one", data='{"data":{"c":"d"}}', headers={"Content-Type": "application/merge-patch+json"}
        ).status_code
        == 200
    )
    assert client.delete(f"{base}/one").status_code == 200
    text = scrape(client)
    common = {"group": "", "version": "v1", "resource": "configmaps", "subresource": "", "component": "apiserver"}
    assert value(text, "apiserver_request_total", verb="POST", scope="resource", code="201", **common) == 1
    assert value(text, "apiserver_request_total", verb="GET", scope="resource", code="200", **common) == 1
    assert value(text, "apiserver_request_total", verb="GET", scope="resource", code="404", **common) == 1
    assert value(text, "apiserver_request_total", verb="LIST", scope="namespace", code="200", **common) == 1
    assert value(text, "apiserver_request_total", verb="LIST", scope="cluster", code="200", **common) == 1
    assert value(text, "apiserver_request_total", verb="PATCH", scope="resource", code="200", **common) == 1
    assert value(text, "apiserver_request_total", verb="DELETE", scope="resource", code="200", **common) == 1


def test_apply_and_dry_run_are_reported_as_the_reference(client):
    base = "/api/v1/namespaces/default/configmaps"
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n"
    response = client.patch(
        f"{base}/applied?fieldManager=test&dryRun=All",
        data=body,
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert response.status_code == 201, response.data
    text = scrape(client)
    assert value(text, "apiserver_request_total", verb="APPLY", dry_run="All", resource="configmaps") == 1


def test_latency_histogram_has_the_reference_buckets(client):
    client.get("/api/v1/namespaces")
    text = scrape(client)
    buckets = samples(text, "apiserver_request_duration_seconds_bucket")
    listed = [s for s in buckets if s.labels["verb"] == "LIST" and s.labels["resource"] == "namespaces"]
    assert {s.labels["le"] for s in listed} >= {"0.005", "0.025", "1.0", "60.0", "+Inf"}
    assert value(text, "apiserver_request_duration_seconds_count", verb="LIST", resource="namespaces") == 1
    assert "scope" in listed[0].labels and "code" not in listed[0].labels


def test_content_type_is_text_format_0_0_4(client):
    response = client.get("/metrics")
    assert response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert "# TYPE apiserver_request_total counter" in response.get_data(as_text=True)


def test_storage_objects_count_what_is_stored(any_client):
    client = any_client  # one grouped query, spelled per dialect: both stores
    for name in ("a", "b", "c"):
        assert (
            client.post("/api/v1/namespaces/default/configmaps", json={**CM, "metadata": {"name": name}}).status_code
            == 201
        )
    text = scrape(client)
    before = value(text, "apiserver_storage_objects", resource="configmaps")
    assert before >= 3  # plus whatever the server keeps in configmaps itself
    client.delete("/api/v1/namespaces/default/configmaps/a")
    assert value(scrape(client), "apiserver_storage_objects", resource="configmaps") == before - 1
    assert value(text, "apiserver_storage_objects", resource="clusterroles.rbac.authorization.orch.io") > 0
    assert value(text, "apiserver_storage_objects", resource="namespaces") >= 4


def test_deprecated_api_gauge_is_set_for_a_deprecated_request(app, client):
    @app.before_request
    def _mark_deprecated() -> None:  # what the versions layer sets on requests to a deprecated version
        from flask import request

        if request.path.startswith("/api/v1/namespaces/default/secrets"):
            request_context().deprecated_api = {
                "group": "",
                "version": "v1",
                "resource": "secrets",
                "subresource": "",
                "removed_release": "1.99",
            }

    client.get("/api/v1/namespaces/default/secrets")
    text = scrape(client)
    assert (
        value(
            text,
            "apiserver_requested_deprecated_apis",
            group="",
            version="v1",
            resource="secrets",
            subresource="",
            removed_release="1.99",
        )
        == 1
    )
    assert value(text, "apiserver_requested_deprecated_apis", resource="configmaps") == 0


def test_unauthenticated_and_forbidden_requests_are_counted(app):
    anonymous = anonymous_client(app)
    assert anonymous.get("/api/v1/namespaces/default/secrets").status_code == 403
    bearer = anonymous_client(app)
    assert bearer.get("/api/v1/namespaces", headers={"Authorization": "Bearer nonsense"}).status_code == 401
    text = scrape(app.test_client())
    assert value(text, "apiserver_request_total", verb="LIST", resource="secrets", code="403") == 1
    assert value(text, "apiserver_request_total", verb="LIST", resource="namespaces", code="401") == 1


def test_metrics_need_the_monitoring_grant(app, client):
    assert anonymous_client(app).get("/metrics").status_code == 403
    jane = client.get("/metrics", headers=[("Impersonate-User", "jane")])
    assert jane.status_code == 403
    monitor = client.get("/metrics", headers=list(MONITOR))
    assert monitor.status_code == 200
    for path in ("/livez", "/readyz", "/healthz"):
        assert client.get(path, headers=list(MONITOR)).status_code == 200


def test_open_watch_is_a_long_running_request(client):
    watch = client.get("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=30", buffered=False)
    assert watch.status_code == 200
    try:
        text = scrape(client)
        assert (
            value(text, "apiserver_longrunning_requests", verb="WATCH", resource="configmaps", scope="namespace") == 1
        )
    finally:
        watch.close()
    text = scrape(client)
    assert value(text, "apiserver_longrunning_requests", verb="WATCH", resource="configmaps") == 0
    assert value(text, "apiserver_request_total", verb="WATCH", resource="configmaps", code="200") == 1
