"""Leader election through a `coordination.<domain>/v1` Lease per controller (the reference's leaselock):
the holder renews `renewTime`; anyone may take a lease whose renewTime + leaseDurationSeconds has passed.
Optimistic concurrency (resourceVersion) makes exactly one contender win each acquisition."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from datetime import datetime, timedelta

from ..errors import AlreadyExists, Conflict, NotFound
from .base import Client, Clock

log = logging.getLogger(__name__)

LEASE_DURATION_SECONDS = 15
RENEW_SECONDS = 5.0
MICRO_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def holder_identity() -> str:
    """Unique per process: host name and a random suffix (as the reference's `<host>_<uuid>`)."""
    return f"{socket.gethostname()}_{os.getpid()}_{uuid.uuid4().hex[:8]}"


def format_micro_time(moment: datetime) -> str:
    return moment.strftime(MICRO_TIME)


def parse_micro_time(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


class LeaseElector:
    def __init__(
        self,
        client: Client,
        lease_name: str,
        identity: str,
        clock: Clock,
        duration_seconds: int = LEASE_DURATION_SECONDS,
        renew_seconds: float = RENEW_SECONDS,
    ) -> None:
        self.client, self.lease_name, self.identity, self.clock = client, lease_name, identity, clock
        self.duration_seconds, self.renew_seconds = duration_seconds, renew_seconds
        self.leases = client.ctx.kind("coordination", "leases")
        self.namespace = client.ctx.naming.system_namespace
        self.leading = False
        self._renewed_at: datetime | None = None

    def try_acquire_or_renew(self) -> bool:
        """True while this process holds the lease. A holder renews at most every `renew_seconds` (loops wake on
        every watched change; a write per wake-up would double the cost of each write they see)."""
        now = self.clock()
        if (
            self.leading
            and self._renewed_at is not None
            and now - self._renewed_at < timedelta(seconds=self.renew_seconds)
        ):
            return True
        self.leading = self._attempt()
        self._renewed_at = now if self.leading else None
        return self.leading

    def _attempt(self) -> bool:
        now = self.clock()
        try:
            lease = self.client.find(self.leases, self.namespace, self.lease_name)
            if lease is None:
                self.client.create(self.leases, self.namespace, self._fresh(now))
                log.info("%s acquired lease %s", self.identity, self.lease_name)
                return True
            spec = dict(lease.get("spec") or {})
            holder = spec.get("holderIdentity") or ""
            if holder and holder != self.identity and not self._expired(spec, now):
                return False
            if holder != self.identity:
                spec["acquireTime"] = format_micro_time(now)
                spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + 1
                log.info("%s takes over lease %s from %r", self.identity, self.lease_name, holder)
            spec.update(
                holderIdentity=self.identity,
                leaseDurationSeconds=self.duration_seconds,
                renewTime=format_micro_time(now),
            )
            self.client.update(self.leases, self.namespace, {**lease, "spec": spec})
            return True
        except (AlreadyExists, Conflict, NotFound):
            return False  # another contender wrote first

    def _expired(self, spec: dict, now: datetime) -> bool:
        renewed = parse_micro_time(spec.get("renewTime") or spec.get("acquireTime"))
        duration = int(spec.get("leaseDurationSeconds") or self.duration_seconds)
        return renewed is None or renewed + timedelta(seconds=duration) < now

    def _fresh(self, now: datetime) -> dict:
        stamp = format_micro_time(now)
        return {
            "apiVersion": f"{self.leases.group}/v1",
            "kind": "Lease",
            "metadata": {"name": self.lease_name, "namespace": self.namespace},
            "spec": {
                "holderIdentity": self.identity,
                "leaseDurationSeconds": self.duration_seconds,
                "acquireTime": stamp,
                "renewTime": stamp,
                "leaseTransitions": 0,
            },
        }

    def release(self) -> None:
        """Give the lease up on stop so a successor need not wait for it to expire."""
        if not self.leading:
            return
        self.leading, self._renewed_at = False, None
        try:
            lease = self.client.find(self.leases, self.namespace, self.lease_name)
            if lease is None or (lease.get("spec") or {}).get("holderIdentity") != self.identity:
                return
            spec = {**lease["spec"], "holderIdentity": ""}
            self.client.update(self.leases, self.namespace, {**lease, "spec": spec})
        except Exception:
            log.info("could not release lease %s", self.lease_name, exc_info=True)
