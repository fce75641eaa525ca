"""FlowSchema and PriorityLevelConfiguration: v1 / v1beta2 / v1beta1 conversions, defaults, validation,
printers, and the versions over HTTP."""

from __future__ import annotations

import copy
import itertools
from datetime import UTC, datetime

import pytest
from orch_apiserver.resources.flowcontrol import FlowcontrolConversions
from orch_apiserver.tables import table_for

from .helpers import NAMING, create_ok, created, messages, rt, updated

GROUP = NAMING.group("flowcontrol.apiserver")
VERSIONS = ("v1", "v1beta2", "v1beta1")
BETAS = ("v1beta2", "v1beta1")
CONV = {v: FlowcontrolConversions(NAMING, v) for v in BETAS}


def kind(plural: str, version: str = "v1"):
    return rt(GROUP, plural, version)


def flow_schema(**spec: object) -> dict:
    base = {
        "priorityLevelConfiguration": {"name": "workload-low"},
        "matchingPrecedence": 500,
        "distinguisherMethod": {"type": "ByUser"},
        "rules": [
            {
                "subjects": [
                    {"kind": "ServiceAccount", "serviceAccount": {"namespace": "apps", "name": "bot"}},
                    {"kind": "User", "user": {"name": "alice"}},
                ],
                "resourceRules": [
                    {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "namespaces": ["apps"]}
                ],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/metrics"]}],
            }
        ],
    }
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "FlowSchema",
        "metadata": {"name": "fs", "uid": "u", "generation": 2},
        "spec": {**base, **spec},
        "status": {
            "conditions": [
                {"type": "Dangling", "status": "False", "reason": "Found", "lastTransitionTime": "2026-01-02T03:04:05Z"}
            ]
        },
    }


def priority_level(limited: dict | None = None, name: str = "workload-low", **spec: object) -> dict:
    body: dict = {"type": "Limited", "limited": limited} if limited is not None else {}
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name, "uid": "u"},
        "spec": {**body, **spec},
    }


QUEUE = {"type": "Queue", "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 20}}
LEVELS = {
    "limited": priority_level(
        {"nominalConcurrencyShares": 40, "lendablePercent": 10, "borrowingLimitPercent": 50, "limitResponse": QUEUE}
    ),
    "zero-shares": priority_level(
        {"nominalConcurrencyShares": 0, "lendablePercent": 0, "limitResponse": {"type": "Reject"}}
    ),
    "zero-shares-annotated": {
        **priority_level({"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}),
        "metadata": {"name": "z", "annotations": {"team": "api"}},
    },
    "exempt": priority_level(
        None, "exempt", type="Exempt", exempt={"nominalConcurrencyShares": 5, "lendablePercent": 0}
    ),
}


def from_storage(version: str, obj: dict) -> dict:
    if version == "v1":
        return copy.deepcopy(obj)
    conv = CONV[version]
    if obj["kind"] == "FlowSchema":
        return conv.flow_schema_from_storage(obj)
    return conv.priority_level_from_storage(obj)


def to_storage(version: str, obj: dict) -> dict:
    if version == "v1":
        return copy.deepcopy(obj)
    conv = CONV[version]
    if obj["kind"] == "FlowSchema":
        return conv.flow_schema_to_storage(obj)
    return conv.priority_level_to_storage(obj)


STORED = {"flow-schema": flow_schema(), **LEVELS}


# ------------------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("name", sorted(STORED))
@pytest.mark.parametrize("version", VERSIONS)
def test_storage_to_version_and_back_is_lossless(name: str, version: str) -> None:
    stored = STORED[name]
    served = from_storage(version, stored)
    assert served["apiVersion"] == f"{GROUP}/{version}"
    assert to_storage(version, served) == stored


@pytest.mark.parametrize("name", sorted(STORED))
@pytest.mark.parametrize(("first", "second"), list(itertools.permutations(VERSIONS, 2)))
def test_every_version_pair_round_trips_through_storage(name: str, first: str, second: str) -> None:
    stored = STORED[name]
    via_first = to_storage(first, from_storage(first, stored))
    assert to_storage(second, from_storage(second, via_first)) == stored


@pytest.mark.parametrize("version", BETAS)
def test_betas_spell_the_shares_assured(version: str) -> None:
    before = copy.deepcopy(LEVELS["limited"])
    served = from_storage(version, LEVELS["limited"])
    assert LEVELS["limited"] == before  # inputs are never mutated
    limited = served["spec"]["limited"]
    assert limited["assuredConcurrencyShares"] == 40 and "nominalConcurrencyShares" not in limited
    assert limited["limitResponse"] == QUEUE


@pytest.mark.parametrize("version", BETAS)
def test_a_stored_zero_share_count_carries_the_preserve_annotation(version: str) -> None:
    served = from_storage(version, LEVELS["zero-shares-annotated"])
    key = f"flowcontrol.orch.io/{version}-preserve-zero-concurrency-shares"
    assert served["metadata"]["annotations"] == {"team": "api", key: ""}
    assert served["spec"]["limited"]["assuredConcurrencyShares"] == 0


@pytest.mark.parametrize("version", BETAS)
def test_a_beta_zero_without_the_annotation_means_the_default(version: str) -> None:
    beta = {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "p"},
        "spec": {"type": "Limited", "limited": {"assuredConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}},
    }
    stored = create_ok(kind("prioritylevelconfigurations"), to_storage(version, beta))
    assert stored["spec"]["limited"]["nominalConcurrencyShares"] == 30


@pytest.mark.parametrize("version", BETAS)
def test_a_beta_native_priority_level_round_trips(version: str) -> None:
    beta = {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "p"},
        "spec": {"type": "Limited", "limited": {"assuredConcurrencyShares": 12, "limitResponse": QUEUE}},
    }
    assert from_storage(version, to_storage(version, beta)) == beta


def test_negative_beta_shares_are_refused_in_beta_terms() -> None:
    beta_kind = kind("prioritylevelconfigurations", "v1beta2")
    bad = {"spec": {"type": "Limited", "limited": {"assuredConcurrencyShares": -1}}}
    errors = beta_kind.conversion.validate(bad, None)
    assert messages(errors) == ["spec.limited.assuredConcurrencyShares: Invalid value: -1: must be positive"]


# ------------------------------------------------------------------------------------------ defaults


def test_flow_schema_defaults_and_generation() -> None:
    fs_kind = kind("flowschemas")
    body = flow_schema()
    del body["spec"]["matchingPrecedence"], body["status"]
    out = create_ok(fs_kind, body)
    assert out["spec"]["matchingPrecedence"] == 1000
    assert out["status"] == {}
    assert fs_kind.strategy.generation is True


def test_priority_level_defaults() -> None:
    out = create_ok(
        kind("prioritylevelconfigurations"), priority_level({"limitResponse": {"type": "Queue", "queuing": {}}})
    )
    assert out["spec"]["limited"] == {
        "nominalConcurrencyShares": 30,
        "lendablePercent": 0,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 64, "handSize": 8, "queueLengthLimit": 50}},
    }
    exempt = create_ok(kind("prioritylevelconfigurations"), priority_level(None, "exempt", type="Exempt", exempt={}))
    assert exempt["spec"]["exempt"] == {"nominalConcurrencyShares": 0, "lendablePercent": 0}


# ------------------------------------------------------------------------------------------ validation

FS_BAD = [
    ({"matchingPrecedence": 10001}, "spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000"),
    ({"matchingPrecedence": -3}, "spec.matchingPrecedence: Invalid value: -3: must be a positive value"),
    (
        {"priorityLevelConfiguration": {}},
        "spec.priorityLevelConfiguration.name: Required value: must reference a priority level",
    ),
    ({"distinguisherMethod": {"type": "ByGroup"}}, 'spec.distinguisherMethod.type: Unsupported value: "ByGroup"'),
    (
        {"rules": [{"subjects": [], "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/x"]}]}]},
        "spec.rules[0].subjects: Required value",
    ),
    (
        {
            "rules": [
                {"subjects": [{"kind": "Robot"}], "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/"]}]}
            ]
        },
        'spec.rules[0].subjects[0].kind: Unsupported value: "Robot"',
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": "a"}, "group": {"name": "g"}}],
                    "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/"]}],
                }
            ]
        },
        "spec.rules[0].subjects[0].group: Forbidden",
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "ServiceAccount", "serviceAccount": {"name": "x"}}],
                    "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/"]}],
                }
            ]
        },
        "spec.rules[0].subjects[0].serviceAccount.namespace: Required value",
    ),
    (
        {"rules": [{"subjects": [{"kind": "Group", "group": {"name": "g"}}]}]},
        "at least one of resourceRules and nonResourceRules has to be non-empty",
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                    "resourceRules": [{"verbs": ["get"], "apiGroups": ["*"], "resources": ["*"]}],
                }
            ]
        },
        "resource rules that are not cluster scoped must supply at least one namespace",
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                    "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["healthz"]}],
                }
            ]
        },
        'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash',
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                    "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/api*"]}],
                }
            ]
        },
        "wildcard can only do suffix matching",
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                    "nonResourceRules": [{"verbs": ["*", "get"], "nonResourceURLs": ["/"]}],
                }
            ]
        },
        (
            'spec.rules[0].nonResourceRules[0].verbs: Invalid value: ["*","get"]: if \'*\' is present, must not '
            "specify other verbs"
        ),
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                    "nonResourceRules": [{"verbs": ["fly"], "nonResourceURLs": ["/"]}],
                }
            ]
        },
        "spec.rules[0].nonResourceRules[0].verbs: Unsupported value",
    ),
    (
        {
            "rules": [
                {
                    "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                    "resourceRules": [
                        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "namespaces": ["Bad_NS"]}
                    ],
                }
            ]
        },
        "each member of this list must be '*' or a DNS-1123 label; ",
    ),
    ({"matchingPrecedence": 1}, "only the schema named 'exempt' may have matchingPrecedence 1"),
]


@pytest.mark.parametrize(("spec", "message"), FS_BAD, ids=[m for _, m in FS_BAD])
def test_invalid_flow_schemas_are_refused(spec: dict, message: str) -> None:
    body = flow_schema(**spec)
    _, errors = created(kind("flowschemas"), body)
    assert any(message in m for m in messages(errors)), messages(errors)


PL_BAD = [
    (priority_level(None, type="Special"), 'spec.type: Unsupported value: "Special"'),
    (priority_level(None, type="Exempt"), "type must be 'Exempt' if and only if name is 'exempt'"),
    (
        priority_level({"limitResponse": {"type": "Reject"}}, "exempt"),
        "type must be 'Exempt' if and only if name is 'exempt'",
    ),
    (priority_level(None, type="Limited"), "spec.limited: Required value: must not be empty when type is Limited"),
    (
        priority_level({"limitResponse": {"type": "Reject"}}, exempt={}),
        "spec.exempt: Forbidden: must be nil if the type is Limited",
    ),
    (
        priority_level({"nominalConcurrencyShares": -1, "limitResponse": {"type": "Reject"}}),
        "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
    ),
    (
        priority_level({"lendablePercent": 101, "limitResponse": {"type": "Reject"}}),
        "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
    ),
    (priority_level({"limitResponse": {"type": "Drop"}}), "spec.limited.limitResponse.type: Unsupported value"),
    (
        priority_level({"limitResponse": {"type": "Queue"}}),
        (
            "spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is "
            "Limited"
        ),
    ),
    (
        priority_level({"limitResponse": {"type": "Reject", "queuing": {"queues": 1}}}),
        "spec.limited.limitResponse.queuing: Forbidden",
    ),
    (
        priority_level({"limitResponse": {"type": "Queue", "queuing": {"queues": 4, "handSize": 5}}}),
        "spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)",
    ),
    (
        priority_level({"limitResponse": {"type": "Queue", "queuing": {"queues": 10000, "handSize": 5000}}}),
        "required entropy bits of deckSize 10000 and handSize 5000 should not be greater than 60",
    ),
    (
        priority_level({"limitResponse": {"type": "Queue", "queuing": {"queueLengthLimit": -2}}}),
        "spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -2: must be positive",
    ),
]


@pytest.mark.parametrize(("body", "message"), PL_BAD, ids=[m for _, m in PL_BAD])
def test_invalid_priority_levels_are_refused(body: dict, message: str) -> None:
    _, errors = created(kind("prioritylevelconfigurations"), body, name=body["metadata"]["name"])
    assert any(message in m for m in messages(errors)), messages(errors)


def test_duplicate_condition_types_are_refused_on_status_writes(client) -> None:
    body = flow_schema()
    body["metadata"] = {"name": "fs"}
    del body["status"]
    client.post(url("v1", "flowschemas"), json=body)
    view = client.get(url("v1", "flowschemas", "fs") + "/status").get_json()
    view["status"] = {"conditions": [{"type": "Dangling", "status": "True"}, {"type": "Dangling", "status": "False"}]}
    resp = client.put(url("v1", "flowschemas", "fs") + "/status", json=view)
    assert resp.status_code == 422
    assert resp.get_json()["details"]["causes"][0]["field"] == "status.conditions[1].type"


def test_valid_levels_pass() -> None:
    for body in LEVELS.values():
        create_ok(kind("prioritylevelconfigurations"), body, name=body["metadata"]["name"])


def test_update_keeps_status() -> None:
    fs_kind = kind("flowschemas")
    old = create_ok(fs_kind, flow_schema())
    old["status"] = {"conditions": [{"type": "Dangling", "status": "True"}]}
    new = copy.deepcopy(old)
    new["spec"]["matchingPrecedence"] = 10
    new["status"] = {}
    out, errors = updated(fs_kind, new, old)
    assert errors == [] and out["status"] == old["status"]


# ------------------------------------------------------------------------------------------ catalog and printers


def test_versions_and_deprecations() -> None:
    for plural, kind_name in (
        ("flowschemas", "FlowSchema"),
        ("prioritylevelconfigurations", "PriorityLevelConfiguration"),
    ):
        v1, beta2, beta1 = (kind(plural, v) for v in VERSIONS)
        assert v1.conversion is None and not v1.namespaced
        assert beta2.conversion.storage_version == "v1" and beta2.deprecation is None
        dep = beta1.deprecation
        assert (dep.deprecated_in, dep.removed_in, dep.replacement) == ("1.23", "1.26", f"{GROUP}/v1beta2 {kind_name}")


NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_flow_schema_printer() -> None:
    spec = table_for(kind("flowschemas"), NAMING)
    assert [c.name for c in spec.columns] == [
        "Name",
        "PriorityLevel",
        "MatchingPrecedence",
        "DistinguisherMethod",
        "Age",
        "MissingPL",
    ]
    obj = flow_schema()
    obj["metadata"]["creationTimestamp"] = "2026-01-02T02:04:05Z"
    assert spec.row(obj, NOW)["cells"] == ["fs", "workload-low", 500, "ByUser", "60m", "False"]
    bare = flow_schema(distinguisherMethod=None)
    del bare["status"]
    assert spec.row(bare, NOW)["cells"][3::2] == ["<none>", "?"]


def test_priority_level_printers_per_version() -> None:
    v1 = table_for(kind("prioritylevelconfigurations"), NAMING)
    beta = table_for(kind("prioritylevelconfigurations", "v1beta2"), NAMING)
    assert [c.name for c in v1.columns][2] == "NominalConcurrencyShares"
    assert [c.name for c in beta.columns][2] == "AssuredConcurrencyShares"
    stored = LEVELS["limited"]
    row = v1.row(stored, NOW)["cells"]
    assert row[:6] == ["workload-low", "Limited", 40, 16, 4, 20]
    assert beta.row(from_storage("v1beta2", stored), NOW)["cells"] == row
    assert v1.row(LEVELS["exempt"], NOW)["cells"][:6] == ["exempt", "Exempt", "<none>", "<none>", "<none>", "<none>"]


# ------------------------------------------------------------------------------------------ HTTP


def url(version: str, plural: str, name: str = "") -> str:
    base = f"/apis/{GROUP}/{version}/{plural}"
    return f"{base}/{name}" if name else base


def test_priority_level_created_through_a_beta_reads_through_v1(any_client) -> None:
    body = {
        "apiVersion": f"{GROUP}/v1beta2",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "p"},
        "spec": {"type": "Limited", "limited": {"assuredConcurrencyShares": 7, "limitResponse": QUEUE}},
    }
    made = any_client.post(url("v1beta2", "prioritylevelconfigurations"), json=body)
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["spec"]["limited"]["assuredConcurrencyShares"] == 7
    assert made.get_json()["metadata"]["generation"] == 1

    v1 = any_client.get(url("v1", "prioritylevelconfigurations", "p")).get_json()
    assert v1["apiVersion"] == f"{GROUP}/v1"
    assert v1["spec"]["limited"]["nominalConcurrencyShares"] == 7
    assert "assuredConcurrencyShares" not in v1["spec"]["limited"]

    listed = any_client.get(url("v1beta1", "prioritylevelconfigurations")).get_json()
    assert listed["apiVersion"] == f"{GROUP}/v1beta1"
    assert [i["spec"]["limited"]["assuredConcurrencyShares"] for i in listed["items"]] == [7]


def test_a_v1_zero_survives_a_write_through_a_beta(any_client) -> None:
    body = {
        "apiVersion": f"{GROUP}/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "z"},
        "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}},
    }
    assert any_client.post(url("v1", "prioritylevelconfigurations"), json=body).status_code == 201
    beta = any_client.get(url("v1beta2", "prioritylevelconfigurations", "z")).get_json()
    beta["metadata"]["labels"] = {"edited": "beta"}
    put = any_client.put(url("v1beta2", "prioritylevelconfigurations", "z"), json=beta)
    assert put.status_code == 200, put.get_json()
    v1 = any_client.get(url("v1", "prioritylevelconfigurations", "z")).get_json()
    assert v1["spec"]["limited"]["nominalConcurrencyShares"] == 0
    assert v1["metadata"]["labels"] == {"edited": "beta"} and "annotations" not in v1["metadata"]


def test_flow_schema_through_every_version(client) -> None:
    body = flow_schema()
    body["apiVersion"] = f"{GROUP}/v1beta1"
    body["metadata"] = {"name": "fs"}
    del body["status"]
    made = client.post(url("v1beta1", "flowschemas"), json=body)
    assert made.status_code == 201, made.get_json()
    assert made.headers.get("Warning") == (
        f'299 - "{GROUP}/v1beta1 FlowSchema is deprecated in v1.23+, unavailable in v1.26+; '
        f'use {GROUP}/v1beta2 FlowSchema"'
    )
    for version in VERSIONS:
        got = client.get(url(version, "flowschemas", "fs"))
        assert got.get_json()["apiVersion"] == f"{GROUP}/{version}"
        assert got.get_json()["spec"] == made.get_json()["spec"]
        assert ("Warning" in got.headers) == (version == "v1beta1")


def test_invalid_flow_schema_is_a_422(client) -> None:
    body = flow_schema(matchingPrecedence=20000)
    body["metadata"] = {"name": "bad"}
    del body["status"]
    resp = client.post(url("v1", "flowschemas"), json=body)
    assert resp.status_code == 422
    assert resp.get_json()["details"]["causes"][0]["field"] == "spec.matchingPrecedence"
