"""Reading certificate signing requests: conditions, the decoded PKCS#10 request, condition times."""

from __future__ import annotations

import base64
from datetime import datetime

from cryptography import x509

from ..resources.certificates import APPROVED, DENIED, FAILED, condition_types, decode_bytes, parse_request


def conditions(csr: dict) -> dict[str, dict]:
    return condition_types(csr)


def is_approved(csr: dict) -> bool:
    found = conditions(csr)
    return APPROVED in found and DENIED not in found


def is_finished(csr: dict) -> bool:
    """Denied, Failed or already issued: no controller acts on it any more."""
    found = conditions(csr)
    return DENIED in found or FAILED in found or bool((csr.get("status") or {}).get("certificate"))


def request_of(csr: dict) -> x509.CertificateSigningRequest:
    """The PKCS#10 request; ValueError when unreadable."""
    return parse_request(decode_bytes((csr.get("spec") or {}).get("request", "")))


def issued_certificates(csr: dict) -> list[x509.Certificate]:
    certificate = (csr.get("status") or {}).get("certificate")
    if not certificate:
        return []
    try:
        return x509.load_pem_x509_certificates(base64.b64decode(certificate))
    except ValueError:
        return []


def parse_time(text: object) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def condition_time(csr: dict, kind: str) -> datetime | None:
    """When a condition was last updated (its transition time, else the object's creation)."""
    cond = conditions(csr).get(kind) or {}
    return (
        parse_time(cond.get("lastUpdateTime"))
        or parse_time(cond.get("lastTransitionTime"))
        or parse_time((csr.get("metadata") or {}).get("creationTimestamp"))
    )


def timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def with_condition(csr: dict, kind: str, reason: str, message: str, now: datetime) -> dict:
    """The CSR with one more condition (status True), stamped with `now`."""
    status = dict(csr.get("status") or {})
    stamp = timestamp(now)
    status["conditions"] = [
        *list(status.get("conditions") or []),
        {
            "type": kind,
            "status": "True",
            "reason": reason,
            "message": message,
            "lastUpdateTime": stamp,
            "lastTransitionTime": stamp,
        },
    ]
    return {**csr, "status": status}
