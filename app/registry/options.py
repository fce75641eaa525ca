"""Request options the registry understands: list/watch options, continue tokens, delete options."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import ApiError, BadRequest, FieldError, Invalid, forbidden, not_supported

TRUE_VALUES = ("true", "1")


def parse_bool(value: str | None) -> bool:
    return value is not None and value.lower() in TRUE_VALUES


def parse_revision(value: str, what: str = "resource version") -> int:
    try:
        rv = int(value)
    except ValueError:
        raise BadRequest(f"invalid {what}: {value}") from None
    if rv < 0:
        raise BadRequest(f"invalid {what}: {value}")
    return rv


@dataclass(frozen=True)
class ContinueToken:
    revision: int  # -1: continue at the newest revision (after an expired token)
    start_after: str  # last key returned, relative to the collection prefix

    def encode(self, meta_group_version: str) -> str:
        raw = orjson.dumps({"v": meta_group_version, "rv": self.revision, "start": self.start_after})
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    @classmethod
    def decode(cls, token: str, meta_group_version: str) -> ContinueToken:
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            data = orjson.loads(raw)
            if (
                not isinstance(data, dict)
                or data.get("v") != meta_group_version
                or not isinstance(data.get("rv"), int)
                or not isinstance(data.get("start"), str)
                or (data["rv"] < 1 and data["rv"] != -1)
            ):
                raise ValueError("bad structure")
        except (ValueError, binascii.Error, orjson.JSONDecodeError):
            raise BadRequest(f"continue key is not valid: {token!r} could not be decoded") from None
        start = data["start"]
        if not start or start.startswith("/") or ".." in start.split("/"):
            raise BadRequest(f"continue key is not valid: {token!r} has an invalid start key")
        return cls(data["rv"], start)


@dataclass(frozen=True)
class ListOptions:
    resource_version: str = ""
    resource_version_match: str = ""
    limit: int = 0
    continue_token: str = ""
    label_selector: str = ""
    field_selector: str = ""
    watch: bool = False
    allow_bookmarks: bool = False
    send_initial_events: bool | None = None
    timeout_seconds: int | None = None

    @classmethod
    def from_query(cls, args: Mapping[str, str]) -> ListOptions:
        limit_n = query_int64(args, "limit") or 0
        timeout_n = query_int64(args, "timeoutSeconds")
        sie = args.get("sendInitialEvents")
        return cls(
            resource_version=args.get("resourceVersion", ""),
            resource_version_match=args.get("resourceVersionMatch", ""),
            limit=max(limit_n, 0),
            continue_token=args.get("continue", ""),
            label_selector=args.get("labelSelector", ""),
            field_selector=args.get("fieldSelector", ""),
            watch=parse_bool(args.get("watch")),
            allow_bookmarks=parse_bool(args.get("allowWatchBookmarks")),
            send_initial_events=None if sie is None else parse_bool(sie),
            timeout_seconds=timeout_n,
        )

    def validate(self, meta_group: str) -> None:
        """The reference's ListOptions rules (answered as 400 with the reference's wording)."""
        rvm = self.resource_version_match
        if rvm and rvm not in ("Exact", "NotOlderThan"):
            raise BadRequest(
                f'resourceVersionMatch: Unsupported value: "{rvm}": supported values: "Exact", "NotOlderThan"'
            )
        if self.watch:
            self._validate_watch(meta_group)
            return
        if self.send_initial_events is not None:
            raise BadRequest("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list")
        if rvm and not self.resource_version:
            raise BadRequest(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
            )
        if rvm and self.continue_token:
            raise BadRequest(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
            )
        if rvm == "Exact" and self.resource_version == "0":
            raise BadRequest(
                'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'
            )
        if self.continue_token and self.resource_version not in ("", "0"):
            raise BadRequest("specifying resource version is not allowed when using continue")
        if self.resource_version not in ("", "0"):
            parse_revision(self.resource_version)

    def _validate_watch(self, meta_group: str) -> None:
        rvm = self.resource_version_match
        if self.send_initial_events is not None:
            if rvm != "NotOlderThan":
                raise Invalid(
                    "ListOptions",
                    meta_group,
                    "",
                    [
                        _forbidden(
                            "resourceVersionMatch",
                            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                        )
                    ],
                )
            if self.send_initial_events and not self.allow_bookmarks:
                raise Invalid(
                    "ListOptions",
                    meta_group,
                    "",
                    [
                        _forbidden(
                            "allowWatchBookmarks",
                            "allowWatchBookmarks must be set to true when sendInitialEvents is set",
                        )
                    ],
                )
        elif rvm:
            raise Invalid(
                "ListOptions",
                meta_group,
                "",
                [
                    _forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    )
                ],
            )
        if self.resource_version not in ("", "0"):
            parse_revision(self.resource_version)


def _forbidden(path: str, detail: str) -> FieldError:
    return forbidden(path, detail)


@dataclass(frozen=True)
class DeleteOptions:
    grace_period_seconds: int | None = None
    precondition_uid: str | None = None
    precondition_rv: str | None = None
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
    dry_run: bool = False
    extra: dict = field(default_factory=dict)

    @classmethod
    def parse(cls, body: dict | None, args: Mapping[str, str], dry_run: bool, meta_group: str) -> DeleteOptions:
        """From the body when it has one (then the query is ignored, as the reference), else the query."""
        if body:
            pre = body.get("preconditions") or {}
            dry = body.get("dryRun") or []
            if dry and dry != ["All"]:
                raise unsupported_dry_run(dry)
            opts = cls(
                body.get("gracePeriodSeconds"),
                pre.get("uid"),
                pre.get("resourceVersion"),
                body.get("propagationPolicy"),
                body.get("orphanDependents"),
                bool(dry) or dry_run,
            )
        else:
            orphan = args.get("orphanDependents")
            opts = cls(
                query_int64(args, "gracePeriodSeconds"),
                None,
                None,
                args.get("propagationPolicy") or None,
                None if orphan is None else parse_bool(orphan),
                dry_run,
            )
        opts.validate(meta_group)
        return opts

    def to_api(self, api_version: str) -> dict:
        """DeleteOptions as an AdmissionReview carries them."""
        out: dict = {"kind": "DeleteOptions", "apiVersion": api_version}
        if self.grace_period_seconds is not None:
            out["gracePeriodSeconds"] = self.grace_period_seconds
        preconditions = {
            k: v for k, v in (("uid", self.precondition_uid), ("resourceVersion", self.precondition_rv)) if v
        }
        if preconditions:
            out["preconditions"] = preconditions
        if self.propagation_policy:
            out["propagationPolicy"] = self.propagation_policy
        if self.orphan_dependents is not None:
            out["orphanDependents"] = self.orphan_dependents
        if self.dry_run:
            out["dryRun"] = ["All"]
        return out

    def validate(self, meta_group: str) -> None:
        policy = self.propagation_policy
        if policy is not None and policy not in ("Foreground", "Background", "Orphan"):
            raise Invalid(
                "DeleteOptions",
                meta_group,
                "",
                [not_supported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"])],
            )
        if policy is not None and self.orphan_dependents is not None:
            raise Invalid(
                "DeleteOptions",
                meta_group,
                "",
                [_forbidden("propagationPolicy", "orphanDependents and deletionPropagation cannot be both set")],
            )


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_INTEGER = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.ParseInt accepts in base 10


def query_int64(args: Mapping[str, str], name: str) -> int | None:
    """An integer query parameter (an int64 in the reference's options): anything else is 400 BadRequest."""
    text = args.get(name)
    if text in (None, ""):
        return None
    if not _INTEGER.fullmatch(text):
        raise BadRequest(f'invalid {name}: "{text}": must be an integer')
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise BadRequest(f'invalid {name}: "{text}": value out of range') from None
    return value


def unsupported_dry_run(values: Any) -> ApiError:
    return BadRequest(f'dryRun: Unsupported value: {orjson.dumps(values).decode()}: supported values: "All"')


def parse_dry_run(args: Any) -> bool:
    values = args.getlist("dryRun") if hasattr(args, "getlist") else [args.get("dryRun")]
    values = [v for v in values if v is not None]
    if not values:
        return False
    if values == [""]:
        return False
    if any(v != "All" for v in values):
        raise unsupported_dry_run(values)
    return True
