"""`orchctl fault add|list|delete`: Faults on a server started with --enable-fault-injection (docs/testing.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..faults.manifest import MATCH_KEYWORDS, fault_api_version, fault_manifest, faults_path
from ..resources.testing import action_summary
from .context import Context, UsageError
from .output import align, format_objects

#: --flag -> fault_manifest keyword, for the match lists (repeatable, or comma separated)
MATCH_FLAGS = {
    "verb": "verbs",
    "resource": "resources",
    "subresource": "subresources",
    "namespace-match": "namespaces",
    "name-match": "names",
    "user": "users",
    "group": "groups",
    "user-agent": "user_agents",
    "field-manager": "field_managers",
}


def add_command(
    command: Callable[[str, str, Callable[[Context], int]], argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """The `fault` command and its three subcommands, on orchctl's parser (`common`: the global flags)."""
    p = command("fault", "add, list or delete Faults (a server with --enable-fault-injection)", lambda ctx: 2)
    subs = p.add_subparsers(dest="fault_command", metavar="SUBCOMMAND", required=True)
    add = subs.add_parser(
        "add", parents=[common], help="add a Fault", description="add a Fault: what it matches, and one action"
    )
    add.set_defaults(run=run_add)
    add.add_argument("name")
    for flag, keyword in MATCH_FLAGS.items():
        add.add_argument(
            f"--{flag}", dest=f"match_{keyword}", action="append", help=f"spec.match.{MATCH_KEYWORDS[keyword]}"
        )
    add.add_argument("--error", type=int, metavar="CODE", help="answer this status code (400-599)")
    add.add_argument("--after-write", type=int, metavar="CODE", help="store the write, then answer this code")
    add.add_argument("--delay", metavar="DURATION", help="serve after this long (e.g. 2s)")
    add.add_argument("--expire-after-events", type=int, metavar="N", help="a watch ends with 410 after N events")
    add.add_argument("--close-after-events", type=int, metavar="N", help="a watch ends quietly after N events")
    add.add_argument("--conflict-once", action="store_true", help="the next matching update or patch gets 409")
    add.add_argument("--reason", help="the error's reason (default: the reference's for the code)")
    add.add_argument("--message", help="the error's message")
    add.add_argument("--retry-after", type=int, metavar="SECONDS", help="Retry-After of a 429, 503 or 504")
    add.add_argument("--times", type=int, help="how many requests it takes (default: until deleted)")
    add.add_argument("--probability", type=float, help="the share of matching requests it takes (0-1)")
    add.add_argument("--seed", type=int, help="makes --probability choose the same requests every run")
    add.add_argument("-o", "--output", choices=("json", "yaml", "name"), default=None)
    ls = subs.add_parser("list", parents=[common], help="list Faults with how many requests each took")
    ls.set_defaults(run=run_list)
    ls.add_argument("-o", "--output", choices=("json", "yaml", "name"), default=None)
    rm = subs.add_parser("delete", parents=[common], help="delete Faults by name (--all: every one)")
    rm.set_defaults(run=run_delete)
    rm.add_argument("names", nargs="*")
    rm.add_argument("--all", action="store_true")


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [item for value in values for item in value.split(",") if item]


def run_add(ctx: Context) -> int:
    args = ctx.args
    keywords: dict[str, Any] = {
        keyword: _split(getattr(args, f"match_{keyword}"))
        for keyword in MATCH_KEYWORDS
        if keyword in MATCH_FLAGS.values()
    }
    for name in ("error", "after_write", "delay", "expire_after_events", "close_after_events", "reason", "message"):
        keywords[name] = getattr(args, name)
    keywords.update(
        retry_after=args.retry_after,
        conflict_once=args.conflict_once,
        times=args.times,
        probability=args.probability,
        seed=args.seed,
    )
    obj = fault_manifest(args.name, fault_api_version(ctx.naming), **keywords)
    created = ctx.client.create(faults_path(ctx.naming), obj)
    if ctx.output:
        ctx.print(format_objects([created], ctx.output, single=True).rstrip("\n"))
    else:
        ctx.print(f"fault/{args.name} created")
    return 0


def run_list(ctx: Context) -> int:
    items = ctx.client.list(faults_path(ctx.naming)).get("items") or []
    if ctx.output:
        ctx.print(format_objects(items, ctx.output, single=False).rstrip("\n"))
        return 0
    if not items:
        ctx.print("No faults found.")
        return 0
    lines = [["NAME", "ACTION", "TIMES", "MATCHED"]]
    for obj in items:
        spec = obj.get("spec") or {}
        times = spec.get("times")
        lines.append(
            [
                obj["metadata"]["name"],
                action_summary(obj),
                "<unset>" if times is None else str(times),
                str((obj.get("status") or {}).get("matched") or 0),
            ]
        )
    ctx.print(align(lines).rstrip("\n"))
    return 0


def run_delete(ctx: Context) -> int:
    args = ctx.args
    path = faults_path(ctx.naming)
    if args.all:
        names = [obj["metadata"]["name"] for obj in ctx.client.list(path).get("items") or []]
    elif args.names:
        names = args.names
    else:
        raise UsageError("name the Faults to delete, or pass --all")
    for name in names:
        ctx.client.delete(f"{path}/{name}")
        ctx.print(f'fault "{name}" deleted')
    return 0
