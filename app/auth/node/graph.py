"""The node authorizer's graph: which node may read which object, kept live from the change stream.

Edges, as the reference's: a pod bound to a node links that node to the secrets, config maps, claims and
service account the pod references; a persistent volume links to its claim; a volume attachment to its node.
A pod's change costs its own references (its old edges out, its new ones in), never a rebuild. Each worker
has one graph, filled by listing on first use (not at start: readiness waits for nothing) and again whenever
the follower is lost, and fed by the watch hub, which sees the commits of every worker and replica.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson

from ...registry.informer import Change, Follower
from ...registry.keys import resource_prefix
from ...registry.options import ListOptions

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.store import Registry

SECRET, CONFIGMAP, CLAIM, SERVICE_ACCOUNT = "secret", "configmap", "persistentvolumeclaim", "serviceaccount"

#: (kind, namespace, name) of an object a pod references
Ref = tuple[str, str, str]


@dataclass(frozen=True)
class PodEdges:
    node: str
    refs: frozenset[Ref]


def _names(items: object, *path: str) -> Iterator[str]:
    """The non-empty strings at `path` inside each dict of a list."""
    for item in items if isinstance(items, list) else ():
        value: object = item
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            yield value


def _volume_refs(pod_name: str, volume: dict) -> Iterator[tuple[str, str]]:
    if isinstance(volume.get("secret"), dict):
        yield from ((SECRET, n) for n in _names([volume["secret"]], "secretName"))
    if isinstance(volume.get("configMap"), dict):
        yield from ((CONFIGMAP, n) for n in _names([volume["configMap"]], "name"))
    if isinstance(volume.get("persistentVolumeClaim"), dict):
        yield from ((CLAIM, n) for n in _names([volume["persistentVolumeClaim"]], "claimName"))
    if isinstance(volume.get("ephemeral"), dict) and volume.get("name"):
        yield CLAIM, f"{pod_name}-{volume['name']}"  # the claim the ephemeral volume controller makes
    projected = volume.get("projected")
    sources = projected.get("sources") if isinstance(projected, dict) else None
    yield from ((SECRET, n) for n in _names(sources, "secret", "name"))
    yield from ((CONFIGMAP, n) for n in _names(sources, "configMap", "name"))
    for source in volume.values():  # csi, cephfs, rbd, azureFile, flexVolume, ... name their secrets so
        if isinstance(source, dict):
            yield from ((SECRET, n) for n in _names([source], "nodePublishSecretRef", "name"))
            yield from ((SECRET, n) for n in _names([source], "secretRef", "name"))


def _container_refs(container: dict) -> Iterator[tuple[str, str]]:
    env = container.get("env")
    yield from ((SECRET, n) for n in _names(env, "valueFrom", "secretKeyRef", "name"))
    yield from ((CONFIGMAP, n) for n in _names(env, "valueFrom", "configMapKeyRef", "name"))
    env_from = container.get("envFrom")
    yield from ((SECRET, n) for n in _names(env_from, "secretRef", "name"))
    yield from ((CONFIGMAP, n) for n in _names(env_from, "configMapRef", "name"))


def pod_edges(pod: dict) -> PodEdges | None:
    """What a pod links its node to; None for a pod bound to no node (it gives no node anything)."""
    spec: dict = pod["spec"] if isinstance(pod.get("spec"), dict) else {}
    node = spec.get("nodeName")
    if not isinstance(node, str) or not node:
        return None
    md = pod.get("metadata") or {}
    namespace, name = md.get("namespace", ""), md.get("name", "")
    found: set[tuple[str, str]] = set()
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if isinstance(account, str) and account:
        found.add((SERVICE_ACCOUNT, account))
    found.update((SECRET, n) for n in _names(spec.get("imagePullSecrets"), "name"))
    for volume in spec.get("volumes") or []:
        if isinstance(volume, dict):
            found.update(_volume_refs(name, volume))
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(field) or []:
            if isinstance(container, dict):
                found.update(_container_refs(container))
    return PodEdges(node, frozenset((kind, namespace, ref) for kind, ref in found))


class NodeGraph:
    """The edges from nodes to the objects they may read (see the module's docstring)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._prefixes: dict[str, ResourceType] = {}  # the followed kinds, by key prefix (known at first use)
        self._lock = threading.RLock()
        self._follower: Follower | None = None
        self._clear()

    def _kinds(self) -> None:
        catalog = self.registry.catalog
        self._pods_rt = catalog.known_type("", "v1", "pods")
        self._pvs_rt = catalog.known_type("", "v1", "persistentvolumes")
        self._attachments_rt = catalog.lookup(self.registry.naming.group("storage"), "v1", "volumeattachments")
        kinds = [rt for rt in (self._pods_rt, self._pvs_rt, self._attachments_rt) if rt is not None]
        self._prefixes = {resource_prefix(rt): rt for rt in kinds}

    def _clear(self) -> None:
        self._pods: dict[str, PodEdges] = {}  # pod key -> its edges
        self._readers: dict[Ref, Counter[str]] = {}  # referenced object -> node -> pods of it referencing it
        self._volume_claims: dict[str, tuple[str, str]] = {}  # persistent volume -> (namespace, claim)
        self._attachments: dict[str, str] = {}  # volume attachment -> node
        self._revisions: dict[str, int] = {}  # key -> revision last applied: an older change never goes back
        self._loading = False
        #: changes from the hub's thread not applied yet: it never waits for a listing (it serves every watch)
        self._pending: deque[Change] = deque()

    # -- questions ------------------------------------------------------------------------------------------

    def may_read(self, node: str, kind: str, namespace: str, name: str) -> bool:
        """Whether an edge leads from `node` to this object (kind: secret, configmap, persistentvolumeclaim,
        serviceaccount, persistentvolume, volumeattachment)."""
        self._ensure()
        with self._lock:
            self._drain()
            if kind == "persistentvolume":
                claim = self._volume_claims.get(name)
                return claim is not None and self._readers.get((CLAIM, *claim), Counter())[node] > 0
            if kind == "volumeattachment":
                return self._attachments.get(name) == node
            return self._readers.get((kind, namespace, name), Counter())[node] > 0

    def size(self) -> dict[str, int]:
        """How much the graph holds (what a worker's memory pays for it)."""
        with self._lock:
            return {
                "pods": len(self._pods),
                "references": len(self._readers),
                "persistentvolumes": len(self._volume_claims),
                "volumeattachments": len(self._attachments),
            }

    # -- following ------------------------------------------------------------------------------------------

    def _ensure(self) -> None:
        follower = self._follower
        if follower is not None and not follower.lost:
            return
        with self._lock:
            if self._follower is not None and not self._follower.lost:
                return
            self._load()

    def _load(self) -> None:
        """Follow, then list: a change made while listing comes twice at worst; revisions keep the newer."""
        self._clear()
        if not self._prefixes:
            self._kinds()
        self._loading = True
        if self.registry.hub is not None:
            if self._follower is None:
                self._follower = Follower(self.registry, tuple(self._prefixes), self._changed)
            self._follower.open()
        for prefix, rt in self._prefixes.items():
            for text in self._list(rt):
                obj = orjson.loads(text)
                md = obj.get("metadata") or {}
                key = prefix + (f"{md.get('namespace')}/" if rt.namespaced else "") + md.get("name", "")
                self._apply(key, obj, int(md.get("resourceVersion") or 0))
        self._drain()
        self._loading = False

    def _list(self, rt: ResourceType) -> list[str]:
        return self.registry.list(rt, None, ListOptions()).items

    def _changed(self, change: Change) -> None:
        self._pending.append(change)
        if self._lock.acquire(blocking=False):  # else the holder, or the next question, applies it
            try:
                self._drain()
            finally:
                self._lock.release()

    def _drain(self) -> None:
        while self._pending:
            change = self._pending.popleft()
            obj = None if change.type == "DELETED" else orjson.loads(change.data)
            self._apply(change.key, obj, change.rv)

    def _apply(self, key: str, obj: dict | None, revision: int) -> None:
        """Set (or, obj None, remove) the edges of the object at `key`."""
        if revision < self._revisions.get(key, 0):
            return
        if obj is not None or self._loading:  # a deletion is remembered only while listing may still bring it back
            self._revisions[key] = revision
        else:
            self._revisions.pop(key, None)
        prefix = next((p for p in self._prefixes if key.startswith(p)), "")
        rest = key[len(prefix) :]
        rt = self._prefixes.get(prefix)
        if rt is self._pods_rt:
            self._set_pod(key, pod_edges(obj) if obj is not None else None)
        elif rt is self._pvs_rt:
            ref = ((obj or {}).get("spec") or {}).get("claimRef")
            if isinstance(ref, dict) and ref.get("name"):
                self._volume_claims[rest] = (str(ref.get("namespace") or ""), str(ref["name"]))
            else:
                self._volume_claims.pop(rest, None)
        elif rt is not None:
            node = ((obj or {}).get("spec") or {}).get("nodeName")
            if isinstance(node, str) and node:
                self._attachments[rest] = node
            else:
                self._attachments.pop(rest, None)

    def _set_pod(self, key: str, edges: PodEdges | None) -> None:
        old = self._pods.pop(key, None)
        if old is not None:
            for ref in old.refs:
                readers = self._readers[ref]
                readers[old.node] -= 1
                if readers[old.node] <= 0:
                    del readers[old.node]
                    if not readers:
                        del self._readers[ref]
        if edges is not None:
            self._pods[key] = edges
            for ref in edges.refs:
                self._readers.setdefault(ref, Counter())[edges.node] += 1

    def close(self) -> None:
        if self._follower is not None:
            self._follower.close()
