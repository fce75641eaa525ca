"""Which API versions are served: --runtime-config, versions the reference removed, deprecation warnings.

`--runtime-config` follows the reference's MergeAPIResourceConfigs: the `api/all`, `api/ga`, `api/beta` and
`api/alpha` keys apply first (in that order), then `<group>/<version>` keys override them. Two deliberate
differences: a key naming a group we do not serve fails start (the reference skips unknown groups silently),
and the core version v1 cannot be turned off (namespaces, secrets and RBAC bootstrap live there).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable

from .catalog import Catalog, ResourceType
from .naming import Naming

log = logging.getLogger(__name__)

#: the release whose API level we serve (deprecation warnings compare against it).
REFERENCE_RELEASE = (1, 23)

_GA = re.compile(r"^v\d+$")
_BETA = re.compile(r"^v\d+beta\d+$")
_ALPHA = re.compile(r"^v\d+alpha\d+$")

#: the api/* keys, in the order the reference applies them.
MATCHERS: dict[str, Callable[[str], bool]] = {
    "api/all": lambda version: True,
    "api/ga": lambda version: bool(_GA.match(version)),
    "api/beta": lambda version: bool(_BETA.match(version)),
    "api/alpha": lambda version: bool(_ALPHA.match(version)),
}

#: the core group's key prefix: core v1 is `api/v1`.
CORE_KEY_GROUP = "api"
CORE_VERSION = ("", "v1")

_TRUE = ("1", "t", "T", "true", "TRUE", "True")
_FALSE = ("0", "f", "F", "false", "FALSE", "False")

RuntimeConfig = tuple[tuple[str, bool], ...]


class RuntimeConfigError(ValueError):
    """An unusable --runtime-config; the message names the key."""


def parse_runtime_config(text: str) -> RuntimeConfig:
    """`<key>[=<value>]` pairs, comma separated; a missing value is true; values as Go's ParseBool."""
    pairs: list[tuple[str, bool]] = []
    for item in text.split(","):
        if not item.strip():
            continue
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not key:
            raise RuntimeConfigError(f"{item.strip()!r}: missing key before '='")
        if (key not in MATCHERS and not 2 <= len(key.split("/")) <= 3) or any(not p for p in key.split("/")):
            raise RuntimeConfigError(
                f"invalid key {key!r}: expected <group>/<version> (api/v1 for the core "
                "group), api/all, api/ga, api/beta or api/alpha"
            )
        if not value or value in _TRUE:  # `key` and `key=` both mean true, as the reference
            pairs.append((key, True))
        elif value in _FALSE:
            pairs.append((key, False))
        else:
            raise RuntimeConfigError(f"invalid value of {key}: {value!r} (expected true or false)")
    return tuple(pairs)


def removed_versions(naming: Naming) -> dict[tuple[str, str], str]:
    """(group, version) the reference stopped serving before v1.23 -> the release that removed it."""
    out = {("extensions", "v1beta1"): "1.16", ("apps", "v1beta1"): "1.16", ("apps", "v1beta2"): "1.16"}
    for name in (
        "admissionregistration",
        "apiextensions",
        "apiregistration",
        "authentication",
        "authorization",
        "certificates",
        "coordination",
        "networking",
        "rbac.authorization",
        "scheduling",
        "storage",
    ):
        out[(naming.group(name), "v1beta1")] = "1.22"
    return out


def _release(text: str) -> tuple[int, int]:
    major, _, minor = text.lstrip("v").partition(".")
    return int(major or 0), int(minor or 0)


def _key_group_version(key: str) -> tuple[str, str]:
    group, version = key.split("/")[:2]
    return ("" if group == CORE_KEY_GROUP else group), version


def served_keys(catalog: Catalog, config: Iterable[tuple[str, bool]], naming: Naming) -> set[tuple[str, str, str]]:
    """The (group, version, plural) to serve: declared defaults (alpha off) overlaid with --runtime-config."""
    overrides = dict(config)  # a repeated key: the last one wins, as the reference's map
    types = [rt for rt in catalog.known() if not _removed_by_now(rt)]
    group_versions = {(rt.group, rt.version) for rt in types}
    enabled = {gv: any(rt.enabled_by_default for rt in types if (rt.group, rt.version) == gv) for gv in group_versions}
    explicitly_on: set[tuple[str, str]] = set()
    for matcher, matches in MATCHERS.items():
        if matcher not in overrides:
            continue
        for gv in group_versions:
            if matches(gv[1]):
                enabled[gv] = overrides[matcher]
                if overrides[matcher]:
                    explicitly_on.add(gv)
    removed = removed_versions(naming)
    for key, value in overrides.items():
        if key in MATCHERS:
            continue
        if len(key.split("/")) == 3:
            # as the reference outside extensions/v1beta1: group versions are enabled as a whole
            log.warning("--runtime-config: ignoring %s: individual resources cannot be enabled or disabled", key)
            continue
        gv = _key_group_version(key)
        if gv not in group_versions:
            if gv in removed:
                raise RuntimeConfigError(f"{key} is not served: removed in v{removed[gv]}")
            raise RuntimeConfigError(f"unknown API group version {key}")
        if gv == CORE_VERSION and not value:
            raise RuntimeConfigError(f"{CORE_KEY_GROUP}/v1 cannot be disabled")
        enabled[gv] = value
        if value:
            explicitly_on.add(gv)
    enabled[CORE_VERSION] = True
    return {
        (rt.group, rt.version, rt.plural)
        for rt in types
        if enabled.get((rt.group, rt.version)) and (rt.enabled_by_default or (rt.group, rt.version) in explicitly_on)
    }


def apply_runtime_config(catalog: Catalog, config: Iterable[tuple[str, bool]], naming: Naming) -> Catalog:
    catalog.set_served(served_keys(catalog, config, naming))
    return catalog


def _removed_by_now(rt: ResourceType) -> bool:
    dep = rt.deprecation
    return dep is not None and bool(dep.removed_in) and _release(dep.removed_in) <= REFERENCE_RELEASE


def is_deprecated(rt: ResourceType) -> bool:
    """Deprecated at our release (a deprecation announced for a later release does not warn yet)."""
    dep = rt.deprecation
    if dep is not None and dep.warning:
        return True
    return dep is not None and bool(dep.deprecated_in) and _release(dep.deprecated_in) <= REFERENCE_RELEASE


def deprecation_warning(rt: ResourceType) -> str:
    """The reference's text: `<gv> <Kind> is deprecated in v1.21+, unavailable in v1.25+; use <gv> <Kind>`."""
    dep = rt.deprecation
    if dep is None:
        return ""
    if dep.warning:
        return dep.warning
    text = f"{rt.group_version} {rt.kind} is deprecated in v{dep.deprecated_in.lstrip('v')}+"
    if dep.removed_in:
        text += f", unavailable in v{dep.removed_in.lstrip('v')}+"
    if dep.replacement:
        text += f"; use {dep.replacement}"
    return text


def deprecated_api(rt: ResourceType, subresource: str | None) -> dict[str, str]:
    """What metrics and audit record about a request to a deprecated version."""
    removed = rt.deprecation.removed_in.lstrip("v") if rt.deprecation else ""
    return {
        "group": rt.group,
        "version": rt.version,
        "resource": rt.plural,
        "subresource": subresource or "",
        "removed_release": removed,
    }
