"""Audit events written for real requests through the Flask test client."""

from __future__ import annotations

import base64

import pytest
from flask import request
from orch_apiserver.config import ConfigError, Settings, default_values
from orch_apiserver.context import request_context

from tests.observability.helpers import anonymous_client

SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "s"},
    "data": {"password": base64.b64encode(b"hunter2").decode()},
}
SECRETS = "/api/v1/namespaces/default/secrets"
ALL_METADATA = "rules:\n- level: Metadata\n"


def test_a_request_has_received_and_complete_stages_with_the_audit_id_header(audited):
    log = audited(ALL_METADATA)
    response = log.client().get("/api/v1/namespaces/default/configmaps?limit=5")
    audit_id = response.headers["Audit-Id"]
    events = log.events_of(audit_id)
    assert [e["stage"] for e in events] == ["RequestReceived", "ResponseComplete"]
    complete = events[1]
    assert complete["apiVersion"] == "audit.orch.io/v1" and complete["kind"] == "Event"
    assert complete["level"] == "Metadata" and complete["verb"] == "list"
    assert complete["requestURI"] == "/api/v1/namespaces/default/configmaps?limit=5"
    assert complete["user"]["username"] == "admin" and "system:masters" in complete["user"]["groups"]
    assert complete["objectRef"] == {"resource": "configmaps", "namespace": "default", "apiVersion": "v1"}
    assert complete["responseStatus"]["code"] == 200
    assert complete["annotations"]["authorization.orch.io/decision"] == "allow"
    assert "responseStatus" not in events[0] and "annotations" not in events[0]
    assert (
        complete["requestReceivedTimestamp"].endswith("Z")
        and complete["stageTimestamp"] >= complete["requestReceivedTimestamp"]
    )
    assert complete["sourceIPs"]


def test_the_caller_may_name_the_audit_id(audited):
    log = audited(ALL_METADATA)
    response = log.client().get("/api/v1/namespaces", headers={"Audit-ID": "my-id-1"})
    assert response.headers["Audit-Id"] == "my-id-1"
    assert len(log.events_of("my-id-1")) == 2


def test_metadata_level_never_holds_secret_data(audited):
    log = audited(ALL_METADATA)
    client = log.client()
    assert client.post(SECRETS, json=SECRET).status_code == 201
    assert client.get(f"{SECRETS}/s").status_code == 200
    text = log.log_path.read_text()
    assert SECRET["data"]["password"] not in text
    assert all("requestObject" not in e and "responseObject" not in e for e in log.events())


def test_request_and_request_response_levels_record_bodies_as_asked(audited):
    log = audited(
        "rules:\n- level: RequestResponse\n  resources: [{group: '', resources: [secrets]}]\n"
        "- level: Request\n  resources: [{group: '', resources: [configmaps]}]\n"
    )
    client = log.client()
    created = client.post(SECRETS, json=SECRET)
    assert created.status_code == 201
    complete = log.events_of(created.headers["Audit-Id"])[-1]
    assert complete["requestObject"]["data"] == SECRET["data"]
    assert complete["responseObject"]["metadata"]["name"] == "s"
    cm = client.post(
        "/api/v1/namespaces/default/configmaps",
        json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}},
    )
    assert cm.status_code == 201, cm.data  # the handler still read the body the audit had read first
    cm_events = log.events_of(cm.headers["Audit-Id"])
    assert cm_events[-1]["requestObject"]["data"] == {"k": "v"}
    assert all("responseObject" not in e for e in cm_events)


def test_policy_level_none_and_omitted_stages_write_nothing_for_them(audited):
    log = audited(
        "rules:\n- level: None\n  resources: [{group: '', resources: [configmaps]}]\n"
        "- level: Metadata\n  omitStages: [RequestReceived]\n"
    )
    client = log.client()
    quiet = client.get("/api/v1/namespaces/default/configmaps")
    assert log.events_of(quiet.headers["Audit-Id"]) == []
    loud = client.get("/api/v1/namespaces")
    assert [e["stage"] for e in log.events_of(loud.headers["Audit-Id"])] == ["ResponseComplete"]


def test_forbidden_request_carries_the_decision(audited):
    log = audited(ALL_METADATA)
    response = anonymous_client(log.app).get(SECRETS)
    assert response.status_code == 403
    complete = log.events_of(response.headers["Audit-Id"])[-1]
    assert complete["user"]["username"] == "system:anonymous"
    assert complete["annotations"]["authorization.orch.io/decision"] == "forbid"
    assert complete["responseStatus"]["code"] == 403
    assert complete["responseStatus"]["reason"] == "Forbidden"


def test_unauthenticated_request_is_audited(audited):
    log = audited(ALL_METADATA)
    response = anonymous_client(log.app).get("/api/v1/namespaces", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    events = log.events_of(response.headers["Audit-Id"])
    assert events and events[-1]["stage"] == "ResponseComplete"
    assert events[-1]["responseStatus"]["code"] == 401
    assert events[-1]["user"] == {}
    assert "authorization.orch.io/decision" not in events[-1].get("annotations", {})


def test_impersonation_records_both_users(audited):
    log = audited(ALL_METADATA)
    response = log.client().get("/api/v1/namespaces", headers=[("Impersonate-User", "jane")])
    complete = log.events_of(response.headers["Audit-Id"])[-1]
    assert complete["user"]["username"] == "admin"
    assert complete["impersonatedUser"]["username"] == "jane"


def test_policy_matches_the_caller_not_the_impersonated_user(audited):
    log = audited("rules:\n- level: None\n  users: [admin]\n- level: Metadata\n")
    response = log.client().get("/api/v1/namespaces", headers=[("Impersonate-User", "jane")])
    assert log.events_of(response.headers["Audit-Id"]) == []


def test_deprecated_version_request_is_annotated(audited):
    log = audited(ALL_METADATA)

    @log.app.before_request
    def _mark_deprecated() -> None:  # what the versions layer sets on requests to a deprecated version
        if request.path.startswith(SECRETS):
            request_context().deprecated_api = {
                "group": "",
                "version": "v1",
                "resource": "secrets",
                "subresource": "",
                "removed_release": "1.99",
            }

    response = log.client().get(SECRETS)
    annotations = log.events_of(response.headers["Audit-Id"])[-1]["annotations"]
    assert annotations["orch.io/deprecated"] == "true"
    assert annotations["orch.io/removed-release"] == "1.99"
    other = log.client().get("/api/v1/namespaces")
    assert "orch.io/deprecated" not in log.events_of(other.headers["Audit-Id"])[-1]["annotations"]


def test_watch_has_a_response_started_stage(audited):
    log = audited(ALL_METADATA)
    client = log.client()
    watch = client.get("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=30", buffered=False)
    audit_id = watch.headers["Audit-Id"]
    assert [e["stage"] for e in log.events_of(audit_id)] == ["RequestReceived", "ResponseStarted"]
    watch.close()
    events = log.events_of(audit_id)
    assert [e["stage"] for e in events] == ["RequestReceived", "ResponseStarted", "ResponseComplete"]
    assert events[-1]["verb"] == "watch"


def test_log_path_without_policy_records_nothing(sqlite_url, tmp_path):
    from tests.conftest import _shutdown, admin_app

    log_path = tmp_path / "audit.log"
    app = admin_app(sqlite_url, tmp_path, AUDIT_LOG_PATH=str(log_path))
    try:
        response = app.test_client().get("/api/v1/namespaces")
        assert response.status_code == 200 and response.headers["Audit-Id"]
        assert not log_path.exists() or log_path.read_text() == ""
    finally:
        _shutdown(app)


def test_invalid_policy_fails_the_settings_check(tmp_path):
    bad = tmp_path / "policy.yaml"
    bad.write_text("apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Loud\n")
    settings = Settings(**{**default_values(), "audit_policy_file": str(bad)})
    with pytest.raises(ConfigError, match=r"--audit-policy-file: .*rules\[0\]\.level"):
        settings.check()


def test_invalid_policy_exits_2_from_the_command_line(tmp_path, capsys):
    from orch_apiserver.cli import parse_settings

    bad = tmp_path / "policy.yaml"
    bad.write_text("kind: Policy\n")
    with pytest.raises(SystemExit) as exit_info:
        parse_settings(["--data-dir", str(tmp_path), "--audit-policy-file", str(bad)], environ={})
    assert exit_info.value.code == 2
    assert "--audit-policy-file" in capsys.readouterr().err


def test_legacy_format_is_one_line_per_stage(audited):
    log = audited(ALL_METADATA, AUDIT_LOG_FORMAT="legacy")
    response = log.client().get("/api/v1/namespaces/default/configmaps")
    lines = [line for line in log.log_path.read_text().splitlines() if response.headers["Audit-Id"] in line]
    assert len(lines) == 2
    assert 'stage="ResponseComplete"' in lines[1] and 'user="admin"' in lines[1] and 'response="200"' in lines[1]
    assert 'namespace="default"' in lines[0] and 'response="<deferred>"' in lines[0]
