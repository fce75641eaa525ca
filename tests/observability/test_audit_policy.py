"""Audit Policy parsing and rule matching (the reference's policy checker)."""

from __future__ import annotations

import pytest
from orch_apiserver.audit.policy import PolicyError, parse_policy
from orch_apiserver.auth.authz import Attributes
from orch_apiserver.naming import Naming
from orch_apiserver.user import UserInfo

NAMING = Naming()
HEADER = "apiVersion: audit.orch.io/v1\nkind: Policy\n"


def policy(rules: str, extra: str = ""):
    return parse_policy(HEADER + extra + "rules:\n" + rules, NAMING)


def res(
    verb: str,
    resource: str,
    *,
    group: str = "",
    namespace: str = "",
    name: str = "",
    sub: str = "",
    user: str = "jane",
    groups: tuple[str, ...] = (),
) -> tuple[Attributes, str, tuple[str, ...]]:
    attrs = Attributes(
        UserInfo(user, groups=groups),
        verb,
        group=group,
        version="v1",
        resource=resource,
        subresource=sub,
        namespace=namespace,
        name=name,
    )
    return attrs, user, groups


def url(path: str, verb: str = "get", user: str = "jane") -> tuple[Attributes, str, tuple[str, ...]]:
    return Attributes(UserInfo(user), verb, resource_request=False, path=path), user, ()


def level(p, request) -> str:
    return p.evaluate(*request).level


def test_first_matching_rule_wins_and_no_match_is_none():
    p = policy("- level: Request\n  users: [jane]\n- level: Metadata\n")
    assert level(p, res("get", "pods")) == "Request"
    assert level(p, res("get", "pods", user="bob")) == "Metadata"
    only = policy("- level: Metadata\n  users: [jane]\n")
    assert level(only, res("get", "pods", user="bob")) == "None"


@pytest.mark.parametrize(
    ("rule", "request_", "expected"),
    [
        ("userGroups: [dev]", res("get", "pods", groups=("dev",)), True),
        ("userGroups: [dev]", res("get", "pods", groups=("ops",)), False),
        ("verbs: [create, update]", res("update", "pods"), True),
        ("verbs: [create, update]", res("get", "pods"), False),
        ("namespaces: [kube]", res("get", "pods", namespace="kube"), True),
        ("namespaces: [kube]", res("get", "pods", namespace="other"), False),
        ("namespaces: [kube]", url("/healthz"), False),
        ("resources: [{group: '', resources: [pods]}]", res("get", "pods"), True),
        ("resources: [{group: '', resources: [pods]}]", res("get", "pods", sub="log", name="p"), False),
        ("resources: [{group: '', resources: [pods/log]}]", res("get", "pods", sub="log", name="p"), True),
        ("resources: [{group: '', resources: ['pods/*']}]", res("get", "pods", sub="status", name="p"), True),
        ("resources: [{group: '', resources: ['*/status']}]", res("update", "services", sub="status", name="s"), True),
        ("resources: [{group: '', resources: ['*/status']}]", res("update", "services", name="s"), False),
        ("resources: [{group: '', resources: ['*']}]", res("get", "secrets"), True),
        ("resources: [{group: ''}]", res("get", "secrets"), True),
        ("resources: [{group: ''}]", res("get", "deployments", group="apps"), False),
        ("resources: [{group: apps, resources: [deployments]}]", res("get", "deployments", group="apps"), True),
        (
            "resources: [{group: '', resources: [configmaps], resourceNames: [cfg]}]",
            res("get", "configmaps", name="cfg"),
            True,
        ),
        (
            "resources: [{group: '', resources: [configmaps], resourceNames: [cfg]}]",
            res("get", "configmaps", name="other"),
            False,
        ),
        ("resources: [{group: '', resources: [pods]}]", url("/api/v1/pods"), False),
        ("nonResourceURLs: [/healthz]", url("/healthz"), True),
        ("nonResourceURLs: ['/healthz*']", url("/healthz/etcd"), True),
        ("nonResourceURLs: ['/healthz']", url("/healthz/etcd"), False),
        ("nonResourceURLs: ['*']", url("/metrics"), True),
        ("nonResourceURLs: ['*']", res("get", "pods"), False),
    ],
)
def test_rule_matching(rule, request_, expected):
    p = policy(f"- level: Metadata\n  {rule}\n")
    assert (level(p, request_) == "Metadata") is expected


def test_omit_stages_combine_policy_and_rule():
    p = policy("- level: Metadata\n  omitStages: [ResponseStarted]\n", extra="omitStages: [RequestReceived]\n")
    decision = p.evaluate(*res("get", "pods"))
    assert decision.omit_stages == {"RequestReceived", "ResponseStarted"}


def test_omit_managed_fields_rule_overrides_policy():
    p = policy(
        "- level: Request\n  users: [jane]\n  omitManagedFields: false\n- level: Request\n",
        extra="omitManagedFields: true\n",
    )
    assert p.evaluate(*res("get", "pods")).omit_managed_fields is False
    assert p.evaluate(*res("get", "pods", user="bob")).omit_managed_fields is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n", "audit.orch.io/v1"),
        (HEADER + "rules: []\n", "0 rules"),
        (HEADER + "rules:\n- level: Everything\n", "rules[0].level"),
        (HEADER + "rules:\n- level: Metadata\n  omitStages: [Never]\n", "omitStages"),
        (HEADER + "rules:\n- level: Metadata\n  nonResourceURLs: [/x]\n  namespaces: [a]\n", "both"),
        (HEADER + "rules:\n- level: Metadata\n  nonResourceURLs: [healthz]\n", "must start with"),
        (HEADER + "rules:\n- level: Metadata\n  nonResourceURLs: ['/a*/b']\n", "last character"),
        (HEADER + "rules:\n- level: Metadata\n  resources: [{resources: ['po*ds']}]\n", "'*' only"),
        (HEADER + "rules:\n- level: Metadata\n  users: jane\n", "list of strings"),
        (HEADER + "rules:\n- level: Metadata\n  resources: [{resourceNames: [x]}]\n", "requires at least one"),
        ("rules: [", "not YAML"),
    ],
)
def test_invalid_policies_are_refused(text, message):
    with pytest.raises(PolicyError, match=message.replace("*", r"\*").replace("[", r"\[")):
        parse_policy(text, NAMING)


def test_v1beta1_policy_is_accepted():
    text = "apiVersion: audit.orch.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n"
    assert parse_policy(text, NAMING).rules[0].level == "Metadata"
