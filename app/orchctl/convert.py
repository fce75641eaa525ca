"""`orchctl convert`: change a manifest's apiVersion locally with the server's own conversion code."""

from __future__ import annotations

import copy
from functools import lru_cache

from ..catalog import Catalog, ResourceType
from ..naming import Naming


class ConversionError(Exception):
    """The object's kind/version or the requested output version is unknown, or they do not share storage."""


@lru_cache(maxsize=4)
def catalog_for(domain: str) -> Catalog:
    from ..resources import build_catalog  # the whole catalog only when converting

    return build_catalog(Naming(domain))


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def find_type(catalog: Catalog, api_version: str, kind: str) -> ResourceType | None:
    group, version = split_api_version(api_version)
    for rt in catalog:
        if rt.group == group and rt.version == version and rt.kind == kind and not rt.virtual:
            return rt
    return None


def storage_of(rt: ResourceType) -> tuple[str, str, str]:
    """(group, version, plural) of the type the objects of `rt` are stored as."""
    if rt.conversion is None:
        return rt.group, rt.version, rt.plural
    conv = rt.conversion
    return conv.storage_group, conv.storage_version, conv.storage_plural


def convert_object(catalog: Catalog, obj: dict, output_version: str) -> dict:
    api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    source = find_type(catalog, api_version, kind)
    if source is None:
        raise ConversionError(f'no kind "{kind}" is registered for version "{api_version}"')
    target = find_type(catalog, output_version, kind) or _target_by_storage(catalog, source, output_version)
    if target is None and split_api_version(output_version)[0] != source.group:
        return copy.deepcopy(obj)  # another group's object in the same file stays as it is (kubectl convert)
    if target is None:
        raise ConversionError(
            f'no kind "{kind}" is registered for version "{output_version}" (converting {api_version} {kind})'
        )
    if storage_of(source) != storage_of(target):
        raise ConversionError(f"{api_version} {kind} cannot be converted to {target.group_version} {target.kind}")
    if source is target:
        return copy.deepcopy(obj)
    stored = source.conversion.to_storage(obj) if source.conversion else copy.deepcopy(obj)
    out = target.conversion.from_storage(stored) if target.conversion else stored
    out["apiVersion"], out["kind"] = target.group_version, target.kind
    return out


def _target_by_storage(catalog: Catalog, source: ResourceType, output_version: str) -> ResourceType | None:
    """A kind renamed between versions: the output version's type stored like the source."""
    group, version = split_api_version(output_version)
    for rt in catalog:
        if rt.group == group and rt.version == version and not rt.virtual and storage_of(rt) == storage_of(source):
            return rt
    return None


def convert_objects(objects: list[dict], output_version: str, domain: str) -> list[dict]:
    catalog = catalog_for(domain)
    if not any(rt.group_version == output_version for rt in catalog):
        raise ConversionError(f'the output version "{output_version}" is not served by any kind')
    return [convert_object(catalog, obj, output_version) for obj in objects]
