"""The simulation's Deployment and ReplicaSet controllers."""

from __future__ import annotations

from ..base import Controller

WORKLOAD_CONTROLLERS: tuple[type[Controller], ...] = ()
