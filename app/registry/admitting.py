"""How a write meets admission: the attributes the registry hands its chain (options as an AdmissionReview carries
them, the kind of a subresource's own object), and what the registry keeps of a plugin's changes."""

from __future__ import annotations

from typing import Any

from ..catalog import ResourceType, Subresource
from .admission import UPDATE, Attributes, Chain

#: what the server keeps of an object whatever a client or a plugin writes
SYSTEM_FIELDS = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation")


def metadata_of(obj: dict) -> dict:
    value = obj.get("metadata")
    if value is None:
        value = obj["metadata"] = {}
    return value


def review_options(api_version: str, kind: str, dry_run: bool, manager: str) -> dict:
    """The write's options as an AdmissionReview carries them."""
    options: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
    if dry_run:
        options["dryRun"] = ["All"]
    if manager:
        options["fieldManager"] = manager
    return options


def sub_kind(rt: ResourceType, sub: Subresource) -> dict:
    """{group, version, kind} of a subresource's own object (an Eviction, a Scale)."""
    return {
        "group": sub.group if sub.group is not None else rt.group,
        "version": sub.version or rt.version,
        "kind": sub.kind or rt.kind,
    }


def carry_system_fields(old: dict, new: dict) -> None:
    old_md, new_md = old.get("metadata") or {}, metadata_of(new)
    for name in SYSTEM_FIELDS:
        if name in old_md:
            new_md[name] = old_md[name]
        else:
            new_md.pop(name, None)


def admit_as_is(chain: Chain, attrs: Attributes) -> None:
    """Both stages back to back, for creates whose object the registry does not validate (virtual kinds and
    subresource actions: their hooks check what they get)."""
    chain.admit(attrs)
    chain.validate(attrs)


def admit_update(
    chain: Chain, rt: ResourceType, srt: ResourceType, new: dict, old: dict, sub: Subresource | None, options: dict
) -> tuple[Attributes, dict]:
    """Mutating admission of an update, and the object to validate and store after it: what a plugin changed
    is defaulted again and may not touch what the server keeps (uid, creation time, deletion state). A write
    through a view of another kind (`*/scale`) is admitted as that kind (a Scale), as the reference's."""
    md = metadata_of(new)
    name, namespace, dry_run = str(md.get("name") or ""), str(md.get("namespace") or ""), "dryRun" in options
    if (
        sub is not None
        and sub.view is not None
        and sub.merge is not None
        and sub.kind
        and sub.kind != rt.kind
        and rt.conversion is None
    ):
        attrs = Attributes(
            UPDATE,
            rt,
            namespace,
            name,
            sub.view(new),
            sub.view(old),
            subresource=sub.name,
            dry_run=dry_run,
            options=options,
            object_kind=sub_kind(rt, sub),
        )
        chain.admit(attrs)
        if attrs.mutated and attrs.obj is not None:
            new = sub.merge(new, attrs.obj)
            new["metadata"] = md
            attrs.obj = sub.view(new)
        return attrs, new
    attrs = Attributes(
        UPDATE,
        rt,
        namespace,
        name,
        new,
        old,
        subresource=sub.name if sub is not None else "",
        dry_run=dry_run,
        options=options,
    )
    chain.admit(attrs)
    if attrs.mutated and attrs.obj is not None:
        carry_system_fields(old, attrs.obj)
        metadata_of(attrs.obj)["resourceVersion"] = md.get("resourceVersion")
        srt.strategy.default(attrs.obj)
    return attrs, attrs.obj if attrs.obj is not None else new
