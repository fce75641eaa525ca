"""The simulation's simulated nodes (Node objects, Leases, a kubelet's pod lifecycle) and the scheduler."""

from __future__ import annotations

from ..base import Controller

NODE_CONTROLLERS: tuple[type[Controller], ...] = ()
