"""The admission chain in the registry, without HTTP: its place among a write's stages, and which plugins run."""

from __future__ import annotations

import copy

import pytest
from orch_apiserver.admission.plugins import AdmissionConfigError, enabled_plugins
from orch_apiserver.errors import Conflict, Forbidden, Invalid, NotFound
from orch_apiserver.registry.admission import Attributes, Chain, Plugin
from orch_apiserver.registry.options import DeleteOptions

from tests.conftest import make_app

from .helpers import configmap


class Recorder(Plugin):
    """Records what each stage saw; mutates by adding a label, refuses names starting with `refuse`."""

    name = "Recorder"

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, Attributes, dict | None]] = []

    def admit(self, attrs: Attributes) -> None:
        self.seen.append(("admit", attrs.operation, attrs, copy.deepcopy(attrs.obj)))
        if attrs.obj is not None:
            attrs.obj.setdefault("metadata", {}).setdefault("labels", {})["admitted"] = "yes"
            attrs.obj["metadata"]["uid"] = "chosen-by-plugin"  # the server's to set, not admission's
            attrs.mutated = True

    def validate(self, attrs: Attributes) -> None:
        self.seen.append(("validate", attrs.operation, attrs, copy.deepcopy(attrs.obj)))
        if attrs.name.startswith("refuse"):
            raise Forbidden(f"{attrs.name} refused")


@pytest.fixture
def registry(app):
    assert app.test_client().get("/api/v1/namespaces/default").status_code == 200  # the server has started
    with app.app_context():
        yield app.extensions["orch"].registry


@pytest.fixture
def recorder(registry) -> Recorder:
    plugin = Recorder()
    registry.admission = Chain([*registry.admission.plugins, plugin])
    return plugin


def configmaps(registry):
    return registry.catalog.lookup("", "v1", "configmaps")


def test_create_runs_defaulting_then_mutation_then_validation_then_validating_admission(registry, recorder):
    deployments = registry.catalog.lookup("apps", "v1", "deployments")
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    stored = registry.create(deployments, "default", body)
    (first, op1, _, admitted), (second, op2, _, validated) = recorder.seen
    assert (first, op1, second, op2) == ("admit", "CREATE", "validate", "CREATE")
    assert admitted["spec"]["replicas"] == 1  # defaulted before mutating admission
    assert "uid" not in admitted["metadata"]  # system fields are set after it, as in the reference
    assert validated["metadata"]["labels"] == {"admitted": "yes"} and validated["metadata"]["uid"] != "chosen-by-plugin"
    assert (
        stored["metadata"]["labels"] == {"admitted": "yes"}
        and stored["metadata"]["uid"] == validated["metadata"]["uid"]
    )


def test_a_validating_refusal_stores_nothing_and_invalid_objects_never_reach_it(registry, recorder):
    rt = configmaps(registry)
    with pytest.raises(Forbidden):
        registry.create(rt, "default", configmap("refuse-me"))
    with pytest.raises(NotFound):
        registry.get(rt, "default", "refuse-me")
    recorder.seen.clear()
    with pytest.raises(Invalid):
        registry.create(rt, "default", {**configmap("bad"), "data": {"no spaces!": "x"}})
    assert [stage for stage, *_ in recorder.seen] == ["admit"]


def test_update_admission_sees_the_old_object_and_cannot_change_what_the_server_keeps(registry, recorder):
    rt = configmaps(registry)
    created = registry.create(rt, "default", configmap("u", v="1"))
    recorder.seen.clear()
    new = copy.deepcopy(created)
    new["data"] = {"v": "2"}
    updated, _ = registry.update(rt, "default", "u", new)
    _, operation, attrs, _ = recorder.seen[0]
    assert operation == "UPDATE" and attrs.old is not None and attrs.old["data"] == {"v": "1"}
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]
    assert updated["metadata"]["creationTimestamp"] == created["metadata"]["creationTimestamp"]


def test_subresource_writes_name_their_subresource_and_internal_writes_skip_admission(registry, recorder):
    namespaces = registry.catalog.lookup("", "v1", "namespaces")
    registry.create(namespaces, None, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    current = registry.get(namespaces, None, "team")
    recorder.seen.clear()
    registry.update(namespaces, None, "team", current, subresource="status")
    assert [(stage, attrs.subresource) for stage, _, attrs, _ in recorder.seen] == [
        ("admit", "status"),
        ("validate", "status"),
    ]
    recorder.seen.clear()
    registry.guaranteed_update(namespaces, None, "team", lambda obj: obj["metadata"].setdefault("annotations", {}))
    assert recorder.seen == []


def test_delete_passes_the_object_as_old_with_the_delete_options(registry, recorder):
    rt = configmaps(registry)
    registry.create(rt, "default", configmap("d"))
    recorder.seen.clear()
    registry.delete(rt, "default", "d", DeleteOptions(propagation_policy="Background", dry_run=True))
    _, operation, attrs, obj = recorder.seen[0]
    assert operation == "DELETE" and obj is None and attrs.old["metadata"]["name"] == "d"
    assert attrs.options == {
        "kind": "DeleteOptions",
        "apiVersion": "meta.orch.io/v1",
        "propagationPolicy": "Background",
        "dryRun": ["All"],
    }
    assert attrs.dry_run and registry.get(rt, "default", "d")


def test_namespace_lifecycle_refuses_content_in_missing_namespaces_and_keeps_the_immortal_ones(registry):
    namespaces = registry.catalog.lookup("", "v1", "namespaces")
    with pytest.raises(NotFound) as missing:
        registry.create(configmaps(registry), "nowhere", configmap("c"))
    assert missing.value.message == 'namespaces "nowhere" not found'
    for name in ("default", registry.naming.system_namespace, registry.naming.public_namespace):
        with pytest.raises(Forbidden) as refused:
            registry.delete(namespaces, None, name, DeleteOptions())
        assert refused.value.message == f'namespaces "{name}" is forbidden: this namespace may not be deleted'


def test_without_namespace_lifecycle_a_missing_namespace_is_not_checked(registry):
    registry.admission = Chain([p for p in registry.admission.plugins if p.name != "NamespaceLifecycle"])
    assert registry.create(configmaps(registry), "nowhere", configmap("c"))["metadata"]["namespace"] == "nowhere"


def test_the_default_plugins_and_the_flags_that_change_them():
    assert enabled_plugins() == [
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "NodeRestriction",
        "TaintNodesByCondition",
        "PodSecurity",
        "Priority",
        "DefaultTolerationSeconds",
        "DefaultStorageClass",
        "StorageObjectInUseProtection",
        "PersistentVolumeClaimResize",
        "RuntimeClass",
        "CertificateApproval",
        "CertificateSigning",
        "CertificateSubjectRestriction",
        "DefaultIngressClass",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
    ]
    others = enabled_plugins()[1:-2]
    assert enabled_plugins(["AlwaysDeny"], others) == [
        "NamespaceLifecycle",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
        "AlwaysDeny",
    ]
    with pytest.raises(AdmissionConfigError, match="unknown admission plugins: Bogus"):
        enabled_plugins(["Bogus"])
    with pytest.raises(AdmissionConfigError, match="not available in this server: AlwaysPullImages"):
        enabled_plugins(["AlwaysPullImages"])
    with pytest.raises(AdmissionConfigError, match="AlwaysDeny in both"):
        enabled_plugins(["AlwaysDeny"], ["AlwaysDeny"])


def test_the_configured_plugins_are_the_registry_chain(sqlite_url, tmp_path):
    from tests.conftest import _shutdown

    plugins = enabled_plugins(["AlwaysDeny"], enabled_plugins()[:-3])
    app = make_app(sqlite_url, tmp_path, ADMISSION_PLUGINS=plugins)
    try:
        assert app.extensions["orch"].registry.admission.names == (
            "MutatingAdmissionWebhook",
            "ValidatingAdmissionWebhook",
            "ResourceQuota",
            "AlwaysDeny",
        )
    finally:
        _shutdown(app)


def test_always_deny_refuses_writes_through_http_and_leaves_reads_alone(app, registry):
    from orch_apiserver.admission.plugins import AlwaysDeny

    registry.admission = Chain([*registry.admission.plugins, AlwaysDeny()])
    client = app.test_client()
    refused = client.post("/api/v1/namespaces/default/configmaps", json=configmap("x"))
    assert refused.status_code == 403
    assert refused.get_json()["message"] == "admission control is denying all modifications"
    assert client.get("/api/v1/namespaces/default/configmaps").status_code == 200


class Interloper(Plugin):
    """On its first call, writes the object itself (another writer between the read and the compare-and-swap)."""

    name = "Interloper"

    def __init__(self, registry) -> None:
        self.registry, self.calls = registry, 0

    def admit(self, attrs: Attributes) -> None:
        self.calls += 1
        if self.calls == 1:
            self.registry.guaranteed_update(
                configmaps(self.registry),
                attrs.namespace,
                attrs.name,
                lambda obj: obj.update(data={"by": "someone-else"}),
            )


@pytest.mark.parametrize("write", ["update", "patch", "apply", "delete"])
def test_a_write_that_lost_the_race_reads_again_and_retries(registry, write):
    rt = configmaps(registry)
    created = registry.create(rt, "default", configmap("raced", v="1"))
    interloper = Interloper(registry)
    registry.admission = Chain([*registry.admission.plugins, interloper])
    if write == "update":
        body = copy.deepcopy(created)
        body["metadata"].pop("resourceVersion")
        body["data"] = {"v": "2"}
        result, _ = registry.update(rt, "default", "raced", body)
    elif write == "patch":
        result = registry.patch(rt, "default", "raced", "application/merge-patch+json", b'{"data": {"v": "2"}}')
    elif write == "apply":
        result, _ = registry.apply(rt, "default", "raced", {**configmap("raced", v="2")}, "tester", force=True)
    else:
        registry.delete(rt, "default", "raced", DeleteOptions())
        assert interloper.calls == 2
        with pytest.raises(NotFound):
            registry.get(rt, "default", "raced")
        return
    assert interloper.calls == 2  # the first try lost the compare-and-swap; the second read the newer object
    assert result["data"]["v"] == "2"


def test_a_write_conditional_on_its_resource_version_answers_conflict_instead(registry):
    rt = configmaps(registry)
    created = registry.create(rt, "default", configmap("pinned", v="1"))
    registry.admission = Chain([*registry.admission.plugins, Interloper(registry)])
    body = copy.deepcopy(created)
    body["data"] = {"v": "2"}
    with pytest.raises(Conflict):
        registry.update(rt, "default", "pinned", body)
    assert registry.get(rt, "default", "pinned")["data"] == {"by": "someone-else"}
