"""Strategic merge patch on built-in kinds, case by case (the reference's documented semantics)."""

from __future__ import annotations

import copy

import pytest
from orch_apiserver.registry.strategic import strategic_merge
from orch_apiserver.schema import schema_for

DEPLOYMENT = schema_for("apps/v1", "Deployment")


def deployment() -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}, "finalizers": ["a", "b", "c"]},
        "spec": {
            "replicas": 1,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1",
                            "args": ["-a", "-b"],
                            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                        },
                        {"name": "log", "image": "busybox"},
                    ]
                }
            },
        },
    }


def containers(obj: dict) -> list[dict]:
    return obj["spec"]["template"]["spec"]["containers"]


CASES = [
    (
        "merge a list item by its key",
        {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}}},
        lambda o: (
            [c["image"] for c in containers(o)] == ["nginx:2", "busybox"] and containers(o)[0]["args"] == ["-a", "-b"]
        ),
    ),
    (
        "append an item with a new key",
        {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "envoy"}]}}}},
        lambda o: [c["name"] for c in containers(o)] == ["web", "log", "side"],
    ),
    (
        "$patch: delete removes the keyed item",
        {"spec": {"template": {"spec": {"containers": [{"name": "log", "$patch": "delete"}]}}}},
        lambda o: [c["name"] for c in containers(o)] == ["web"],
    ),
    (
        "nested keyed lists merge (env by name)",
        {"spec": {"template": {"spec": {"containers": [{"name": "web", "env": [{"name": "B", "value": "3"}]}]}}}},
        lambda o: containers(o)[0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}],
    ),
    (
        "a list without a merge strategy is replaced",
        {"spec": {"template": {"spec": {"containers": [{"name": "web", "args": ["-z"]}]}}}},
        lambda o: containers(o)[0]["args"] == ["-z"],
    ),
    (
        "null deletes a field",
        {"metadata": {"labels": {"tier": None}}},
        lambda o: o["metadata"]["labels"] == {"app": "web"},
    ),
    (
        "$patch: replace on a map replaces it whole",
        {"metadata": {"labels": {"$patch": "replace", "only": "this"}}},
        lambda o: o["metadata"]["labels"] == {"only": "this"},
    ),
    (
        "$patch: replace inside a list replaces the list",
        {"spec": {"template": {"spec": {"containers": [{"$patch": "replace"}, {"name": "solo", "image": "x"}]}}}},
        lambda o: containers(o) == [{"name": "solo", "image": "x"}],
    ),
    (
        "$retainKeys drops keys not listed (switching the deployment strategy)",
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
        lambda o: o["spec"]["strategy"] == {"type": "Recreate"},
    ),
    (
        "$setElementOrder reorders a keyed list",
        {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "log"}, {"name": "web"}]}}}},
        lambda o: [c["name"] for c in containers(o)] == ["log", "web"],
    ),
    (
        "$deleteFromPrimitiveList removes values from a merged primitive list",
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}},
        lambda o: o["metadata"]["finalizers"] == ["a", "c"],
    ),
    (
        "a merged primitive list gains new values only once",
        {"metadata": {"finalizers": ["c", "d"]}},
        lambda o: o["metadata"]["finalizers"] == ["a", "b", "c", "d"],
    ),
    (
        "ports merge by containerPort",
        {"spec": {"template": {"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 443}]}]}}}},
        lambda o: [p["containerPort"] for p in containers(o)[0]["ports"]] == [80, 443],
    ),
]


@pytest.mark.parametrize("patch, check", [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_strategic_merge_cases(patch: dict, check) -> None:
    original = deployment()
    result = strategic_merge(original, patch, DEPLOYMENT)
    assert check(result), result
    assert original == deployment()  # the input is never modified


def test_missing_merge_key_is_an_error() -> None:
    with pytest.raises(Exception, match="merge key"):
        strategic_merge(deployment(), {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}, DEPLOYMENT)


def test_without_a_schema_it_is_a_merge_patch() -> None:
    result = strategic_merge({"a": {"b": 1, "c": [1, 2]}}, {"a": {"b": None, "c": [3]}}, None)
    assert result == {"a": {"c": [3]}}


def test_strategic_patch_over_http(client) -> None:
    url = "/apis/apps/v1/namespaces/default/deployments"
    body = copy.deepcopy(deployment())
    body["metadata"].pop("finalizers")
    body["spec"]["selector"] = {"matchLabels": {"app": "web"}}
    body["spec"]["template"]["metadata"] = {"labels": {"app": "web"}}
    assert client.post(url, json=body).status_code == 201
    patch = b'{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:3"}]}}}}'
    resp = client.patch(f"{url}/web", data=patch, headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert resp.status_code == 200, resp.get_json()
    assert [c["image"] for c in containers(resp.get_json())] == ["nginx:3", "busybox"]
    assert resp.get_json()["metadata"]["generation"] == 2
