"""garbagecollector driven by hand: which changes call for a scan of every object."""

from __future__ import annotations

from typing import Any

from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.garbagecollector import GarbageCollector

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def make(client: Any, name: str, owner: dict | None = None) -> dict:
    md: dict = {"name": name}
    if owner is not None:
        ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": owner["metadata"]["name"]}
        md["ownerReferences"] = [{**ref, "uid": owner["metadata"]["uid"]}]
    created = client.post(CONFIGMAPS, json={"metadata": md})
    assert created.status_code == 201, created.json
    return created.json


def deletions_since(ctx: Context, revision: int) -> dict[str, Any]:
    changes = ctx.registry.storage.changes_after(revision)
    return {c.key.rsplit("/", 1)[1]: c for c in changes if c.type == "DELETED"}


def test_only_an_owner_s_deletion_calls_for_a_scan_once_the_collector_has_synced(cclient: Any, ctx: Context) -> None:
    owner = make(cclient, "owner")
    make(cclient, "dependent", owner)
    make(cclient, "loner")
    gc = GarbageCollector(ctx)
    start = ctx.registry.storage.current_revision()
    assert cclient.delete(f"{CONFIGMAPS}/loner").status_code == 200
    before_sync = deletions_since(ctx, start)["loner"]
    assert gc.relevant(before_sync)  # nothing known yet: every deletion may free a dependent

    gc.sync()
    make(cclient, "loner2")
    start = ctx.registry.storage.current_revision()
    for name in ("loner2", "owner"):
        assert cclient.delete(f"{CONFIGMAPS}/{name}").status_code == 200
    deleted = deletions_since(ctx, start)
    assert not gc.relevant(deleted["loner2"])  # nobody named it as owner
    assert gc.relevant(deleted["owner"])
    gc.sync()
    assert cclient.get(f"{CONFIGMAPS}/dependent").status_code == 404


def test_an_owner_named_since_the_last_sync_is_known_when_its_deletion_comes(cclient: Any, ctx: Context) -> None:
    gc = GarbageCollector(ctx)
    gc.sync()  # knows of no owner yet
    start = ctx.registry.storage.current_revision()
    owner = make(cclient, "late-owner")
    make(cclient, "late-dependent", owner)
    assert cclient.delete(f"{CONFIGMAPS}/late-owner").status_code == 200
    # the watch hub asks in commit order: the dependent's creation comes before its owner's deletion
    verdicts = {(c.type, c.key.rsplit("/", 1)[1]): gc.relevant(c) for c in ctx.registry.storage.changes_after(start)}
    assert verdicts[("ADDED", "late-dependent")]
    assert verdicts[("DELETED", "late-owner")]  # no sync has read the dependent yet: the deletion still counts
    gc.sync()
    assert cclient.get(f"{CONFIGMAPS}/late-dependent").status_code == 404


def test_owners_named_while_a_sync_reads_are_kept_by_it(cclient: Any, ctx: Context) -> None:
    gc = GarbageCollector(ctx)
    gc.sync()
    owner = make(cclient, "busy-owner")
    start = ctx.registry.storage.current_revision()
    make(cclient, "busy-dependent", owner)
    [named] = ctx.registry.storage.changes_after(start)

    def read_before_the_dependent_existed() -> list:  # the change arrives while the sync reads
        assert gc.relevant(named)
        return []

    gc._everything = read_before_the_dependent_existed  # type: ignore[method-assign]
    gc.sync()
    assert gc.owners is not None and owner["metadata"]["uid"] in gc.owners


def test_an_owner_made_after_its_kind_was_listed_keeps_its_dependents(cclient: Any, ctx: Context) -> None:
    """A sync lists kind after kind: an owner created between two lists is missing from them, and is read live
    before its dependents are deleted (the reference's isDangling)."""
    owner = make(cclient, "fresh-owner")
    dependent = make(cclient, "fresh-dependent", owner)
    gc = GarbageCollector(ctx)
    listed = gc._everything

    def lists_without_the_owner() -> list:
        return [item for item in listed() if item.uid != owner["metadata"]["uid"]]

    gc._everything = lists_without_the_owner  # type: ignore[method-assign]
    gc.sync()
    assert cclient.get(f"{CONFIGMAPS}/fresh-dependent").json["metadata"]["uid"] == dependent["metadata"]["uid"]
    assert cclient.delete(f"{CONFIGMAPS}/fresh-owner").status_code == 200
    make(cclient, "fresh-owner")  # same name, another uid: the dependent's owner is gone all the same
    gc.sync()
    assert cclient.get(f"{CONFIGMAPS}/fresh-dependent").status_code == 404
