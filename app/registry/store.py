"""The generic registry: one store for every kind, specialised by the kind's Strategy.

It knows objects (JSON dicts), strategies and metadata rules; it talks to Storage by keys and
revisions, and translates storage failures into API errors at this one boundary.
"""

from __future__ import annotations

import builtins
import copy
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from ..apply import apply as apply_fields
from ..apply import record_update
from ..catalog import Catalog, CreateCall, ResourceType, Subresource
from ..errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    MethodNotAllowed,
    NotFound,
    TooLargeResourceVersion,
)
from ..naming import Naming
from ..schema import has_schema, schema_for
from ..schema.types import Struct
from ..selectors import parse_field_selector, parse_label_selector
from ..storage.store import (
    KeyExists,
    KeyNotFound,
    Remembered,
    RevisionCompacted,
    RevisionMismatch,
    Storage,
    Stored,
)
from . import meta
from .admission import CREATE, DELETE, Attributes, Chain
from .admitting import admit_as_is, admit_update, carry_system_fields, metadata_of, review_options, sub_kind
from .deletion import add_gc_finalizer, before_delete, check_preconditions, deleted_body, removed_by_update
from .filters import GENERIC_FIELDS, Filter
from .history import parse_time, records, revision_entry
from .keys import collection_prefix, object_key
from .options import ContinueToken, DeleteOptions, ListOptions, parse_revision
from .patch import apply_patch
from .watch import Watch

if TYPE_CHECKING:
    from ..storage.hub import WatchHub
    from .live_namespaces import LiveNamespaces

T = TypeVar("T")

MAX_UPDATE_RETRIES = 16
#: the most rows one round of a filtered, paged list reads (the reference's maxLimit)
MAX_LIST_PAGE = 10000
GENERATE_NAME_ATTEMPTS = 8
TOO_LARGE_RV_WAIT = 3.0


class Unverified(Exception):
    """A write that would end without writing started from a remembered state the store no longer holds."""


@dataclass(frozen=True)
class ListResult:
    rt: ResourceType
    revision: int
    items: list[str]  # stored JSON text, in key order
    continue_token: str = ""
    remaining: int | None = None


class Registry:
    def __init__(self, storage: Storage, catalog: Catalog, naming: Naming):
        self.storage = storage
        self.catalog = catalog
        self.naming = naming
        #: namespaces known live without reading the store (set by the app when a watch hub runs)
        self.live_namespaces: LiveNamespaces | None = None
        #: the admission plugins every write passes (set by the app from --enable-admission-plugins)
        self.admission = Chain()
        #: the process's follower of the change log (set by the app); watches subscribe to it
        self.hub: WatchHub | None = None

    @property
    def meta_group_version(self) -> str:
        return f"{self.naming.meta_group}/v1"

    # -- reads ---------------------------------------------------------------------------------

    def watch(
        self,
        rt: ResourceType,
        namespace: str | None,
        opts: ListOptions,
        client_gone: Callable[[], bool] = lambda: False,
    ) -> Watch:
        """One watcher's events (app/registry/watch.py); bad options raise now, events come from `open()`."""
        if self.hub is None:
            raise RuntimeError("this registry has no watch hub")
        return Watch(self, self.hub, rt, namespace, opts, client_gone)

    def get(
        self, rt: ResourceType, namespace: str | None, name: str, resource_version: str = "", match: str = ""
    ) -> dict:
        """GET; with `match` Exact the object as it was at `resource_version` (410 when its history is gone)."""
        if rt.computed:
            for obj in rt.strategy.computed_objects():
                if metadata_of(obj).get("name") == name:
                    return obj
            raise NotFound(rt.plural, rt.group, name)
        if match and match not in ("Exact", "NotOlderThan"):
            raise BadRequest(
                f'resourceVersionMatch: Unsupported value: "{match}": supported values: "Exact", "NotOlderThan"'
            )
        if resource_version not in ("", "0"):
            wanted = parse_revision(resource_version)
            current = self.wait_for_revision(wanted)
            if match == "Exact" and wanted < current:
                return self.served(rt, self._read_at(rt, namespace, name, wanted).decode())
        elif match:
            raise BadRequest(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
            )
        return self.served(rt, self.read(rt, namespace, name).decode())

    def _read_at(self, rt: ResourceType, namespace: str | None, name: str, revision: int) -> Stored:
        try:
            stored = self.storage.get_at(object_key(rt, namespace, name), revision)
        except RevisionCompacted as gone:
            raise Gone(f"too old resource version: {revision} ({gone.compacted})") from None
        if stored is None:
            raise NotFound(rt.plural, rt.group, name)
        return stored

    def revision_at(self, at: str, rt: ResourceType, namespace: str | None, name: str | None = None) -> str:
        """The resourceVersion of the store as it was at the RFC 3339 time `at` (reads "as of" a time); 410 when
        the kept history of the object (or collection) no longer reaches back that far."""
        prefix = object_key(rt, namespace, name) if name else collection_prefix(rt, namespace)
        try:
            return str(self.storage.revision_at(parse_time(at), prefix))
        except RevisionCompacted as gone:
            raise Gone(f"too old time: {at} is before the kept history of {rt.plural} ({gone.compacted})") from None

    def history(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str | None,
        since: str = "",
        after: int = 0,
        limit: int = 500,
    ) -> tuple[builtins.list[dict], int]:
        """The retained changes of one object (`name`) or of a collection, oldest first, each with its time,
        user, field manager, verb and the object after it (in rt's version); with the compaction mark."""
        if rt.computed or rt.virtual:
            return [], 0
        key = object_key(rt, namespace, name) if name else collection_prefix(rt, namespace)
        revisions, mark = self.storage.history(
            key, exact=bool(name), after=after, since=parse_time(since) if since else 0.0, limit=limit
        )
        return [revision_entry(rt, r, lambda data: self.served(rt, orjson.loads(data))) for r in revisions], mark

    def read(self, rt: ResourceType, namespace: str | None, name: str, remembered: bool = False) -> Stored:
        """The stored object (a caller that reads before a write hands it to the write: one read, not two);
        `remembered`: the watch hub's memory of it will do (it may be stale: a write compares it with the store)."""
        key = object_key(rt, namespace, name)
        stored = (self._remembered(key) if remembered else None) or self.storage.get(key)
        if stored is None:
            raise NotFound(rt.plural, rt.group, name)
        return stored

    def _remembered(self, key: str) -> Stored | None:
        """The watch hub's memory of the object under `key`, if it has one (it may be older than the store's)."""
        return self.hub.remembered(key) if self.hub is not None else None

    def wait_for_revision(self, wanted: int) -> int:
        """Block briefly until the store has reached `wanted`; 504 Too large resource version after."""
        deadline = time.monotonic() + TOO_LARGE_RV_WAIT
        delay = 0.01
        while True:
            current = self.storage.current_revision()
            if current >= wanted:
                return current
            if time.monotonic() >= deadline:
                raise TooLargeResourceVersion(wanted, current)
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    def make_filter(self, rt: ResourceType, opts: ListOptions) -> Filter:
        labels = parse_label_selector(opts.label_selector)
        fields = parse_field_selector(opts.field_selector)
        strategy = rt.strategy
        supported = (set(GENERIC_FIELDS) | set(strategy.field_selectors)) - strategy.unselectable_fields(rt.namespaced)
        fields.check_supported(supported, generic_only=not strategy.field_selectors and not strategy.field_label_errors)
        return Filter(labels, fields)

    def list(self, rt: ResourceType, namespace: str | None, opts: ListOptions) -> ListResult:
        opts.validate(self.naming.meta_group)
        flt = self.make_filter(rt, opts)
        if rt.computed:  # made now, whole: no chunks, the newest revision
            return ListResult(
                rt,
                self.storage.current_revision(),
                [
                    orjson.dumps(obj).decode()
                    for obj in rt.strategy.computed_objects()
                    if flt.empty or flt.matches(rt, obj)
                ],
            )
        prefix = collection_prefix(rt, namespace)
        limit = opts.limit or None
        start_after: str | None = None
        revision: int | None = None  # None: newest
        if opts.continue_token:
            token = ContinueToken.decode(opts.continue_token, self.meta_group_version)
            start_after = prefix + token.start_after
            revision = None if token.revision == -1 else token.revision
            if revision is not None and revision < self.storage.compacted_revision(prefix):
                fresh = ContinueToken(-1, token.start_after).encode(self.meta_group_version)
                raise Gone(
                    "The provided continue parameter is too old to display a consistent list result. "
                    "You can start a new list without the continue parameter, or use the continue token "
                    "in this response to retrieve the remainder of the results. Continuing with the "
                    "provided token results in an inconsistent list - objects that were created, "
                    "modified, or deleted between the time the first chunk was returned and now may "
                    "show up in the list.",
                    continue_token=fresh,
                )
        elif opts.resource_version not in ("", "0"):
            wanted = parse_revision(opts.resource_version)
            exact = opts.resource_version_match == "Exact" or (not opts.resource_version_match and limit)
            current = self.wait_for_revision(wanted)
            if exact and wanted < current:
                revision = wanted
        try:
            return self._list_pages(rt, prefix, flt, limit, start_after, revision)
        except RevisionCompacted:
            raise Gone("The resourceVersion for the provided list is too old.") from None

    def _list_pages(
        self,
        rt: ResourceType,
        prefix: str,
        flt: Filter,
        limit: int | None,
        start_after: str | None,
        revision: int | None,
    ) -> ListResult:
        """Rows in key order until `limit` of them pass the filter. A selective filter leaves pages short: the
        page asked for doubles each round (up to MAX_LIST_PAGE), as the reference's store does."""
        items: builtins.list[str] = []
        conv = rt.conversion
        fetch = limit
        while True:
            page = self.storage.list(
                prefix, revision=revision, start_after=start_after, limit=fetch, count_remaining=flt.empty
            )
            revision = page.revision
            more, last_key = page.more, page.items[-1].key if page.items else ""
            # another version is stored: the page converted at once, filtered (field selectors) as served
            served = None if conv is None else conv.from_storage_all([stored.decode() for stored in page.items])
            for i, stored in enumerate(page.items):
                if served is None:
                    if flt.empty or flt.matches(rt, stored.decode()):
                        items.append(stored.data)
                elif flt.empty or flt.matches(rt, served[i]):
                    items.append(orjson.dumps(served[i]).decode())
                if limit is not None and len(items) >= limit:
                    more, last_key = page.more or i + 1 < len(page.items), stored.key
                    break
            if not more:
                return ListResult(rt, page.revision, items)
            if limit is not None and len(items) >= limit:
                token = ContinueToken(page.revision, last_key[len(prefix) :]).encode(self.meta_group_version)
                return ListResult(rt, page.revision, items, token, page.remaining)
            start_after = last_key
            fetch = min(fetch * 2, MAX_LIST_PAGE) if fetch is not None else None

    # -- create --------------------------------------------------------------------------------

    def _check_type(self, rt: ResourceType, obj: Any) -> dict:
        if not isinstance(obj, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {rt.kind})")
        api_version = obj.get("apiVersion") or rt.group_version
        kind = obj.get("kind") or rt.kind
        if api_version != rt.group_version:
            raise BadRequest(
                f"the API version in the data ({api_version}) does not match the expected API "
                f"version ({rt.group_version})"
            )
        if kind != rt.kind:
            raise BadRequest(
                f"the object provided is unrecognized (must be of type {rt.kind}): kind {kind!r} is not {rt.kind!r}"
            )
        obj["apiVersion"], obj["kind"] = api_version, kind
        if not isinstance(obj.get("metadata", {}), dict):
            raise BadRequest(
                f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: metadata must be an object'
            )
        return obj

    def _check_namespace(self, rt: ResourceType, obj: dict, namespace: str | None, on_create: bool) -> None:
        md = metadata_of(obj)
        if not rt.namespaced:
            md.pop("namespace", None)
            return
        given = md.get("namespace")
        if given and given != namespace:
            if on_create:
                raise BadRequest(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            raise BadRequest(
                f"the namespace of the object ({given}) does not match the namespace on the request ({namespace})"
            )
        md["namespace"] = namespace

    def _invalid(self, rt: ResourceType, obj: dict, errors: builtins.list) -> None:
        if errors:
            md = metadata_of(obj)
            raise Invalid(rt.kind, rt.group, str(md.get("name") or md.get("generateName") or ""), errors)

    @records("create")
    def create(
        self,
        rt: ResourceType,
        namespace: str | None,
        obj: Any,
        dry_run: bool = False,
        manager: str = "",
        tracked: bool = False,
    ) -> dict:
        """POST. `manager` owns the fields it set (an Update entry in managedFields); `tracked` means the
        caller (apply) has already computed managedFields."""
        obj = self._check_type(rt, obj)
        self._check_namespace(rt, obj, namespace, on_create=True)
        if rt.virtual:
            options = review_options(self.meta_group_version, "CreateOptions", dry_run, manager)
            name = str(metadata_of(obj).get("name") or "")
            admit_as_is(
                self.admission, Attributes(CREATE, rt, namespace or "", name, obj, dry_run=dry_run, options=options)
            )
            return rt.strategy.create_virtual(obj, CreateCall(self, namespace, dry_run, manager))
        srt = rt  # the type whose strategy runs: the storage version's when rt converts
        if rt.conversion is not None:
            srt = self.catalog.storage_type(rt)
            obj = self._to_storage(rt, obj, None)
        md = metadata_of(obj)
        for name in meta.SYSTEM_FIELDS:
            md.pop(name, None)
        prefix = md.get("generateName")
        if not md.get("name") and not prefix:
            self._invalid(rt, obj, [meta.required("metadata.name", "name or generateName is required")])
        if srt.has_status and srt.strategy.reset_status_on_create:
            obj.pop("status", None)
        srt.strategy.default(obj)
        attrs = Attributes(
            CREATE,
            rt,
            namespace or "",
            str(md.get("name") or ""),
            obj,
            dry_run=dry_run,
            options=review_options(self.meta_group_version, "CreateOptions", dry_run, manager),
        )
        self.admission.admit(attrs)
        if attrs.mutated:
            obj = attrs.obj or obj
            md = metadata_of(obj)
            for name in meta.SYSTEM_FIELDS:
                md.pop(name, None)
            srt.strategy.default(obj)
        md["uid"] = str(uuid.uuid4())  # before prepare_for_create: some kinds derive values from it
        md["creationTimestamp"] = meta.now_rfc3339()
        srt.strategy.prepare_for_create(obj)
        if not tracked:
            obj = self._track_as(rt, None, obj, manager, None)
            md = metadata_of(obj)
        explicit_name = md.get("name")
        for attempt in range(GENERATE_NAME_ATTEMPTS):
            if not explicit_name:
                md["name"] = meta.generate_name(str(prefix))
            self._invalid(rt, obj, meta.metadata_errors(md, srt.name_rule, srt.namespaced) + srt.strategy.validate(obj))
            attrs.obj, attrs.name = obj, md["name"]
            self.admission.validate(attrs)
            if srt.strategy.generation:
                md["generation"] = 1
            meta.drop_empty(md)
            if dry_run:
                return self.served(rt, obj)
            key = object_key(rt, namespace, md["name"])
            try:
                return self.served(rt, self.storage.create(key, obj).decode())
            except KeyExists:
                if explicit_name:
                    raise self._already_exists(rt, key, md["name"]) from None
                if attempt == GENERATE_NAME_ATTEMPTS - 1:
                    raise AlreadyExists(
                        rt.plural,
                        rt.group,
                        md["name"],
                        suffix=", the server was not able to generate a unique name for the object",
                        retry_after=1,
                    ) from None
        raise AssertionError("unreachable")

    def _already_exists(self, rt: ResourceType, key: str, name: str) -> AlreadyExists:
        existing = self.storage.get(key)
        terminating = existing is not None and (existing.decode().get("metadata") or {}).get("deletionTimestamp")
        return AlreadyExists(rt.plural, rt.group, name, prefix="object is being deleted: " if terminating else "")

    # -- update and patch ----------------------------------------------------------------------

    @records("update")
    def update(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        obj: Any,
        subresource: str | None = None,
        dry_run: bool = False,
        manager: str = "",
    ) -> tuple[dict, bool]:
        """PUT: replace the object (or the subresource view). Returns (object, created)."""
        sub = self._subresource(rt, subresource, "update")
        if sub is not None and (sub.kind or rt.kind) != rt.kind:
            obj = self._check_view_type(rt, sub, obj)
        else:
            obj = self._check_type(rt, obj)
        md = metadata_of(obj)
        if md.get("name") and md["name"] != name:
            raise BadRequest(f"the name of the object ({md['name']}) does not match the name on the URL ({name})")
        if sub is None or (sub.kind or rt.kind) == rt.kind:
            self._check_namespace(rt, obj, namespace, on_create=False)
        md["name"] = name
        key = object_key(rt, namespace, name)
        conditional = bool(md.get("resourceVersion"))

        def replace(current: Stored | None) -> tuple[dict, bool]:
            if current is None:
                if sub is None and rt.strategy.allow_create_on_update:
                    return self.create(rt, namespace, obj, dry_run, manager), True
                raise NotFound(rt.plural, rt.group, name)
            if conditional and str(current.rv) != str(md["resourceVersion"]):
                raise Conflict(rt.plural, rt.group, name)
            return self._write_update(rt, key, current, copy.deepcopy(obj), sub, dry_run, manager), False

        return self._guaranteed_update(rt, key, name, replace, conditional=conditional, remembered=True)

    def _guaranteed_update(
        self,
        rt: ResourceType,
        key: str,
        name: str,
        attempt: Callable[[Stored | None], T],
        read: Stored | None = None,
        conditional: bool = False,
        remembered: bool = False,
    ) -> T:
        """The one retry loop of every write to an existing object (the reference's GuaranteedUpdate): read,
        `attempt` (transform and compare-and-swap), read again when another write came between; a write the
        client made conditional on its resourceVersion answers 409 instead. `read`: the first try's object;
        `remembered`: else let the first try start from the watch hub's memory, without a read from the store
        (any failure of that try, or a write it would skip, is tried again from the store: it may be stale)."""
        first = read
        if first is None and remembered:
            first = self._remembered(key)
        for tries in range(MAX_UPDATE_RETRIES):
            current = first if tries == 0 and first is not None else self.storage.get(key)
            try:
                return attempt(current)
            except RevisionMismatch:
                if conditional and not isinstance(current, Remembered):
                    raise Conflict(rt.plural, rt.group, name) from None
            except (ApiError, Unverified):
                if not isinstance(current, Remembered):
                    raise
        raise Conflict(rt.plural, rt.group, name)

    @records("patch")
    def patch(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        patch_type: str,
        body: bytes,
        subresource: str | None = None,
        dry_run: bool = False,
        manager: str = "",
        check: Callable[[dict], bytes] | None = None,
    ) -> dict:
        """PATCH; `check`: called on each try's object (as the client sees it) before the patch applies, it raises
        what the request may not do to that object and returns the body to apply (fieldValidation's)."""
        sub = self._subresource(rt, subresource, "patch")
        key = object_key(rt, namespace, name)

        def patch_current(current: Stored | None) -> dict:
            if current is None:
                raise NotFound(rt.plural, rt.group, name)
            old = self.served(rt, current.decode())  # patches apply to the version the client speaks
            view = sub.view(old) if sub is not None and sub.view else old
            applied = check(view) if check is not None else body
            patched = apply_patch(patch_type, applied, view, self.schema(rt, sub))
            patched_md: dict = patched["metadata"] if isinstance(patched.get("metadata"), dict) else {}
            conditional = str(patched_md.get("resourceVersion", current.rv)) != str(current.rv)
            if conditional:
                raise Conflict(rt.plural, rt.group, name)
            if patched_md.get("name", name) != name:
                raise BadRequest(
                    f"the name of the object ({patched_md.get('name')}) does not match the name on the URL ({name})"
                )
            if sub is None or (sub.kind or rt.kind) == rt.kind:
                patched = self._check_type(rt, patched)
                self._check_namespace(rt, patched, namespace, on_create=False)
            else:
                patched = self._check_view_type(rt, sub, patched)
            return self._write_update(rt, key, current, patched, sub, dry_run, manager)

        return self._guaranteed_update(rt, key, name, patch_current, remembered=True)

    @records("apply")
    def apply(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        applied: Any,
        manager: str,
        force: bool,
        subresource: str | None = None,
        dry_run: bool = False,
    ) -> tuple[dict, bool]:
        """Server-side apply: merge `applied` into the live object (or create it) with field ownership."""
        sub = self._subresource(rt, subresource, "patch")
        if sub is not None and (sub.kind or rt.kind) != rt.kind:
            raise MethodNotAllowed("server-side apply is not supported on this subresource")
        if not isinstance(applied, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {rt.kind})")
        applied_md: dict = applied["metadata"] if isinstance(applied.get("metadata"), dict) else {}
        if applied_md.get("name", name) != name:
            raise BadRequest(
                f"the name of the object ({applied_md.get('name')}) does not match the name on the URL ({name})"
            )
        key = object_key(rt, namespace, name)

        def apply_to(current: Stored | None) -> tuple[dict, bool]:
            if current is None and sub is not None:
                raise NotFound(rt.plural, rt.group, name)
            live = self.served(rt, current.decode()) if current is not None else None
            new = apply_fields(
                live,
                applied,  # apply never changes it, nor shares it with its result: retries reuse it
                manager,
                self.apply_schema(rt),
                rt.group_version,
                force,
                datetime.now(UTC),
                subresource,
                rt.kind,
            )
            metadata_of(new)["name"] = name
            if current is None:
                return self.create(rt, namespace, new, dry_run, manager, tracked=True), True
            return self._write_update(rt, key, current, new, sub, dry_run, manager, tracked=True), False

        return self._guaranteed_update(rt, key, name, apply_to)

    def _track(self, rt: ResourceType, old: dict | None, new: dict, manager: str, sub: Subresource | None) -> dict:
        """Record the writer's field ownership in metadata.managedFields (an Update operation)."""
        struct = self.apply_schema(rt)
        if struct is None:
            return new  # virtual and review kinds: nothing is kept
        return record_update(
            old, new, manager, struct, rt.group_version, datetime.now(UTC), sub.name if sub is not None else None
        )

    def _track_as(self, rt: ResourceType, old: dict | None, new: dict, manager: str, sub: Subresource | None) -> dict:
        """_track on stored-version objects: with a conversion, fields are recorded in the served version's
        terms and the entries keep its apiVersion (field paths are not converted between versions)."""
        conv = rt.conversion
        if conv is None:
            return self._track(rt, old, new, manager, sub)
        served_new = self._track(
            rt, None if old is None else conv.from_storage(old), conv.from_storage(new), manager, sub
        )
        md, fields = metadata_of(new), (served_new.get("metadata") or {}).get("managedFields")
        if fields:
            md["managedFields"] = fields
        else:
            md.pop("managedFields", None)
        return new

    # -- served versions -------------------------------------------------------------------------

    @staticmethod
    def served(rt: ResourceType, stored: dict) -> dict:
        """A stored object as rt's version shows it (the object itself when rt is the storage version)."""
        return stored if rt.conversion is None else rt.conversion.from_storage(stored)

    @staticmethod
    def served_text(rt: ResourceType, data: str) -> str:
        """served() on stored JSON text (watch events)."""
        if rt.conversion is None:
            return data
        return orjson.dumps(rt.conversion.from_storage(orjson.loads(data))).decode()

    def _to_storage(self, rt: ResourceType, obj: dict, served_old: dict | None) -> dict:
        """A written object of a converting version: its own checks, then the storage version's form."""
        conv = rt.conversion
        if conv is None:
            return obj
        if conv.validate is not None:
            self._invalid(rt, obj, conv.validate(obj, served_old))
        return conv.to_storage(obj)

    @records("update")
    def guaranteed_update(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        change: Callable[[dict], None],
        dry_run: bool = False,
        manager: str = "",
    ) -> dict:
        """Read, `change` in place (status included; it may raise to refuse), write; read again when another
        write came between. The reference's GuaranteedUpdate for internal writers (pods/binding, eviction's
        budget): the kind's strategy does not run, as it does not in the reference."""
        key = object_key(rt, namespace, name)

        def changed(current: Stored | None) -> dict:
            if current is None:
                raise NotFound(rt.plural, rt.group, name)
            new = self.served(rt, current.decode())
            change(new)
            return self._write_update(rt, key, current, new, None, dry_run, manager, internal=True)

        return self._guaranteed_update(rt, key, name, changed)

    @records("create")
    def create_in_subresource(
        self,
        rt: ResourceType,
        namespace: str | None,
        name: str,
        subresource: str,
        body: Any,
        dry_run: bool = False,
        manager: str = "",
    ) -> dict:
        """POST to a subresource (e.g. serviceaccounts/<name>/token): the sub's create hook answers."""
        sub = self._subresource(rt, subresource, "create")
        if sub is None or sub.create is None:
            raise MethodNotAllowed()
        if not isinstance(body, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {sub.kind or rt.kind})")
        parent = self.get(rt, namespace, name)
        attrs = Attributes(
            CREATE,
            rt,
            namespace or "",
            name,
            body,
            subresource=subresource,
            dry_run=dry_run,
            options=review_options(self.meta_group_version, "CreateOptions", dry_run, manager),
            object_kind=sub_kind(rt, sub),
        )
        admit_as_is(self.admission, attrs)
        return sub.create(parent, attrs.obj or body, CreateCall(self, namespace, dry_run, manager))

    def schema(self, rt: ResourceType, sub: Subresource | None = None) -> Struct | None:
        """The typed schema of the kind (or of the subresource's own kind, e.g. Scale), if declared."""
        kind = (sub.kind if sub is not None else None) or rt.kind
        api_version = rt.group_version
        if sub is not None and sub.group:
            api_version = f"{sub.group}/{sub.version}"
        return schema_for(api_version, kind, self.naming) if has_schema(api_version, kind, self.naming) else None

    def apply_schema(self, rt: ResourceType) -> Struct | None:
        """What apply and managedFields type objects with: the kind's declaration, or a custom kind's derived
        from its CRD version's schema."""
        if rt.custom is not None:
            return rt.custom.typed
        return self.schema(rt)

    def _check_view_type(self, rt: ResourceType, sub: Subresource, obj: Any) -> dict:
        if not isinstance(obj, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {sub.kind})")
        gv = f"{sub.group}/{sub.version}" if sub.group else (sub.version or rt.version)
        if obj.get("kind", sub.kind) != sub.kind or obj.get("apiVersion", gv) != gv:
            raise BadRequest(f"the object provided is unrecognized (must be of type {sub.kind})")
        return obj

    def _subresource(self, rt: ResourceType, name: str | None, verb: str) -> Subresource | None:
        if name is None:
            return None
        sub = rt.subresource(name)
        if sub is None:
            raise NotFound(f"{rt.plural}/{name}", rt.group, "")
        if verb not in sub.verbs:
            raise MethodNotAllowed()
        return sub

    def _write_update(
        self,
        rt: ResourceType,
        key: str,
        current: Stored,
        new: dict,
        sub: Subresource | None,
        dry_run: bool,
        manager: str = "",
        tracked: bool = False,
        internal: bool = False,
    ) -> dict:
        old = current.decode()
        srt, served_old = rt, old  # `new` is in rt's version; strategies run on the storage version
        if rt.conversion is not None:
            srt, served_old = self.catalog.storage_type(rt), rt.conversion.from_storage(old)
        if sub is not None:
            if sub.view is not None and (sub.kind or rt.kind) != rt.kind:
                view_md = new.get("metadata") or {}
                if view_md.get("resourceVersion") and str(view_md["resourceVersion"]) != str(current.rv):
                    raise RevisionMismatch(key)
            if sub.merge is None:
                raise MethodNotAllowed()
            new = sub.merge(served_old, new)
            new["metadata"] = copy.deepcopy(served_old.get("metadata") or {})
        if rt.conversion is not None:
            new = self._to_storage(rt, new, served_old)
        if sub is None:
            carry_system_fields(old, new)
        if sub is None and not internal:
            if srt.has_status:
                if "status" in old:
                    new["status"] = copy.deepcopy(old["status"])
                else:
                    new.pop("status", None)
            srt.strategy.default(new)
            srt.strategy.prepare_for_update(new, old)
        attrs = None
        if not internal:
            options = review_options(self.meta_group_version, "UpdateOptions", dry_run, manager)
            attrs, new = admit_update(self.admission, rt, srt, new, old, sub, options)
        md = metadata_of(new)
        strategy_errors = []
        if not internal:
            strategy_errors = meta.metadata_update_errors(metadata_of(old), md) + srt.strategy.validate_update(new, old)
        self._invalid(rt, new, meta.metadata_errors(md, srt.name_rule, srt.namespaced) + strategy_errors)
        if attrs is not None:
            self.admission.validate(attrs)
        if srt.strategy.generation and _spec_changed(old, new):
            md["generation"] = int((old.get("metadata") or {}).get("generation") or 0) + 1
        md["resourceVersion"] = str(current.rv)
        if not tracked:
            new = self._track_as(rt, old, new, manager, sub)
            md = metadata_of(new)
        meta.drop_empty(md)
        if isinstance(current, Remembered) and (new == old or dry_run):
            current = self._confirm_current(key, current)  # nothing will be written to compare it with the store's
        if new == old and not current.stale:  # stale: stored under an old key, rewritten as rotation expects
            return served_old  # a no-op write: no new revision, no event
        if dry_run:
            return self.served(rt, new)
        try:
            if removed_by_update(metadata_of(old), md, srt.strategy.pending_finalizers(new)):
                self.storage.delete(key, current)
                return self.served(rt, new)
            return self.served(rt, self.storage.update(key, new, current).decode())
        except KeyNotFound:
            raise NotFound(rt.plural, rt.group, md.get("name", "")) from None

    def _confirm_current(self, key: str, remembered: Remembered) -> Stored:
        """The store's state of `remembered`; Unverified unless it still holds it (a write that ends without
        writing relies on it)."""
        stored = self.storage.get(key)
        if stored is None or stored.rv != remembered.rv:
            raise Unverified()
        return stored

    # -- delete --------------------------------------------------------------------------------

    @records("delete")
    def delete(self, rt: ResourceType, namespace: str | None, name: str, opts: DeleteOptions) -> tuple[dict, bool]:
        """Returns (body, deleted_now); body is the object, or a success Status for most kinds."""
        if "delete" not in rt.verbs:
            raise MethodNotAllowed()
        key = object_key(rt, namespace, name)

        def delete_current(current: Stored | None) -> tuple[dict, bool]:
            if current is None:
                raise NotFound(rt.plural, rt.group, name)
            obj = current.decode()
            md = metadata_of(obj)
            check_preconditions(rt, name, md, current, opts)
            srt = rt if rt.conversion is None else self.catalog.storage_type(rt)
            refusal = srt.strategy.forbid_delete(obj)
            if refusal:
                raise Forbidden(f'{rt.group_resource} "{name}" is forbidden: {refusal}', rt.plural, rt.group, name)
            attrs = Attributes(
                DELETE,
                rt,
                namespace or "",
                name,
                None,
                obj,
                dry_run=opts.dry_run,
                options=opts.to_api(self.meta_group_version),
            )
            self.admission.admit(attrs)
            self.admission.validate(attrs)
            terminating = copy.deepcopy(obj)
            tmd = metadata_of(terminating)
            grace = before_delete(srt.strategy, terminating, opts)
            if md.get("deletionTimestamp") and not grace.graceful:
                if grace.pending or not removed_by_update(md, md, srt.strategy.pending_finalizers(obj)):
                    return self.served(rt, obj), False
            elif not grace.graceful:
                tmd["deletionTimestamp"] = meta.now_rfc3339()
                tmd["deletionGracePeriodSeconds"] = 0
            srt.strategy.prepare_for_delete(terminating)
            add_gc_finalizer(tmd, opts)
            try:
                if srt.strategy.pending_finalizers(terminating) or grace.seconds > 0:
                    if not grace.graceful and int(tmd.get("generation") or 0) > 0:
                        tmd["generation"] = int(tmd["generation"]) + 1
                    if opts.dry_run:
                        return self.served(rt, terminating), False
                    return self.served(rt, self.storage.update(key, terminating, current).decode()), False
                if opts.dry_run:
                    return deleted_body(rt, self.served(rt, obj)), True
                gone = self.storage.delete(key, current)
                return deleted_body(rt, self.served(rt, gone.decode())), True
            except KeyNotFound:
                raise NotFound(rt.plural, rt.group, name) from None

        return self._guaranteed_update(rt, key, name, delete_current)

    @records("deletecollection")
    def delete_collection(
        self, rt: ResourceType, namespace: str | None, list_opts: ListOptions, opts: DeleteOptions
    ) -> ListResult:
        """Delete every matching object; answers the list of what was deleted (as the reference)."""
        if "deletecollection" not in rt.verbs:
            raise MethodNotAllowed()
        listed = self.list(
            rt, namespace, ListOptions(label_selector=list_opts.label_selector, field_selector=list_opts.field_selector)
        )
        for data in listed.items:
            md = orjson.loads(data).get("metadata") or {}
            try:
                self.delete(rt, md.get("namespace"), md["name"], opts)
            except NotFound:
                continue
        return listed


def _spec_changed(old: dict, new: dict) -> bool:
    ignore = ("metadata", "status", "apiVersion", "kind")
    return {k: v for k, v in old.items() if k not in ignore} != {k: v for k, v in new.items() if k not in ignore}
