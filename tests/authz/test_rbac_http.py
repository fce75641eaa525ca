"""RBAC through HTTP: 403 wording, bindings, anonymous grants, default policy, escalation, aggregation."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.authz.conftest import as_user
from tests.conftest import wait_for

RBAC = "/apis/rbac.authorization.orch.io/v1"
AUTHZ = "/apis/authorization.orch.io/v1"
G = "rbac.authorization.orch.io"
ADMIN = as_user("admin")


def _role(name: str, rules: list[dict], namespace: str = "") -> tuple[str, dict]:
    path = f"{RBAC}/namespaces/{namespace}/roles" if namespace else f"{RBAC}/clusterroles"
    return path, {"metadata": {"name": name}, "rules": rules}


def _binding(name: str, kind: str, role: str, subjects: list[dict], namespace: str = "") -> tuple[str, dict]:
    path = f"{RBAC}/namespaces/{namespace}/rolebindings" if namespace else f"{RBAC}/clusterrolebindings"
    return path, {
        "metadata": {"name": name},
        "roleRef": {"apiGroup": G, "kind": kind, "name": role},
        "subjects": subjects,
    }


def _post(client: Any, pair: tuple[str, dict], headers: dict | None = None) -> Any:
    return client.post(pair[0], json=pair[1], headers=headers or ADMIN)


def _user(name: str) -> dict:
    return {"kind": "User", "name": name, "apiGroup": G}


def _namespace(client: Any, name: str) -> None:
    assert client.post("/api/v1/namespaces", json={"metadata": {"name": name}}, headers=ADMIN).status_code == 201


def test_denied_request_is_403_with_the_reference_message(rbac: Any) -> None:
    _namespace(rbac, "team")
    response = rbac.get("/api/v1/namespaces/team/configmaps", headers=as_user("bob"))
    assert response.status_code == 403
    assert response.get_json()["message"] == (
        'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team"'
    )
    response = rbac.get("/api/v1/nodes/n1", headers=as_user("bob"))
    assert response.get_json()["message"] == (
        'nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope'
    )
    response = rbac.get("/metrics", headers={})
    assert response.status_code == 403
    assert response.get_json()["message"] == 'forbidden: User "system:anonymous" cannot get path "/metrics"'


def test_masters_may_do_anything_and_role_bindings_grant(rbac: Any) -> None:
    _namespace(rbac, "team")
    assert (
        _post(
            rbac, _role("cm-reader", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}], "team")
        ).status_code
        == 201
    )
    assert _post(rbac, _binding("bob-reads", "Role", "cm-reader", [_user("bob")], "team")).status_code == 201
    assert rbac.get("/api/v1/namespaces/team/configmaps", headers=as_user("bob")).status_code == 200
    assert rbac.get("/api/v1/namespaces/default/configmaps", headers=as_user("bob")).status_code == 403
    # a RoleBinding to a ClusterRole grants it in the binding's namespace only; groups are subjects too
    assert (
        _post(
            rbac,
            _binding("devs-view", "ClusterRole", "view", [{"kind": "Group", "name": "devs", "apiGroup": G}], "team"),
        ).status_code
        == 201
    )
    assert rbac.get("/api/v1/namespaces/team/pods", headers=as_user("alice")).status_code == 200
    assert rbac.get("/api/v1/namespaces/team/secrets", headers=as_user("alice")).status_code == 403
    assert rbac.get("/api/v1/namespaces/default/pods", headers=as_user("alice")).status_code == 403


def test_anonymous_is_only_covered_by_explicit_grants(rbac: Any) -> None:
    assert rbac.get("/healthz").status_code == 200  # system:public-info-viewer
    assert rbac.get("/version").status_code == 200
    assert rbac.get("/api").status_code == 403  # discovery is for authenticated users
    assert rbac.get("/api", headers=as_user("bob")).status_code == 200
    assert (
        _post(
            rbac, _role("ns-lister", [{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["list"]}])
        ).status_code
        == 201
    )
    group = {"kind": "Group", "name": "system:authenticated", "apiGroup": G}
    assert _post(rbac, _binding("all-list", "ClusterRole", "ns-lister", [group])).status_code == 201
    assert rbac.get("/api/v1/namespaces", headers=as_user("bob")).status_code == 200
    assert rbac.get("/api/v1/namespaces").status_code == 403
    anonymous = {"kind": "User", "name": "system:anonymous", "apiGroup": G}
    assert _post(rbac, _binding("anon-list", "ClusterRole", "ns-lister", [anonymous])).status_code == 201
    assert rbac.get("/api/v1/namespaces").status_code == 200


def test_service_account_subjects(rbac: Any) -> None:
    _namespace(rbac, "ci")
    assert (
        _post(
            rbac, _binding("sa-view", "ClusterRole", "view", [{"kind": "ServiceAccount", "name": "builder"}], "ci")
        ).status_code
        == 201
    )
    sa = {**ADMIN, "Impersonate-User": "system:serviceaccount:ci:builder"}
    assert rbac.get("/api/v1/namespaces/ci/pods", headers=sa).status_code == 200
    other = {**ADMIN, "Impersonate-User": "system:serviceaccount:ci:other"}
    assert rbac.get("/api/v1/namespaces/ci/pods", headers=other).status_code == 403


def test_impersonation_goes_through_rbac(rbac: Any) -> None:
    response = rbac.get("/api/v1/namespaces", headers={**as_user("bob"), "Impersonate-User": "alice"})
    assert response.status_code == 403
    assert 'cannot impersonate resource "users"' in response.get_json()["message"]


def test_default_policy_is_reconciled_keeping_user_additions(rbac_app: Any, rbac: Any) -> None:
    from orch_apiserver.auth.rbac.reconcile import Reconciler

    got = rbac.get(f"{RBAC}/clusterrolebindings/cluster-admin", headers=ADMIN).get_json()
    assert {"kind": "Group", "name": "system:masters", "apiGroup": G} in got["subjects"]
    got["subjects"].append(_user("root"))
    got["metadata"].pop("managedFields", None)
    assert rbac.put(f"{RBAC}/clusterrolebindings/cluster-admin", json=got, headers=ADMIN).status_code == 200
    assert rbac.delete(f"{RBAC}/clusterroles/system:basic-user", headers=ADMIN).status_code == 200
    Reconciler(rbac_app.extensions["orch"].registry).reconcile()
    got = rbac.get(f"{RBAC}/clusterrolebindings/cluster-admin", headers=ADMIN).get_json()
    assert _user("root") in got["subjects"]
    assert rbac.get(f"{RBAC}/clusterroles/system:basic-user", headers=ADMIN).status_code == 200


def test_escalation_is_prevented(rbac: Any) -> None:
    _namespace(rbac, "team")
    manage = [
        {"apiGroups": [G], "resources": ["roles", "rolebindings"], "verbs": ["create", "get", "update"]},
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
    ]
    assert _post(rbac, _role("manager", manage, "team")).status_code == 201
    assert _post(rbac, _binding("bob-manages", "Role", "manager", [_user("bob")], "team")).status_code == 201
    bob = as_user("bob")
    held = _role("pod-get", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}], "team")
    assert _post(rbac, held, bob).status_code == 201
    more = _role("pod-all", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete"]}], "team")
    response = _post(rbac, more, bob)
    assert response.status_code == 403
    assert "attempting to grant RBAC permissions not currently held" in response.get_json()["message"]
    assert '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}' in response.get_json()["message"]
    assert _post(rbac, _binding("b1", "Role", "pod-get", [_user("alice")], "team"), bob).status_code == 201
    assert _post(rbac, _binding("b2", "ClusterRole", "admin", [_user("alice")], "team"), bob).status_code == 403
    # the escalate and bind verbs lift the checks
    lift = [{"apiGroups": [G], "resources": ["roles"], "verbs": ["escalate", "bind"]}]
    assert _post(rbac, _role("lift", lift, "team")).status_code == 201
    assert _post(rbac, _binding("bob-lift", "Role", "lift", [_user("bob")], "team")).status_code == 201
    assert _post(rbac, more, bob).status_code == 201
    assert _post(rbac, _binding("b3", "Role", "pod-all", [_user("alice")], "team"), bob).status_code == 201


def test_aggregated_roles_follow_labelled_roles(rbac: Any) -> None:
    """The process's clusterrole-aggregation loop (not the request that wrote the role) keeps them in sync."""
    label = {f"{G}/aggregate-to-view": "true"}
    rule = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}

    def rules(name: str) -> list:
        return rbac.get(f"{RBAC}/clusterroles/{name}", headers=ADMIN).get_json()["rules"]

    body = {"metadata": {"name": "widget-view", "labels": label}, "rules": [rule]}
    assert rbac.post(f"{RBAC}/clusterroles", json=body, headers=ADMIN).status_code == 201
    for name in ("view", "edit", "admin"):
        wait_for(lambda name=name: rule in rules(name))
    assert rbac.delete(f"{RBAC}/clusterroles/widget-view", headers=ADMIN).status_code == 200
    wait_for(lambda: rule not in rules("view"))
    wait_for(lambda: rule not in rules("admin"))


def test_aggregation_follows_roles_written_outside_http(rbac_app: Any, rbac: Any) -> None:
    """A ClusterRole written through the registry (a controller, another process) is aggregated too."""
    from orch_apiserver.context import services

    assert rbac.get(f"{RBAC}/clusterroles/view", headers=ADMIN).status_code == 200  # start-up has run
    rule = {"apiGroups": ["example.com"], "resources": ["gadgets"], "verbs": ["list"]}
    with rbac_app.app_context():
        svc = services()
        rt = svc.catalog.known_type(svc.naming.group("rbac.authorization"), "v1", "clusterroles")
        labels = {f"{G}/aggregate-to-view": "true"}
        svc.registry.create(rt, None, {"metadata": {"name": "gadget-view", "labels": labels}, "rules": [rule]})
    wait_for(lambda: rule in rbac.get(f"{RBAC}/clusterroles/view", headers=ADMIN).get_json()["rules"])


def test_rbac_is_the_default_mode_anonymous_sees_only_public_info(sqlite_url, tmp_path) -> None:
    from tests.conftest import admin_app

    app = admin_app(sqlite_url, tmp_path)  # no AUTHORIZATION_MODE: the default
    try:
        assert app.test_client().get("/api/v1/namespaces").status_code == 200  # the admin: system:masters
        anonymous = FlaskClient(app)
        for path in ("/healthz", "/livez", "/readyz", "/version"):
            assert anonymous.get(path).status_code == 200, path
        denied = anonymous.get("/api/v1/namespaces")
        assert denied.status_code == 403
        assert denied.json["message"] == (
            'namespaces is forbidden: User "system:anonymous" cannot list resource '
            '"namespaces" in API group "" at the cluster scope'
        )
        assert anonymous.get("/apis").status_code == 403
    finally:
        app.extensions["orch.stop"]()


def test_default_edit_and_view_roles_cover_the_groups_without_a_domain(rbac: Any) -> None:
    """apps, batch, policy and autoscaling keep their upstream names: the default roles must name them so."""
    _namespace(rbac, "team")
    assert _post(rbac, _binding("bob-edits", "ClusterRole", "edit", [_user("bob")], "team")).status_code == 201
    assert (
        _post(
            rbac,
            _binding("devs-view", "ClusterRole", "view", [{"kind": "Group", "name": "devs", "apiGroup": G}], "team"),
        ).status_code
        == 201
    )
    bob, alice = as_user("bob"), as_user("alice")
    for path in (
        "/apis/apps/v1/namespaces/team/deployments",
        "/apis/batch/v1/namespaces/team/jobs",
        "/apis/policy/v1/namespaces/team/poddisruptionbudgets",
        "/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers",
    ):
        assert rbac.get(path, headers=bob).status_code == 200, path
        assert rbac.get(path, headers=alice).status_code == 200, path
    deployment = {
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    assert rbac.post("/apis/apps/v1/namespaces/team/deployments", json=deployment, headers=bob).status_code == 201
    assert (
        rbac.post("/apis/apps/v1/namespaces/team/deployments", json=deployment, headers=alice).status_code == 403
    )  # view reads only
