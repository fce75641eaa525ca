"""`orchctl apply`: client-side (a three-way merge patch kept in the last-applied annotation) or server-side."""

from __future__ import annotations

import copy
import json

from ..naming import Naming
from .context import FIELD_MANAGER, CommandError, Context
from .get import server_error_text
from .resolve import manifest_namespace, resource_for_manifest
from .write import dry_run_params, dry_run_suffix, manifest_source, manifests, report

_MISSING = object()
CLIENT_SIDE_MANAGER = "orchctl-client-side-apply"


def last_applied_key(naming: Naming) -> str:
    """The renamed `kubectl.kubernetes.io/last-applied-configuration`."""
    return f"{naming.group('kubectl')}/last-applied-configuration"


def three_way_patch(original: dict, modified: dict, current: dict) -> dict:
    """A JSON merge patch turning `current` into `modified`, deleting what was applied before (`original`)
    but is no longer in the manifest; fields set by others and never applied stay. Lists are replaced whole."""
    patch: dict = {}
    for key in original:
        if key not in modified and key in current:
            patch[key] = None
    for key, wanted in modified.items():
        live = current.get(key, _MISSING)
        if isinstance(wanted, dict) and isinstance(live, dict):
            before = original.get(key)
            nested = three_way_patch(before if isinstance(before, dict) else {}, wanted, live)
            if nested:
                patch[key] = nested
        elif isinstance(wanted, list) and isinstance(live, list) and covers(live, wanted):
            continue  # the list as applied, plus what the server defaulted inside its items
        elif wanted != live:
            patch[key] = wanted
    return patch


def strategic_three_way_patch(original: dict, modified: dict, current: dict, spec: object) -> dict:
    """Like three_way_patch, as a strategic merge patch driven by the kind's schema (the server's own
    declarations): lists with a merge key are patched element by element (`$patch: delete` for elements
    dropped from the manifest), merged primitive lists by `$deleteFromPrimitiveList`; others are replaced."""
    from ..schema.types import ListOf, MapOf, Struct

    patch: dict = {}
    for key in original:
        if key not in modified and key in current:
            patch[key] = None
    for key, wanted in modified.items():
        live = current.get(key, _MISSING)
        field = spec.field(key) if isinstance(spec, Struct) else None
        child = field.type if field else (spec.value if isinstance(spec, MapOf) else None)
        before = original.get(key)
        if isinstance(wanted, dict) and isinstance(live, dict):
            nested = strategic_three_way_patch(before if isinstance(before, dict) else {}, wanted, live, child)
            if nested:
                patch[key] = nested
        elif (
            isinstance(wanted, list)
            and isinstance(live, list)
            and field is not None
            and "merge" in (field.patch_strategy or "").split(",")
            and isinstance(child, ListOf)
        ):
            previous = before if isinstance(before, list) else []
            if field.patch_merge_key and isinstance(child.item, Struct):
                elements = _merged_elements(previous, wanted, live, field.patch_merge_key, child.item)
                if elements is None:  # an element without its merge key: replace the list
                    if not covers(live, wanted):
                        patch[key] = wanted
                elif elements:
                    patch[key] = elements
            else:
                added = [v for v in wanted if v not in live]
                removed = [v for v in previous if v not in wanted and v in live]
                if added:
                    patch[key] = added
                if removed:
                    patch[f"$deleteFromPrimitiveList/{key}"] = removed
        elif isinstance(wanted, list) and isinstance(live, list) and covers(live, wanted):
            continue
        elif wanted != live:
            patch[key] = wanted
    return patch


def _merged_elements(previous: list, wanted: list, live: list, merge_key: str, item: object) -> list | None:
    if not all(isinstance(e, dict) and merge_key in e for e in [*previous, *wanted, *live]):
        return None
    live_by = {e[merge_key]: e for e in live}
    previous_by = {e[merge_key]: e for e in previous}
    wanted_keys = {e[merge_key] for e in wanted}
    elements: list = []
    for element in wanted:
        name = element[merge_key]
        if name not in live_by:
            elements.append(element)
            continue
        nested = strategic_three_way_patch(previous_by.get(name, {}), element, live_by[name], item)
        if nested:
            elements.append({merge_key: name, **nested})
    for name in previous_by:
        if name not in wanted_keys and name in live_by:
            elements.append({merge_key: name, "$patch": "delete"})
    return elements


def schema_of(obj: dict, naming: Naming) -> object | None:
    """The kind's schema when the server declares one (then kubectl would send a strategic merge patch)."""
    from ..schema import has_schema, schema_for

    api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    return schema_for(api_version, kind, naming) if has_schema(api_version, kind, naming) else None


def covers(live: object, wanted: object) -> bool:
    """`live` holds everything `wanted` says (dicts may have more keys, lists the same length)."""
    if isinstance(wanted, dict):
        return isinstance(live, dict) and all(k in live and covers(live[k], v) for k, v in wanted.items())
    if isinstance(wanted, list):
        return isinstance(live, list) and len(live) == len(wanted) and all(map(covers, live, wanted))
    return live == wanted


def with_last_applied(obj: dict, naming: Naming) -> dict:
    """The manifest as sent: with the annotation recording it (without the annotation itself)."""
    key = last_applied_key(naming)
    recorded = copy.deepcopy(obj)
    annotations = (recorded.get("metadata") or {}).get("annotations") or {}
    annotations.pop(key, None)
    if not annotations and "annotations" in (recorded.get("metadata") or {}):
        recorded["metadata"].pop("annotations")
    out = copy.deepcopy(obj)
    out.setdefault("metadata", {}).setdefault("annotations", {})[key] = json.dumps(
        recorded, separators=(",", ":"), sort_keys=True
    )
    return out


def run_apply(ctx: Context) -> int:
    from ..client import ApiError

    failures = 0
    for obj in manifests(ctx, "apply"):
        resource = resource_for_manifest(ctx, obj, manifest_source(ctx))
        namespace = manifest_namespace(ctx, resource, obj)
        name = (obj.get("metadata") or {}).get("name")
        if not name:
            raise CommandError(f"a {obj['kind']} in {manifest_source(ctx)} has no metadata.name, which apply needs")
        try:
            if ctx.args.server_side:
                manager = ctx.args.field_manager or FIELD_MANAGER
                applied = ctx.client.apply(
                    resource.path(namespace, name),
                    obj,
                    field_manager=manager,
                    force=ctx.args.force_conflicts,
                    params=dry_run_params(ctx) or None,
                )
                report(ctx, applied, "serverside-applied" + dry_run_suffix(ctx))
            else:
                _client_side(ctx, resource.path(namespace), resource.path(namespace, name), obj)
        except ApiError as err:
            failures += 1
            ctx.err.write(server_error_text(err) + "\n")
            if ctx.args.server_side and err.status == 409:
                ctx.err.write(CONFLICT_HINT)
    return 1 if failures else 0


CONFLICT_HINT = """Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
"""


def _client_side(ctx: Context, collection: str, path: str, obj: dict) -> None:
    from ..client import ApiError

    modified = with_last_applied(obj, ctx.naming)
    manager = ctx.args.field_manager or CLIENT_SIDE_MANAGER
    params = {**dry_run_params(ctx), "fieldManager": manager}
    try:
        current = ctx.client.get(path)
    except ApiError as err:
        if err.status != 404:
            raise
        report(ctx, ctx.client.create(collection, modified, params), "created" + dry_run_suffix(ctx))
        return
    key = last_applied_key(ctx.naming)
    recorded = ((current.get("metadata") or {}).get("annotations") or {}).get(key)
    try:
        original = json.loads(recorded) if recorded else {}
    except ValueError:
        original = {}
    schema = schema_of(obj, ctx.naming)
    if schema is None:  # a kind without declared merge keys: a JSON merge patch, as kubectl sends for those
        patch, patch_type = three_way_patch(original, modified, current), "merge"
    else:
        patch, patch_type = strategic_three_way_patch(original, modified, current, schema), "strategic"
    if not patch:
        report(ctx, current, "unchanged")
        return
    patched = ctx.client.patch(path, patch, patch_type, field_manager=manager, params=dry_run_params(ctx) or None)
    report(ctx, patched, "configured" + dry_run_suffix(ctx))
