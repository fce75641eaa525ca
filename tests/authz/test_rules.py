"""Table-driven rule matching and coverage, as the reference's RuleAllows and ruleCovers."""

from __future__ import annotations

import pytest
from orch_apiserver.auth.attributes import request_attributes
from orch_apiserver.auth.authz import Attributes
from orch_apiserver.auth.rbac.rules import Rule, allows, breakdown, rule_covers, uncovered
from orch_apiserver.user import UserInfo

U = UserInfo("u")


def res(verb: str, resource: str, group: str = "", sub: str = "", name: str = "", ns: str = "") -> Attributes:
    return Attributes(U, verb, group=group, resource=resource, subresource=sub, name=name, namespace=ns)


def url(verb: str, path: str) -> Attributes:
    return Attributes(U, verb, resource_request=False, path=path)


POD_READER = Rule(("get", "list"), ("",), ("pods",))
ANY_VERB_APPS = Rule(("*",), ("apps",), ("deployments", "deployments/scale"))
STAR = Rule(("*",), ("*",), ("*",))
SUB_STAR = Rule(("get",), ("",), ("*/status",))
NAMED = Rule(("get", "update"), ("",), ("configmaps",), ("cfg",))
URLS = Rule(("get",), non_resource_urls=("/healthz", "/logs/*"))
ALL_URLS = Rule(("*",), non_resource_urls=("*",))

CASES = [
    (POD_READER, res("get", "pods"), True),
    (POD_READER, res("list", "pods", ns="team"), True),
    (POD_READER, res("delete", "pods"), False),
    (POD_READER, res("get", "pods", sub="log"), False),
    (POD_READER, res("get", "pods", group="apps"), False),
    (POD_READER, url("get", "/healthz"), False),
    (ANY_VERB_APPS, res("patch", "deployments", group="apps"), True),
    (ANY_VERB_APPS, res("update", "deployments", group="apps", sub="scale"), True),
    (ANY_VERB_APPS, res("update", "deployments", group="apps", sub="status"), False),
    (ANY_VERB_APPS, res("get", "deployments"), False),
    (STAR, res("escalate", "clusterroles", group="rbac.authorization.orch.io"), True),
    (STAR, url("get", "/version"), False),
    (SUB_STAR, res("get", "pods", sub="status"), True),
    (SUB_STAR, res("get", "pods"), False),
    (NAMED, res("get", "configmaps", name="cfg"), True),
    (NAMED, res("get", "configmaps", name="other"), False),
    (NAMED, res("list", "configmaps"), False),
    (URLS, url("get", "/healthz"), True),
    (URLS, url("get", "/healthz/ping"), False),
    (URLS, url("get", "/logs/a/b"), True),
    (URLS, url("post", "/logs/a"), False),
    (URLS, res("get", "healthz"), False),
    (ALL_URLS, url("delete", "/anything"), True),
]


@pytest.mark.parametrize(("rule", "attrs", "allowed"), CASES)
def test_rule_allows(rule: Rule, attrs: Attributes, allowed: bool) -> None:
    assert allows(rule, attrs) is allowed


COVERS = [
    (STAR, POD_READER, True),
    (POD_READER, Rule(("get",), ("",), ("pods",)), True),
    (POD_READER, Rule(("get", "watch"), ("",), ("pods",)), False),
    (POD_READER, Rule(("get",), ("",), ("pods",), ("p1",)), True),
    (NAMED, Rule(("get",), ("",), ("configmaps",)), False),
    (NAMED, Rule(("get",), ("",), ("configmaps",), ("cfg",)), True),
    (SUB_STAR, Rule(("get",), ("",), ("pods/status",)), True),
    (ALL_URLS, URLS, True),
    (URLS, Rule(("get",), non_resource_urls=("/logs/x",)), True),
    (URLS, Rule(("get",), non_resource_urls=("/version",)), False),
    (POD_READER, STAR, False),
]


@pytest.mark.parametrize(("owner", "servant", "covered"), COVERS)
def test_rule_covers(owner: Rule, servant: Rule, covered: bool) -> None:
    assert all(rule_covers(owner, piece) for piece in breakdown(servant)) is covered


def test_uncovered_names_the_missing_pieces() -> None:
    missing = uncovered([POD_READER], [Rule(("get", "delete"), ("",), ("pods",))])
    assert missing == [Rule(("delete",), ("",), ("pods",))]


REQUESTS = [
    ("GET", "/api/v1/namespaces/team/configmaps", {}, ("list", "", "configmaps", "", "team", "")),
    ("GET", "/api/v1/namespaces/team/configmaps", {"watch": "true"}, ("watch", "", "configmaps", "", "team", "")),
    ("GET", "/api/v1/namespaces/team/pods/p/log", {}, ("get", "", "pods", "log", "team", "p")),
    ("DELETE", "/apis/apps/v1/namespaces/x/deployments", {}, ("deletecollection", "apps", "deployments", "", "x", "")),
    ("DELETE", "/apis/apps/v1/namespaces/x/deployments/d", {}, ("delete", "apps", "deployments", "", "x", "d")),
    ("PUT", "/api/v1/namespaces/x/finalize", {}, ("update", "", "namespaces", "finalize", "x", "x")),
    ("GET", "/api/v1/namespaces/x", {}, ("get", "", "namespaces", "", "x", "x")),
    ("POST", "/api/v1/nodes", {}, ("create", "", "nodes", "", "", "")),
    ("PATCH", "/api/v1/nodes/n1/status", {}, ("patch", "", "nodes", "status", "", "n1")),
    ("GET", "/api/v1/namespaces/x/pods", {"fieldSelector": "metadata.name=p"}, ("list", "", "pods", "", "x", "p")),
]


@pytest.mark.parametrize(("method", "path", "args", "want"), REQUESTS)
def test_request_attributes(method: str, path: str, args: dict, want: tuple) -> None:
    a = request_attributes(U, method, path, args)
    assert a.resource_request and (a.verb, a.group, a.resource, a.subresource, a.namespace, a.name) == want


@pytest.mark.parametrize(
    ("method", "path", "verb"),
    [
        ("GET", "/healthz", "get"),
        ("GET", "/api", "get"),
        ("GET", "/api/v1", "get"),
        ("GET", "/apis/apps/v1", "get"),
        ("POST", "/version", "post"),
        ("GET", "/", "get"),
        ("GET", "/openapi/v2", "get"),
    ],
)
def test_non_resource_paths(method: str, path: str, verb: str) -> None:
    a = request_attributes(U, method, path, {})
    assert not a.resource_request and a.verb == verb and a.path == path
