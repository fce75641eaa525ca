"""The simulation's StatefulSet, DaemonSet, Job, CronJob, EndpointSlice and Endpoints controllers."""

from __future__ import annotations

from ..base import Controller

BATCH_CONTROLLERS: tuple[type[Controller], ...] = ()
