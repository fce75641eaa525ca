"""What the simulation's workload controllers share (ReplicaSet, Deployment, StatefulSet, DaemonSet, Job, CronJob,
endpoints): object accessors, owner references, selectors, pod states as the reference's controllers read them,
template hashes, ControllerRevisions, status writes, events and the two loop shapes (a per-namespace work queue and
a level-triggered controller)."""

from __future__ import annotations

import copy
import hashlib
import logging
import math
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson

from ...errors import AlreadyExists, ApiError, Conflict, NotFound
from ...registry.keys import collection_prefix
from ...registry.patch import MERGE_PATCH
from ...selectors import label_selector_from_object
from ..base import Client, Context, Controller, controller_user

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.informer import Change

log = logging.getLogger(__name__)

#: the resync of a controller without anything due (the reference's informers resync rarely, if ever)
IDLE_RESYNC_SECONDS = 30.0
#: the label of a ControllerRevision's hash on the pods of a StatefulSet or DaemonSet (no domain: upstream's too)
REVISION_HASH_LABEL = "controller-revision-hash"
#: characters of the reference's SafeEncodeString (no vowels, no look-alikes)
_SAFE = "bcdfghjklmnpqrstvwxz2456789"


def plain_kind(ctx: Context, group: str, plural: str) -> ResourceType:
    """A kind of a group without the domain (apps, batch): `Context.kind` names groups under the domain."""
    rt = ctx.registry.catalog.lookup(group, "v1", plural)
    assert rt is not None, f"{plural}.{group} is not in the catalog"
    return rt


def apps_kind(ctx: Context, plural: str) -> ResourceType:
    return plain_kind(ctx, "apps", plural)


def rfc3339(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def meta(obj: dict) -> dict:
    md = obj.get("metadata")
    return md if isinstance(md, dict) else {}


def spec(obj: dict) -> dict:
    value = obj.get("spec")
    return value if isinstance(value, dict) else {}


def status(obj: dict) -> dict:
    value = obj.get("status")
    return value if isinstance(value, dict) else {}


def controller_of(obj: dict) -> dict | None:
    return next((r for r in meta(obj).get("ownerReferences") or [] if r.get("controller")), None)


def owner_reference(kind: str, owner: dict) -> dict:
    """The controller reference to an apps/v1 owner of `kind`."""
    return {**controller_ref(owner), "apiVersion": "apps/v1", "kind": kind}


def compile_selector(selector: object) -> Callable[[dict], bool]:
    """A workload's label selector as a test on labels; an empty or missing one selects nothing, as the
    reference's controllers treat it."""
    if not isinstance(selector, dict) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return lambda labels: False
    try:
        compiled = label_selector_from_object(selector)
    except (ValueError, ApiError):
        return lambda labels: False
    return lambda labels: compiled.matches(labels or {})


def scaled_value(value: object, total: int, round_up: bool) -> int:
    """The reference's GetScaledValueFromIntOrPercent: ints as they are, "N%" of total rounded up or down."""
    if isinstance(value, int):
        return value
    text = str(value or "0")
    if not text.endswith("%"):
        return int(text)
    scaled = int(text[:-1]) * total / 100
    return math.ceil(scaled) if round_up else math.floor(scaled)


def round_half_away(value: float) -> int:
    """Go's math.Round: halves away from zero (Python's round() goes to even)."""
    return math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1)


def condition(conditions: list[dict] | None, kind: str) -> dict | None:
    return next((c for c in conditions or [] if c.get("type") == kind), None)


def pod_ready_since(pod: dict) -> datetime | None:
    """When the pod became Ready, or None when it is not Ready."""
    ready = condition(status(pod).get("conditions"), "Ready")
    if ready is None or ready.get("status") != "True":
        return None
    return parse_time(ready.get("lastTransitionTime")) or datetime.min.replace(tzinfo=None)


def pod_ready(pod: dict) -> bool:
    return pod_ready_since(pod) is not None


def pod_available(pod: dict, min_ready_seconds: int, now: datetime) -> bool:
    """Ready for at least minReadySeconds (the reference's IsPodAvailable)."""
    since = pod_ready_since(pod)
    if since is None:
        return False
    if min_ready_seconds <= 0:
        return True
    return since.tzinfo is not None and since + timedelta(seconds=min_ready_seconds) < now


def pod_active(pod: dict) -> bool:
    """Neither finished nor being deleted (the reference's IsPodActive / FilterActivePods)."""
    return not finished(pod) and not terminating(pod)


def controller_ref(owner: dict) -> dict:
    md = meta(owner)
    return {
        "apiVersion": owner.get("apiVersion", ""),
        "kind": owner.get("kind", ""),
        "name": md.get("name", ""),
        "uid": md.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controlled_by(obj: dict, uid: str) -> bool:
    return any(r.get("controller") and r.get("uid") == uid for r in meta(obj).get("ownerReferences") or [])


def owned(objects: Iterable[dict], owner: dict) -> list[dict]:
    uid = meta(owner).get("uid", "")
    namespace = meta(owner).get("namespace")
    return [o for o in objects if meta(o).get("namespace") == namespace and controlled_by(o, uid)]


def by_namespace(objects: Iterable[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for obj in objects:
        out[str(meta(obj).get("namespace") or "")].append(obj)
    return out


def selects(selector: object, labels: dict | None) -> bool:
    """Whether a workload's structured selector selects `labels` (a malformed or absent one selects nothing)."""
    if not isinstance(selector, dict):
        return False
    try:
        return label_selector_from_object(selector).matches(labels or {})
    except ApiError:
        return False


def terminating(pod: dict) -> bool:
    return bool(meta(pod).get("deletionTimestamp"))


def finished(pod: dict) -> bool:
    return status(pod).get("phase") in ("Succeeded", "Failed")


def running_and_ready(pod: dict) -> bool:
    return status(pod).get("phase") == "Running" and pod_ready(pod)


def template_hash(template: object, collisions: int = 0) -> str:
    """A short, stable hash of a pod template as the reference's ComputeHash spells them (safe characters)."""
    data = orjson.dumps(template, option=orjson.OPT_SORT_KEYS) + str(collisions).encode()
    number = int.from_bytes(hashlib.blake2b(data, digest_size=4).digest(), "big")
    out = ""
    while len(out) < 10:
        number, digit = divmod(number, len(_SAFE))
        out += _SAFE[digit]
        if not number:
            break
    return out


def pod_from_template(template: dict, owner: dict, labels: dict | None = None) -> dict:
    """A pod of `owner` from its template: template metadata and spec, the controller reference."""
    tmd = meta(template)
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "labels": {**(tmd.get("labels") or {}), **(labels or {})},
            "ownerReferences": [controller_ref(owner)],
        },
        "spec": copy.deepcopy(spec(template)),
    }
    if tmd.get("annotations"):
        pod["metadata"]["annotations"] = copy.deepcopy(tmd["annotations"])
    if tmd.get("finalizers"):
        pod["metadata"]["finalizers"] = list(tmd["finalizers"])
    return pod


def write_status(client: Client, rt: ResourceType, obj: dict, new_status: dict) -> None:
    """Write `new_status` through the status subresource when it differs (a newer object wins the next round)."""
    if status(obj) == new_status:
        return
    try:
        client.update(rt, meta(obj).get("namespace"), {**obj, "status": new_status}, subresource="status")
    except (Conflict, NotFound):
        pass


def delete_quietly(client: Client, rt: ResourceType, obj: dict, propagation: str | None = None) -> bool:
    md = meta(obj)
    try:
        client.delete(rt, md.get("namespace"), md.get("name", ""), md.get("uid", ""), propagation=propagation)
    except (Conflict, NotFound):
        return False  # gone or replaced meanwhile
    return True


def create_quietly(client: Client, rt: ResourceType, namespace: str, obj: dict) -> dict | None:
    try:
        return client.create(rt, namespace, obj)
    except AlreadyExists:
        return None
    except ApiError as err:  # quota, admission or validation: the owner retries on its next round
        log.info("%s: creating %s in %s refused: %s", client.manager, rt.plural, namespace, err)
        return None


def ensure_revision(client: Client, rt: ResourceType, owner: dict, revisions: list[dict], hash_: str, name: str) -> int:
    """The ControllerRevision of `owner`'s current template (created when missing, numbered after the others):
    `kubectl rollout history/undo` read them."""
    highest = max((int(r.get("revision") or 0) for r in revisions), default=0)
    for rev in revisions:
        if meta(rev).get("name") != name:
            continue
        number = int(rev.get("revision") or 0)
        if number < highest:  # a template brought back (rollout undo) becomes the latest revision again
            try:
                client.update(rt, meta(rev).get("namespace"), {**rev, "revision": highest + 1})
            except (Conflict, NotFound):
                return number
            return highest + 1
        return number
    number = highest + 1
    template = copy.deepcopy(spec(owner).get("template") or {})
    template["$patch"] = "replace"
    body = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name,
            "namespace": meta(owner).get("namespace"),
            "labels": {**(meta(spec(owner).get("template") or {}).get("labels") or {}), REVISION_HASH_LABEL: hash_},
            "ownerReferences": [controller_ref(owner)],
        },
        "data": {"spec": {"template": template}},
        "revision": number,
    }
    create_quietly(client, rt, str(meta(owner).get("namespace")), body)
    return number


def prune_revisions(client: Client, rt: ResourceType, owner: dict, revisions: list[dict], live: set[str]) -> None:
    """Delete the oldest revisions no pod uses beyond spec.revisionHistoryLimit."""
    limit = int(spec(owner).get("revisionHistoryLimit") or 10)
    unused = sorted(
        (r for r in revisions if meta(r).get("name") not in live), key=lambda r: int(r.get("revision") or 0)
    )
    for rev in unused[: max(len(unused) - limit, 0)]:
        delete_quietly(client, rt, rev)


class PatchingClient(Client):
    """The controller client plus merge patches (adoption and release of dependents, as the reference patches)."""

    def patch(self, rt: ResourceType, namespace: str | None, name: str, body: dict) -> dict:
        attrs = self._authorize("patch", rt, namespace, name)
        data = orjson.dumps(body)
        return self._write(
            attrs,
            200,
            lambda: self.ctx.registry.patch(rt, namespace, name, MERGE_PATCH, data, manager=self.manager),
        )


class NamespaceQueue(Controller):
    """A controller that reconciles the namespaces whose watched objects changed, everything at (re)subscription
    and on an idle resync, and namespaces with something time-driven due (minReadySeconds, deadlines) on time."""

    resync_seconds = IDLE_RESYNC_SECONDS
    min_sync_interval = 0.02
    #: the component name in events (`source.component`)
    component = ""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        if ctx.auth is not None:
            self.client = PatchingClient(ctx, controller_user(ctx.naming, self.account))
        else:
            self.client = PatchingClient(ctx, None)
        self._lock = threading.Lock()
        self._dirty: set[str] = set()
        self._full = True
        self._due: dict[str, float] = {}  # namespace -> monotonic time something time-driven falls due

    @property
    def patcher(self) -> PatchingClient:
        assert isinstance(self.client, PatchingClient)
        return self.client

    def watched_keys(self) -> list[str]:
        with self._lock:
            self._full = True  # a new subscription may have missed changes: look at everything once
        return super().watched_keys()

    def relevant(self, change: Change) -> bool:
        for rt in self.watches():
            prefix = collection_prefix(rt, None)
            if change.key.startswith(prefix):
                with self._lock:
                    self._dirty.add(change.key[len(prefix) :].split("/", 1)[0])
                return True
        return True

    def due_in(self, namespace: str, seconds: float) -> None:
        """Reconcile `namespace` again after `seconds` even if nothing changes."""
        when = time.monotonic() + max(seconds, 0.05)
        with self._lock:
            self._due[namespace] = min(self._due.get(namespace, when), when)

    def sync(self) -> None:
        now = time.monotonic()
        with self._lock:
            full, dirty = self._full, self._dirty
            self._full, self._dirty = False, set()
            due = {ns for ns, when in self._due.items() if when <= now}
            self._due = {ns: when for ns, when in self._due.items() if when > now}
        if full or not (dirty or due):
            namespaces: set[str] | None = None  # start, resync: all of them
        else:
            namespaces = dirty | due
        try:
            self.reconcile(namespaces)
        except Exception:
            with self._lock:  # try these again next round
                self._full = self._full or namespaces is None
                self._dirty |= namespaces or set()
            raise
        finally:
            self._schedule()

    def _schedule(self) -> None:
        """Wake the loop when the earliest due namespace falls due (the loop waits at most resync_seconds)."""
        with self._lock:
            earliest = min(self._due.values(), default=None)
        if earliest is None:
            self.resync_seconds = IDLE_RESYNC_SECONDS
        else:
            self.resync_seconds = max(0.05, min(IDLE_RESYNC_SECONDS, earliest - time.monotonic()))

    def reconcile(self, namespaces: set[str] | None) -> None:
        raise NotImplementedError

    def record(self, obj: dict, kind: str, event_type: str, reason: str, message: str) -> None:
        """A core/v1 Event about `obj`, as the reference's recorder writes it; failures only logged."""
        involved = {**obj, "apiVersion": "apps/v1", "kind": kind}
        record_event(self.client, involved, event_type, reason, message, self.component, instance="")


class SimulationController(Controller):
    """A level-triggered simulation controller: event-driven, changes within `min_sync_interval` taken together."""

    resync_seconds = 10.0
    min_sync_interval = 0.05
    #: the owner kinds whose children's changes matter (checked in the change's text, cheaply)
    owner_kinds: tuple[str, ...] = ()

    def relevant(self, change: Change) -> bool:
        if not self.owner_kinds:
            return True
        text = change.data or change.prev or ""
        return any(f'"{kind}"' in text for kind in self.owner_kinds)


def record_event(
    client: Client,
    obj: dict,
    event_type: str,
    reason: str,
    message: str,
    component: str,
    *,
    now: datetime | None = None,
    instance: str | None = None,
    field_path: str | None = None,
    host: str | None = None,
) -> None:
    """A core v1 Event about `obj` (or its part at `field_path`, e.g. `spec.containers{app}`) from `component`
    (running on node `host`: a kubelet's), as the reference's recorder writes it (best effort)."""
    md = meta(obj)
    namespace = str(md.get("namespace") or "default")
    stamp = rfc3339(now or client.ctx.clock())
    event: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{md.get('name')}.{uuid.uuid4().hex[:16]}", "namespace": namespace},
        "involvedObject": {
            "apiVersion": obj.get("apiVersion"),
            "kind": obj.get("kind"),
            "namespace": namespace,
            "name": md.get("name"),
            "uid": md.get("uid"),
            "resourceVersion": md.get("resourceVersion"),
        },
        "type": event_type,
        "reason": reason,
        "message": message,
        "source": {"component": component},
        "reportingComponent": component,
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
    }
    if instance is not None:
        event["reportingInstance"] = instance
    if field_path is not None:
        event["involvedObject"]["fieldPath"] = field_path
    if host is not None:
        event["source"]["host"] = host
    try:
        client.create(client.ctx.kind("", "events"), namespace, event)
    except ApiError as err:  # best effort, as the reference's recorder: e.g. the namespace is terminating
        log.info("event %s for %s/%s not recorded: %s", reason, namespace, md.get("name"), err)
