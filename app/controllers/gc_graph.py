"""The garbage collector's dependency graph (the reference's GraphBuilder): who owns whom, built once from a list
of every kind and kept from the store's changes, so that the collector's work follows the changes.

Only the objects that matter to it are kept as nodes: those with owners, those some object names as its owner,
and those being deleted. An owner no node stands for (never seen, or seen when nobody named it) is "unobserved":
the collector reads it live before it decides anything on it (the reference's virtual nodes). The graph is
touched by the collector's own thread only.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..catalog import ResourceType
from ..registry.deletion import FOREGROUND_FINALIZER, ORPHAN_FINALIZER

#: uids known deleted, kept so that the dependents of a deleted owner need no read of it each
ABSENT_REMEMBERED = 10_000


@dataclass(frozen=True, slots=True)
class OwnerRef:
    """One entry of `metadata.ownerReferences`."""

    group: str
    kind: str
    name: str
    uid: str
    blocks: bool  # blockOwnerDeletion

    @classmethod
    def parse(cls, ref: dict) -> OwnerRef:
        group = str(ref.get("apiVersion", "")).rpartition("/")[0]
        return cls(
            group,
            str(ref.get("kind", "")),
            str(ref.get("name", "")),
            str(ref.get("uid", "")),
            bool(ref.get("blockOwnerDeletion")),
        )


def owner_refs(metadata: dict) -> tuple[OwnerRef, ...]:
    refs = metadata.get("ownerReferences")
    return tuple(OwnerRef.parse(r) for r in refs if isinstance(r, dict)) if isinstance(refs, list) else ()


@dataclass(slots=True)
class Node:
    """What the graph keeps of one object: its identity, owners and deletion state."""

    uid: str
    rt: ResourceType
    namespace: str | None
    name: str
    owners: tuple[OwnerRef, ...]
    deleting: bool
    finalizers: tuple[str, ...]
    rv: int

    @classmethod
    def of(cls, rt: ResourceType, obj: dict) -> Node | None:
        """The node of a stored object (None without a uid: nothing can name it)."""
        md = obj.get("metadata")
        if not isinstance(md, dict) or not md.get("uid"):
            return None
        finalizers = md.get("finalizers")
        return cls(
            uid=str(md["uid"]),
            rt=rt,
            namespace=str(md.get("namespace", "")) or None if rt.namespaced else None,
            name=str(md.get("name", "")),
            owners=owner_refs(md),
            deleting=bool(md.get("deletionTimestamp")),
            finalizers=tuple(str(f) for f in finalizers) if isinstance(finalizers, list) else (),
            rv=_int(md.get("resourceVersion")),
        )

    @property
    def deleting_dependents(self) -> bool:
        """Deleted in the foreground: waits for its blocking dependents to go."""
        return self.deleting and FOREGROUND_FINALIZER in self.finalizers

    @property
    def orphaning(self) -> bool:
        """Deleted with `Orphan`: its dependents are to be released first."""
        return self.deleting and ORPHAN_FINALIZER in self.finalizers

    def owner_ids(self) -> set[str]:
        return {ref.uid for ref in self.owners}


@dataclass
class Work:
    """What a change to the graph asks of the collector: uids to look at."""

    attempt: set[str] = field(default_factory=set)  # may have to be deleted, lose references, or lose a finalizer
    orphan: set[str] = field(default_factory=set)  # owners whose dependents are to be released

    def __ior__(self, other: Work) -> Work:
        self.attempt |= other.attempt
        self.orphan |= other.orphan
        return self

    def __bool__(self) -> bool:
        return bool(self.attempt or self.orphan)


class Graph:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        #: owner uid -> the uids of the nodes naming it (observed or not)
        self.dependents: dict[str, set[str]] = {}
        self._absent: OrderedDict[str, None] = OrderedDict()

    # -- building ---------------------------------------------------------------------------------------

    @classmethod
    def build(cls, listed: Iterable[Node]) -> tuple[Graph, Work]:
        """The graph of a full list, and what is pending in it: dependents whose owners were not listed or wait
        for them, owners being deleted in the foreground or with `Orphan` (a collector that starts resumes)."""
        graph = cls()
        every = {node.uid: node for node in listed}
        for node in every.values():
            for ref in node.owners:
                graph.dependents.setdefault(ref.uid, set()).add(node.uid)
        graph.nodes = {uid: node for uid, node in every.items() if graph._kept(node)}
        work = Work()
        for node in graph.nodes.values():
            if any(graph._unsettled(ref.uid, node) for ref in node.owners):
                work.attempt.add(node.uid)
            if node.deleting_dependents:
                work.attempt.add(node.uid)
                work.attempt |= graph.dependents.get(node.uid, set())
            if node.orphaning:
                work.orphan.add(node.uid)
        return graph, work

    def _kept(self, node: Node) -> bool:
        return bool(node.owners) or node.deleting or node.uid in self.dependents

    # -- following changes ------------------------------------------------------------------------------

    def observe(self, node: Node) -> Work:
        """An object as it now is (added, modified, or read live)."""
        old = self.nodes.get(node.uid)
        work = Work()
        if old is not None and node.rv and node.rv <= old.rv:
            return work  # older than what the graph holds: a list overtook the change
        old_owners = old.owners if old is not None else ()
        if node.owners != old_owners:
            old_ids, new_ids = ({r.uid for r in owners} for owners in (old_owners, node.owners))
            for uid in new_ids - old_ids:
                self.dependents.setdefault(uid, set()).add(node.uid)
            for uid in old_ids - new_ids:
                self._unlink(uid, node.uid)
            for uid in old_ids:  # a blocking reference may have gone: a waiting owner looks again
                owner = self.nodes.get(uid)
                if owner is not None and owner.deleting_dependents:
                    work.attempt.add(uid)
            if any(self._unsettled(uid, node) for uid in new_ids - old_ids):
                work.attempt.add(node.uid)
        if node.deleting_dependents and not (old is not None and old.deleting_dependents):
            work.attempt.add(node.uid)
            work.attempt |= self.dependents.get(node.uid, set())
        if node.orphaning and not (old is not None and old.orphaning):
            work.orphan.add(node.uid)
        if self._kept(node):
            self.nodes[node.uid] = node
        else:
            self.nodes.pop(node.uid, None)
        return work

    def remove(self, uid: str, owners: tuple[OwnerRef, ...]) -> Work:
        """An object deleted (`owners`: its last references, used when the graph had no node for it)."""
        work = Work()
        old = self.nodes.pop(uid, None)
        if old is not None:
            owners = old.owners
        for ref in owners:
            self._unlink(ref.uid, uid)
            owner = self.nodes.get(ref.uid)
            if owner is not None and owner.deleting_dependents:
                work.attempt.add(ref.uid)  # one blocking dependent fewer
        dependents = self.dependents.get(uid)
        if dependents or old is not None:
            self.mark_absent(uid)
        if dependents:
            work.attempt |= dependents  # they lost an owner
        return work

    def _unlink(self, owner_uid: str, dependent_uid: str) -> None:
        named_by = self.dependents.get(owner_uid)
        if named_by is None:
            return
        named_by.discard(dependent_uid)
        if not named_by:
            del self.dependents[owner_uid]
            owner = self.nodes.get(owner_uid)
            if owner is not None and not self._kept(owner):
                del self.nodes[owner_uid]

    def _unsettled(self, owner_uid: str, dependent: Node) -> bool:
        """An owner the collector must look at for this dependent: unobserved, deleted, waiting for its
        dependents, or in another namespace (a cluster-scoped dependent's owner must be cluster-scoped too)."""
        owner = self.nodes.get(owner_uid)
        return owner is None or owner.deleting_dependents or owner.namespace not in (None, dependent.namespace)

    # -- what the collector asks ------------------------------------------------------------------------

    def is_absent(self, uid: str) -> bool:
        return uid in self._absent

    def mark_absent(self, uid: str) -> None:
        self._absent[uid] = None
        self._absent.move_to_end(uid)
        while len(self._absent) > ABSENT_REMEMBERED:
            self._absent.popitem(last=False)

    def blocking_dependents(self, owner_uid: str) -> list[Node]:
        """The dependents that hold an owner deleted in the foreground (`blockOwnerDeletion`)."""
        found = []
        for uid in self.dependents.get(owner_uid, ()):
            node = self.nodes.get(uid)
            if node is not None and any(ref.uid == owner_uid and ref.blocks for ref in node.owners):
                found.append(node)
        return found

    def dependents_of(self, owner_uid: str) -> list[Node]:
        return [node for uid in self.dependents.get(owner_uid, ()) if (node := self.nodes.get(uid)) is not None]


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0
