"""garbagecollector: dependents follow their owners (`metadata.ownerReferences`), as the reference's collector.

- A dependent whose owners are all gone (no object with the referenced uid), or wait in foreground deletion, is
  deleted: in the foreground when an owner waits and it has dependents of its own, else in the background.
- A dependent with some owners gone and some alive loses the references to the gone ones.
- An owner deleted with `propagationPolicy: Foreground` carries the `foregroundDeletion` finalizer: its
  dependents are deleted, and the finalizer goes once no dependent with `blockOwnerDeletion` is left.
- An owner deleted with `Orphan` carries the `orphan` finalizer: its dependents lose their reference to it,
  then the finalizer goes.
A reference to a kind the server does not serve is left alone (the owner may be served elsewhere); a
cluster-scoped dependent of a namespaced owner, or an owner of the same name with another uid, is gone.

How (the reference's GraphBuilder and work queues): the dependency graph (app/controllers/gc_graph.py) is built
once from a list of every kind, then kept from the changes the loop takes (`observe`); a change that alters
ownership or deletion state queues the uids concerned, and a sync works those queues only, so the cost follows
the changes, not the store's size. Before deleting or rewriting, the dependent is read live, and an owner the
graph has not seen is read live by name (a list or the feed may lag a moment behind: the reference's
isDangling). Driven by hand (no loop following changes), each sync lists everything again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import orjson

from ..catalog import ResourceType
from ..errors import ApiError, Conflict, NotFound
from ..registry.deletion import FOREGROUND_FINALIZER, ORPHAN_FINALIZER
from ..registry.informer import Change
from ..registry.keys import resource_prefix
from ..registry.options import ListOptions
from .base import Context, Controller
from .gc_graph import Graph, Node, OwnerRef, Work, owner_refs

log = logging.getLogger(__name__)

#: objects per page of the initial list (bounds the memory a start-up list takes at once; each page counts the rest)
LIST_PAGE = 10_000
#: attempts run at once (the reference runs 20 workers): a cascade waits on the store, not on the CPU
ATTEMPT_WORKERS = 8
_MARKERS = ('"ownerReferences"', '"deletionTimestamp"')


class GarbageCollector(Controller):
    name = "garbagecollector"
    account = "generic-garbage-collector"
    resync_seconds = 30.0
    #: a sync costs what its changes cost: a short pause is enough to take a burst's changes together
    min_sync_interval = 0.05

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.by_kind: dict[tuple[str, str], ResourceType] = {}
        self.by_prefix: dict[str, ResourceType] = {}
        #: storage-key prefixes of no served kind, the catalog caught up once for each
        self._unserved: set[str] = set()
        self._definitions = f"/{ctx.naming.group('apiextensions')}/customresourcedefinitions/"
        self._definitions_changed = False
        self._pool: ThreadPoolExecutor | None = None
        #: the attempts run in a pool: the graph changes they make, and their reads of its sets, hold this
        self._lock = threading.Lock()
        self._kinds_seen: frozenset[tuple[str, str]] = frozenset()
        #: None until built from a list (and again when the loop's feed is re-opened: changes were missed)
        self.graph: Graph | None = None
        #: whether the loop hands the changes in (`observe`); without it every sync lists everything
        self.following = False
        self.pending = Work()
        #: dependents left alone for an owner kind not served, by (group, kind): looked at when it is served
        self._waiting_for_kind: dict[tuple[str, str], set[str]] = {}

    def watched_keys(self) -> list[str]:
        return ["/"]  # every stored object may own or depend on another

    def relevant(self, change: Change) -> bool:
        """Only what can change the graph: an object that has or had owners or is being deleted, and every
        deletion (it may be an owner's). Most writes carry neither and wake nothing (runs in the hub's thread)."""
        if change.type == "DELETED" or change.key.startswith(self._definitions):
            return True  # a definition's change may serve or retire a kind
        return any(marker in change.data for marker in _MARKERS) or (
            change.prev is not None and '"ownerReferences"' in change.prev
        )

    # -- following --------------------------------------------------------------------------------------

    def feed_opened(self, opened: bool) -> None:
        """The loop opened its feed (it hands in every relevant change from now on: list again) or closed it."""
        self.following = opened
        self.graph = None
        if not opened and self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        self.pending = Work()
        self._waiting_for_kind = {}

    def observe(self, changes: list[Change]) -> None:
        """Changes in commit order, taken by the loop since the last ones: into the graph, and their work queued."""
        graph = self.graph
        if graph is None:
            return  # the next sync lists, after these changes
        for change in changes:
            if change.key.startswith(self._definitions):
                self._definitions_changed = True  # and the definition itself may own or depend, as any object
            try:
                obj = orjson.loads(change.data)
            except orjson.JSONDecodeError:
                continue
            md = obj.get("metadata") if isinstance(obj, dict) else None
            if not isinstance(md, dict):
                continue
            if change.type == "DELETED":
                self.pending |= graph.remove(str(md.get("uid", "")), owner_refs(md))
                continue
            rt = self._kind_at(change.key)
            node = Node.of(rt, obj) if rt is not None else None
            if node is not None:
                node.rv = change.rv
                self.pending |= graph.observe(node)

    def _kind_at(self, key: str) -> ResourceType | None:
        """The kind a storage key holds (the catalog caught up once for a kind defined a moment ago)."""
        prefix = "/".join(key.split("/", 3)[:3]) + "/"
        rt = self.by_prefix.get(prefix)
        if rt is None and prefix not in self._unserved:
            self.ctx.registry.catalog.catch_up()
            self._refresh_kinds()
            rt = self.by_prefix.get(prefix)
            if rt is None:
                self._unserved.add(prefix)  # asked once until the served kinds change
        return rt

    # -- syncing ----------------------------------------------------------------------------------------

    def sync(self) -> None:
        if self._definitions_changed:  # the catalog may not have applied the definition yet
            self._definitions_changed = False
            self.ctx.registry.catalog.catch_up()
        self._refresh_kinds()
        if self.graph is None or not self.following:
            self.graph, self.pending = Graph.build(self._list_everything())
            self._waiting_for_kind = {}
        graph = self.graph
        while self.pending:  # the work of one pass may queue more (a dependent of a waiting owner)
            work, self.pending = self.pending, Work()
            retry = Work()
            for uid in work.orphan:
                self._guarded(self._orphan_dependents, graph, uid, retry.orphan)
            self._attempt_all(graph, work.attempt, retry.attempt)
            if retry:  # changed meanwhile: the change that raced wakes the next sync
                self.pending |= retry
                break

    def _attempt_all(self, graph: Graph, uids: set[str], retry: set[str]) -> None:
        """Each uid's attempt, several at once (as the reference's workers): most of an attempt is waiting for
        the store (a read, a delete), and a cascade is as many attempts as dependents."""
        if len(uids) < 2:
            for uid in uids:
                self._guarded(self._attempt, graph, uid, retry)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(ATTEMPT_WORKERS, thread_name_prefix=f"{self.name}-attempt")
        for done in [self._pool.submit(self._guarded, self._attempt, graph, uid, retry) for uid in uids]:
            done.result()  # an outage fails the round: the loop starts over

    def _guarded(self, step: Callable[[Graph, str], bool], graph: Graph, uid: str, retry: set[str]) -> None:
        """One item's step; kept for the next pass when it ran into a concurrent write."""
        try:
            if not step(graph, uid):
                retry.add(uid)
        except Conflict:
            retry.add(uid)
        except NotFound:
            pass  # gone meanwhile: its deletion comes as a change
        except ApiError as err:  # refused (invalid, forbidden): one object's fault must not stop the others
            log.warning("garbage collector: %s on %s: %s", type(err).__name__, uid, err)

    def _refresh_kinds(self) -> None:
        """Custom kinds come and go with their definitions: read from the live catalog."""
        kinds = [rt for rt in self.ctx.registry.catalog.storage_types() if not rt.virtual and "list" in rt.verbs]
        seen = frozenset((rt.group, rt.kind) for rt in kinds)
        if seen == self._kinds_seen:
            return
        self.by_kind = {(rt.group, rt.kind): rt for rt in kinds}
        self.by_prefix = {resource_prefix(rt): rt for rt in kinds}
        self._unserved = set()
        for kind in seen - self._kinds_seen:
            self.pending.attempt |= self._waiting_for_kind.pop(kind, set())
        self._kinds_seen = seen

    def _list_everything(self) -> Iterator[Node]:
        """Every stored object, read as the reference's shared informers read (the controller manager's own
        list/watch grant), page by page; the writes go through the collector's identity."""
        registry = self.ctx.registry
        for rt in list(self.by_kind.values()):
            token = ""
            while True:
                page = registry.list(rt, None, ListOptions(limit=LIST_PAGE, continue_token=token))
                for text in page.items:
                    node = Node.of(rt, orjson.loads(text))
                    if node is not None:
                        yield node
                token = page.continue_token
                if not token:
                    break

    # -- the work ---------------------------------------------------------------------------------------

    def _attempt(self, graph: Graph, uid: str) -> bool:
        """A node whose owners changed state: delete it or drop dead references; an owner in foreground deletion:
        drop its finalizer once nothing blocks it. False: to be tried again."""
        node = graph.nodes.get(uid)
        if node is None:
            return True
        if node.owners and not self._follow_owners(graph, node):
            return False
        node = graph.nodes.get(uid)
        if node is None or not node.deleting_dependents:
            return True
        with self._lock:
            blocked = bool(graph.blocking_dependents(uid))
        if not blocked:
            return self._write(node, lambda md: _drop_finalizer(md, FOREGROUND_FINALIZER))
        return True

    def _follow_owners(self, graph: Graph, node: Node) -> bool:
        latest = self._read(node)
        if latest is None:
            return True  # gone: its deletion comes as a change
        md = latest.get("metadata") or {}
        if md.get("deletionTimestamp") and FOREGROUND_FINALIZER not in (md.get("finalizers") or []):
            return True  # already going
        refs = [r for r in md.get("ownerReferences") or [] if isinstance(r, dict)]
        gone: list[dict] = []
        alive, waiting, unknown = 0, 0, 0
        for ref in refs:
            state = self._owner_state(graph, node, OwnerRef.parse(ref))
            if state == "gone":
                gone.append(ref)
            elif state == "waiting":
                waiting += 1
            elif state == "unknown":
                unknown += 1
            else:
                alive += 1
        if not gone and not waiting:
            return True
        if not alive and not unknown:
            if not md.get("deletionTimestamp"):  # in the foreground only when it has dependents of its own to wait for
                self._delete(node, "Foreground" if waiting and graph.dependents.get(node.uid) else "Background")
            return True
        if gone:  # some owners live on: forget the ones that are gone

            def keep(meta: dict) -> bool:
                rest = [r for r in meta.get("ownerReferences") or [] if r not in gone]
                _set_or_pop(meta, "ownerReferences", rest)
                return True

            return self._write(node, keep)
        return True

    def _owner_state(self, graph: Graph, dependent: Node, ref: OwnerRef) -> str:
        """alive, waiting (in foreground deletion), gone, or unknown (a kind not served)."""
        rt = self.by_kind.get((ref.group, ref.kind))
        if rt is None:
            with self._lock:
                self._waiting_for_kind.setdefault((ref.group, ref.kind), set()).add(dependent.uid)
            return "unknown"
        if rt.namespaced and dependent.namespace is None:
            return "gone"  # a cluster-scoped object cannot depend on a namespaced one
        if graph.is_absent(ref.uid):
            return "gone"
        owner = graph.nodes.get(ref.uid)
        if owner is None:  # not seen by the graph: read it (the reference's isDangling)
            current = self.client.find(rt, dependent.namespace if rt.namespaced else None, ref.name)
            found = Node.of(rt, current) if current is not None else None
            if found is None or found.uid != ref.uid:
                return "gone"
            with self._lock:
                self.pending |= graph.observe(found)
            owner = found
        if owner.namespace not in (None, dependent.namespace):
            return "gone"
        return "waiting" if owner.deleting_dependents else "alive"

    def _orphan_dependents(self, graph: Graph, uid: str) -> bool:
        """An owner deleted with `Orphan`: its dependents lose their reference to it, then its finalizer goes."""
        owner = graph.nodes.get(uid)
        if owner is None or not owner.orphaning:
            return True

        def release(meta: dict) -> bool:
            refs = meta.get("ownerReferences") or []
            rest = [r for r in refs if not (isinstance(r, dict) and r.get("uid") == uid)]
            _set_or_pop(meta, "ownerReferences", rest)
            return len(rest) != len(refs)

        for dependent in graph.dependents_of(uid):
            if not self._write(dependent, release):
                return False
        return self._write(owner, lambda md: _drop_finalizer(md, ORPHAN_FINALIZER))

    # -- reading and writing --------------------------------------------------------------------------

    def _read(self, node: Node) -> dict | None:
        """The object as stored now, if it is still the incarnation the node stands for."""
        current = self.client.find(node.rt, node.namespace, node.name)
        if current is None or (current.get("metadata") or {}).get("uid") != node.uid:
            return None
        return current

    def _delete(self, node: Node, propagation: str) -> None:
        try:
            self.client.delete(node.rt, node.namespace, node.name, node.uid, propagation=propagation)
        except (Conflict, NotFound):
            pass  # another incarnation, or gone meanwhile

    def _write(self, node: Node, change: Callable[[dict], bool]) -> bool:
        """Update the live object with `change` (which says whether it changed anything); False on a conflict."""
        current = self._read(node)
        if current is None or not change(current.setdefault("metadata", {})):
            return True
        try:
            self.client.update(node.rt, node.namespace, current)
        except NotFound:
            return True
        except Conflict:
            return False
        return True


def _drop_finalizer(md: dict, finalizer: str) -> bool:
    finalizers = md.get("finalizers") or []
    if finalizer not in finalizers:
        return False
    _set_or_pop(md, "finalizers", [f for f in finalizers if f != finalizer])
    return True


def _set_or_pop(md: dict, field: str, values: list) -> None:
    if values:
        md[field] = values
    else:
        md.pop(field, None)
