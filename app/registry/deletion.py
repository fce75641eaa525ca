"""What a delete answers and checks: preconditions, the garbage collector's finalizers, the body of a delete,
and graceful deletion (pods bound to a node stay terminating until their node agent deletes them with grace 0)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..catalog import ResourceType, Strategy
from ..errors import Conflict
from ..storage.store import Stored
from .options import DeleteOptions


def check_preconditions(rt: ResourceType, name: str, md: dict, current: Stored, opts: DeleteOptions) -> None:
    if opts.precondition_uid and opts.precondition_uid != md.get("uid"):
        raise Conflict(
            rt.kind,
            "",
            name,
            f"the UID in the precondition ({opts.precondition_uid}) does not "
            f"match the UID in record ({md.get('uid')}). The object might have been deleted and "
            "then recreated",
        )
    if opts.precondition_rv and str(opts.precondition_rv) != str(current.rv):
        raise Conflict(
            rt.kind,
            "",
            name,
            f"the ResourceVersion in the precondition ({opts.precondition_rv}) "
            f"does not match the ResourceVersion in record ({current.rv}). The object might have "
            "been modified",
        )


def deleted_body(rt: ResourceType, obj: dict) -> dict:
    if rt.return_deleted_object:
        return obj
    md = obj.get("metadata") or {}
    details = {"name": md.get("name"), "group": rt.group, "kind": rt.plural, "uid": md.get("uid")}
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {k: v for k, v in details.items() if v},
    }


#: finalizers the garbage collector honours (app/controllers/garbagecollector.py)
FOREGROUND_FINALIZER, ORPHAN_FINALIZER = "foregroundDeletion", "orphan"


def add_gc_finalizer(md: dict, opts: DeleteOptions) -> None:
    """Foreground keeps the object until its blocking dependents are gone, Orphan until they are released."""
    policy = opts.propagation_policy or ("Orphan" if opts.orphan_dependents else None)
    finalizer = {"Foreground": FOREGROUND_FINALIZER, "Orphan": ORPHAN_FINALIZER}.get(policy or "")
    if finalizer is None:
        return
    finalizers = list(md.get("finalizers") or [])
    if finalizer not in finalizers:
        md["finalizers"] = [*finalizers, finalizer]


@dataclass(frozen=True)
class Graceful:
    """What a delete does about grace (the reference's BeforeDelete): `pending` answers the object as it is (a
    graceful deletion is under way and the request does not shorten it); `graceful` writes the object with the
    deletionTimestamp and deletionGracePeriodSeconds now in its metadata, and removes it only when `seconds` is 0."""

    graceful: bool = False
    pending: bool = False
    seconds: int = 0


def before_delete(strategy: Strategy, obj: dict, opts: DeleteOptions, now: datetime | None = None) -> Graceful:
    """Set the graceful deletion's timestamp and grace on `obj` (in place) as the reference does."""
    md = obj.setdefault("metadata", {})
    now = (now or datetime.now(UTC)).replace(microsecond=0)
    requested = opts.grace_period_seconds
    if requested is not None and requested < 0:
        requested = 1  # negative values mean the shortest graceful deletion, as the reference's
    if md.get("deletionTimestamp"):
        current = int(md.get("deletionGracePeriodSeconds") or 0)
        if strategy.delete_grace_period(obj, requested) is None or current <= 0:
            return Graceful()  # terminating without grace: finalizers hold it, or it goes now
        if requested is None or requested >= current:
            return Graceful(pending=True)  # a grace period may only be shortened
        period = requested
        moved = _parse_time(md["deletionTimestamp"]) - timedelta(seconds=current) + timedelta(seconds=period)
        if moved < now:
            moved, period = now, (1 if period else 0)  # the whole grace has passed: the least graceful one
        md["deletionTimestamp"], md["deletionGracePeriodSeconds"] = _format_time(moved), period
        return Graceful(graceful=True, seconds=period)
    granted = strategy.delete_grace_period(obj, requested)
    if granted is None:
        return Graceful()
    md["deletionTimestamp"] = _format_time(now + timedelta(seconds=granted))
    md["deletionGracePeriodSeconds"] = granted
    if int(md.get("generation") or 0) > 0:
        md["generation"] = int(md["generation"]) + 1
    return Graceful(graceful=True, seconds=granted)


def removed_by_update(old_md: dict, new_md: dict, pending_finalizers: list[str]) -> bool:
    """A write of a terminating object removes it once nothing holds it, unless its graceful deletion (grace
    above 0) is under way: then its owner removes it with a delete of grace 0 (the reference's
    ShouldDeleteDuringUpdate)."""
    if not new_md.get("deletionTimestamp") or pending_finalizers:
        return False
    return int(old_md.get("deletionGracePeriodSeconds") or 0) <= 0


def _parse_time(text: str) -> datetime:
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _format_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
