"""`orchctl history` (who changed what, `--diff`), `orchctl rollback`, and `get --at` (docs/history.md)."""

from __future__ import annotations

import copy
import difflib
import json
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime

from ..durations import parse_duration
from .context import CommandError, Context, UsageError
from .output import to_yaml
from .resolve import Resource, display_kind, one_named_object, resolve_name, split_type_name

_AGO = re.compile(r"^\s*(\S+)\s+ago\s*$")
#: what --diff leaves out: bookkeeping every write changes, and status (history compares intent)
_NOISE = ("managedFields", "resourceVersion", "generation")
ROLLBACK_TRIES = 5
#: a new store's compactedRevision: nothing was ever compacted below it
FIRST_MARK = 1


def parse_when(text: str) -> str:
    """`2h ago`, `90m ago` or an RFC 3339 time -> the RFC 3339 UTC time the server takes."""
    match = _AGO.match(text)
    if match:
        try:
            seconds = parse_duration(match.group(1))
        except ValueError as err:
            raise UsageError(f"--at/--since {text!r}: {err}") from None
        return datetime.fromtimestamp(time.time() - seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{text!r}: expected an RFC 3339 time (2026-11-27T08:00:00Z) or `<duration> ago`") from None
    if at.tzinfo is None:
        raise UsageError(f"{text!r}: add a time zone (Z or +01:00)")
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def as_of_params(ctx: Context) -> dict:
    """`get --at`: the server reads the store as it was then (`<domain>/asOf`)."""
    at = getattr(ctx.args, "at", None)
    return {ctx.naming.api_key("asOf"): parse_when(at)} if at else {}


def _since(ctx: Context) -> dict:
    since = getattr(ctx.args, "since", None)
    if not since:
        return {}
    text = since if " " in since or "T" in since else f"{since} ago"  # `--since 2h` means two hours ago
    return {ctx.naming.api_key("since"): parse_when(text)}


def _history_page(ctx: Context, path: str, query: dict) -> dict:
    """One page of a RevisionList; an error when the server answers anything else (a server that keeps no
    history, or another API domain: it ignores the parameter and answers the object or list of now)."""
    page = ctx.client.get(path, {ctx.naming.api_key("history"): "true", **query})
    if page.get("kind") != "RevisionList":
        raise CommandError(
            f"the server answered {page.get('kind') or 'something else'} to {ctx.naming.api_key('history')}=true, "
            f"not a RevisionList: it keeps no history under the API domain {ctx.naming.domain}"
            + ("" if ctx.args.api_domain else " (or another domain: pass --api-domain)")
        )
    return page


def require_history(ctx: Context, path: str) -> None:
    """`get --at` only where the server reads the past: one that ignored `asOf` would answer the present."""
    _history_page(ctx, path, {"limit": "1"})


def _revisions(ctx: Context, path: str, params: dict) -> tuple[list[dict], int]:
    """Every page of a RevisionList, and its compactedRevision (where the kept history starts)."""
    items: list[dict] = []
    query = dict(params)
    while True:
        page = _history_page(ctx, path, query)
        items.extend(page.get("items") or [])
        metadata = page.get("metadata") or {}
        if not metadata.get("continue"):
            return items, int(metadata.get("compactedRevision") or 0)
        query["continue"] = metadata["continue"]


def run_history(ctx: Context) -> int:
    from ..client import ApiError

    words = ctx.args.words
    if not words:
        if not ctx.namespace_given and not ctx.args.since:
            raise UsageError("name an object (TYPE/NAME), a TYPE, or a --namespace (with --since)")
        entries = _namespace_history(ctx)
    else:
        pairs = split_type_name(words)
        if len(pairs) != 1:
            raise CommandError("history takes one TYPE/NAME or one TYPE")
        kind, name = pairs[0]
        resource = resolve_name(ctx, kind)
        namespace = ctx.namespace if resource.namespaced else None
        try:
            items, mark = _revisions(ctx, resource.path(namespace, name), _since(ctx))
        except ApiError as err:
            if err.status == 404 and name:
                raise CommandError(f"no history of {resource.plural} {name!r}: {err.message}") from None
            raise
        entries = [(resource, e) for e in items]
        if name and not entries and not ctx.args.since:
            _explain_no_history(ctx, resource, namespace, name)
        # without --since (whose start the server checks) say where a history that does not start at the
        # beginning starts: a list missing its first changes must not read as complete
        partial = not name or not items or items[0].get("type") != "ADDED"
        if mark > FIRST_MARK and not ctx.args.since and partial:
            ctx.warn(f"changes up to revision {mark} were compacted (the server's --history-retention)")
    wanted = _wanted(ctx)
    if ctx.output in ("json", "yaml"):
        document = {"kind": "RevisionList", "items": [e for _, e in entries if wanted(e)]}
        ctx.print(json.dumps(document, indent=2) if ctx.output == "json" else to_yaml(document), end="\n")
        return 0
    if ctx.args.diff:
        _print_diffs(ctx, entries, wanted)
        return 0
    shown = [(resource, e) for resource, e in entries if wanted(e)]
    if not shown:
        ctx.err.write("No changes found.\n")
        return 0
    _print_table(ctx, shown, several=not words or ("/" not in words[0] and len(words) == 1))
    return 0


def _explain_no_history(ctx: Context, resource: Resource, namespace: str | None, name: str) -> None:
    """An object without a kept change: it never existed (NotFound, as a get answers) or its history was
    compacted away (an error too: an empty answer would read as "never changed")."""
    path = resource.path(namespace, name)
    ctx.client.get(path)  # 404: the server's NotFound, exit status 1
    mark = (_history_page(ctx, path, {"limit": "1"}).get("metadata") or {}).get("compactedRevision") or "0"
    if mark == "0":
        raise CommandError(f"the server keeps no history of {display_kind(resource)}")
    raise CommandError(
        f"the history of {display_kind(resource)}/{name} has expired: every change of it was compacted "
        f"(kept from revision {mark}; the server's --history-retention)"
    )


def _wanted(ctx: Context) -> Callable[[dict], bool]:
    """--user and --verb (comma-separated, exact; `-` the server's own controllers, which have no user)."""
    users = _listed(ctx.args.user)
    verbs = _listed(ctx.args.verb)

    def wanted(entry: dict) -> bool:
        user = entry.get("user") or "-"
        return (users is None or user in users) and (verbs is None or (entry.get("verb") or "-") in verbs)

    return wanted


def _listed(text: str | None) -> set[str] | None:
    return None if text is None else {part.strip() for part in text.split(",") if part.strip()}


def _namespace_history(ctx: Context) -> list[tuple[Resource, dict]]:
    """Every kind of the namespace the user may list, merged in revision order (kinds refused are skipped, kinds
    whose kept history does not reach back to --since are warned about and skipped)."""
    from ..client import ApiError

    merged: list[tuple[Resource, dict]] = []
    resources = ctx.discovery.resources()
    ctx.confirm_domain()
    for resource in resources:
        if not resource.namespaced or "list" not in resource.verbs or "/" in resource.plural:
            continue
        try:
            merged.extend((resource, e) for e in _revisions(ctx, resource.path(ctx.namespace), _since(ctx))[0])
        except ApiError as err:
            if err.status == 410:  # kept shorter than --since reaches back: left out, and said so
                ctx.warn(f"{display_kind(resource)}: left out, its kept history is shorter ({err.message})")
                continue
            if err.status in (403, 404, 405):
                continue
            raise
    merged.sort(key=lambda pair: int(pair[1]["revision"]))
    return merged


def _print_table(ctx: Context, entries: list[tuple[Resource, dict]], several: bool) -> None:
    header = ["REVISION", "TIME", *(["OBJECT"] if several else []), "TYPE", "VERB", "USER", "MANAGER"]
    rows = [header]
    for resource, e in entries:
        md = (e.get("object") or {}).get("metadata") or {}
        name = f"{resource.plural}/{md.get('name', '')}" if not resource.group else (
            f"{resource.plural}.{resource.group}/{md.get('name', '')}"
        )  # fmt: skip
        cells = [e["revision"], e["time"][:19] + "Z", *([name] if several else []), e["type"], e["verb"] or "-"]
        rows.append([*cells, e["user"] or "-", e["manager"] or "-"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        ctx.print("   ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def comparable(obj: dict) -> dict:
    """An object as --diff and rollback compare it: spec and metadata without managedFields and counters."""
    out = copy.deepcopy(obj)
    out.pop("status", None)
    md = out.get("metadata") or {}
    for key in _NOISE:
        md.pop(key, None)
    return out


def _print_diffs(ctx: Context, entries: list[tuple[Resource, dict]], wanted: Callable[[dict], bool]) -> None:
    """Each wanted change against the change before it (wanted or not: a diff shows what that change did)."""
    previous: dict[str, str] = {}
    for resource, e in entries:
        obj = e.get("object") or {}
        md = obj.get("metadata") or {}
        ident = f"{resource.plural}/{md.get('namespace', '')}/{md.get('name', '')}"
        text = "" if e["type"] == "DELETED" else to_yaml(comparable(obj))
        if not wanted(e):
            previous[ident] = text
            continue
        who = ", ".join(part for part in (e["user"], e["manager"], e["verb"]) if part) or "unknown"
        ctx.print(f"revision {e['revision']}  {e['time']}  {e['type']}  by {who}")
        before = previous.get(ident, "")
        diff = difflib.unified_diff(
            before.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"{ident}@before",
            tofile=f"{ident}@{e['revision']}",
        )
        ctx.print("".join(diff), end="")
        previous[ident] = text


def run_rollback(ctx: Context) -> int:
    """Write the object's content at --to-revision back as a normal update (a new revision)."""
    from ..client import ApiError

    resource, name = one_named_object(ctx, ctx.args.words, "rollback takes one TYPE/NAME")
    namespace = ctx.namespace if resource.namespaced else None
    path = resource.path(namespace, name)
    old = ctx.client.get(path, {"resourceVersion": str(ctx.args.to_revision), "resourceVersionMatch": "Exact"})
    for _ in range(ROLLBACK_TRIES):
        current = ctx.client.get(path)
        restored = _restored(old, current)
        if comparable(restored) == comparable(current):
            ctx.print(f"{resource.plural}/{name} skipped rollback (already as at revision {ctx.args.to_revision})")
            return 0
        try:
            written = ctx.client.update(path, restored, {"fieldManager": ctx.args.field_manager})
        except ApiError as err:
            if err.status == 409:  # written in between (a controller's status): read again, as kubectl does
                continue
            raise
        new_rv = (written.get("metadata") or {}).get("resourceVersion", "")
        ctx.print(f"{resource.plural}/{name} rolled back to revision {ctx.args.to_revision} (now {new_rv})")
        return 0
    raise CommandError(f"{resource.plural}/{name} kept changing: rollback gave up after {ROLLBACK_TRIES} tries")


def _restored(old: dict, current: dict) -> dict:
    """The live object with the old one's content (all but metadata and status) and its labels and annotations;
    the live resourceVersion stays, so a write in between answers 409 and nothing is lost."""
    restored = {k: copy.deepcopy(v) for k, v in old.items() if k not in ("metadata", "status")}
    old_md, md = old.get("metadata") or {}, copy.deepcopy(current.get("metadata") or {})
    for key in ("labels", "annotations"):
        if old_md.get(key) is not None:
            md[key] = copy.deepcopy(old_md[key])
        else:
            md.pop(key, None)
    md.pop("managedFields", None)
    restored["metadata"] = md
    if "status" in current:
        restored["status"] = current["status"]
    return restored
