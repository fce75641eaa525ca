"""The catalog: every kind is declared once as a ResourceType with a Strategy.

Routes, discovery, OpenAPI and the shared resource test suite are derived from it.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from app.errors import FieldError

Obj = dict


class Strategy:
    """Per-kind behaviour plugged into the generic registry. Objects are plain JSON dicts.

    Hooks mutate the object in place; validation hooks return field errors and never mutate.
    """

    #: metadata.generation is maintained (set to 1 on create, bumped when anything outside
    #: metadata and status changes).
    generation: bool = True
    #: PUT of a missing object creates it (the reference's AllowCreateOnUpdate).
    allow_create_on_update: bool = False
    #: field selectors beyond metadata.name / metadata.namespace: selector label -> getter.
    field_selectors: ClassVar[dict[str, Callable[[Obj], str]]] = {}
    #: status is cleared on create (most kinds; nodes keep what the client sent).
    reset_status_on_create: bool = True

    def prepare_for_create(self, obj: Obj) -> None:
        """Runs on create before validation: apply defaults, reset what clients may not set."""

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        """Runs on update/patch of the main resource before validation, after status is restored."""

    def default(self, obj: Obj) -> None:
        """Defaulting shared by create and update (the reference's scheme defaulters)."""

    def validate(self, obj: Obj) -> list[FieldError]:
        """Runs on create after prepare_for_create: per-kind validation beyond metadata."""
        return []

    def validate_update(self, obj: Obj, old: Obj) -> list[FieldError]:
        """Runs on update after prepare_for_update (immutable fields and the like)."""
        return self.validate(obj)

    def create_virtual(self, obj: Obj) -> Obj:
        """For virtual kinds (ResourceType.virtual): answer a create without storing anything
        (access and token reviews). The requester is app.auth.user.current_user."""
        raise NotImplementedError

    def forbid_delete(self, obj: Obj) -> str | None:
        """Runs before a delete: a reason to refuse it with 403 (e.g. an immortal namespace)."""
        return None

    def prepare_for_delete(self, obj: Obj) -> None:
        """Runs when a delete turns the object terminating (deletionTimestamp is already set)."""

    def pending_finalizers(self, obj: Obj) -> list[str]:
        """What still holds the object after a delete: metadata.finalizers, plus kind-specific ones."""
        return list((obj.get("metadata") or {}).get("finalizers") or [])


@dataclass(frozen=True)
class Subresource:
    """A view of an object served under <object path>/<name>.

    `view(obj)` renders the subresource; `merge(old, view)` builds the new object from a written
    view. `kind`/`group`/`version` name the view's type when it is not the parent's kind (scale).
    """

    name: str
    verbs: tuple[str, ...] = ("get", "patch", "update")
    kind: str | None = None
    group: str | None = None
    version: str | None = None
    view: Callable[[Obj], Obj] | None = None
    merge: Callable[[Obj, Obj], Obj] | None = None
    #: POST to the subresource (verb "create", e.g. serviceaccounts/token): (parent, body) -> response.
    create: Callable[[Obj, Obj], Obj] | None = None


def status_subresource() -> Subresource:
    def merge(old: Obj, new: Obj) -> Obj:
        out = copy.deepcopy(old)
        if "status" in new:
            out["status"] = copy.deepcopy(new["status"])
        else:
            out.pop("status", None)
        return out

    return Subresource("status", merge=merge)


@dataclass(frozen=True)
class Conversion:
    """How a served version maps onto the version its objects are stored in (the reference's hub).

    The storage type is the catalog entry (storage_group, storage_version, storage_plural); it exists
    even when --runtime-config stops serving it. Both functions take and return whole JSON objects,
    apiVersion and kind included, and never mutate their argument.
    """

    storage_group: str  # "" for the core group
    storage_version: str
    storage_plural: str
    to_storage: Callable[[Obj], Obj]
    from_storage: Callable[[Obj], Obj]
    #: checks in this version's own terms, before conversion: (new object, old object or None on create)
    #: -> field errors (e.g. events.<domain>/v1 refuses deprecated* fields on new events).
    validate: Callable[[Obj, Obj | None], list[FieldError]] | None = None


@dataclass(frozen=True)
class Deprecation:
    """A deprecated served version: requests answer with a 299 Warning header, a metric and an audit
    annotation, e.g. deprecated_in="1.21", removed_in="1.25", replacement="policy/v1 PodDisruptionBudget"."""

    deprecated_in: str
    removed_in: str = ""
    replacement: str = ""


@dataclass(frozen=True)
class ResourceType:
    group: str  # "" for the core group
    version: str
    kind: str
    plural: str
    namespaced: bool
    singular: str = ""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
    subresources: tuple[Subresource, ...] = ()
    strategy: Strategy = field(default_factory=Strategy)
    #: "subdomain" (DNS-1123 subdomain), "label" (DNS-1123 label) or "path" (path segment name).
    name_rule: str = "subdomain"
    #: DELETE answers with the deleted object instead of a Status (pods, serviceaccounts, ...).
    return_deleted_object: bool = False
    #: the object carries a status stanza written only through the status subresource.
    has_status: bool = False
    #: nothing is stored: create answers Strategy.create_virtual (verbs is then ("create",)).
    virtual: bool = False
    #: a small valid object (without apiVersion/kind/metadata) for the shared test suite and docs.
    example: Obj = field(default_factory=dict)
    #: None: stored as served. Otherwise objects are stored in another version (or group: events.orch.io
    #: Events are core Events) and converted on every read and write.
    conversion: Conversion | None = None
    deprecation: Deprecation | None = None
    #: served unless --runtime-config turns it off (alpha versions default to off).
    enabled_by_default: bool = True

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def group_resource(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def subresource(self, name: str) -> Subresource | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None


class Catalog:
    """All served resource types, indexed by (group, version, plural)."""

    def __init__(self, types: Iterable[ResourceType] = ()):
        self._types: dict[tuple[str, str, str], ResourceType] = {}
        for rt in types:
            self.add(rt)

    def add(self, rt: ResourceType) -> None:
        self._types[(rt.group, rt.version, rt.plural)] = rt

    def __iter__(self):
        return iter(self._types.values())

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._types.get((group, version, plural))

    def by_kind(self, group: str, kind: str) -> ResourceType | None:
        for rt in self._types.values():
            if rt.group == group and rt.kind == kind:
                return rt
        return None

    def group_versions(self) -> dict[str, list[str]]:
        """group -> versions, in declaration order (the first is preferred)."""
        out: dict[str, list[str]] = {}
        for rt in self._types.values():
            versions = out.setdefault(rt.group, [])
            if rt.version not in versions:
                versions.append(rt.version)
        return out

    def resources(self, group: str, version: str) -> list[ResourceType]:
        return [rt for rt in self._types.values() if rt.group == group and rt.version == version]

    def namespaced_types(self) -> list[ResourceType]:
        return [rt for rt in self._types.values() if rt.namespaced]
