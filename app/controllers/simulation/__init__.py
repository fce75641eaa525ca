"""A simulated cluster (`--simulate-nodes N`, docs/simulation.md): node agents, a scheduler and the workload
controllers whose results users look at. Off unless the simulation is on; each module lists its controllers."""

from __future__ import annotations

from ..base import Controller
from .batch import BATCH_CONTROLLERS
from .nodes import NODE_CONTROLLERS
from .workloads import WORKLOAD_CONTROLLERS

#: every controller of the simulation, in the order they start
SIMULATION_CONTROLLERS: tuple[type[Controller], ...] = (*NODE_CONTROLLERS, *WORKLOAD_CONTROLLERS, *BATCH_CONTROLLERS)
