"""garbagecollector driven by hand: which changes call for a scan of every object."""

from __future__ import annotations

from typing import Any

from app.controllers.base import Context
from app.controllers.garbagecollector import GarbageCollector

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
