"""What the ReplicaSet and Deployment controllers share: a per-namespace work queue fed by the watch, a client
that can patch, events, conditions, pod readiness and the reference's int-or-percent arithmetic."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson

from ...errors import ApiError
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


def apps_kind(ctx: Context, plural: str) -> ResourceType:
    """An `apps/v1` kind (the apps group carries no domain, unlike what `Context.kind` names)."""
    rt = ctx.registry.catalog.lookup("apps", "v1", plural)
    assert rt is not None, f"{plural}.apps is not in the catalog"
    return rt


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
    md = meta(owner)
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "name": md["name"],
        "uid": md["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


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
    """Neither finished nor being deleted (the reference's FilterActivePods)."""
    return status(pod).get("phase") not in ("Succeeded", "Failed") and not meta(pod).get("deletionTimestamp")


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
        md = meta(obj)
        now = self.now()
        event: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{md.get('name')}.{time.time_ns():x}", "namespace": md.get("namespace")},
            "involvedObject": {
                "apiVersion": "apps/v1",
                "kind": kind,
                "name": md.get("name"),
                "namespace": md.get("namespace"),
                "uid": md.get("uid"),
                "resourceVersion": md.get("resourceVersion"),
            },
            "reason": reason,
            "message": message,
            "type": event_type,
            "source": {"component": self.component},
            "firstTimestamp": rfc3339(now),
            "lastTimestamp": rfc3339(now),
            "count": 1,
            "reportingComponent": self.component,
            "reportingInstance": "",
        }
        try:
            self.client.create(self.ctx.kind("", "events"), md.get("namespace"), event)
        except ApiError as err:
            log.info("event %s for %s/%s not recorded: %s", reason, md.get("namespace"), md.get("name"), err)
