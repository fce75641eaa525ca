"""The `certificates.<domain>/v1` group: certificate signing requests and their approval subresource.

Structural rules, and the reference's approval/signing admission: writes to `/approval` need the verb
`approve`, changes of status.certificate through `/status` need `sign`, on `signers` (see
`check_signer_permission`).
"""
from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import ClassVar

from app.catalog import Obj, ResourceType, Subresource
from app.errors import FieldError, Forbidden, invalid, not_supported, required
from app.naming import Naming
from app.resources.common import (
    Getter,
    KindStrategy,
    base64_error,
    child,
    dig,
    field,
    items,
    part,
)

KEY_USAGES = ["signing", "digital signature", "content commitment", "key encipherment", "key agreement",
              "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any",
              "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system",
              "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"]
CONDITION_STATUSES = ["True", "False", "Unknown"]
MIN_EXPIRATION_SECONDS = 600
#: the requester fields the server fills from the authenticated user (clients' values are dropped).
REQUESTER_FIELDS = ("username", "uid", "groups", "extra")

# a real PKCS#10 request (ECDSA P-256, CN=example-user) so the example survives signature checks
EXAMPLE_REQUEST = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIcU1JR1JBZ0VBTUM4eEZUQVRCZ05WQkFNTURHVjRZVzF3YkdVdGRYTmxj"
    "akVXTUJRR0ExVUVDZ3dOWlhoaApiWEJzWlMxbmNtOTFjREJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCRjQyQW16ZjhUMXBO"
    "aitFCnZ4dDd3TFRDYWNpV1dKUGdvVDI1N3pWSGxQTXNhTzRYWXcyOXVCa1RSenNTOVNNaTlGM3lteVByODJGSjJPQ0kKelBEaEZOK2dBREFL"
    "QmdncWhrak9QUVFEQWdOSUFEQkZBaUFpamF4QVpibFZjVHg3bmg5SGs4TngyZ2t5Um1PVQpXZnBnVlBSYVJJc1V2d0loQU0xeTlRWTVtSmJo"
    "ZnhXWmlWdkZGMTVpZVQ3SWd5M0NHUDlqSkdIV0c0RkMKLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg=="
)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def requesting_user() -> object | None:
    """The authenticated user of the request being served (set by the HTTP layer)."""
    from app.auth.user import current_user

    return current_user.get()


def stamp_requester(obj: Obj, user: object | None) -> None:
    """spec.username/uid/groups/extra come from the authenticated user, never from the client."""
    spec = child(obj, "spec")
    for key in REQUESTER_FIELDS:
        spec.pop(key, None)
    if user is None:
        return
    if getattr(user, "username", ""):
        spec["username"] = user.username  # type: ignore[attr-defined]
    if getattr(user, "uid", ""):
        spec["uid"] = user.uid  # type: ignore[attr-defined]
    if getattr(user, "groups", ()):
        spec["groups"] = list(user.groups)  # type: ignore[attr-defined]
    if getattr(user, "extra", None):
        spec["extra"] = {k: list(v) for k, v in user.extra.items()}  # type: ignore[attr-defined]


def stamp_condition_times(new: Obj, old: Obj) -> None:
    """Conditions get lastUpdateTime, and lastTransitionTime unless their status is unchanged."""
    before = {c.get("type"): c for c in items(part(old, "status"), "conditions")}
    now = _now()
    for cond in items(part(new, "status"), "conditions"):
        cond.setdefault("lastUpdateTime", now)
        if not cond.get("lastTransitionTime"):
            prior = before.get(cond.get("type"))
            same = prior is not None and prior.get("status") == cond.get("status")
            cond["lastTransitionTime"] = prior.get("lastTransitionTime", now) if same and prior else now


class CertificateSigningRequestStrategy(KindStrategy):
    generation = False
    initial_status: ClassVar[Obj] = {}
    field_selectors: ClassVar[dict[str, Getter]] = {"spec.signerName": field("spec", "signerName")}

    def prepare_for_create(self, obj: Obj) -> None:
        super().prepare_for_create(obj)
        stamp_requester(obj, requesting_user())

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        super().prepare_for_update(obj, old)
        # requests are immutable after creation except through the subresources
        obj["spec"] = copy.deepcopy(old.get("spec") or {})

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors: list[FieldError] = []
        request = spec.get("request")
        if not request:
            errors.append(required("spec.request"))
        elif (error := base64_error("spec.request", request)) is not None:
            errors.append(error)
        signer = spec.get("signerName")
        if not signer:
            errors.append(required("spec.signerName"))
        elif signer == self.naming.key("legacy-unknown"):
            errors.append(invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"))
        errors += _usage_errors(spec.get("usages"))
        seconds = spec.get("expirationSeconds")
        if isinstance(seconds, int) and seconds < MIN_EXPIRATION_SECONDS:
            errors.append(invalid("spec.expirationSeconds", seconds,
                                  "may not specify a duration less than 600 seconds (10 minutes)"))
        return errors + _condition_errors(dig(obj, "status", "conditions", default=[]))


def _usage_errors(usages: object) -> list[FieldError]:
    if not usages:
        return [required("spec.usages")]
    if not isinstance(usages, list):
        return [invalid("spec.usages", usages, "must be a list of key usages")]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, usage in enumerate(usages):
        if not isinstance(usage, str) or usage not in KEY_USAGES:
            errors.append(not_supported(f"spec.usages[{i}]", usage, KEY_USAGES))
        elif usage in seen:
            errors.append(FieldError("FieldValueDuplicate", f"spec.usages[{i}]", "", usage))
        else:
            seen.add(usage)
    return errors


def _condition_errors(conditions: object) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, cond in enumerate(conditions if isinstance(conditions, list) else []):
        path = f"status.conditions[{i}]"
        if not isinstance(cond, dict):
            errors.append(invalid(path, cond, "must be an object"))
            continue
        kind = cond.get("type")
        if not kind:
            errors.append(required(f"{path}.type"))
        elif str(kind) in seen:
            errors.append(FieldError("FieldValueDuplicate", f"{path}.type", "", kind))
        seen.add(str(kind))
        status = cond.get("status")
        if not status:
            errors.append(required(f"{path}.status"))
        elif status not in CONDITION_STATUSES:
            errors.append(not_supported(f"{path}.status", status, CONDITION_STATUSES))
    return errors


def check_signer_permission(naming: Naming, verb: str, csr: Obj) -> None:
    """The reference's CSR approval/signing admission: the requester needs `verb` (approve, sign) on
    `signers` in the certificates group, named after the CSR's signerName or `<signer domain>/*`; asked of
    the one authorizer chain of the running app. The server's own writes (no requester) are not checked."""
    from app.auth.authz import Attributes
    from app.auth.context import current_authentication
    from app.auth.user import current_user

    user, auth = current_user.get(), current_authentication.get()
    if user is None or auth is None:
        return
    signer = str(dig(csr, "spec", "signerName", default="") or "")
    group = naming.group("certificates")
    names = [signer]
    if "/" in signer:
        names.append(signer.split("/", 1)[0] + "/*")
    for name in names:
        if auth.authorizer.authorize(Attributes(user, verb, group=group, resource="signers", name=name)).allowed:
            return
    csr_name = str(dig(csr, "metadata", "name", default="") or "")
    raise Forbidden(f'certificatesigningrequests.{group} "{csr_name}" is forbidden: user not permitted to '
                    f'{verb} requests with signerName "{signer}"', "certificatesigningrequests", group, csr_name)


def csr_status_subresource(naming: Naming) -> Subresource:
    """`/status` takes the status but keeps the approval conditions (the signer's channel); changing
    status.certificate needs `sign` on the signer."""

    def merge(old: Obj, new: Obj) -> Obj:
        if dig(new, "status", "certificate") != dig(old, "status", "certificate"):
            check_signer_permission(naming, "sign", old)
        out = copy.deepcopy(old)
        status = copy.deepcopy(part(new, "status"))
        conditions = dig(old, "status", "conditions")
        if conditions:
            status["conditions"] = copy.deepcopy(conditions)
        else:
            status.pop("conditions", None)
        out["status"] = status
        return out

    return Subresource("status", merge=merge)


def approval_subresource(naming: Naming) -> Subresource:
    """`/approval` takes only status.conditions from the written object (the approver's channel); any
    write needs `approve` on the signer."""

    def merge(old: Obj, new: Obj) -> Obj:
        check_signer_permission(naming, "approve", old)
        out = copy.deepcopy(old)
        status = child(out, "status")
        conditions = dig(new, "status", "conditions")
        if conditions:
            status["conditions"] = copy.deepcopy(conditions)
        else:
            status.pop("conditions", None)
        stamp_condition_times(out, old)
        return out

    return Subresource("approval", merge=merge)


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("certificates")
    return [
        ResourceType(group, "v1", "CertificateSigningRequest", "certificatesigningrequests", False,
                     short_names=("csr",), subresources=(approval_subresource(naming), csr_status_subresource(naming)),
                     strategy=CertificateSigningRequestStrategy(naming), name_rule="path", has_status=True,
                     example={"spec": {"request": EXAMPLE_REQUEST, "signerName": naming.key("apiserver-client"),
                                       "usages": ["digital signature", "key encipherment", "client auth"]}}),
    ]
