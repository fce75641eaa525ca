"""What the simulation's StatefulSet, DaemonSet, Job, CronJob and endpoints controllers share: owner references,
pod states as the reference's controllers read them, template hashes, ControllerRevisions and status writes."""

from __future__ import annotations

import copy
import hashlib
import logging
import uuid
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from ...errors import AlreadyExists, ApiError, Conflict, NotFound
from ...selectors import label_selector_from_object
from ..base import Controller

if TYPE_CHECKING:
    from ...catalog import ResourceType
    from ...registry.informer import Change
    from ..base import Client, Context

log = logging.getLogger(__name__)

#: the label of a ControllerRevision's hash on the pods of a StatefulSet or DaemonSet (no domain: upstream's too)
REVISION_HASH_LABEL = "controller-revision-hash"
#: characters of the reference's SafeEncodeString (no vowels, no look-alikes)
_SAFE = "bcdfghjklmnpqrstvwxz2456789"


def plain_kind(ctx: Context, group: str, plural: str) -> ResourceType:
    """A kind of a group without the domain (apps, batch): `Context.kind` names groups under the domain."""
    rt = ctx.registry.catalog.lookup(group, "v1", plural)
    assert rt is not None, f"{plural}.{group} is not in the catalog"
    return rt


def meta(obj: dict) -> dict:
    md = obj.get("metadata")
    return md if isinstance(md, dict) else {}


def spec(obj: dict) -> dict:
    value = obj.get("spec")
    return value if isinstance(value, dict) else {}


def status(obj: dict) -> dict:
    value = obj.get("status")
    return value if isinstance(value, dict) else {}


def timestamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: object) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


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


def active(pod: dict) -> bool:
    """The reference's IsPodActive: not finished and not being deleted."""
    return not finished(pod) and not terminating(pod)


def ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status(pod).get("conditions") or [])


def running_and_ready(pod: dict) -> bool:
    return status(pod).get("phase") == "Running" and ready(pod)


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


def record_event(client: Client, obj: dict, event_type: str, reason: str, message: str, component: str) -> None:
    """A core v1 Event about `obj` from `component`, as the reference's recorder writes it (best effort)."""
    md = meta(obj)
    namespace = str(md.get("namespace") or "default")
    stamp = timestamp(client.ctx.clock())
    event = {
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
    try:
        client.create(client.ctx.kind("", "events"), namespace, event)
    except ApiError:
        pass  # best effort, as the reference's recorder: e.g. the namespace is terminating
