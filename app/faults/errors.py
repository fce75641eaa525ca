"""The Status a fault answers with: the reference's reason and wording for the code, unless the Fault says."""

from __future__ import annotations

from ..errors import ApiError, Conflict, NotFound, group_resource
from .matching import RequestFacts
from .spec import ErrorSpec

#: the reference's StatusReason for codes it has one for (k8s.io/apimachinery/pkg/api/errors)
REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Expired",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}
#: codes whose answer tells the client when to come back (the reference sends Retry-After with them)
RETRY_CODES = frozenset({429, 503, 504})


def fault_error(spec: ErrorSpec, facts: RequestFacts) -> ApiError:
    """The error for `spec` on the request of `facts`: a Conflict or NotFound names the object as the reference
    does; 429, 503 and 504 carry Retry-After (1 second unless retryAfterSeconds says)."""
    error = _reference_error(spec.code, facts)
    if spec.reason:
        error.reason = spec.reason
    if spec.message:
        error.message = spec.message
    if spec.code in RETRY_CODES:
        retry = spec.retry_after or 1
        error.headers["Retry-After"] = str(retry)
        error.details = {**(error.details or {}), "retryAfterSeconds": retry}
    return error


def _reference_error(code: int, facts: RequestFacts) -> ApiError:
    name = facts.name or ""
    if code == 409:
        return Conflict(facts.resource, facts.group, name)
    if code == 404 and name:
        return NotFound(facts.resource, facts.group, name)
    details: dict = {}
    if name:
        details["name"] = name
    if facts.group:
        details["group"] = facts.group
    if facts.resource:
        details["kind"] = facts.resource
    reason = REASONS.get(code, "")
    message = _MESSAGES.get(code, "the server reported a fault for {what}").format(
        what=group_resource(facts.resource, facts.group) + (f' "{name}"' if name else "")
    )
    if code == 500:
        details["causes"] = [{"message": message}]
        message = f"Internal error occurred: {message}"
    return ApiError(code, reason, message, details)


_MESSAGES = {
    400: "the server rejected our request for an unknown reason",
    401: "Unauthorized",
    403: "the server does not allow access to the requested resource",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    406: "the server was unable to respond with a content type that the client supports",
    410: "too old resource version",
    413: "the request is too large",
    415: "the server was unable to read the request body in the content type given",
    422: "the request on {what} is invalid",
    429: "Too many requests, please try again later.",
    500: "the server could not complete the request on {what}",
    503: "the server is currently unable to handle the request",
    504: "Timeout: request did not complete within requested timeout - context deadline exceeded",
}
