"""The simulation's Deployment and ReplicaSet controllers (deployment.py, replicaset.py)."""

from __future__ import annotations

from ..base import Controller
from .deployment import DeploymentController
from .replicaset import ReplicaSetController

WORKLOAD_CONTROLLERS: tuple[type[Controller], ...] = (ReplicaSetController, DeploymentController)
