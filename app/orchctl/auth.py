"""`orchctl auth whoami` (SelfSubjectReview) and `orchctl auth can-i` (SelfSubjectAccessReview)."""

from __future__ import annotations

from .context import CommandError, Context
from .output import align, format_objects


def run_whoami(ctx: Context) -> int:
    review = {"apiVersion": f"{ctx.naming.group('authentication')}/v1", "kind": "SelfSubjectReview"}
    path = f"/apis/{ctx.naming.group('authentication')}/v1/selfsubjectreviews"
    answer = ctx.client.create(path, review)
    if ctx.output in ("json", "yaml"):
        ctx.print(format_objects([answer], ctx.output, single=True), end="")
        return 0
    info = (answer.get("status") or {}).get("userInfo") or {}
    lines = [["ATTRIBUTE", "VALUE"]]
    if info.get("username"):
        lines.append(["Username", info["username"]])
    if info.get("uid"):
        lines.append(["UID", info["uid"]])
    if info.get("groups"):
        lines.append(["Groups", "[" + " ".join(info["groups"]) + "]"])
    for key in sorted(info.get("extra") or {}):
        lines.append([f"Extra: {key}", "[" + " ".join(info["extra"][key]) + "]"])
    ctx.print(align(lines), end="")
    return 0


def run_can_i(ctx: Context) -> int:
    """Prints yes or no (with the authorizer's reason); exit status 0 for yes, 1 for no, like kubectl."""
    verb, target = ctx.args.verb, ctx.args.target
    if target.startswith("/"):
        attributes = {"nonResourceAttributes": {"verb": verb, "path": target}}
    else:
        kind, _, name = target.partition("/")
        group, plural, namespaced = _resource_of(ctx, kind)
        namespace = "" if ctx.args.all_namespaces or not namespaced else ctx.namespace
        resource_attributes = {
            "namespace": namespace,
            "verb": verb,
            "group": group,
            "resource": plural,
            "subresource": ctx.args.subresource or "",
            "name": name,
        }
        attributes = {"resourceAttributes": {k: v for k, v in resource_attributes.items() if v}}
    review = {
        "apiVersion": f"{ctx.naming.group('authorization')}/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": attributes,
    }
    path = f"/apis/{ctx.naming.group('authorization')}/v1/selfsubjectaccessreviews"
    answer = ctx.client.create(path, review)
    status = answer.get("status") or {}
    if status.get("allowed"):
        if not ctx.args.quiet:
            ctx.print("yes")
        return 0
    if not ctx.args.quiet:
        line = "no"
        if status.get("reason"):
            line += f" - {status['reason']}"
        if status.get("evaluationError"):
            line += f" - {status['evaluationError']}"
        ctx.print(line)
    return 1


def _resource_of(ctx: Context, kind: str) -> tuple[str, str, bool]:
    """(group, plural, namespaced) through discovery; `*` and unknown names pass through as typed."""
    if kind == "*":
        return "*", "*", True
    try:
        from .resolve import resolve_name

        resource = resolve_name(ctx, kind)
    except CommandError:
        plural, _, group = kind.partition(".")
        ctx.warn(f"the server doesn't have a resource type '{plural}'")
        return group, plural, True
    return resource.group, resource.plural, resource.namespaced
