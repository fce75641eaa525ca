"""garbagecollector: dependents follow their owners (`metadata.ownerReferences`), as the reference's collector.

- A dependent whose owners are all gone (no object with the referenced uid) is deleted; in the background,
  or in the foreground when an owner is itself waiting in foreground deletion.
- A dependent with some owners gone and some alive loses the references to the gone ones.
- An owner deleted with `propagationPolicy: Foreground` carries the `foregroundDeletion` finalizer: its
  dependents are deleted, and the finalizer goes once no dependent with `blockOwnerDeletion` is left.
- An owner deleted with `Orphan` carries the `orphan` finalizer: its dependents lose their reference to it,
  then the finalizer goes.
A reference to a kind the server does not serve is left alone (the owner may be served elsewhere).
Each sync reads every stored object once; syncs are at least `min_sync_interval` apart.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from ..catalog import ResourceType
from ..errors import Conflict, NotFound
from ..registry.deletion import FOREGROUND_FINALIZER, ORPHAN_FINALIZER
from ..registry.informer import Change
from ..registry.options import ListOptions
from .base import Context, Controller


@dataclass
class Item:
    rt: ResourceType
    obj: dict

    @property
    def md(self) -> dict:
        return self.obj.get("metadata") or {}

    @property
    def namespace(self) -> str | None:
        return self.md.get("namespace") if self.rt.namespaced else None

    @property
    def name(self) -> str:
        return str(self.md.get("name", ""))

    @property
    def uid(self) -> str:
        return str(self.md.get("uid", ""))

    def refs(self) -> list[dict]:
        return [r for r in self.md.get("ownerReferences") or [] if isinstance(r, dict)]

    def finalizers(self) -> list[str]:
        return list(self.md.get("finalizers") or [])


class GarbageCollector(Controller):
    name = "garbagecollector"
    account = "generic-garbage-collector"
    resync_seconds = 30.0
    min_sync_interval = 0.2

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.kinds: list[ResourceType] = []
        self.by_kind: dict[tuple[str, str], ResourceType] = {}
        #: uids some object named as its owner at the last sync, or in a change since (None before the first sync)
        self.owners: set[str] | None = None
        #: uids named as owners by changes the filter let through since the running sync began reading
        self._named_since: set[str] = set()
        self._owners_lock = threading.Lock()  # the filter runs in the watch hub's thread, the sync in the loop's

    def watched_keys(self) -> list[str]:
        return ["/"]  # every stored object may own or depend on another

    def relevant(self, change: Change) -> bool:
        """Only what can change the ownership graph: an object that has owners or is being deleted, or the
        deletion of an owner. A write of an unowned, live object (most writes) needs no scan, nor does the
        deletion of an object no one names as owner. Changes come in commit order, so the owners a change
        names are known here before their deletion comes, even when no sync has read that change yet."""
        if '"ownerReferences"' in change.data:
            named = _owner_uids_of(change.data)
            with self._owners_lock:
                self._named_since |= named
                if self.owners is not None:
                    self.owners |= named
            return True
        if '"deletionTimestamp"' in change.data:
            return True
        if change.type != "DELETED":
            return False
        with self._owners_lock:
            return self.owners is None or _uid_of(change.data) in self.owners

    def sync(self) -> None:
        # read per sync: custom kinds come and go with their definitions (the live catalog)
        self.kinds = [rt for rt in self.ctx.registry.catalog.storage_types() if not rt.virtual and "list" in rt.verbs]
        self.by_kind = {(rt.group, rt.kind): rt for rt in self.kinds}
        with self._owners_lock:
            self._named_since = set()
        items = self._everything()
        by_uid = {item.uid: item for item in items}
        dependents: dict[str, list[Item]] = {}
        for item in items:
            for ref in item.refs():
                dependents.setdefault(str(ref.get("uid", "")), []).append(item)
        with self._owners_lock:  # what changes named while this sync read stays known
            self.owners = set(dependents) | self._named_since
        for item in items:
            if item.refs():
                self._follow_owners(item, by_uid)
        for item in items:
            if item.md.get("deletionTimestamp"):
                self._finish_owner(item, dependents.get(item.uid, []))

    def _everything(self) -> list[Item]:
        """Every stored object, read as the reference's shared informers read (the controller manager's own
        list/watch grant); the writes go through the collector's identity."""
        registry = self.ctx.registry
        return [
            Item(rt, orjson.loads(text)) for rt in self.kinds for text in registry.list(rt, None, ListOptions()).items
        ]

    def _kind_of(self, ref: dict) -> ResourceType | None:
        group = str(ref.get("apiVersion", "")).rpartition("/")[0]
        return self.by_kind.get((group, str(ref.get("kind", ""))))

    def _follow_owners(self, item: Item, by_uid: dict[str, Item]) -> None:
        if item.md.get("deletionTimestamp") and FOREGROUND_FINALIZER not in item.finalizers():
            return  # already going
        gone: list[dict] = []
        alive: list[dict] = []
        waiting, unknown = [], []
        for ref in item.refs():
            owner = by_uid.get(str(ref.get("uid", "")))
            if self._kind_of(ref) is None:
                unknown.append(ref)
            elif owner is None:  # alive when made after the sync read its kind: the next sync sees it
                (gone if self._dangling(ref, item) else alive).append(ref)
            elif owner.namespace not in (None, item.namespace):
                gone.append(ref)
            elif owner.md.get("deletionTimestamp") and FOREGROUND_FINALIZER in owner.finalizers():
                waiting.append(ref)
            else:
                alive.append(ref)
        if not gone and not waiting:
            return
        if not alive and not unknown:
            if not item.md.get("deletionTimestamp"):
                self._delete(item, "Foreground" if waiting else "Background")
            return
        if gone:  # some owners live on: forget the ones that are gone
            self._update_refs(item, [r for r in item.refs() if r not in gone])

    def _dangling(self, ref: dict, item: Item) -> bool:
        """The reference's isDangling: an owner missing from the sync's lists is read live before its dependents
        go (each kind is listed in turn, so an owner created after its kind was read looks missing)."""
        rt = self._kind_of(ref)
        assert rt is not None
        current = self.client.find(rt, item.namespace if rt.namespaced else None, str(ref.get("name", "")))
        return current is None or (current.get("metadata") or {}).get("uid") != ref.get("uid")

    def _finish_owner(self, owner: Item, dependents: list[Item]) -> None:
        finalizers = owner.finalizers()
        if ORPHAN_FINALIZER in finalizers:
            for dependent in dependents:
                self._update_refs(dependent, [r for r in dependent.refs() if r.get("uid") != owner.uid])
            self._drop_finalizer(owner, ORPHAN_FINALIZER)
        elif FOREGROUND_FINALIZER in finalizers:
            blocking = [
                d
                for d in dependents
                if any(r.get("uid") == owner.uid and r.get("blockOwnerDeletion") for r in d.refs())
            ]
            if not blocking:
                self._drop_finalizer(owner, FOREGROUND_FINALIZER)

    def _delete(self, item: Item, propagation: str) -> None:
        try:
            self.client.delete(item.rt, item.namespace, item.name, item.uid, propagation=propagation)
        except (Conflict, NotFound):
            pass  # changed or gone meanwhile: the next sync looks again

    def _update_refs(self, item: Item, refs: list[dict]) -> None:
        def keep(md: dict) -> None:
            if refs:
                md["ownerReferences"] = refs
            else:
                md.pop("ownerReferences", None)

        self._write(item, keep)

    def _drop_finalizer(self, item: Item, finalizer: str) -> None:
        def drop(md: dict) -> None:
            rest = [f for f in md.get("finalizers") or [] if f != finalizer]
            if rest:
                md["finalizers"] = rest
            else:
                md.pop("finalizers", None)

        self._write(item, drop)

    def _write(self, item: Item, change: Callable[[dict], None]) -> None:
        updated = copy.deepcopy(item.obj)
        change(updated.setdefault("metadata", {}))
        try:
            self.client.update(item.rt, item.namespace, updated)
        except (Conflict, NotFound):
            pass  # changed meanwhile: the next sync looks again


def _owner_uids_of(text: str) -> set[str]:
    try:
        refs = (orjson.loads(text).get("metadata") or {}).get("ownerReferences") or []
    except (orjson.JSONDecodeError, AttributeError):
        return set()
    return {str(ref.get("uid", "")) for ref in refs if isinstance(ref, dict)} if isinstance(refs, list) else set()


def _uid_of(text: str) -> str | None:
    try:
        md = orjson.loads(text).get("metadata")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    uid = md.get("uid") if isinstance(md, dict) else None
    return uid if isinstance(uid, str) else None
