"""API discovery: which kinds the server serves, under which group, version and plural, and their paths."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .rest import ApiError, Client


class ResourceNotFound(LookupError):
    """No served resource matches the name (a LookupError; `message` as on ApiError)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.status = 404
        self.reason = "NotFound"

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ResourceInfo:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    singular: str = ""
    subresources: tuple[str, ...] = field(default=())
    categories: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    def path(self, namespace: str | None = None, name: str | None = None, subresource: str | None = None) -> str:
        """The REST path: a collection (all namespaces when namespace is None), an object, or its subresource."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        if name:
            base += f"/{name}"
            if subresource:
                base += f"/{subresource}"
        return base


class Discovery:
    """Reads /api and /apis once (per instance) and resolves the names people type to resources."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._lock = threading.Lock()
        self._groups: list[tuple[str, list[str], str]] | None = None  # (group, versions, preferred)
        self._lists: dict[str, list[ResourceInfo]] = {}

    def groups(self) -> list[tuple[str, list[str], str]]:
        with self._lock:
            if self._groups is None:
                groups: list[tuple[str, list[str], str]] = []
                core = self.client.get("/api")
                core_versions = list(core.get("versions") or ["v1"])
                groups.append(("", core_versions, core_versions[0]))
                for group in self.client.get("/apis").get("groups") or []:
                    versions = [v["version"] for v in group.get("versions") or []]
                    preferred = (group.get("preferredVersion") or {}).get("version") or (
                        versions[0] if versions else ""
                    )
                    groups.append((group["name"], versions, preferred))
                self._groups = groups
            return self._groups

    def resources_for(self, group: str, version: str) -> list[ResourceInfo]:
        key = f"{group}/{version}"
        with self._lock:
            if key in self._lists:
                return self._lists[key]
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            document = self.client.get(path)
        except ApiError as err:
            if err.status in (404, 503):  # a version disappearing or unavailable: skip it, as kubectl does
                document = {}
            else:
                raise
        entries = document.get("resources") or []
        subresources: dict[str, list[str]] = {}
        for entry in entries:
            parent, _, sub = entry.get("name", "").partition("/")
            if sub:
                subresources.setdefault(parent, []).append(sub)
        infos = [
            ResourceInfo(
                group=entry.get("group") or group,
                version=entry.get("version") or version,
                kind=entry.get("kind", ""),
                plural=entry["name"],
                namespaced=bool(entry.get("namespaced")),
                verbs=tuple(entry.get("verbs") or ()),
                short_names=tuple(entry.get("shortNames") or ()),
                singular=entry.get("singularName") or "",
                subresources=tuple(subresources.get(entry["name"], ())),
                categories=tuple(entry.get("categories") or ()),
            )
            for entry in entries
            if entry.get("name") and "/" not in entry["name"]
        ]
        with self._lock:
            self._lists[key] = infos
        return infos

    def resources(self) -> list[ResourceInfo]:
        """Every resource at the preferred version of its group (core first)."""
        found: list[ResourceInfo] = []
        for group, _versions, preferred in self.groups():
            found.extend(self.resources_for(group, preferred))
        return found

    def all_versions(self) -> list[ResourceInfo]:
        found: list[ResourceInfo] = []
        for group, versions, _preferred in self.groups():
            for version in versions:
                found.extend(self.resources_for(group, version))
        return found

    def resolve(self, name: str) -> ResourceInfo:
        """A plural, singular, short name or kind (case-insensitive), or <plural>.<group> /
        <plural>.<version>.<group>."""
        wanted = name.strip().lower()
        if not wanted:
            raise ResourceNotFound('the server doesn\'t have a resource type ""')
        for group, _versions, preferred in self.groups():  # group by group: most names are found in the first
            for info in self.resources_for(group, preferred):
                if _matches(info, wanted):
                    return info
        # qualified forms: plural.group, plural.version.group (any served version), or kind.group
        resource, _, qualifier = wanted.partition(".")
        if qualifier:
            groups = self.groups()
            for group, versions, preferred in groups:
                if qualifier == group.lower():
                    for info in self.resources_for(group, preferred):
                        if _matches(info, resource):
                            return info
                for version in versions:
                    if qualifier == f"{version}.{group}".lower().rstrip("."):
                        for info in self.resources_for(group, version):
                            if _matches(info, resource):
                                return info
        raise ResourceNotFound(f'the server doesn\'t have a resource type "{name}"')

    def for_kind(self, api_version: str, kind: str) -> ResourceInfo:
        """The resource of a manifest's apiVersion and kind."""
        group, _, version = api_version.rpartition("/")
        for info in self.resources_for(group, version):
            if info.kind == kind:
                return info
        raise ResourceNotFound(f'no matches for kind "{kind}" in version "{api_version}"')


def _matches(info: ResourceInfo, wanted: str) -> bool:
    return wanted in (
        info.plural.lower(),
        info.singular.lower(),
        info.kind.lower(),
        *(short.lower() for short in info.short_names),
    )
