"""The `certificates.<domain>/v1` group: certificate signing requests and their approval subresource.

Structural rules; who may approve and sign is admission's (app/admission/certificates.py).
"""

from __future__ import annotations

import base64
import copy
import re
from datetime import UTC, datetime
from typing import ClassVar

from cryptography import x509

from ..catalog import Obj, ResourceType, Subresource
from ..errors import FieldError, Invalid, forbidden, invalid, not_supported, required
from ..naming import Naming
from .common import Getter, KindStrategy, base64_error, child, dig, field, items, part

KEY_USAGES = [
    "signing",
    "digital signature",
    "content commitment",
    "key encipherment",
    "key agreement",
    "data encipherment",
    "cert sign",
    "crl sign",
    "encipher only",
    "decipher only",
    "any",
    "server auth",
    "client auth",
    "code signing",
    "email protection",
    "s/mime",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "timestamping",
    "ocsp signing",
    "microsoft sgc",
    "netscape sgc",
]
CONDITION_STATUSES = ["True", "False", "Unknown"]
APPROVED, DENIED, FAILED = "Approved", "Denied", "Failed"
#: condition types only the approver (through /approval) may set
APPROVAL_TYPES = (APPROVED, DENIED)
_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
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
    from ..user import current_user

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
        elif (problem := request_problem(decode_bytes(request))) is not None:
            errors.append(FieldError("FieldValueInvalid", "spec.request", problem, show_value=False))
        signer = spec.get("signerName")
        if not signer:
            errors.append(required("spec.signerName"))
        elif signer == self.naming.signer("legacy-unknown"):
            errors.append(
                invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version")
            )
        errors += _usage_errors(spec.get("usages"))
        seconds = spec.get("expirationSeconds")
        if isinstance(seconds, int) and seconds < MIN_EXPIRATION_SECONDS:
            errors.append(
                invalid(
                    "spec.expirationSeconds", seconds, "may not specify a duration less than 600 seconds (10 minutes)"
                )
            )
        return errors + _condition_errors(dig(obj, "status", "conditions", default=[])) + _certificate_errors(obj)


def decode_bytes(value: object) -> bytes:
    """A []byte field as JSON carries it (standard base64); b"" when unreadable."""
    try:
        return base64.b64decode(str(value).replace("\r", "").replace("\n", ""), validate=True)
    except ValueError:
        return b""


def parse_request(pem: bytes) -> x509.CertificateSigningRequest:
    """The PKCS#10 request of a PEM `CERTIFICATE REQUEST` block; ValueError says what is wrong."""
    match = _PEM_BLOCK.search(pem)
    if match is None or match.group(1) not in (b"CERTIFICATE REQUEST", b"NEW CERTIFICATE REQUEST"):
        raise ValueError("PEM block type must be CERTIFICATE REQUEST")
    return x509.load_pem_x509_csr(match.group(0))


def request_problem(pem: bytes) -> str | None:
    """Why spec.request is not a PEM PKCS#10 request with a valid self-signature (None when it is)."""
    try:
        csr = parse_request(pem)
    except ValueError as err:
        return str(err) or "unable to parse the certificate request"
    try:
        valid = csr.is_signature_valid
    except Exception:  # noqa: BLE001 - unsupported key types cannot be verified either
        valid = False
    return None if valid else "the certificate request signature does not verify (x509: signature check failed)"


def certificate_problem(pem: bytes) -> str | None:
    """status.certificate must be one or more PEM CERTIFICATE blocks without headers, each a parseable
    X.509 certificate, and nothing but whitespace around them."""
    rest, found = pem, 0
    for match in _PEM_BLOCK.finditer(pem):
        if match.group(1) != b"CERTIFICATE":
            return f"only CERTIFICATE PEM blocks are allowed, found {match.group(1).decode()!r}"
        if b":" in match.group(2):
            return "no PEM block headers are permitted"
        try:
            x509.load_pem_x509_certificate(match.group(0))
        except ValueError as err:
            return f"unable to parse the certificate: {err}"
        rest = rest.replace(match.group(0), b"", 1)
        found += 1
    if not found:
        return "must contain at least one CERTIFICATE PEM block"
    if rest.strip():
        return "extra data found after PEM decoding"
    return None


def condition_types(obj: Obj) -> dict[str, Obj]:
    return {str(c.get("type")): c for c in items(part(obj, "status"), "conditions") if isinstance(c, dict)}


def _certificate_errors(obj: Obj) -> list[FieldError]:
    certificate = dig(obj, "status", "certificate")
    if not certificate:
        return []
    if (error := base64_error("status.certificate", certificate)) is not None:
        return [error]
    problem = certificate_problem(decode_bytes(certificate))
    if problem is not None:
        return [FieldError("FieldValueInvalid", "status.certificate", problem, show_value=False)]
    return []


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
        elif kind in APPROVAL_TYPES and status != "True":
            errors.append(not_supported(f"{path}.status", status, ["True"]))
        elif status not in CONDITION_STATUSES:
            errors.append(not_supported(f"{path}.status", status, CONDITION_STATUSES))
    if APPROVED in seen and DENIED in seen:
        errors.append(
            invalid("status.conditions", "Approved,Denied", "Approved and Denied conditions are mutually exclusive")
        )
    return errors


def _reject_named(naming: Naming, obj: Obj, errors: list[FieldError]) -> None:
    """A subresource write that breaks the transition rules: 422 with one cause per problem."""
    if errors:
        raise Invalid(
            "CertificateSigningRequest",
            naming.group("certificates"),
            str(dig(obj, "metadata", "name", default="")),
            errors,
        )


def _kept_conditions(old: Obj, new: Obj, owned: tuple[str, ...], others_path: str) -> list[FieldError]:
    """Conditions of types the writer does not own must stay as they were; owned ones set once stay."""
    before, after = condition_types(old), condition_types(new)
    errors: list[FieldError] = []
    for kind, cond in before.items():
        if kind not in after:
            errors.append(forbidden("status.conditions", f'updates may not remove a condition of type "{kind}"'))
        elif kind not in owned and after[kind].get("status") != cond.get("status"):
            errors.append(forbidden("status.conditions", f'updates may not modify a condition of type "{kind}"'))
    for kind in after:
        if kind not in before and kind not in owned:
            errors.append(
                forbidden(
                    "status.conditions", f'updates may not add a condition of type "{kind}" through {others_path}'
                )
            )
    return errors


def csr_status_subresource(naming: Naming) -> Subresource:
    """`/status` takes the status but keeps the approval conditions (the signer's channel)."""

    def merge(old: Obj, new: Obj) -> Obj:
        certificate, before = dig(new, "status", "certificate"), dig(old, "status", "certificate")
        errors = _kept_conditions(old, new, (FAILED,), "the approval subresource")
        if before and certificate != before:
            errors.append(forbidden("status.certificate", "updates may not modify existing certificate content"))
        elif certificate and not before and (APPROVED not in condition_types(old) or DENIED in condition_types(new)):
            errors.append(forbidden("status.certificate", "certificate may only be set on an approved request"))
        _reject_named(naming, old, errors)
        out = copy.deepcopy(old)
        out["status"] = copy.deepcopy(part(new, "status"))
        stamp_condition_times(out, old)
        return out

    return Subresource("status", merge=merge)


def approval_subresource(naming: Naming) -> Subresource:
    """`/approval` takes only status.conditions from the written object (the approver's channel)."""

    def merge(old: Obj, new: Obj) -> Obj:
        _reject_named(naming, old, _kept_conditions(old, new, APPROVAL_TYPES, "the status subresource"))
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
        ResourceType(
            group,
            "v1",
            "CertificateSigningRequest",
            "certificatesigningrequests",
            False,
            short_names=("csr",),
            subresources=(approval_subresource(naming), csr_status_subresource(naming)),
            strategy=CertificateSigningRequestStrategy(naming),
            name_rule="path",
            has_status=True,
            example={
                "spec": {
                    "request": EXAMPLE_REQUEST,
                    "signerName": naming.signer("apiserver-client"),
                    "usages": ["digital signature", "key encipherment", "client auth"],
                }
            },
        )
    ]
