"""Which requests a Fault selects (app/faults/matching.py) and what it answers them (app/faults/errors.py)."""

from __future__ import annotations

import pytest
from orch_apiserver.faults.errors import fault_error
from orch_apiserver.faults.injector import chosen
from orch_apiserver.faults.manifest import fault_manifest
from orch_apiserver.faults.matching import RequestFacts, matches
from orch_apiserver.faults.spec import ErrorSpec, read_fault

REQUEST = RequestFacts(
    verb="update",
    group="apps",
    resource="deployments",
    subresource="scale",
    namespace="shop",
    name="web",
    user="alice",
    groups=("team-a", "system:authenticated"),
    user_agent="my-operator/1.2 (linux)",
    field_manager="reconciler",
)


def fault(**keywords: object) -> object:
    keywords.setdefault("error", 500)
    return read_fault(fault_manifest("f", "testing.orch.io/v1alpha1", **keywords))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("keyword", "selects", "passes_by"),
    [
        ("verbs", ["update", "patch"], ["get"]),
        ("resources", ["deployments.apps"], ["deployments"]),
        ("subresources", ["scale"], ["status"]),
        ("namespaces", ["shop"], ["default"]),
        ("names", ["web"], ["db"]),
        ("users", ["alice"], ["bob"]),
        ("groups", ["team-b", "team-a"], ["team-b"]),
        ("user_agents", ["my-operator/"], ["kubectl/"]),
        ("field_managers", ["reconciler"], ["kubectl-edit"]),
    ],
)
def test_each_match_field(keyword: str, selects: list[str], passes_by: list[str]) -> None:
    assert matches(fault(**{keyword: selects}), REQUEST)
    assert not matches(fault(**{keyword: passes_by}), REQUEST)


def test_an_empty_match_selects_any_request() -> None:
    assert matches(fault(), REQUEST)
    assert matches(fault(), RequestFacts("get", "", "pods"))


def test_actions_that_only_make_sense_for_some_verbs() -> None:
    watch_cut = fault(error=None, expire_after_events=1)
    assert not matches(watch_cut, REQUEST) and matches(watch_cut, RequestFacts("watch", "", "pods"))
    conflict = fault(error=None, conflict_once=True)
    assert matches(conflict, REQUEST) and not matches(conflict, RequestFacts("create", "", "pods"))
    assert conflict.limit == 1  # type: ignore[attr-defined]
    lost = fault(error=None, after_write=500)
    assert matches(lost, REQUEST) and not matches(lost, RequestFacts("get", "", "pods"))


def test_errors_are_worded_as_the_reference() -> None:
    conflict = fault_error(ErrorSpec(409), REQUEST)
    assert conflict.reason == "Conflict"
    assert conflict.message == (
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your '
        "changes to the latest version and try again"
    )
    throttled = fault_error(ErrorSpec(429, retry_after=4), REQUEST)
    assert throttled.reason == "TooManyRequests" and throttled.headers["Retry-After"] == "4"
    assert throttled.details == {"name": "web", "group": "apps", "kind": "deployments", "retryAfterSeconds": 4}
    assert fault_error(ErrorSpec(503), REQUEST).headers["Retry-After"] == "1"
    timeout = fault_error(ErrorSpec(504), REQUEST)
    assert timeout.reason == "Timeout" and timeout.message.startswith("Timeout: ")
    internal = fault_error(ErrorSpec(500), REQUEST)
    assert internal.reason == "InternalError" and internal.message.startswith("Internal error occurred: ")
    own = fault_error(ErrorSpec(418, "Teapot", "short and stout"), REQUEST)
    assert (own.code, own.reason, own.message) == (418, "Teapot", "short and stout")


def test_a_seed_chooses_the_same_requests_and_about_the_share() -> None:
    first = [chosen(42, 0.3, n) for n in range(1, 1001)]
    assert first == [chosen(42, 0.3, n) for n in range(1, 1001)]
    assert first != [chosen(43, 0.3, n) for n in range(1, 1001)]
    assert 200 < sum(first) < 400
    assert all(chosen(None, None, n) for n in range(5)) and all(chosen(1, 1.0, n) for n in range(5))
    assert not any(chosen(1, 0.0, n) for n in range(100))


def test_the_manifest_builder_refuses_unknown_keywords() -> None:
    with pytest.raises(TypeError, match="colour"):
        fault_manifest("f", "testing.orch.io/v1alpha1", error=500, colour="red")  # type: ignore[arg-type]
    built = fault_manifest(
        "f", "testing.orch.io/v1alpha1", after_write=503, retry_after=2, verbs="create", times=1, seed=3
    )
    assert built["spec"] == {
        "action": {"afterWrite": {"error": {"code": 503, "retryAfterSeconds": 2}}},
        "match": {"verbs": ["create"]},
        "times": 1,
        "seed": 3,
    }
