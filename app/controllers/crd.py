"""crd: the reference's apiextensions controllers inside the API server (naming, establishing, finalizer).

- Names: a CRD's plural, singular, short names, kind and list kind are accepted unless an older CRD of the same
  group (or a built-in kind) holds them; `NamesAccepted` says which conflicts, `status.acceptedNames` what is in
  use. Once its names are accepted a CRD is `Established` and every worker serves it (the live catalog).
- Deletion: a terminating CRD has its objects deleted (`Terminating`), then its cleanup finalizer removed.
It writes as the API server does (loopback, no RBAC check), as the reference's apiextensions controllers do.
"""

from __future__ import annotations

import copy

import orjson

from ..catalog import ResourceType
from ..errors import Conflict, NotFound
from ..registry import meta
from ..registry.options import DeleteOptions, ListOptions
from ..resources.apiextensions import cleanup_finalizer
from ..resources.custom import types_from_crd
from .base import Context, Controller

NAME_FIELDS = (
    ("plural", "PluralConflict"),
    ("singular", "SingularConflict"),
    ("kind", "KindConflict"),
    ("listKind", "ListKindConflict"),
)


class CrdController(Controller):
    name = "crd"
    account = "apiextensions-controller"
    resync_seconds = 30.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.crds = ctx.kind("apiextensions", "customresourcedefinitions")

    def watches(self) -> list[ResourceType]:
        return [self.crds]

    def sync(self) -> None:
        listed = [orjson.loads(raw) for raw in self.ctx.registry.list(self.crds, None, ListOptions()).items]
        listed.sort(key=lambda crd: (crd["metadata"].get("creationTimestamp", ""), crd["metadata"]["name"]))
        taken: dict[str, dict[str, str]] = {}  # group -> name in use -> the CRD holding it ("" built-in)
        for rt in self.ctx.registry.catalog.known():
            if rt.custom is None:
                for name in (rt.plural, rt.singular_name, rt.kind, rt.list_kind, *rt.short_names):
                    taken.setdefault(rt.group, {})[name] = ""
        for crd in listed:  # names a CRD has accepted stay its own
            _claim(taken, crd, (crd.get("status") or {}).get("acceptedNames") or {})
        for crd in listed:
            if crd["metadata"].get("deletionTimestamp"):
                self._finish_deletion(crd)
            else:
                self._accept_names(crd, taken)

    def _accept_names(self, crd: dict, taken: dict[str, dict[str, str]]) -> None:
        spec, name = crd.get("spec") or {}, crd["metadata"]["name"]
        names = spec.get("names") or {}
        in_group = taken.setdefault(spec.get("group", ""), {})
        conflict = None
        for field, reason in NAME_FIELDS:
            value = names.get(field)
            if value and in_group.get(value, name) != name:
                conflict = (reason, f'"{value}" is already in use')
                break
        for short in names.get("shortNames") or []:
            if conflict is None and in_group.get(short, name) != name:
                conflict = ("ShortNamesConflict", f'"{short}" is already in use')
        status = copy.deepcopy(crd.get("status") or {})
        if conflict is None:
            _claim(taken, crd, names)
            status["acceptedNames"] = {k: v for k, v in names.items() if v}
            _set_condition(status, "NamesAccepted", "True", "NoConflicts", "no conflicts found")
            _set_condition(
                status, "Established", "True", "InitialNamesAccepted", "the initial names have been accepted"
            )
        else:
            _set_condition(status, "NamesAccepted", "False", *conflict)
            if not _is_true(status, "Established"):
                _set_condition(status, "Established", "False", "NotAccepted", "not all names are accepted")
        self._write_status(crd, status)

    def _finish_deletion(self, crd: dict) -> None:
        finalizer = cleanup_finalizer(self.naming)
        if finalizer not in (crd["metadata"].get("finalizers") or []):
            return
        status = copy.deepcopy(crd.get("status") or {})
        _set_condition(
            status, "Terminating", "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress"
        )
        crd = self._write_status(crd, status) or crd
        remaining = self._delete_objects(crd)
        if remaining:
            return  # finalizers on the objects hold them: the next sync looks again
        _set_condition(status, "Terminating", "True", "InstanceDeletionCompleted", "removed all instances")
        crd = self._write_status(crd, status) or crd
        updated = copy.deepcopy(crd)
        updated["metadata"]["finalizers"] = [f for f in crd["metadata"].get("finalizers") or [] if f != finalizer]
        try:
            self.ctx.registry.update(
                self.crds, None, crd["metadata"]["name"], updated, manager=self.naming.apiserver_name
            )
        except (Conflict, NotFound):
            pass

    def _delete_objects(self, crd: dict) -> int:
        """Delete every object of the CRD's kind; how many are still there (held by their finalizers)."""
        try:
            storage = next(rt for rt in types_from_crd(crd, self.naming) if rt.conversion is None)
        except (KeyError, StopIteration, TypeError):
            return 0
        registry, remaining = self.ctx.registry, 0
        for raw in registry.list(storage, None, ListOptions()).items:
            md = orjson.loads(raw).get("metadata") or {}
            try:
                _, gone = registry.delete(storage, md.get("namespace"), md.get("name", ""), DeleteOptions())
                remaining += not gone
            except NotFound:
                pass
            except Conflict:
                remaining += 1
        return remaining

    def _write_status(self, crd: dict, status: dict) -> dict | None:
        if status == (crd.get("status") or {}):
            return None
        updated = {**crd, "status": status}
        try:
            written, _ = self.ctx.registry.update(
                self.crds, None, crd["metadata"]["name"], updated, "status", manager=self.naming.apiserver_name
            )
            return written
        except (Conflict, NotFound):
            return None  # changed meanwhile: the next sync looks again


def _claim(taken: dict[str, dict[str, str]], crd: dict, names: dict) -> None:
    in_group = taken.setdefault((crd.get("spec") or {}).get("group", ""), {})
    for value in [*(names.get(f) for f, _ in NAME_FIELDS), *(names.get("shortNames") or [])]:
        if value:
            in_group.setdefault(value, crd["metadata"]["name"])


def _is_true(status: dict, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in status.get("conditions") or [])


def _set_condition(status: dict, kind: str, value: str, reason: str, message: str) -> None:
    meta.set_condition(status, kind, value, reason=reason, message=message)
