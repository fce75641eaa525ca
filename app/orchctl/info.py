"""`orchctl api-resources` and `orchctl version`."""

from __future__ import annotations

from importlib import metadata

from .context import Context
from .output import align, to_json, to_yaml


def run_api_resources(ctx: Context) -> int:
    """One line per resource at its group's preferred version, like kubectl api-resources."""
    resources = ctx.discovery.resources()
    if ctx.args.namespaced is not None:
        resources = [r for r in resources if r.namespaced == (ctx.args.namespaced == "true")]
    if ctx.args.api_group is not None:
        resources = [r for r in resources if r.group == ctx.args.api_group]
    if ctx.output == "name":
        ctx.print("".join(f"{r.plural}.{r.group}\n" if r.group else f"{r.plural}\n" for r in resources), end="")
        return 0
    lines = [["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]]
    if ctx.output == "wide":
        lines[0].append("VERBS")
    for r in sorted(resources, key=lambda r: (r.group, r.plural)):
        line = [r.plural, ",".join(r.short_names), r.group_version, str(r.namespaced).lower(), r.kind]
        if ctx.output == "wide":
            line.append(",".join(r.verbs))
        lines.append(line)
    ctx.print(align(lines), end="")
    return 0


def client_version() -> str:
    try:
        return metadata.version("orch-apiserver")
    except metadata.PackageNotFoundError:
        return "unknown"


def run_version(ctx: Context) -> int:
    document: dict = {"clientVersion": {"gitVersion": f"orchctl-{client_version()}"}}
    if not ctx.args.client:
        document["serverVersion"] = ctx.client.get("/version")
    if ctx.output in ("json", "yaml"):
        ctx.print(to_json(document) if ctx.output == "json" else to_yaml(document), end="")
        return 0
    ctx.print(f"Client Version: {document['clientVersion']['gitVersion']}")
    if "serverVersion" in document:
        ctx.print(f"Server Version: {document['serverVersion'].get('gitVersion', '')}")
    return 0
