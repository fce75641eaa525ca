"""csrcleaner: garbage-collects requests: Approved, Denied and Failed ones an hour after the condition,
Pending ones after a day, and any whose issued certificate has expired (the reference's csrcleaner)."""

from __future__ import annotations

from datetime import datetime, timedelta

from ..errors import Conflict, NotFound
from ..resources.certificates import APPROVED, DENIED, FAILED
from . import csr as csrs
from .base import Context, Controller

FINISHED_AFTER = timedelta(hours=1)
PENDING_AFTER = timedelta(hours=24)


def due_for_deletion(csr: dict, now: datetime) -> str | None:
    """Why the request should go now (None: keep it)."""
    certificates = csrs.issued_certificates(csr)
    if certificates and min(c.not_valid_after_utc for c in certificates) < now:
        return "its certificate expired"
    found = csrs.conditions(csr)
    for kind in (DENIED, FAILED, APPROVED):
        if kind in found:
            since = csrs.condition_time(csr, kind)
            return f"{kind} for over an hour" if since is not None and since + FINISHED_AFTER < now else None
    created = csrs.parse_time((csr.get("metadata") or {}).get("creationTimestamp"))
    if created is not None and created + PENDING_AFTER < now:
        return "pending for over a day"
    return None


class CsrCleaner(Controller):
    name = "csrcleaner"
    account = "certificate-controller"
    resync_seconds = 60.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.csrs = ctx.kind("certificates", "certificatesigningrequests")

    def sync(self) -> None:
        now = self.now()
        for csr in self.client.list(self.csrs):
            md = csr.get("metadata") or {}
            if due_for_deletion(csr, now) is not None:
                try:
                    self.client.delete(self.csrs, None, md.get("name", ""), md.get("uid", ""))
                except (Conflict, NotFound):
                    pass
