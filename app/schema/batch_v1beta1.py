"""batch/v1beta1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import batch, core_volume, meta
from .types import BOOL, INT32, INT64, STRING, TIME, Field, ListOf, Struct

_PKG = "batch/v1beta1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "batch"
GROUP_IN_DOMAIN = False
VERSION = "v1beta1"


JobTemplateSpec = Struct(
    _PKG, "JobTemplateSpec", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, batch.JobSpec)]
)

CronJobSpec = Struct(
    _PKG,
    "CronJobSpec",
    [
        Field("schedule", 1, STRING, omitempty=False, required=True),
        Field("timeZone", 8, STRING, nullable=True),
        Field("startingDeadlineSeconds", 2, INT64, nullable=True),
        Field("concurrencyPolicy", 3, STRING),
        Field("suspend", 4, BOOL, nullable=True),
        Field("jobTemplate", 5, JobTemplateSpec, omitempty=False, required=True),
        Field("successfulJobsHistoryLimit", 6, INT32, nullable=True),
        Field("failedJobsHistoryLimit", 7, INT32, nullable=True),
    ],
)

CronJobStatus = Struct(
    _PKG,
    "CronJobStatus",
    [
        Field("active", 1, ListOf(core_volume.ObjectReference), list_type="atomic"),
        Field("lastScheduleTime", 4, TIME, nullable=True),
        Field("lastSuccessfulTime", 5, TIME, nullable=True),
    ],
)

CronJob = Struct(
    _PKG,
    "CronJob",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("spec", 2, CronJobSpec, required=True),
        Field("status", 3, CronJobStatus),
    ],
    kind=True,
)

CronJobList = Struct(
    _PKG,
    "CronJobList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(CronJob), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"CronJob": CronJob, "CronJobList": CronJobList}
