"""`orchctl get` (tables, json, yaml, name; -w) and `orchctl watch`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from .context import CommandError, Context
from .history import as_of_params, require_history
from .output import align, column_widths, format_objects, object_name, table_columns, table_lines, to_yaml
from .resolve import Resource, display_kind, resolve_name, resolve_names, split_type_name


def table_accept(ctx: Context) -> str:
    return f"application/json;as=Table;g={ctx.naming.meta_group};v=v1, application/json"


def with_type(obj: dict, resource: Resource) -> dict:
    """List items may come without apiVersion/kind; printed objects always carry them."""
    obj.setdefault("apiVersion", f"{resource.group}/{resource.version}" if resource.group else resource.version)
    obj.setdefault("kind", resource.kind)
    return obj


def selector_params(ctx: Context) -> dict:
    params = {}
    if getattr(ctx.args, "selector", None):
        params["labelSelector"] = ctx.args.selector
    if getattr(ctx.args, "field_selector", None):
        params["fieldSelector"] = ctx.args.field_selector
    return params


def scope(ctx: Context, resource: Resource) -> str | None:
    if not resource.namespaced or getattr(ctx.args, "all_namespaces", False):
        return None
    return ctx.namespace


def run_get(ctx: Context) -> int:
    from ..client import ApiError

    pairs = split_type_name(ctx.args.words)
    if ctx.args.watch and getattr(ctx.args, "at", None):
        raise CommandError("--at reads the past: it cannot be combined with --watch")
    targets = [(resource, names) for kind, names in _group_by_type(pairs) for resource in resolve_names(ctx, kind)]
    if ctx.args.watch and (len(targets) > 1 or len(pairs) > 1):
        raise CommandError("you may only specify a single resource type or a single name with --watch")
    failures: list[ApiError] = []
    if ctx.output in ("json", "yaml") and len(targets) > 1:  # several types: one List, as kubectl prints them
        collected = [obj for resource, names in targets for obj in _objects(ctx, resource, names, failures)[0]]
        ctx.print(format_objects(collected, ctx.output, single=False), end="")
        targets = []
    table_printed = False
    for resource, names in targets:
        list_rv, widths = _print_resource(
            ctx, resource, names, failures, separate=table_printed, with_kind=len(targets) > 1
        )
        table_printed = table_printed or widths is not None
        if ctx.args.watch and not failures:
            _follow(ctx, resource, names[0] if names else None, list_rv, widths)
    if not table_printed and not failures and ctx.output in ("", "wide") and not ctx.args.watch:
        namespaced = any(resource.namespaced for resource, _ in targets)
        where = "" if ctx.args.all_namespaces or not namespaced else f" in {ctx.namespace} namespace"
        ctx.err.write(f"No resources found{where}.\n")
    for err in failures:
        ctx.err.write(server_error_text(err) + "\n")
    return 1 if failures else 0


def _group_by_type(pairs: list[tuple[str, str | None]]) -> list[tuple[str, list[str]]]:
    grouped: dict[str, list[str]] = {}
    for kind, name in pairs:
        grouped.setdefault(kind, [])
        if name:
            grouped[kind].append(name)
    return list(grouped.items())


def _each(names: list[str], fetch: Callable[[str], dict], failures: list) -> list[dict]:
    """Every named object that could be read; errors (not found, ...) are collected, as kubectl reports them last."""
    from ..client import ApiError

    found = []
    for name in names:
        try:
            found.append(fetch(name))
        except ApiError as err:
            failures.append(err)
    return found


def _print_resource(
    ctx: Context, resource: Resource, names: list[str], failures: list, *, separate: bool = False, with_kind: bool
) -> tuple[str, list[int] | None]:
    """Print the objects; returns the list's resourceVersion (to watch from) and the printed table's widths.
    `with_kind`: names as `<kind>[.<group>]/<name>`, as kubectl prints several types."""
    namespace = scope(ctx, resource)
    output = ctx.output
    if output in ("json", "yaml", "name"):
        objects, list_rv = _objects(ctx, resource, names, failures)
        if names and not objects:
            return "", None
        if objects or names:
            ctx.print(format_objects(objects, output, single=bool(names) and len(names) == 1), end="")
        elif output != "name":
            ctx.print(format_objects([], output, single=False), end="")
        return list_rv, None
    _check_past(ctx, resource, names)
    tables = (
        _each(names, lambda name: _table(ctx, resource.path(namespace, name), as_of_params(ctx)), failures)
        if names
        else [_table(ctx, resource.path(namespace), {**selector_params(ctx), **as_of_params(ctx)})]
    )
    if not tables:
        return "", None
    table = dict(tables[0], rows=[row for t in tables for row in t.get("rows") or []])
    if with_kind:
        table = _names_with_kind(table, resource)
    with_namespace = resource.namespaced and bool(getattr(ctx.args, "all_namespaces", False))
    lines = table_lines(table, wide=output == "wide", with_namespace=with_namespace)
    widths = None
    if len(lines) > 1:
        widths = column_widths(lines)
        if separate:
            ctx.print()  # kubectl separates the tables of several types with a blank line
        ctx.print(align(lines, widths), end="")
    return (table.get("metadata") or {}).get("resourceVersion", ""), widths


def _check_past(ctx: Context, resource: Resource, names: list[str]) -> None:
    if getattr(ctx.args, "at", None):
        require_history(ctx, resource.path(scope(ctx, resource), names[0] if names else None))


def _objects(ctx: Context, resource: Resource, names: list[str], failures: list) -> tuple[list[dict], str]:
    """The named objects (failures collected) or the listed ones, typed; with the list's resourceVersion."""
    namespace = scope(ctx, resource)
    _check_past(ctx, resource, names)
    if names:
        found = _each(names, lambda name: ctx.client.get(resource.path(namespace, name), as_of_params(ctx)), failures)
        return [with_type(obj, resource) for obj in found], ""
    listed = ctx.client.get(resource.path(namespace), {**selector_params(ctx), **as_of_params(ctx)})
    objects = [with_type(item, resource) for item in listed.get("items") or []]
    return objects, (listed.get("metadata") or {}).get("resourceVersion", "")


def _names_with_kind(table: dict, resource: Resource) -> dict:
    definitions = table.get("columnDefinitions") or []
    column = next((i for i, c in enumerate(definitions) if str(c.get("name", "")).lower() == "name"), 0)
    prefix = display_kind(resource) + "/"

    def renamed(row: dict) -> dict:
        cells = list(row.get("cells") or [])
        if column < len(cells):
            cells[column] = prefix + str(cells[column])
        return dict(row, cells=cells)

    return dict(table, rows=[renamed(row) for row in table.get("rows") or []])


def _table(ctx: Context, path: str, params: dict | None = None) -> dict:
    document = ctx.client.request("GET", path, params=params, accept=table_accept(ctx)).json()
    if document.get("kind") != "Table":  # a server without Tables: NAME only
        items: list = (document.get("items") or []) if "items" in document else [document]
        return {
            "columnDefinitions": [{"name": "Name", "type": "string", "priority": 0}],
            "rows": [{"cells": [(item.get("metadata") or {}).get("name", "")], "object": item} for item in items],
            "metadata": document.get("metadata") or {},
        }
    return document


# --- watching ----------------------------------------------------------------------------------------------


def events(ctx: Context, resource: Resource, name: str | None, resource_version: str | None) -> Iterator[dict]:
    """Watch events forever: resumes from the last resourceVersion when a stream ends, re-lists on 410 Gone."""
    from ..client import ApiError

    namespace = scope(ctx, resource)
    params = selector_params(ctx)
    if name:
        params["fieldSelector"] = ",".join(filter(None, [params.get("fieldSelector"), f"metadata.name={name}"]))
    rv = resource_version or None
    while True:
        try:
            for event in ctx.client.watch(
                resource.path(namespace), resource_version=rv, params=params, timeout_seconds=ctx.args.watch_timeout
            ):
                if event.get("type") == "ERROR":
                    status = event.get("object") or {}
                    if status.get("code") == 410:
                        raise ApiError(410, status)
                    raise ApiError(int(status.get("code") or 500), status)
                obj = event.get("object") or {}
                rv = (obj.get("metadata") or {}).get("resourceVersion") or rv
                if event.get("type") == "BOOKMARK":
                    continue
                yield event
        except ApiError as err:
            if err.status != 410:
                raise
            listed = ctx.client.get(resource.path(namespace), params)  # history is gone: start again from now
            rv = (listed.get("metadata") or {}).get("resourceVersion")
        if ctx.args.watch_timeout:  # a bounded watch (tests, scripts): one stream only
            return


def _follow(ctx: Context, resource: Resource, name: str | None, list_rv: str, widths: list[int] | None) -> None:
    """`get -w`: after the initial listing, one line (or document) per change."""
    printer = EventPrinter(ctx, resource, with_event=False, widths=widths)
    for event in events(ctx, resource, name, list_rv or None):
        printer.print(event)


def run_watch(ctx: Context) -> int:
    pairs = split_type_name(ctx.args.words)
    if len(pairs) > 1:
        raise CommandError("watch takes one resource type and at most one name")
    kind, name = pairs[0]
    resource = resolve_name(ctx, kind)
    printer = EventPrinter(ctx, resource, with_event=True)
    for event in events(ctx, resource, name, ctx.args.resource_version):
        printer.print(event)
    return 0


class EventPrinter:
    """Prints watch events as table rows (rendered with the server's own printers), json, yaml or names."""

    def __init__(self, ctx: Context, resource: Resource, *, with_event: bool, widths: list[int] | None = None) -> None:
        self.ctx = ctx
        self.resource = resource
        self.with_event = with_event
        self.widths = widths
        self.headers_printed = widths is not None  # `get -w` printed its headers with a non-empty listing

    def print(self, event: dict) -> None:
        obj = with_type(event.get("object") or {}, self.resource)
        kind = event.get("type", "")
        output = self.ctx.output
        if output == "json":
            self.ctx.print(json.dumps(event if self.with_event else obj, separators=(",", ":")))
        elif output == "yaml":
            self.ctx.print("---\n" + to_yaml(event if self.with_event else obj), end="")
        elif output == "name":
            self.ctx.print(f"{kind} {object_name(obj)}" if self.with_event else object_name(obj))
        else:
            self._row(kind, obj)

    def _row(self, kind: str, obj: dict) -> None:
        table = local_table(self.ctx, self.resource, obj)
        with_namespace = self.resource.namespaced and bool(getattr(self.ctx.args, "all_namespaces", False))
        columns = table_columns(table, self.ctx.output == "wide")
        lines = table_lines(table, with_namespace=with_namespace, columns=columns, headers=not self.headers_printed)
        if self.with_event:
            lines = (
                [["EVENT", *lines[0]], *[[kind, *line] for line in lines[1:]]]
                if not self.headers_printed
                else [[kind, *line] for line in lines]
            )
        self.headers_printed = True
        widths = column_widths(lines)
        if self.with_event:
            widths[0] = max(widths[0], len("MODIFIED") + 3)  # event types differ in length: keep rows aligned
        self.widths = [max(a, b) for a, b in zip(self.widths, widths, strict=False)] if self.widths else widths
        self.ctx.print(align(lines, self.widths), end="")


def local_table(ctx: Context, resource: Resource, obj: dict) -> dict:
    """A one-row Table for `obj` made by the server's printer for its kind (the same code the server runs)."""
    from ..tables import render_table
    from .convert import catalog_for

    rt = catalog_for(ctx.naming.domain).lookup(resource.group, resource.version, resource.plural)
    if rt is None:
        metadata = obj.get("metadata") or {}
        return {
            "columnDefinitions": [{"name": "Name", "type": "string", "priority": 0}],
            "rows": [{"cells": [metadata.get("name", "")], "object": {"metadata": metadata}}],
        }
    return render_table(rt, ctx.naming, [obj])


def server_error_text(err: Exception) -> str:
    status = getattr(err, "status", None)
    reason = getattr(err, "reason", "")
    message = getattr(err, "message", str(err))
    if status == 0:
        return f"Unable to connect to the server: {message}"
    return f"Error from server ({reason}): {message}" if reason else f"Error from server: {message}"
