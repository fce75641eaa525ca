"""The simulation's StatefulSet, DaemonSet, Job, CronJob, EndpointSlice and Endpoints controllers."""

from __future__ import annotations

from ..base import Controller
from .cronjob import CronJobController
from .daemonset import DaemonSetController
from .endpoints import EndpointsController, EndpointSliceController
from .job import JobController
from .statefulset import StatefulSetController

BATCH_CONTROLLERS: tuple[type[Controller], ...] = (
    StatefulSetController,
    DaemonSetController,
    JobController,
    CronJobController,
    EndpointSliceController,
    EndpointsController,
)
