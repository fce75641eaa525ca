"""garbagecollector on both stores, run by the app's own controller loop (its graph kept from the changes), and
driven by hand (each sync lists everything)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.garbagecollector import GarbageCollector

from tests.conftest import _shutdown, admin_app
from tests.conftest import wait_for as wait_for_at_most
from tests.kinds import crd_body

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def wait_for(check: Callable[[], Any]) -> Any:
    return wait_for_at_most(check, timeout=60)  # the machine may be loaded: poll long, never time


def make(client: Any, name: str, *owners: dict, block: bool = False, **metadata: Any) -> dict:
    md: dict = {"name": name, **metadata}
    if owners:
        md["ownerReferences"] = [
            {
                "apiVersion": owner.get("apiVersion", "v1"),
                "kind": owner.get("kind", "ConfigMap"),
                "name": owner["metadata"]["name"],
                "uid": owner["metadata"]["uid"],
                **({"blockOwnerDeletion": True} if block else {}),
            }
            for owner in owners
        ]
    created = client.post(CONFIGMAPS, json={"metadata": md})
    assert created.status_code == 201, created.json
    return created.json


def exists(client: Any, name: str) -> bool:
    return client.get(f"{CONFIGMAPS}/{name}").status_code == 200


def gone(client: Any, *names: str) -> Callable[[], bool]:
    return lambda: not any(exists(client, name) for name in names)


def owner_names(client: Any, name: str) -> list[str]:
    return [r["name"] for r in client.get(f"{CONFIGMAPS}/{name}").json["metadata"].get("ownerReferences", [])]


@pytest.fixture
def gc_client(database_url: str, tmp_path: Path) -> Iterator[Any]:
    """An admin client of an app running the garbage collector (and no other controller)."""
    app = admin_app(database_url, tmp_path, CONTROLLERS="garbagecollector")
    try:
        yield app.test_client()
    finally:
        _shutdown(app)


def test_background_cascade_follows_a_chain_of_owners(gc_client: Any) -> None:
    owner = make(gc_client, "owner")
    children = [make(gc_client, f"child-{i}", owner) for i in range(20)]
    make(gc_client, "grandchild", children[0])
    make(gc_client, "bystander")
    assert gc_client.delete(f"{CONFIGMAPS}/owner").status_code == 200
    wait_for(gone(gc_client, "grandchild", *(c["metadata"]["name"] for c in children)))
    assert exists(gc_client, "bystander")


def test_foreground_deletion_waits_for_blocking_dependents_and_theirs(gc_client: Any) -> None:
    owner = make(gc_client, "fg-owner")
    middle = make(gc_client, "fg-middle", owner, block=True)
    make(gc_client, "fg-leaf", middle, block=True, finalizers=["example.com/hold"])
    deleted = gc_client.delete(f"{CONFIGMAPS}/fg-owner", json={"propagationPolicy": "Foreground"})
    assert deleted.status_code == 200
    # the middle dependent has one of its own: it is deleted in the foreground and waits for the held leaf
    leaf = wait_for(
        lambda: (r := gc_client.get(f"{CONFIGMAPS}/fg-leaf").json)["metadata"].get("deletionTimestamp") and r
    )
    assert "foregroundDeletion" in gc_client.get(f"{CONFIGMAPS}/fg-middle").json["metadata"]["finalizers"]
    assert exists(gc_client, "fg-owner")
    leaf["metadata"]["finalizers"] = []  # a leaf is deleted in the background: the collector left it alone
    assert gc_client.put(f"{CONFIGMAPS}/fg-leaf", json=leaf).status_code == 200
    wait_for(gone(gc_client, "fg-owner", "fg-middle", "fg-leaf"))


def test_orphan_releases_the_dependents_and_keeps_their_other_owners(gc_client: Any) -> None:
    owner, other = make(gc_client, "or-owner"), make(gc_client, "or-other")
    make(gc_client, "or-only", owner)
    make(gc_client, "or-shared", owner, other)
    deleted = gc_client.delete(f"{CONFIGMAPS}/or-owner", json={"propagationPolicy": "Orphan"})
    assert deleted.status_code == 200
    wait_for(gone(gc_client, "or-owner"))
    assert owner_names(gc_client, "or-only") == [] and owner_names(gc_client, "or-shared") == ["or-other"]


def test_dangling_references_and_a_recreated_owner(gc_client: Any) -> None:
    absent = {"metadata": {"name": "never-made", "uid": str(uuid.uuid4())}}
    make(gc_client, "dangling", absent)
    make(gc_client, "reborn")  # the owner's name, another incarnation
    make(gc_client, "of-another-incarnation", {"metadata": {"name": "reborn", "uid": str(uuid.uuid4())}})
    fresh = make(gc_client, "fresh-owner")  # named the moment it is made: read live, found, kept
    make(gc_client, "fresh-dependent", fresh)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "uid": str(uuid.uuid4())}}
    make(gc_client, "of-a-kind-not-served", widget)
    wait_for(gone(gc_client, "dangling", "of-another-incarnation"))
    assert exists(gc_client, "fresh-dependent") and exists(gc_client, "of-a-kind-not-served")
    assert exists(gc_client, "reborn")


def test_a_cluster_scoped_dependent_cannot_have_a_namespaced_owner(gc_client: Any) -> None:
    owner = make(gc_client, "ns-owner")
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "ns-owner", "uid": owner["metadata"]["uid"]}
    role = {"metadata": {"name": f"gc-{uuid.uuid4().hex[:6]}", "ownerReferences": [ref]}, "rules": []}
    roles = "/apis/rbac.authorization.orch.io/v1/clusterroles"
    assert gc_client.post(roles, json=role).status_code == 201
    wait_for(lambda: gc_client.get(f"{roles}/{role['metadata']['name']}").status_code == 404)
    assert exists(gc_client, "ns-owner")


def test_a_cascade_reads_no_list_once_the_graph_is_built(database_url: str, tmp_path: Path) -> None:
    """The collector lists every kind once, when it starts; after that, only changes drive it."""
    app = admin_app(database_url, tmp_path, CONTROLLERS="garbagecollector")
    try:
        client = app.test_client()
        warm = make(client, "warm-owner")
        make(client, "warm-child", warm)
        assert client.delete(f"{CONFIGMAPS}/warm-owner").status_code == 200
        wait_for(gone(client, "warm-child"))  # the graph is built and followed
        registry = app.extensions["orch"].registry
        lists: list[str] = []
        listing = registry.list

        def counted(rt: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.current_thread().name == "controller-garbagecollector":
                lists.append(rt.plural)
            return listing(rt, *args, **kwargs)

        registry.list = counted
        owner = make(client, "owner")
        for i in range(10):
            make(client, f"child-{i}", owner)
        assert client.delete(f"{CONFIGMAPS}/owner").status_code == 200
        wait_for(gone(client, *(f"child-{i}" for i in range(10))))
        assert lists == []
    finally:
        _shutdown(app)


def test_a_collector_driven_by_hand_lists_everything_at_each_sync(cclient: Any, ctx: Context) -> None:
    """Without a loop handing it the changes, each sync builds the graph anew, so nothing is missed."""
    gc = GarbageCollector(ctx)
    owner = make(cclient, "hand-owner")
    make(cclient, "hand-dependent", owner)
    gc.sync()
    assert exists(cclient, "hand-dependent")
    assert cclient.delete(f"{CONFIGMAPS}/hand-owner").status_code == 200
    make(cclient, "hand-owner")  # same name, another uid: the dependent's owner is gone all the same
    gc.sync()
    assert not exists(cclient, "hand-dependent")


def test_a_collector_that_starts_resumes_what_was_left_pending(cclient: Any, ctx: Context) -> None:
    """Owners deleted in the foreground or with Orphan while no collector ran are finished by the next one."""
    fg, orphaning = make(cclient, "was-fg"), make(cclient, "was-orphaning")
    make(cclient, "fg-child", fg, block=True)
    make(cclient, "orphan-child", orphaning)
    assert cclient.delete(f"{CONFIGMAPS}/was-fg", json={"propagationPolicy": "Foreground"}).status_code == 200
    assert cclient.delete(f"{CONFIGMAPS}/was-orphaning", json={"propagationPolicy": "Orphan"}).status_code == 200
    gc = GarbageCollector(ctx)
    gc.sync()  # deletes the blocking child, releases the orphan's
    assert not exists(cclient, "fg-child") and owner_names(cclient, "orphan-child") == []
    assert not exists(cclient, "was-orphaning")
    gc.sync()  # the child is gone: nothing blocks the owner any more
    assert not exists(cclient, "was-fg")


def test_references_to_a_kind_are_looked_at_once_it_is_served_and_custom_owners_cascade(
    database_url: str, tmp_path: Path
) -> None:
    app = admin_app(database_url, tmp_path, CONTROLLERS="garbagecollector,crd")
    try:
        client = app.test_client()
        gadget = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}
        make(client, "of-a-gadget-never-made", {**gadget, "metadata": {"name": "g", "uid": str(uuid.uuid4())}})
        assert exists(client, "of-a-gadget-never-made")  # Gadget is not served: the owner may live elsewhere
        crd = crd_body("example.com", "gadgets", "Gadget", {"type": "object", "x-orch-preserve-unknown-fields": True})
        assert client.post("/apis/apiextensions.orch.io/v1/customresourcedefinitions", json=crd).status_code == 201
        gadgets = "/apis/example.com/v1/namespaces/default/gadgets"
        wait_for(lambda: client.get(gadgets).status_code == 200)
        wait_for(gone(client, "of-a-gadget-never-made"))  # served now, and no such gadget exists
        owner = client.post(gadgets, json=gadget)
        assert owner.status_code == 201, owner.json
        make(client, "of-a-gadget", owner.json)
        assert client.delete(f"{gadgets}/g").status_code == 200
        wait_for(gone(client, "of-a-gadget"))
    finally:
        _shutdown(app)
