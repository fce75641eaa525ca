"""Finding the REST path of a resource: command-line names through Discovery, manifests by apiVersion and kind."""

from __future__ import annotations

from ..client.discovery import ResourceInfo
from .context import CommandError, Context

#: what a command line or a manifest names: the library's discovery record
Resource = ResourceInfo


def resolve_name(ctx: Context, name: str) -> Resource:
    """`pods`, `po`, `pod`, `Pod`, `deployments.apps`, `deployments.v1.apps` -> the served resource."""
    from ..client import ApiError

    try:
        resource = ctx.discovery.resolve(name)
    except LookupError as err:
        raise CommandError(f'the server doesn\'t have a resource type "{name}"') from err
    except ApiError:
        raise
    ctx.confirm_domain()  # discovery has been read: the domain of what follows is the server's
    return resource


def resolve_names(ctx: Context, name: str) -> list[Resource]:
    """A resource name as resolve_name reads it, else a category (`all`): every resource discovery lists in it,
    in discovery order. kubectl tries categories first; names first here spare reading every group's resources."""
    try:
        return [resolve_name(ctx, name)]
    except CommandError:
        members = [r for r in ctx.discovery.resources() if name.lower() in r.categories]
        if not members:
            raise
        return members


def split_type_name(words: list[str]) -> list[tuple[str, str | None]]:
    """`pods web api` -> [(pods, web), (pods, api)]; `pod/web svc/api` -> [(pod, web), (svc, api)];
    `pods` -> [(pods, None)]."""
    if not words:
        raise CommandError("you must specify the type of resource")
    if "/" in words[0]:
        pairs: list[tuple[str, str | None]] = []
        for word in words:
            kind, sep, name = word.partition("/")
            if not sep or not kind or not name:
                raise CommandError(
                    f"there is no need to specify a resource type as a separate argument when "
                    f"passing arguments in resource/name form (e.g. 'orchctl get resource/<name>' "
                    f"instead of 'orchctl get resource resource/<name>'), got {word!r}"
                )
            pairs.append((kind, name))
        return pairs
    kinds, names = words[0].split(","), words[1:]  # `get cm,secrets`: every type, each with the names
    wanted: list[str | None] = [*names] if names else [None]
    return [(kind, name) for kind in kinds if kind for name in wanted]


def one_named_object(ctx: Context, words: list[str], usage: str) -> tuple[Resource, str]:
    """The one TYPE/NAME (or TYPE NAME) a command acts on, resolved; `usage` is the error when there is not one."""
    pairs = split_type_name(words)
    name = pairs[0][1] if len(pairs) == 1 else None
    if name is None:
        raise CommandError(usage)
    return resolve_name(ctx, pairs[0][0]), name


_group_versions: dict[str, dict] = {}


def resource_for_manifest(ctx: Context, obj: dict, source: str = "") -> ResourceInfo:
    from ..client import ApiError

    api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
    group, _, version = api_version.rpartition("/")
    path = f"/apis/{api_version}" if group else f"/api/{api_version}"
    resources = _group_versions.get(path)
    if resources is None:
        try:
            resources = ctx.client.get(path)
        except ApiError as err:
            if err.status != 404:
                raise
            resources = {"resources": []}
        _group_versions[path] = resources
    for entry in resources.get("resources") or []:
        if "/" not in entry.get("name", "") and entry.get("kind") == kind:
            return ResourceInfo(group, version, kind, entry["name"], bool(entry.get("namespaced")))
    name = (obj.get("metadata") or {}).get("name", "")
    namespace = (obj.get("metadata") or {}).get("namespace", "")
    raise CommandError(
        f'resource mapping not found for name: "{name}" namespace: "{namespace}" from "{source}": '
        f'no matches for kind "{kind}" in version "{api_version}"'
    )


def manifest_namespace(ctx: Context, resource: Resource, obj: dict) -> str | None:
    """The namespace to use for a manifest object; a conflict with -n is an error, as in kubectl."""
    if not resource.namespaced:
        return None
    metadata = obj.setdefault("metadata", {})
    given = metadata.get("namespace")
    if given and ctx.namespace_given and given != ctx.namespace:
        raise CommandError(
            f'the namespace from the provided object "{given}" does not match the namespace '
            f"\"{ctx.namespace}\". You must pass '--namespace={given}' to perform this operation."
        )
    namespace = given or ctx.namespace
    metadata["namespace"] = namespace
    return namespace


def display_kind(resource: Resource) -> str:
    """`configmap`, `deployment.apps`: how kubectl names a kind in messages."""
    kind = resource.kind.lower()
    return f"{kind}.{resource.group}" if resource.group else kind
