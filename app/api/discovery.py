"""Legacy discovery (/api, /apis, group and group-version documents) and /version.

Every document is derived from the catalog; the builders are pure so they can be tested without
an app. `/api` and `/apis` answer the aggregated discovery list instead when the Accept header asks for it
(discovery_aggregated.py); these legacy documents otherwise.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import platform
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson
from flask import Blueprint, Response, request

from ..catalog import Catalog, ResourceType, Subresource
from ..context import services
from ..errors import RouteNotFound
from .aggregation import aggregated_discovery, aggregated_versions, group_priority, proxy, remote_for
from .discovery_aggregated import discovery_groups, discovery_response, negotiated_version
from .render import json_response

bp = Blueprint("discovery", __name__)

#: the reference release whose behaviour we follow; clients compare minors for skew warnings.
REFERENCE_MAJOR = "1"
REFERENCE_MINOR = "23"
PACKAGE_NAME = "orch-apiserver"
FALLBACK_PACKAGE_VERSION = "0.1.0"
CACHE_CONTROL = "no-cache, private"


_ARCH = {
    "x86_64": "amd64",
    "amd64": "amd64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "386",
    "i686": "386",
    "armv7l": "arm",
    "ppc64le": "ppc64le",
    "s390x": "s390x",
}


# ---------------------------------------------------------------------------------------------
# Pure builders


def package_version() -> str:
    try:
        return metadata.version(PACKAGE_NAME)
    except metadata.PackageNotFoundError:
        return FALLBACK_PACKAGE_VERSION


def git_version() -> str:
    return f"v{REFERENCE_MAJOR}.{REFERENCE_MINOR}.0-orch.{package_version()}"


@functools.cache
def build_info() -> tuple[str, str]:
    """(gitCommit, buildDate): fixed by the installed package, so equal on every worker and replica of it."""
    try:
        dist = metadata.distribution(PACKAGE_NAME)
    except metadata.PackageNotFoundError:
        dist = None
    stamp = Path(__file__).resolve().parent.parent / "__init__.py"  # a source tree run without installing
    if dist is not None:
        stamp = next((Path(str(f.locate())) for f in dist.files or () if f.name == "METADATA"), stamp)
    try:
        built = datetime.fromtimestamp(stamp.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        built = "1970-01-01T00:00:00Z"
    return _source_commit(dist), built


def _source_commit(dist: metadata.Distribution | None) -> str:
    """The commit a VCS install recorded (pip's direct_url.json), else the source tree's checked-out HEAD."""
    try:
        direct = orjson.loads((dist.read_text("direct_url.json") if dist else None) or "{}")
        if commit := (direct.get("vcs_info") or {}).get("commit_id"):
            return str(commit)
    except orjson.JSONDecodeError:
        pass
    git = Path(__file__).resolve().parent.parent.parent / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        if (git / ref).is_file():
            return (git / ref).read_text().strip()
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return ""


def platform_string() -> str:
    machine = platform.machine().lower()
    return f"{platform.system().lower()}/{_ARCH.get(machine, machine)}"


def version_info() -> dict[str, str]:
    """The /version document (version.Info): every value is a string."""
    return {
        "major": REFERENCE_MAJOR,
        "minor": REFERENCE_MINOR,
        "gitVersion": git_version(),
        "gitCommit": build_info()[0],
        "gitTreeState": "clean",
        "buildDate": build_info()[1],
        "goVersion": f"python{platform.python_version()}",
        "compiler": platform.python_implementation().lower(),
        "platform": platform_string(),
    }


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """base64 of the first 8 bytes of SHA-256 over "<group>/<version>/<Kind>" (core group empty)."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def api_versions(catalog: Catalog, server_address: str) -> dict[str, Any]:
    """GET /api: no apiVersion field, as the reference strips it for backward compatibility."""
    return {
        "kind": "APIVersions",
        "versions": list(catalog.group_versions().get("", [])),
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def _group_entry(name: str, versions: list[str]) -> dict[str, Any]:
    gvs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": gvs, "preferredVersion": dict(gvs[0])}


def api_group_list(
    catalog: Catalog, aggregated: dict[str, list[str]] | None = None, priority: Callable[[str], int] | None = None
) -> dict[str, Any]:
    """GET /apis: the served groups and the aggregated ones (their versions after the local ones), ordered by
    group priority (highest first) then name when `priority` is given, as the reference's aggregator."""
    served = _merged(catalog.group_versions(), aggregated or {})
    names = [g for g in served if g]
    if priority is not None:
        names.sort(key=lambda g: (-priority(g), g))
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [_group_entry(g, served[g]) for g in names]}


def api_group(catalog: Catalog, group: str, aggregated: dict[str, list[str]] | None = None) -> dict[str, Any] | None:
    """GET /apis/<group>, or None when neither the catalog nor an APIService serves that (named) group."""
    versions = _merged(catalog.group_versions(), aggregated or {}).get(group) if group else None
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group_entry(group, versions)}


def _merged(local: dict[str, list[str]], aggregated: dict[str, list[str]]) -> dict[str, list[str]]:
    out = {g: list(vs) for g, vs in local.items()}
    for group, versions in aggregated.items():
        known = out.setdefault(group, [])
        known.extend(v for v in versions if v not in known)
    return out


def _is_stored(rt: ResourceType) -> bool:
    # Virtual kinds (reviews, bindings, componentstatuses) have no storage version in the reference.
    return {"create", "get"} <= set(rt.verbs)


def api_resource(rt: ResourceType) -> dict[str, Any]:
    """The APIResource entry of a main resource."""
    entry: dict[str, Any] = {
        "name": rt.plural,
        "singularName": rt.singular_name,
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": sorted(rt.verbs),
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    if _is_stored(rt):
        # every served version of a kind names the version its objects are stored in
        conv = rt.conversion
        stored = (rt.group, rt.version) if conv is None else (conv.storage_group, conv.storage_version)
        entry["storageVersionHash"] = storage_version_hash(*stored, rt.kind)
    return entry


def subresource_entry(rt: ResourceType, sub: Subresource) -> dict[str, Any]:
    """The APIResource entry `<plural>/<sub>`; group/version only when the view lives elsewhere."""
    entry: dict[str, Any] = {"name": f"{rt.plural}/{sub.name}", "singularName": "", "namespaced": rt.namespaced}
    if sub.group is not None:
        entry["group"] = sub.group
    if sub.version is not None:
        entry["version"] = sub.version
    entry["kind"] = sub.kind or rt.kind
    entry["verbs"] = sorted(sub.verbs)
    return entry


def api_resource_list(catalog: Catalog, group: str, version: str) -> dict[str, Any] | None:
    """GET /api/v1 or /apis/<g>/<v>, or None when that group/version is not served."""
    types = catalog.resources(group, version)
    if not types:
        return None
    entries = []
    for rt in types:
        entries.append(api_resource(rt))
        entries.extend(subresource_entry(rt, sub) for sub in rt.subresources)
    # The reference registers storage paths in sorted order, so subresources follow their parent.
    entries.sort(key=lambda e: e["name"])
    doc: dict[str, Any] = {"kind": "APIResourceList"}
    if group:
        doc["apiVersion"] = "v1"  # the core list omits apiVersion, as the reference does
    doc["groupVersion"] = f"{group}/{version}" if group else version
    doc["resources"] = entries
    return doc


# ---------------------------------------------------------------------------------------------
# HTTP


def _server_address() -> str:
    host = request.host
    if host.endswith("]") or ":" not in host:  # no port in the Host header (bare name or [v6])
        host = f"{host}:{request.environ.get('SERVER_PORT', '443')}"
    return host


def _respond(doc: dict[str, Any]) -> Response:
    return json_response(doc, headers={"Cache-Control": CACHE_CONTROL})


def _respond_varying(doc: dict[str, Any]) -> Response:
    """A legacy root document, which the aggregated list replaces for clients that ask for it."""
    return json_response(doc, headers={"Cache-Control": CACHE_CONTROL, "Vary": "Accept"})


@bp.get("/version")
@bp.get("/version/")
def get_version() -> Response:
    return _respond(version_info())


@bp.get("/api")
@bp.get("/api/")
def get_api() -> Response:
    svc = services()
    version = negotiated_version(request.headers.get("Accept"), svc.naming)
    if version is not None:
        core = {"": svc.catalog.group_versions().get("", [])}
        return discovery_response(discovery_groups(svc.catalog, core, {}), version, svc.naming)
    return _respond_varying(api_versions(svc.catalog, _server_address()))


@bp.get("/apis")
@bp.get("/apis/")
def get_apis() -> Response:
    svc = services()
    svc.catalog.catch_up()  # no miss to notice here: a group Established elsewhere must be listed
    doc = api_group_list(svc.catalog, aggregated_versions(), group_priority)
    version = negotiated_version(request.headers.get("Accept"), svc.naming)
    if version is not None:
        groups = {g["name"]: [v["version"] for v in g["versions"]] for g in doc["groups"]}
        return discovery_response(discovery_groups(svc.catalog, groups, aggregated_discovery()), version, svc.naming)
    return _respond_varying(doc)


@bp.get("/apis/<group>")
def get_group(group: str) -> Response:
    catalog = services().catalog
    doc = api_group(catalog, group, aggregated_versions())
    if doc is None:
        catalog.catch_up()  # a group Established elsewhere, not heard of here yet
        doc = api_group(catalog, group, aggregated_versions())
    if doc is None:
        raise RouteNotFound()
    return _respond(doc)


@bp.get("/api/<version>")
def get_core_version(version: str) -> Response:
    return _resource_list("", version)


@bp.get("/apis/<group>/<version>")
def get_group_version(group: str, version: str) -> Response:
    remote = remote_for(group, version)
    if remote is not None and not services().catalog.resources(group, version):
        return proxy(remote)
    return _resource_list(group, version)


def _resource_list(group: str, version: str) -> Response:
    catalog = services().catalog
    doc = api_resource_list(catalog, group, version)
    if doc is None and group:
        catalog.catch_up()  # a group version Established elsewhere, not heard of here yet
        doc = api_resource_list(catalog, group, version)
    if doc is None:
        raise RouteNotFound()
    return _respond(doc)
