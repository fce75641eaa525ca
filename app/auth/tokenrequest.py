"""POST serviceaccounts/<name>/token: a TokenRequest answered with a signed, bound token."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from ..errors import BadRequest, Conflict, FieldError, Invalid, NotFound, invalid
from .context import Authentication, active
from .lookup import metadata
from .serviceaccount import BoundRef

KIND = "TokenRequest"
DEFAULT_LIFETIME = 3600  # the v1 default of spec.expirationSeconds
MIN_LIFETIME = 600
MAX_LIFETIME = 2**32


def _rfc3339(moment: float) -> str:
    return datetime.fromtimestamp(int(moment), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _check_type(body: dict, api_version: str) -> None:
    given_version, given_kind = body.get("apiVersion") or api_version, body.get("kind") or KIND
    if given_version != api_version or given_kind != KIND:
        raise BadRequest(
            f"the object provided is unrecognized (must be of type {KIND}): {given_kind} in {given_version}"
        )


def _spec(body: dict) -> dict:
    spec = body.get("spec") if body.get("spec") is not None else {}
    if not isinstance(spec, dict):
        raise BadRequest(f'{KIND} in version "v1" cannot be handled as a {KIND}: spec must be an object')
    return spec


def _lifetime(spec: dict, group: str) -> int:
    value = spec.get("expirationSeconds")
    if value is None:
        return DEFAULT_LIFETIME
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(
            f'{KIND} in version "v1" cannot be handled as a {KIND}: spec.expirationSeconds must be an integer'
        )
    errors: list[FieldError] = []
    if value < MIN_LIFETIME:
        errors.append(invalid("spec.expirationSeconds", value, "may not specify a duration less than 10 minutes"))
    if value > MAX_LIFETIME:
        errors.append(invalid("spec.expirationSeconds", value, "may not specify a duration larger than 2^32 seconds"))
    if errors:
        raise Invalid(KIND, group, "", errors)
    return value


def _audiences(spec: dict, default: tuple[str, ...]) -> list[str]:
    value = spec.get("audiences")
    if value in (None, []):
        return list(default)
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise BadRequest(
            f'{KIND} in version "v1" cannot be handled as a {KIND}: spec.audiences must be a list of strings'
        )
    return value


def _bound_objects(auth: Authentication, spec: dict, account_name: str, namespace: str) -> list[BoundRef]:
    ref = spec.get("boundObjectRef")
    if ref is None:
        return []
    if not isinstance(ref, dict):
        raise BadRequest(f'{KIND} in version "v1" cannot be handled as a {KIND}: boundObjectRef must be an object')
    kind, api_version, name = ref.get("kind") or "", ref.get("apiVersion") or "", ref.get("name") or ""
    plural = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}.get(kind) if api_version == "v1" else None
    if plural is None:
        group_version = api_version or "/"
        raise BadRequest(f"cannot bind token to object of type {group_version}, Kind={kind}")
    obj = auth.objects.get(plural, None if kind == "Node" else namespace, name)
    if obj is None:
        raise NotFound(plural, "", name)
    uid = metadata(obj).get("uid", "")
    if ref.get("uid") and ref["uid"] != uid:
        raise Conflict(
            kind,
            "",
            name,
            f"the UID in the bound object reference ({ref['uid']}) does not match the "
            "UID in record. The object might have been deleted and then recreated",
        )
    bound = [BoundRef(kind, name, uid)]
    if kind == "Pod":
        pod_spec = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        if pod_spec.get("serviceAccountName") != account_name:
            raise BadRequest(
                f'cannot bind token for serviceaccount "{account_name}" to pod running with different '
                "serviceaccount name."
            )
        node_name = pod_spec.get("nodeName")
        if node_name:
            node = auth.objects.get("nodes", None, node_name)
            bound.append(BoundRef("Node", node_name, metadata(node).get("uid", "") if node else ""))
    return bound


def create_token(auth: Authentication, account: dict, body: dict) -> dict:
    """The TokenRequest response for `account` (the URL's service account, already looked up)."""
    group = auth.naming.group("authentication")
    api_version = f"{group}/v1"
    _check_type(body, api_version)
    md = metadata(account)
    name, namespace = md.get("name", ""), md.get("namespace", "")
    request_md = body["metadata"] if isinstance(body.get("metadata"), dict) else {}
    if request_md.get("name") and request_md["name"] != name:
        raise Invalid(
            KIND,
            group,
            name,
            [invalid("metadata.name", request_md["name"], "must match the service account name if specified")],
        )
    if request_md.get("namespace") and request_md["namespace"] != namespace:
        raise Invalid(
            KIND,
            group,
            name,
            [
                invalid(
                    "metadata.namespace",
                    request_md["namespace"],
                    "must match the service account namespace if specified",
                )
            ],
        )
    if request_md.get("uid") and request_md["uid"] != md.get("uid"):
        raise Conflict(
            "serviceaccounts",
            "",
            name,
            f"the UID in the token request ({request_md['uid']}) does not "
            f"match the UID of the service account ({md.get('uid')})",
        )
    spec = _spec(body)
    audiences = _audiences(spec, auth.api_audiences)
    lifetime = _lifetime(spec, group)
    bound = _bound_objects(auth, spec, name, namespace)
    now = time.time()
    token = auth.issuer.bound_token(account, audiences, lifetime, bound, now)
    out_md = {"name": name, "namespace": namespace, "creationTimestamp": _rfc3339(now)}
    if request_md.get("uid"):
        out_md["uid"] = request_md["uid"]
    return {
        "kind": KIND,
        "apiVersion": api_version,
        "metadata": out_md,
        "spec": {"audiences": audiences, "expirationSeconds": lifetime, "boundObjectRef": spec.get("boundObjectRef")},
        "status": {"token": token, "expirationTimestamp": _rfc3339(now + lifetime)},
    }


def token_subresource_create(account: dict, body: dict, call: object) -> dict:
    """The `create` hook of the serviceaccounts/token subresource."""
    return create_token(active(), account, body)
