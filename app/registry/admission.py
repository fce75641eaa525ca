"""Admission: the stage of every write between defaulting and storage, in the reference's order.

The registry builds an `Attributes` for each write and hands it to its `Chain` twice: `admit` (mutating
plugins, which may change `attrs.obj`) before the kind's validation, `validate` (validating plugins, which
only refuse) after it. A plugin refuses by raising an ApiError; nothing is stored then.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..catalog import ResourceType
from ..errors import ApiError, Forbidden
from ..user import UserInfo, current_user

CREATE, UPDATE, DELETE, CONNECT = "CREATE", "UPDATE", "DELETE", "CONNECT"
OPERATIONS = (CREATE, UPDATE, DELETE, CONNECT)


@dataclass
class Attributes:
    """One write as admission sees it. `obj` and `old` are in the storage version of the kind (what its
    strategy sees); `rt` is the kind and version the request named."""

    operation: str
    rt: ResourceType
    namespace: str
    name: str
    obj: dict | None
    old: dict | None = None
    subresource: str = ""
    dry_run: bool = False
    #: CreateOptions, UpdateOptions or DeleteOptions as the AdmissionReview carries them
    options: dict | None = None
    user: UserInfo | None = field(default_factory=current_user.get)
    #: {group, version, kind} of the object when it is not of rt's kind (a subresource's, e.g. an Eviction);
    #: such an object is sent as it is, never converted
    object_kind: dict | None = None
    #: set by a plugin that changed `obj` (the registry then defaults it again, as the reference decodes
    #: a webhook's patched object with defaulting)
    mutated: bool = False


def forbidden(attrs: Attributes, why: str) -> Forbidden:
    """The reference's admission.NewForbidden: `<resource> "<name>" is forbidden: <why>`."""
    rt = attrs.rt
    return Forbidden(f'{rt.group_resource} "{attrs.name}" is forbidden: {why}', rt.plural, rt.group, attrs.name)


def object_spec(attrs: Attributes) -> dict:
    """The written object's `spec`, made a dict if it is missing (plugins that complete it write into it)."""
    obj = attrs.obj if attrs.obj is not None else {}
    if not isinstance(obj.get("spec"), dict):
        obj["spec"] = {}
    return obj["spec"]


def is_kind(attrs: Attributes, group: str, plural: str) -> bool:
    """The write is to the object itself (not a subresource) of this group and resource."""
    return attrs.rt.group == group and attrs.rt.plural == plural and not attrs.subresource and attrs.obj is not None


class Plugin:
    """An admission plugin: override `admit` (mutating), `validate` (validating) or both."""

    name: ClassVar[str] = ""
    operations: ClassVar[frozenset[str]] = frozenset(OPERATIONS)

    @property
    def mutating(self) -> bool:
        return type(self).admit is not Plugin.admit

    @property
    def validating(self) -> bool:
        return type(self).validate is not Plugin.validate

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation in self.operations

    def admit(self, attrs: Attributes) -> None:
        """Mutating admission: may change attrs.obj (and set attrs.mutated)."""

    def validate(self, attrs: Attributes) -> None:
        """Validating admission: raise an ApiError to refuse."""


class Chain:
    """The enabled plugins in the reference's order. `duration` (a prometheus histogram labelled name, type,
    operation, rejected) times each plugin: apiserver_admission_controller_admission_duration_seconds."""

    def __init__(self, plugins: Sequence[Plugin] = (), duration: Any = None) -> None:
        self.plugins = tuple(plugins)
        self._mutating = tuple(p for p in self.plugins if p.mutating)
        self._validating = tuple(p for p in self.plugins if p.validating)
        self.duration = duration

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.plugins)

    def admit(self, attrs: Attributes) -> None:
        for plugin in self._mutating:
            if plugin.handles(attrs):
                self._timed(plugin, "admit", attrs, plugin.admit)

    def validate(self, attrs: Attributes) -> None:
        for plugin in self._validating:
            if plugin.handles(attrs):
                self._timed(plugin, "validate", attrs, plugin.validate)

    def _timed(self, plugin: Plugin, kind: str, attrs: Attributes, step: Any) -> None:
        if self.duration is None:
            step(attrs)
            return
        start, rejected = time.perf_counter(), False
        try:
            step(attrs)
        except ApiError:
            rejected = True
            raise
        finally:
            self.duration.labels(
                name=plugin.name, type=kind, operation=attrs.operation, rejected=str(rejected).lower()
            ).observe(time.perf_counter() - start)


def ordered(names: Iterable[str], order: Sequence[str]) -> list[str]:
    """Plugin names in the reference's fixed order, whatever order they were given in."""
    wanted = set(names)
    return [name for name in order if name in wanted]
