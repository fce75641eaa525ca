"""The ApiError hierarchy: raised anywhere, rendered once as a `Status` by the HTTP layer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass
class FieldError:
    """One cause of an Invalid (422) error, worded as the reference words field errors."""

    reason: str  # FieldValueRequired, FieldValueInvalid, ...
    field: str
    detail: str = ""
    value: Any = None
    show_value: bool = True

    TYPE_STRINGS: ClassVar[dict[str, str]] = {
        "FieldValueNotFound": "Not found",
        "FieldValueRequired": "Required value",
        "FieldValueDuplicate": "Duplicate value",
        "FieldValueInvalid": "Invalid value",
        "FieldValueNotSupported": "Unsupported value",
        "FieldValueForbidden": "Forbidden",
        "FieldValueTooLong": "Too long",
        "FieldValueTooMany": "Too many",
        "FieldValueTypeInvalid": "Invalid value",
        "InternalError": "Internal error",
    }
    VALUELESS: ClassVar[frozenset[str]] = frozenset(
        {"FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong", "InternalError"}
    )

    @property
    def body(self) -> str:
        text = self.TYPE_STRINGS.get(self.reason, "Invalid value")
        if self.show_value and self.reason not in self.VALUELESS:
            text += f": {_render_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body}"

    def cause(self) -> dict:
        return {"reason": self.reason, "message": self.body, "field": self.field}


class Shown(str):
    """A value already in the reference's printed form (Go's %#v of a map, say): a message shows it as it is."""


def _render_value(value: Any) -> str:
    import json

    if isinstance(value, Shown):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def required(path: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", path, detail)


def invalid(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError("FieldValueInvalid", path, detail, value)


def forbidden(path: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueForbidden", path, detail)


def not_supported(path: str, value: Any, supported: list[str]) -> FieldError:
    detail = "supported values: " + ", ".join(f'"{s}"' for s in supported)
    return FieldError("FieldValueNotSupported", path, detail, value)


@dataclass
class ApiError(Exception):
    code: int = 500
    reason: str = "InternalError"
    message: str = ""
    details: dict | None = None
    headers: dict[str, str] = field(default_factory=dict)
    list_meta: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message

    def status(self) -> dict:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": dict(self.list_meta),
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body


def _details(name: str | None, group: str, kind: str, **extra: Any) -> dict:
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    if kind:
        details["kind"] = kind
    details.update({k: v for k, v in extra.items() if v})
    return details


def group_resource(resource: str, group: str) -> str:
    return f"{resource}.{group}" if group else resource


class NotFound(ApiError):
    def __init__(self, resource: str, group: str, name: str):
        super().__init__(
            404, "NotFound", f'{group_resource(resource, group)} "{name}" not found', _details(name, group, resource)
        )


class RouteNotFound(ApiError):
    def __init__(self) -> None:
        super().__init__(404, "NotFound", "the server could not find the requested resource", {})


class AlreadyExists(ApiError):
    def __init__(self, resource: str, group: str, name: str, prefix: str = "", suffix: str = "", retry_after: int = 0):
        message = f'{prefix}{group_resource(resource, group)} "{name}" already exists{suffix}'
        super().__init__(409, "AlreadyExists", message, _details(name, group, resource, retryAfterSeconds=retry_after))
        if retry_after:
            self.headers["Retry-After"] = str(retry_after)


class Conflict(ApiError):
    def __init__(self, resource: str, group: str, name: str, why: str = ""):
        why = why or "the object has been modified; please apply your changes to the latest version and try again"
        message = f'Operation cannot be fulfilled on {group_resource(resource, group)} "{name}": {why}'
        super().__init__(409, "Conflict", message, _details(name, group, resource))


class Invalid(ApiError):
    def __init__(self, kind: str, group: str, name: str, errors: list[FieldError]):
        gk = f"{kind}.{group}" if group else kind
        unique = list(dict.fromkeys(str(e) for e in errors))
        aggregate = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
        message = f'{gk} "{name}" is invalid' + (f": {aggregate}" if unique else "")
        details = _details(name, group, kind)
        details["causes"] = [e.cause() for e in errors]
        super().__init__(422, "Invalid", message, details)


class BadRequest(ApiError):
    def __init__(self, message: str):
        super().__init__(400, "BadRequest", message)


class Unauthorized(ApiError):
    def __init__(self, message: str = "Unauthorized"):
        super().__init__(401, "Unauthorized", message)


class Forbidden(ApiError):
    def __init__(
        self, message: str, resource: str = "", group: str = "", name: str = "", causes: list[dict] | None = None
    ):
        details = _details(name, group, resource)
        if causes:
            details["causes"] = causes
        super().__init__(403, "Forbidden", message, details)


class MethodNotAllowed(ApiError):
    def __init__(self, message: str = "the server does not allow this method on the requested resource"):
        super().__init__(405, "MethodNotAllowed", message, {})


class NotAcceptable(ApiError):
    def __init__(self, accepted: list[str]):
        super().__init__(406, "NotAcceptable", "only the following media types are accepted: " + ", ".join(accepted))


class UnsupportedMediaType(ApiError):
    def __init__(self, accepted: list[str]):
        super().__init__(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted),
        )


class RequestEntityTooLarge(ApiError):
    def __init__(self, message: str):
        super().__init__(413, "RequestEntityTooLarge", message)


class Gone(ApiError):
    """410 with reason Expired: the asked revision or continue token is older than the kept history."""

    def __init__(self, message: str, continue_token: str = ""):
        super().__init__(410, "Expired", message)
        if continue_token:
            self.list_meta["continue"] = continue_token


class TooLargeResourceVersion(ApiError):
    def __init__(self, requested: int, current: int):
        super().__init__(
            504,
            "Timeout",
            f"Timeout: Too large resource version: {requested}, current: {current}",
            {
                "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                "retryAfterSeconds": 1,
            },
            headers={"Retry-After": "1"},
        )


class TooManyRequests(ApiError):
    def __init__(self, message: str, retry_after: int = 0, causes: list[dict] | None = None):
        details: dict[str, Any] = {"causes": causes} if causes else {}
        if retry_after > 0:
            details["retryAfterSeconds"] = retry_after
        super().__init__(
            429, "TooManyRequests", message, details, {"Retry-After": str(retry_after)} if retry_after > 0 else {}
        )


class ServiceUnavailable(ApiError):
    def __init__(self, message: str = "the server is currently unable to handle the request"):
        super().__init__(503, "ServiceUnavailable", message, {}, {"Retry-After": "1"})


class PlainTextError(ApiError):
    """A failure the reference answers with a line of plain text (Go's http.Error), not a Status."""


class APIServiceUnavailable(PlainTextError):
    """An APIService not Available, or its Service not reachable: the aggregator's `service unavailable`, with no
    Retry-After (clients would retry every discovery call of that group version)."""

    def __init__(self) -> None:
        super().__init__(503, "ServiceUnavailable", "service unavailable", {})


class InternalError(ApiError):
    def __init__(self, message: str):
        super().__init__(
            500, "InternalError", f"Internal error occurred: {message}", {"causes": [{"message": message}]}
        )
