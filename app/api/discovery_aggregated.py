"""Aggregated discovery: `/api` and `/apis` as one `APIGroupDiscoveryList` (apidiscovery.<domain> v2 and v2beta1)
for clients that ask for it in Accept, as kubectl 1.26+ does, so that two requests replace one per group version.

Derived from the catalog; an aggregated group version from what its extension listed at its last availability
check, `Stale` while its APIService is unavailable (clients then skip it without a request). Any other Accept gets
the legacy documents (discovery.py); both vary with Accept. The pure builders take no request."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import orjson
from flask import Response, request

from ..catalog import Catalog, ResourceType
from ..naming import Naming

KIND = "APIGroupDiscoveryList"
VERSIONS = ("v2", "v2beta1")
JSON = "application/json"


def negotiated_version(accept: str | None, naming: Naming) -> str | None:
    """v2 or v2beta1 when the client's most preferred type this server can serve is the aggregated list in JSON;
    None when it is a legacy document (or nothing asks for the list)."""
    clauses = []
    for position, part in enumerate((accept or "").split(",")):
        media, *raw = (piece.strip() for piece in part.split(";"))
        params = {k.strip().lower(): v.strip() for k, _, v in (p.partition("=") for p in raw)}
        try:
            quality = float(params.pop("q", "1"))
        except ValueError:
            continue
        if media and quality > 0:
            clauses.append((-quality, position, media.lower(), params))
    for _, _, media, params in sorted(clauses, key=lambda c: (c[0], c[1])):
        if "as" not in params:
            return None  # a plain type: the legacy document
        wanted = (params.get("g"), params.get("as"))
        if media == JSON and wanted == (naming.group("apidiscovery"), KIND) and params.get("v") in VERSIONS:
            return params["v"]
    return None  # e.g. only protobuf: the legacy document in JSON, as before


def _kind(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def _resource(rt: ResourceType) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": rt.plural,
        "responseKind": _kind(rt.group, rt.version, rt.kind),
        "scope": "Namespaced" if rt.namespaced else "Cluster",
        "singularResource": rt.singular_name,
        "verbs": sorted(rt.verbs),
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    if rt.subresources:
        entry["subresources"] = [
            {
                "subresource": sub.name,
                "responseKind": _kind(
                    rt.group if sub.group is None else sub.group, sub.version or rt.version, sub.kind or rt.kind
                ),
                "verbs": sorted(sub.verbs),
            }
            for sub in sorted(rt.subresources, key=lambda s: s.name)
        ]
    return entry


def _listed_resources(group: str, version: str, listed: Iterable[dict]) -> list[dict[str, Any]]:
    """An extension's APIResourceList entries as discovery resources (`<plural>/<sub>` under their parent)."""
    resources: dict[str, dict[str, Any]] = {}
    subresources: list[tuple[str, dict]] = []
    for item in listed:
        name = str(item.get("name") or "")
        kind = _kind(str(item.get("group", group)), str(item.get("version") or version), str(item.get("kind") or ""))
        if "/" in name:
            subresources.append((name, {"responseKind": kind, "verbs": list(item.get("verbs") or [])}))
            continue
        entry: dict[str, Any] = {
            "resource": name,
            "responseKind": kind,
            "scope": "Namespaced" if item.get("namespaced") else "Cluster",
            "singularResource": str(item.get("singularName") or ""),
            "verbs": list(item.get("verbs") or []),
        }
        for key in ("shortNames", "categories"):
            if item.get(key):
                entry[key] = list(item[key])
        resources[name] = entry
    for name, sub in subresources:
        parent, _, sub_name = name.partition("/")
        if parent in resources:
            resources[parent].setdefault("subresources", []).append({"subresource": sub_name, **sub})
    return [resources[name] for name in sorted(resources)]


def _local_version(catalog: Catalog, group: str, version: str) -> dict[str, Any]:
    types = sorted(catalog.resources(group, version), key=lambda rt: rt.plural)
    return {"version": version, "resources": [_resource(rt) for rt in types], "freshness": "Current"}


def _remote_version(group: str, version: str, listed: list[dict], available: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"version": version}
    resources = _listed_resources(group, version, listed)
    if resources:
        entry["resources"] = resources
    entry["freshness"] = "Current" if available else "Stale"
    return entry


def discovery_groups(
    catalog: Catalog,
    groups: dict[str, list[str]],
    remotes: dict[tuple[str, str], tuple[list[dict], bool]],
) -> list[dict[str, Any]]:
    """The APIGroupDiscovery items of `groups` (name -> versions, in discovery's order): the catalog's resources,
    or for an aggregated group version (resources its extension listed, available)."""
    items = []
    for group, versions in groups.items():
        entries = []
        for version in versions:
            remote = remotes.get((group, version))
            if remote is not None and not catalog.resources(group, version):
                entries.append(_remote_version(group, version, *remote))
            else:
                entries.append(_local_version(catalog, group, version))
        metadata: dict[str, Any] = {"name": group} if group else {}
        metadata["creationTimestamp"] = None  # as the reference's ObjectMeta encodes an unset time
        items.append({"metadata": metadata, "versions": entries})
    return items


def discovery_response(items: list[dict[str, Any]], version: str, naming: Naming) -> Response:
    """The list in the negotiated version, with the reference's ETag (304 when the client has it) and Vary."""
    api_group = naming.group("apidiscovery")
    doc = {"kind": KIND, "apiVersion": f"{api_group}/{version}", "metadata": {}, "items": items}
    body = orjson.dumps(doc)
    etag = f'"{hashlib.sha512(orjson.dumps(items)).hexdigest().upper()}"'
    headers = {"ETag": etag, "Vary": "Accept", "Cache-Control": "public"}
    if request.headers.get("If-None-Match") == etag:
        return Response(status=304, headers=headers)
    return Response(body, headers={**headers, "Content-Type": f"{JSON};g={api_group};v={version};as={KIND}"})
