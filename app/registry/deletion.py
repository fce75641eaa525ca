"""What a delete answers and checks: preconditions, the garbage collector's finalizers, the body of a delete."""

from __future__ import annotations

from ..catalog import ResourceType
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
