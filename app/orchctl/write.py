"""`orchctl create -f`, `create token`, `delete`, `patch`."""

from __future__ import annotations

import json
import time

import yaml

from ..durations import parse_duration
from .context import CommandError, Context
from .get import server_error_text
from .manifests import read_manifests
from .output import format_objects, object_name
from .resolve import (
    display_kind,
    manifest_namespace,
    one_named_object,
    resolve_name,
    resource_for_manifest,
    split_type_name,
)


def manifests(ctx: Context, verb: str = "") -> list[dict]:
    """The objects of -f; with `verb`, none is an error as in kubectl (`no objects passed to apply`)."""
    if not ctx.args.filename:
        raise CommandError("must specify -f FILE (a file, a directory or - for stdin)")
    objects = read_manifests(ctx.args.filename, recursive=ctx.args.recursive)
    if verb and not objects:
        raise CommandError(f"no objects passed to {verb}")
    return objects


def report(ctx: Context, obj: dict, verb: str) -> None:
    """kubectl's one line per object (`configmap/x created`), or the object with -o json|yaml|name."""
    if ctx.output in ("json", "yaml", "name"):
        ctx.print(format_objects([obj], ctx.output, single=True), end="")
    else:
        ctx.print(f"{object_name(obj)} {verb}")


def run_create(ctx: Context) -> int:
    from ..client import ApiError

    words = ctx.args.words
    if words and words[0] == "token":
        return create_token(ctx, words[1:])
    if words:
        raise CommandError(f"unknown create subcommand {words[0]!r}: use `create -f FILE` or `create token NAME`")
    failures = 0
    for obj in manifests(ctx, "create"):
        resource = resource_for_manifest(ctx, obj, manifest_source(ctx))
        namespace = manifest_namespace(ctx, resource, obj)
        try:
            created = ctx.client.create(resource.path(namespace), obj, dry_run_params(ctx))
        except ApiError as err:
            ctx.err.write(server_error_text(err) + "\n")
            failures += 1
            continue
        report(ctx, created, "created" + dry_run_suffix(ctx))
    return 1 if failures else 0


def manifest_source(ctx: Context) -> str:
    return ",".join("STDIN" if f == "-" else f for f in ctx.args.filename)


def dry_run_params(ctx: Context) -> dict:
    return {"dryRun": "All"} if getattr(ctx.args, "dry_run", None) == "server" else {}


def dry_run_suffix(ctx: Context) -> str:
    return " (server dry run)" if getattr(ctx.args, "dry_run", None) == "server" else ""


def create_token(ctx: Context, words: list[str]) -> int:
    if len(words) != 1:
        raise CommandError("create token takes exactly one service account name")
    resource = resolve_name(ctx, "serviceaccounts")
    spec: dict = {"audiences": list(ctx.args.audience or [])}
    if ctx.args.duration:
        try:
            seconds = parse_duration(ctx.args.duration)
        except ValueError as err:
            raise CommandError(f"invalid --duration {ctx.args.duration!r}: {err}") from err
        spec["expirationSeconds"] = int(seconds)
    request = {"apiVersion": f"{ctx.naming.group('authentication')}/v1", "kind": "TokenRequest", "spec": spec}
    answer = ctx.client.create(resource.path(ctx.namespace, words[0], "token"), request)
    if ctx.output in ("json", "yaml"):
        ctx.print(format_objects([answer], ctx.output, single=True), end="")
    else:
        ctx.print((answer.get("status") or {}).get("token", ""))
    return 0


def run_delete(ctx: Context) -> int:
    from ..client import ApiError

    targets = []
    if ctx.args.filename:
        if ctx.args.words:
            raise CommandError("resource names and -f cannot be used together")
        for obj in manifests(ctx):
            resource = resource_for_manifest(ctx, obj, manifest_source(ctx))
            namespace = manifest_namespace(ctx, resource, obj)
            name = obj["metadata"].get("name")
            if not name:
                raise CommandError(f"a {obj['kind']} in {manifest_source(ctx)} has no metadata.name to delete")
            targets.append((resource, namespace, name))
    else:
        pairs = split_type_name(ctx.args.words)
        for kind, name in pairs:
            if not name:
                raise CommandError("resource(s) were provided, but no name was specified")
            resource = resolve_name(ctx, kind)
            targets.append((resource, ctx.namespace if resource.namespaced else None, name))
    failures = 0
    params = {**dry_run_params(ctx)}
    if ctx.args.cascade:
        params["propagationPolicy"] = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan"}[
            ctx.args.cascade
        ]
    deleted = []
    for resource, namespace, name in targets:
        path = resource.path(namespace, name)
        try:
            uid = (ctx.client.get(path).get("metadata") or {}).get("uid")
            ctx.client.delete(path, params or None)
        except ApiError as err:
            if err.status == 404 and ctx.args.ignore_not_found:
                continue
            ctx.err.write(server_error_text(err) + "\n")
            failures += 1
            continue
        deleted.append((path, uid))
        if ctx.output == "name":
            ctx.print(f"{display_kind(resource)}/{name}")
        else:
            ctx.print(f'{display_kind(resource)} "{name}" deleted{dry_run_suffix(ctx)}')
    if ctx.args.wait == "true" and not dry_run_params(ctx):
        failures += wait_until_gone(ctx, deleted)
    return 1 if failures else 0


def wait_until_gone(ctx: Context, deleted: list[tuple[str, str | None]]) -> int:
    """Poll each deleted object until it is gone (or replaced by a new one); returns how many timed out."""
    from ..client import ApiError

    deadline = time.monotonic() + ctx.args.timeout if ctx.args.timeout else None
    pending = list(deleted)
    while pending:
        still = []
        for path, uid in pending:
            try:
                current = ctx.client.get(path)
            except ApiError as err:
                if err.status == 404:
                    continue
                raise
            if (current.get("metadata") or {}).get("uid") == uid:
                still.append((path, uid))
        pending = still
        if pending and deadline is not None and time.monotonic() > deadline:
            for path, _ in pending:
                ctx.err.write(f"error: timed out waiting for the deletion of {path}\n")
            return len(pending)
        if pending:
            time.sleep(WAIT_POLL_SECONDS)
    return 0


WAIT_POLL_SECONDS = 0.5


PATCH_TYPES = ("strategic", "merge", "json")


def run_patch(ctx: Context) -> int:
    resource, name = one_named_object(
        ctx, ctx.args.words, "patch takes one resource and one name (TYPE NAME or TYPE/NAME)"
    )
    text = ctx.args.patch
    if ctx.args.patch_file:
        with open(ctx.args.patch_file) as handle:
            text = handle.read()
    if not text:
        raise CommandError("must specify -p to patch")
    try:
        patch = json.loads(text)
    except json.JSONDecodeError:
        try:
            patch = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise CommandError(f"unable to parse the patch {text!r}: {err}") from err
    namespace = ctx.namespace if resource.namespaced else None
    path = resource.path(namespace, name, ctx.args.subresource)
    before = None
    if ctx.output not in ("json", "yaml", "name"):
        before = ctx.client.get(path)
    patched = ctx.client.patch(
        path, patch, ctx.args.type, field_manager=ctx.args.field_manager or None, params=dry_run_params(ctx) or None
    )
    unchanged = before is not None and _version(before) == _version(patched)
    report(ctx, patched, ("patched (no change)" if unchanged else "patched") + dry_run_suffix(ctx))
    return 0


def _version(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("resourceVersion", "")
