"""batch/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core, core_volume, meta
from .types import BOOL, INT32, INT64, STRING, TIME, Field, ListOf, Struct

_PKG = "batch/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "batch"
GROUP_IN_DOMAIN = False
VERSION = "v1"


PodFailurePolicyOnExitCodesRequirement = Struct(
    _PKG,
    "PodFailurePolicyOnExitCodesRequirement",
    [
        Field("containerName", 1, STRING, nullable=True),
        Field("operator", 2, STRING, omitempty=False, required=True),
        Field("values", 3, ListOf(INT32), omitempty=False, required=True, list_type="set"),
    ],
)

PodFailurePolicyOnPodConditionsPattern = Struct(
    _PKG,
    "PodFailurePolicyOnPodConditionsPattern",
    [Field("type", 1, STRING, omitempty=False, required=True), Field("status", 2, STRING, omitempty=False)],
)

PodFailurePolicyRule = Struct(
    _PKG,
    "PodFailurePolicyRule",
    [
        Field("action", 1, STRING, omitempty=False, required=True),
        Field("onExitCodes", 2, PodFailurePolicyOnExitCodesRequirement, nullable=True),
        Field("onPodConditions", 3, ListOf(PodFailurePolicyOnPodConditionsPattern), list_type="atomic"),
    ],
)

PodFailurePolicy = Struct(
    _PKG,
    "PodFailurePolicy",
    [Field("rules", 1, ListOf(PodFailurePolicyRule), omitempty=False, required=True, list_type="atomic")],
)

SuccessPolicyRule = Struct(
    _PKG,
    "SuccessPolicyRule",
    [Field("succeededIndexes", 1, STRING, nullable=True), Field("succeededCount", 2, INT32, nullable=True)],
)

SuccessPolicy = Struct(
    _PKG,
    "SuccessPolicy",
    [Field("rules", 1, ListOf(SuccessPolicyRule), omitempty=False, required=True, list_type="atomic")],
)

JobSpec = Struct(
    _PKG,
    "JobSpec",
    [
        Field("parallelism", 1, INT32, nullable=True),
        Field("completions", 2, INT32, nullable=True),
        Field("activeDeadlineSeconds", 3, INT64, nullable=True),
        Field("podFailurePolicy", 11, PodFailurePolicy, nullable=True),
        Field("successPolicy", 16, SuccessPolicy, nullable=True),
        Field("backoffLimit", 7, INT32, nullable=True),
        Field("backoffLimitPerIndex", 12, INT32, nullable=True),
        Field("maxFailedIndexes", 13, INT32, nullable=True),
        Field("selector", 4, meta.LabelSelector, nullable=True),
        Field("manualSelector", 5, BOOL, nullable=True),
        Field("template", 6, core.PodTemplateSpec, omitempty=False, required=True),
        Field("ttlSecondsAfterFinished", 8, INT32, nullable=True),
        Field("completionMode", 9, STRING, nullable=True),
        Field("suspend", 10, BOOL, nullable=True),
        Field("podReplacementPolicy", 14, STRING, nullable=True),
        Field("managedBy", 15, STRING, nullable=True),
    ],
)

JobCondition = Struct(
    _PKG,
    "JobCondition",
    [
        Field("type", 1, STRING, omitempty=False, required=True),
        Field("status", 2, STRING, omitempty=False, required=True),
        Field("lastProbeTime", 3, TIME),
        Field("lastTransitionTime", 4, TIME),
        Field("reason", 5, STRING),
        Field("message", 6, STRING),
    ],
)

UncountedTerminatedPods = Struct(
    _PKG,
    "UncountedTerminatedPods",
    [Field("succeeded", 1, ListOf(STRING), list_type="set"), Field("failed", 2, ListOf(STRING), list_type="set")],
)

JobStatus = Struct(
    _PKG,
    "JobStatus",
    [
        Field(
            "conditions", 1, ListOf(JobCondition), list_type="atomic", patch_strategy="merge", patch_merge_key="type"
        ),
        Field("startTime", 2, TIME, nullable=True),
        Field("completionTime", 3, TIME, nullable=True),
        Field("active", 4, INT32),
        Field("succeeded", 5, INT32),
        Field("failed", 6, INT32),
        Field("terminating", 11, INT32, nullable=True),
        Field("completedIndexes", 7, STRING),
        Field("failedIndexes", 10, STRING, nullable=True),
        Field("uncountedTerminatedPods", 8, UncountedTerminatedPods, nullable=True),
        Field("ready", 9, INT32, nullable=True),
    ],
)

Job = Struct(
    _PKG,
    "Job",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, JobSpec), Field("status", 3, JobStatus)],
    kind=True,
)

JobList = Struct(
    _PKG,
    "JobList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Job), omitempty=False, required=True)],
    kind=True,
)

JobTemplateSpec = Struct(_PKG, "JobTemplateSpec", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, JobSpec)])

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
KINDS: dict[str, Struct] = {"Job": Job, "JobList": JobList, "CronJob": CronJob, "CronJobList": CronJobList}
