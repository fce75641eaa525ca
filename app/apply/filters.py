"""Which fields a write may own: the metadata nobody owns, the status/spec split, default managers."""

from __future__ import annotations

from dataclasses import dataclass

from ..schema.types import Struct
from .fieldpath import EMPTY, FieldSet, make_path
from .managed import MAX_MANAGER_LENGTH

#: fields no manager ever owns (the reference's strip set; exact paths, children stay).
STRIPPED = FieldSet(
    [
        make_path("apiVersion"),
        make_path("kind"),
        make_path("metadata"),
        *(
            make_path("metadata", name)
            for name in (
                "name",
                "namespace",
                "creationTimestamp",
                "selfLink",
                "uid",
                "clusterName",
                "generation",
                "managedFields",
                "resourceVersion",
            )
        ),
    ]
)


@dataclass(frozen=True)
class FieldFilter:
    """Which fields a write may own: never those at or under `exclude`; if `only` is set, only those
    at or under it."""

    exclude: FieldSet = EMPTY
    only: FieldSet | None = None

    def __call__(self, fs: FieldSet) -> FieldSet:
        if self.only is not None:
            fs = fs.only_under(self.only)
        return fs.recursive_difference(self.exclude) if self.exclude else fs


def reset_fields(has_status: bool, subresource: str | None = None) -> FieldFilter:
    """The status/spec split: a write to the main resource of a kind with a status subresource never
    owns `status`; a write to `/status` owns only `status`; `/scale` owns only `spec.replicas`."""
    if subresource == "status":
        return FieldFilter(only=FieldSet([make_path("status")]))
    if subresource == "scale":
        return FieldFilter(only=FieldSet([make_path("spec", "replicas")]))
    if not subresource and has_status:
        return FieldFilter(exclude=FieldSet([make_path("status")]))
    return FieldFilter()


def default_manager(user_agent: str) -> str:
    """The manager of a write without `fieldManager`: the User-Agent before its first `/`, without
    non-printable characters, cut to 128 bytes."""
    out: list[str] = []
    size = 0
    for ch in (user_agent or "").split("/")[0]:
        if not ch.isprintable():
            continue
        width = len(ch.encode())
        if size + width > MAX_MANAGER_LENGTH:
            break
        out.append(ch)
        size += width
    return "".join(out)


def default_filter(struct: Struct | None, subresource: str | None, given: FieldFilter | None) -> FieldFilter:
    """`given`, else the split for a kind whose schema has a `status` field."""
    if given is not None:
        return given
    return reset_fields(struct is not None and "status" in struct.json_fields, subresource)
