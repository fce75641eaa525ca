"""The `batch/v1` group: jobs and cron jobs."""

from __future__ import annotations

import copy
import uuid
from typing import ClassVar

from ..catalog import Conversion, Deprecation, Obj, ResourceType, status_subresource
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from .common import Getter, KindStrategy, child, dig, field, immutable, non_negative, part, setdefault
from .defaults import default_template, validate_template, workload_selector_errors

ALL = ("all",)
JOB_RESTART_POLICIES = ["OnFailure", "Never"]
CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"]
CRON_NAME_MAX = 52  # 63 minus the 11 characters a scheduled job's name suffix takes
UID_LABEL, NAME_LABEL = "controller-uid", "job-name"


class JobStrategy(KindStrategy):
    initial_status: ClassVar[Obj] = {}
    field_selectors: ClassVar[dict[str, Getter]] = {"status.successful": field("status", "succeeded", default="0")}

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        # a job's pods keep the restart policy they were given (Never/OnFailure are the valid ones)
        default_template(spec.get("template"), restart_policy=False)
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
        setdefault(spec, "parallelism", 1)
        setdefault(spec, "backoffLimit", 6)
        setdefault(spec, "completionMode", "NonIndexed")
        setdefault(spec, "suspend", False)
        labels = dig(spec, "template", "metadata", "labels")
        md = child(obj, "metadata")
        if isinstance(labels, dict) and labels and not md.get("labels"):
            md["labels"] = copy.deepcopy(labels)

    def prepare_for_create(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        if spec.get("manualSelector") is not True:
            self._generate_selector(obj)
        super().prepare_for_create(obj)  # after the selector, so the job's labels include the generated ones

    @staticmethod
    def _generate_selector(obj: Obj) -> None:
        """Select the job's own pods by a controller-uid label the server adds to the template."""
        md = child(obj, "metadata")
        uid = str(md.get("uid") or uuid.uuid4())
        template = child(child(obj, "spec"), "template")
        labels = child(child(template, "metadata"), "labels")
        labels.setdefault(NAME_LABEL, str(md.get("name") or ""))
        labels.setdefault(UID_LABEL, uid)
        selector = child(child(obj, "spec"), "selector")
        child(selector, "matchLabels").setdefault(UID_LABEL, labels[UID_LABEL])

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors = workload_selector_errors(spec, kind="job")
        selector = spec.get("selector")
        if spec.get("manualSelector") is not True and isinstance(selector, dict):
            generated = set(selector.get("matchLabels") or {}) == {UID_LABEL} and not selector.get("matchExpressions")
            if not generated:
                errors.append(invalid("spec.selector", selector, "`selector` not auto-generated"))
        errors += validate_template(spec.get("template"), "spec.template", restart_policies=JOB_RESTART_POLICIES)
        for key in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
            errors += non_negative(f"spec.{key}", spec.get(key))
        mode = spec.get("completionMode")
        if mode not in ("Indexed", "NonIndexed"):
            errors.append(not_supported("spec.completionMode", mode, ["NonIndexed", "Indexed"]))
        elif mode == "Indexed" and spec.get("completions") is None:
            errors.append(required("spec.completions", "when completion mode is Indexed"))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        spec, old_spec = part(obj, "spec"), old.get("spec") or {}
        errors = immutable("spec.selector", spec.get("selector"), old_spec.get("selector"))
        errors += immutable("spec.template", spec.get("template"), old_spec.get("template"))
        errors += immutable("spec.completions", spec.get("completions"), old_spec.get("completions"))
        errors += immutable("spec.completionMode", spec.get("completionMode"), old_spec.get("completionMode"))
        return errors


class CronJobStrategy(KindStrategy):
    initial_status: ClassVar[Obj] = {}

    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        if not spec.get("concurrencyPolicy"):
            spec["concurrencyPolicy"] = "Allow"
        setdefault(spec, "suspend", False)
        setdefault(spec, "successfulJobsHistoryLimit", 3)
        setdefault(spec, "failedJobsHistoryLimit", 1)
        default_template(dig(spec, "jobTemplate", "spec", "template"), restart_policy=False)

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors: list[FieldError] = []
        name = str(dig(obj, "metadata", "name", default=""))
        if len(name) > CRON_NAME_MAX:
            errors.append(invalid("metadata.name", name, f"must be no more than {CRON_NAME_MAX} characters"))
        errors += _schedule_errors(spec.get("schedule"))
        policy = spec.get("concurrencyPolicy")
        if policy not in CONCURRENCY_POLICIES:
            errors.append(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
        for key in ("startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
            errors += non_negative(f"spec.{key}", spec.get(key))
        job_spec = dig(spec, "jobTemplate", "spec")
        errors += validate_template(
            dig(job_spec, "template"), "spec.jobTemplate.spec.template", restart_policies=JOB_RESTART_POLICIES
        )
        return errors


def _schedule_errors(schedule: object) -> list[FieldError]:
    if not schedule:
        return [required("spec.schedule")]
    if not isinstance(schedule, str):
        return [invalid("spec.schedule", schedule, "must be a string")]
    text = schedule.strip()
    if text.startswith("@"):
        return []  # @hourly, @daily, @every 1h, ...
    fields = text.split()
    if len(fields) != 5:
        return [invalid("spec.schedule", schedule, f"expected exactly 5 fields, found {len(fields)}: {schedule}")]
    return []


# ----------------------------------------------------------------------------------- the group


def as_version(obj: Obj, api_version: str) -> Obj:
    """A deep copy of `obj` served as `api_version` (for versions whose fields are the same)."""
    return {"apiVersion": api_version, **{k: copy.deepcopy(v) for k, v in obj.items() if k != "apiVersion"}}


#: batch/v1beta1 CronJob has v1's fields and defaults (timeZone included), so only apiVersion changes.
CRONJOB_V1BETA1 = Conversion(
    storage_group="batch",
    storage_version="v1",
    storage_plural="cronjobs",
    to_storage=lambda obj: as_version(obj, "batch/v1"),
    from_storage=lambda obj: as_version(obj, "batch/v1beta1"),
)

POD_SPEC = {"containers": [{"name": "task", "image": "busybox:1.36", "command": ["true"]}]}


def resource_types(naming: Naming) -> list[ResourceType]:
    status = status_subresource()
    cronjob_example = {
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {**copy.deepcopy(POD_SPEC), "restartPolicy": "OnFailure"}}}},
        }
    }
    return [
        ResourceType(
            "batch",
            "v1",
            "CronJob",
            "cronjobs",
            True,
            short_names=("cj",),
            categories=ALL,
            subresources=(status,),
            strategy=CronJobStrategy(naming),
            has_status=True,
            example=cronjob_example,
        ),
        ResourceType(
            "batch",
            "v1beta1",
            "CronJob",
            "cronjobs",
            True,
            short_names=("cj",),
            categories=ALL,
            subresources=(status,),
            strategy=CronJobStrategy(naming),
            has_status=True,
            example=copy.deepcopy(cronjob_example),
            conversion=CRONJOB_V1BETA1,
            deprecation=Deprecation("1.21", "1.25", "batch/v1 CronJob"),
        ),
        ResourceType(
            "batch",
            "v1",
            "Job",
            "jobs",
            True,
            categories=ALL,
            subresources=(status,),
            strategy=JobStrategy(naming),
            has_status=True,
            example={"spec": {"template": {"spec": {**copy.deepcopy(POD_SPEC), "restartPolicy": "Never"}}}},
        ),
    ]
