"""The catalog: every kind is declared once as a ResourceType with a Strategy.

Routes, discovery, OpenAPI and the shared resource test suite are derived from it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import FieldError

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
    #: field selectors watches are indexed by (the reference's indexers, e.g. a pod's spec.nodeName): a watch
    #: selecting one value of such a field is offered only the changes whose old or new object has that value
    index_fields: ClassVar[tuple[str, ...]] = ()
    #: an unsupported field selector answers "field label not supported" (the reference's per-kind converters)
    #: even when the kind has no selectors of its own; else the generic list of metadata fields is named
    field_label_errors: bool = False
    #: status is cleared on create (most kinds; nodes keep what the client sent).
    reset_status_on_create: bool = True

    def unselectable_fields(self, namespaced: bool) -> frozenset[str]:
        """Generic field selectors this kind refuses (none for built-in kinds)."""
        return frozenset()

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

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        """For virtual kinds (ResourceType.virtual): answer a create without storing anything of this kind
        (access and token reviews, bindings). The requester is app.user.current_user."""
        raise NotImplementedError

    def unknown_fields(self, obj: Obj) -> list[str]:
        """Paths of fields the kind's typed declaration cannot see but this strategy would drop (a custom kind's
        pruning); fieldValidation reports them as unknown."""
        return []

    def computed_objects(self) -> list[Obj]:
        """For computed kinds (ResourceType.computed): the objects get and list answer, made at read time."""
        raise NotImplementedError

    def forbid_delete(self, obj: Obj) -> str | None:
        """Runs before a delete: a reason to refuse it with 403 (e.g. an immortal namespace)."""
        return None

    def prepare_for_delete(self, obj: Obj) -> None:
        """Runs when a delete turns the object terminating (deletionTimestamp is already set)."""

    def pending_finalizers(self, obj: Obj) -> list[str]:
        """What still holds the object after a delete: metadata.finalizers, plus kind-specific ones."""
        return list((obj.get("metadata") or {}).get("finalizers") or [])

    def delete_grace_period(self, obj: Obj, requested: int | None) -> int | None:
        """Seconds a delete leaves the object terminating before its owner removes it (the reference's
        CheckGracefulDelete, app/registry/deletion.py); None: the kind has no graceful deletion."""
        return None


@dataclass(frozen=True)
class CreateCall:
    """What the create hooks of virtual kinds and subresources get besides the body: the registry to read
    and write other objects through (typed loosely: the catalog sits below the registry), the request's
    namespace, dry-run and field manager."""

    registry: Any
    namespace: str | None
    dry_run: bool = False
    manager: str = ""


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
    #: POST to the subresource (verb "create", e.g. serviceaccounts/token): (parent, body, call) -> response.
    create: Callable[[Obj, Obj, CreateCall], Obj] | None = None
    #: a connect subresource (pods/log): (parent, query) -> where on a node agent the server proxies the request
    connect: Callable[[Obj, Mapping[str, str]], NodeCall | None] | None = None
    #: the connect request switches protocols (exec, attach, portforward): the node agent's connection is relayed
    upgrade: bool = False
    #: a proxy subresource (pods/proxy, services/proxy, nodes/proxy): what the request is proxied to
    proxy: str | None = None  # "pod", "service" or "node"


PROXY_VERBS = ("create", "delete", "get", "patch", "update")


def proxy_subresource(target: str, kind: str) -> Subresource:
    """`<plural>/proxy`: any request below it goes on to the pod, the service's endpoints or the node agent."""
    return Subresource("proxy", verbs=PROXY_VERBS, kind=kind, proxy=target)


@dataclass(frozen=True)
class NodeCall:
    """A request the API server makes to a node's agent on a client's behalf (the reference's LogLocation)."""

    node: str
    path: str
    query: tuple[tuple[str, str], ...] = ()


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
    #: from_storage for several objects at once (a list's page: one webhook call instead of one per object)
    from_storage_many: Callable[[list[Obj]], list[Obj]] | None = None

    def from_storage_all(self, objs: list[Obj]) -> list[Obj]:
        return self.from_storage_many(objs) if self.from_storage_many else [self.from_storage(o) for o in objs]


@dataclass(frozen=True)
class Deprecation:
    """A deprecated served version: requests answer with a 299 Warning header, a metric and an audit
    annotation, e.g. deprecated_in="1.21", removed_in="1.25", replacement="policy/v1 PodDisruptionBudget"."""

    deprecated_in: str
    removed_in: str = ""
    replacement: str = ""
    #: the whole Warning text, when the version's owner wrote one (a CRD version's deprecationWarning)
    warning: str = ""


@dataclass(frozen=True)
class CustomInfo:
    """What a kind defined by a CustomResourceDefinition carries beyond a built-in one."""

    served: bool = True
    #: the version's additionalPrinterColumns (name, type, format, description, priority, jsonPath)
    printer_columns: tuple[dict, ...] = ()
    #: the version's openAPIV3Schema (OpenAPI documents describe the kind with it)
    schema: dict = field(default_factory=dict)
    #: the same schema as a typed declaration (app.schema.types.Struct) for apply and managedFields
    typed: Any = None


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
    #: nothing is stored: get and list answer Strategy.computed_objects (verbs is then ("get", "list")).
    computed: bool = False
    #: a small valid object (without apiVersion/kind/metadata) for the shared test suite and docs.
    example: Obj = field(default_factory=dict)
    #: None: stored as served. Otherwise objects are stored in another version (or group: events.orch.io
    #: Events are core Events) and converted on every read and write.
    conversion: Conversion | None = None
    deprecation: Deprecation | None = None
    #: served unless --runtime-config turns it off (alpha versions default to off).
    enabled_by_default: bool = True
    #: set for kinds a CustomResourceDefinition defines (app/resources/custom.py)
    custom: CustomInfo | None = None

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


_KUBE_VERSION = re.compile(r"^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$")


def version_priority(version: str) -> tuple:
    """Sort key of API versions as the reference orders them: GA before beta before alpha, higher major
    first, then higher minor (v1 > v1beta2 > v1beta1 > v1alpha1); other names last, alphabetically."""
    match = _KUBE_VERSION.match(version)
    if match is None:
        return (1, 0, 0, 0, version)
    major, level, minor = match.groups()
    stability = {None: 0, "beta": 1, "alpha": 2}[level]
    return (0, stability, -int(major), -int(minor or 0), version)


class Catalog:
    """Every declared resource type, indexed by (group, version, plural). Iteration, lookup and the
    group/version helpers see the served ones only; `known()` and `storage_type()` see them all."""

    def __init__(self, types: Iterable[ResourceType] = ()):
        #: served types (what routes, discovery and OpenAPI see)
        self._types: dict[tuple[str, str, str], ResourceType] = {}
        #: every declared type, served or not: a disabled storage version still stores the served ones
        self._known: dict[tuple[str, str, str], ResourceType] = {}
        #: brings the custom kinds up to the store's current revision (installed by the live catalog)
        self._catch_up: Callable[[], None] | None = None
        for rt in types:
            self.add(rt)

    def add(self, rt: ResourceType) -> None:
        """Declare (or replace) a type; new types are served when enabled by default (alpha ones are not)."""
        key = (rt.group, rt.version, rt.plural)
        if key in self._types or (key not in self._known and rt.enabled_by_default):
            self._types[key] = rt
        self._known[key] = rt

    def set_served(self, keys: Iterable[tuple[str, str, str]]) -> None:
        """Serve exactly these (group, version, plural) of the declared types (--runtime-config)."""
        wanted = set(keys)
        self._types = {key: rt for key, rt in self._known.items() if key in wanted}

    def set_custom(self, types: Iterable[ResourceType]) -> None:
        """Replace every custom kind with these (the live catalog): readers see the old or the new set, whole."""
        types = list(types)
        known = {key: rt for key, rt in self._known.items() if rt.custom is None}
        served = {key: rt for key, rt in self._types.items() if rt.custom is None}
        for rt in types:
            key = (rt.group, rt.version, rt.plural)
            if key in known:
                continue  # a built-in kind is never shadowed (the CRD's names are not accepted)
            known[key] = rt
            if rt.custom is not None and rt.custom.served:
                served[key] = rt
        self._known, self._types = known, served

    def install_catch_up(self, catch_up: Callable[[], None] | None) -> None:
        """Hand down what brings the custom kinds up to the store (the live catalog lives above this module)."""
        self._catch_up = catch_up

    def catch_up(self) -> None:
        """Hear of every CRD established by now before saying a kind or group is not served: a client that saw
        Established may ask any worker or replica next (bounded; nothing without a live catalog)."""
        catch_up = self._catch_up
        if catch_up is not None:
            catch_up()

    def lookup_fresh(self, group: str, version: str, plural: str) -> ResourceType | None:
        """lookup, caught up with the store first when it misses a custom group's kind (the core has none)."""
        rt = self._types.get((group, version, plural))
        if rt is None and group:
            self.catch_up()
            rt = self._types.get((group, version, plural))
        return rt

    def known_type(self, group: str, version: str, plural: str) -> ResourceType:
        """A declared type, served or not (KeyError when none is declared)."""
        return self._known[(group, version, plural)]

    def known(self) -> list[ResourceType]:
        """Every declared type, served or not, in declaration order."""
        return list(self._known.values())

    def storage_type(self, rt: ResourceType) -> ResourceType:
        """The type whose strategy and storage key hold rt's objects (rt itself without a conversion)."""
        if rt.conversion is None:
            return self._known.get((rt.group, rt.version, rt.plural), rt)
        conv = rt.conversion
        return self._known[(conv.storage_group, conv.storage_version, conv.storage_plural)]

    def served_versions(self, group: str, plural: str) -> list[ResourceType]:
        """The served types of one group-resource, highest version priority first."""
        found = [rt for rt in self._types.values() if rt.group == group and rt.plural == plural]
        return sorted(found, key=lambda rt: version_priority(rt.version))

    def storage_types(self) -> list[ResourceType]:
        """The storage types behind the served types, once each (namespace cleanup, counting objects)."""
        out: dict[tuple[str, str, str], ResourceType] = {}
        for rt in self._types.values():
            st = self.storage_type(rt)
            out.setdefault((st.group, st.version, st.plural), st)
        return list(out.values())

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
        """group -> served versions, groups in declaration order, versions by priority (the first is preferred)."""
        out: dict[str, list[str]] = {}
        for rt in self._types.values():
            versions = out.setdefault(rt.group, [])
            if rt.version not in versions:
                versions.append(rt.version)
        for versions in out.values():
            versions.sort(key=version_priority)
        return out

    def resources(self, group: str, version: str) -> list[ResourceType]:
        return [rt for rt in self._types.values() if rt.group == group and rt.version == version]

    def namespaced_types(self) -> list[ResourceType]:
        return [rt for rt in self._types.values() if rt.namespaced]
