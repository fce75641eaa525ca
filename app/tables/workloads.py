"""Printers for the controllers: deployments, replica sets, stateful sets, daemon sets, jobs, cron jobs."""

from __future__ import annotations

from datetime import datetime

from ..resources.common import dig
from .columns import (
    NONE,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    bool_ptr,
    containers_cells,
    deleting,
    dicts,
    format_label_selector,
    format_labels,
    human_duration,
    integer,
    mapping,
    name_column,
    name_of,
    parse_time,
    selector_string,
    since,
    table,
    text,
    wide,
)

CONTAINERS = "Names of each container in the template."
IMAGES = "Images referenced by each container in the template."


def _template_cells(obj: Obj, *template_path: str) -> list[Cell]:
    names, images = containers_cells(dicts(obj, *template_path, "spec", "containers"))
    return [names, images]


def _replicas(obj: Obj) -> int:
    """spec.replicas, which the reference defaults to 1."""
    return integer(obj, "spec", "replicas", default=1)


# ---------------------------------------------------------------------------------------------
# deployments, replica sets, replication controllers, stateful sets, daemon sets
# ---------------------------------------------------------------------------------------------


def _deployment_cells(obj: Obj, now: datetime) -> list[Cell]:
    status = mapping(obj, "status")
    selector = selector_string(dig(obj, "spec", "selector"))
    return [
        name_of(obj),
        f"{integer(status, 'readyReplicas')}/{_replicas(obj)}",
        integer(status, "updatedReplicas"),
        integer(status, "availableReplicas"),
        age(obj, now),
        *_template_cells(obj, "spec", "template"),
        "<invalid>" if selector is None else selector,
    ]


DEPLOYMENT_TABLE = table(
    [
        name_column(),
        Column("Ready", description="Number of the pod with ready state"),
        Column(
            "Up-to-date",
            description="Total number of non-terminated pods targeted by this deployment that "
            "have the desired template spec.",
        ),
        Column(
            "Available",
            description="Total number of available pods (ready for at least minReadySeconds) "
            "targeted by this deployment.",
        ),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
        wide(
            "Selector",
            "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
            "the ones affected by this deployment.",
        ),
    ],
    _deployment_cells,
)


def _replica_set_cells(obj: Obj, now: datetime) -> list[Cell]:
    status = mapping(obj, "status")
    return [
        name_of(obj),
        _replicas(obj),
        integer(status, "replicas"),
        integer(status, "readyReplicas"),
        age(obj, now),
        *_template_cells(obj, "spec", "template"),
        format_label_selector(dig(obj, "spec", "selector")),
    ]


REPLICASET_TABLE = table(
    [
        name_column(),
        Column("Desired", "integer", "Replicas is the number of desired replicas."),
        Column("Current", "integer", "Replicas is the most recently observed number of replicas."),
        Column("Ready", "integer", "The number of ready replicas for this replica set."),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
        wide("Selector", "Selector is a label query over pods that should match the replica count."),
    ],
    _replica_set_cells,
)


def _replication_controller_cells(obj: Obj, now: datetime) -> list[Cell]:
    status = mapping(obj, "status")
    return [
        name_of(obj),
        _replicas(obj),
        integer(status, "replicas"),
        integer(status, "readyReplicas"),
        age(obj, now),
        *_template_cells(obj, "spec", "template"),
        format_labels(mapping(obj, "spec", "selector")),
    ]


REPLICATIONCONTROLLER_TABLE = table(
    [
        name_column(),
        Column("Desired", "integer", "Replicas is the number of desired replicas."),
        Column("Current", "integer", "Replicas is the most recently observed number of replicas."),
        Column("Ready", "integer", "The number of ready replicas for this replication controller."),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
        wide("Selector", "Selector is a label query over pods that should match the Replicas count."),
    ],
    _replication_controller_cells,
)


def _stateful_set_cells(obj: Obj, now: datetime) -> list[Cell]:
    ready = integer(obj, "status", "readyReplicas")
    return [name_of(obj), f"{ready}/{_replicas(obj)}", age(obj, now), *_template_cells(obj, "spec", "template")]


STATEFULSET_TABLE = table(
    [
        name_column(),
        Column("Ready", description="Number of the pod with ready state"),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
    ],
    _stateful_set_cells,
)


def _daemon_set_cells(obj: Obj, now: datetime) -> list[Cell]:
    status = mapping(obj, "status")
    return [
        name_of(obj),
        integer(status, "desiredNumberScheduled"),
        integer(status, "currentNumberScheduled"),
        integer(status, "numberReady"),
        integer(status, "updatedNumberScheduled"),
        integer(status, "numberAvailable"),
        format_labels(mapping(obj, "spec", "template", "spec", "nodeSelector")),
        age(obj, now),
        *_template_cells(obj, "spec", "template"),
        format_label_selector(dig(obj, "spec", "selector")),
    ]


DAEMONSET_TABLE = table(
    [
        name_column(),
        Column("Desired", "integer", "The total number of nodes that should be running the daemon pod."),
        Column(
            "Current",
            "integer",
            "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
        ),
        Column(
            "Ready",
            "integer",
            "The number of nodes that should be running the daemon pod and have one or "
            "more of the daemon pod running and ready.",
        ),
        Column("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
        Column(
            "Available",
            "integer",
            "The number of nodes that should be running the daemon pod and have one "
            "or more of the daemon pod running and available.",
        ),
        Column(
            "Node Selector", description="NodeSelector is a selector which must be true for the pod to fit on a node."
        ),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
        wide("Selector", "A label query over pods that are managed by the daemon set."),
    ],
    _daemon_set_cells,
)

# ---------------------------------------------------------------------------------------------
# jobs and cron jobs
# ---------------------------------------------------------------------------------------------


def _job_condition(obj: Obj, kind: str) -> bool:
    """hasJobCondition: the first condition of that type decides."""
    for condition in dicts(obj, "status", "conditions"):
        if condition.get("type") == kind:
            return condition.get("status") == "True"
    return False


def job_status(obj: Obj) -> str:
    if _job_condition(obj, "Complete"):
        return "Complete"
    if _job_condition(obj, "Failed"):
        return "Failed"
    if deleting(obj):
        return "Terminating"
    if _job_condition(obj, "Suspended"):
        return "Suspended"
    if _job_condition(obj, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_completions(obj: Obj) -> str:
    succeeded = integer(obj, "status", "succeeded")
    completions = dig(obj, "spec", "completions")
    if isinstance(completions, int) and not isinstance(completions, bool):
        return f"{succeeded}/{completions}"
    parallelism = integer(obj, "spec", "parallelism")
    if parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def job_duration(obj: Obj, now: datetime) -> str:
    """Start to completion, or start to now while running; "" before the job started."""
    start = parse_time(dig(obj, "status", "startTime"))
    if start is None:
        return ""
    end = parse_time(dig(obj, "status", "completionTime"))
    return human_duration((end or now) - start)


def _job_cells(obj: Obj, now: datetime) -> list[Cell]:
    return [
        name_of(obj),
        job_status(obj),
        job_completions(obj),
        job_duration(obj, now),
        age(obj, now),
        *_template_cells(obj, "spec", "template"),
        format_label_selector(dig(obj, "spec", "selector")),
    ]


JOB_TABLE = table(
    [
        name_column(),
        Column("Status", description="Status of the job."),
        Column("Completions", description="The number of pods which reached phase Succeeded."),
        Column("Duration", description="Time required to complete the job."),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
        wide("Selector", "A label query over pods that should match the pod count."),
    ],
    _job_cells,
)


def _cron_job_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec = mapping(obj, "spec")
    last = dig(obj, "status", "lastScheduleTime")
    return [
        name_of(obj),
        text(spec, "schedule"),
        text(spec, "timeZone") or NONE,
        bool_ptr(spec.get("suspend")),
        len(dicts(obj, "status", "active")),
        NONE if last is None else since(last, now),
        age(obj, now),
        *_template_cells(spec, "jobTemplate", "spec", "template"),
        format_label_selector(dig(spec, "jobTemplate", "spec", "selector")),
    ]


CRONJOB_TABLE = table(
    [
        name_column(),
        Column("Schedule", description="The schedule in Cron format."),
        Column("Timezone", description="The time zone name for the given schedule."),
        Column("Suspend", "boolean", "This flag tells the controller to suspend subsequent executions."),
        Column("Active", "integer", "A list of pointers to currently running jobs."),
        Column("Last Schedule", description="Information when was the last time the job was successfully scheduled."),
        age_column(),
        wide("Containers", CONTAINERS),
        wide("Images", IMAGES),
        wide("Selector", "A label query over pods that should match the pod count."),
    ],
    _cron_job_cells,
)


def _controller(obj: Obj) -> str:
    """`<kind>.<group>/<name>` of the owner that is the controller (the reference's formatResourceName)."""
    for ref in dicts(obj, "metadata", "ownerReferences"):
        if ref.get("controller") is True:
            group = str(ref.get("apiVersion") or "").rpartition("/")[0]
            kind = str(ref.get("kind") or "")
            return f"{kind}.{group}".lower().rstrip(".") + f"/{ref.get('name', '')}" if kind else str(ref.get("name"))
    return NONE


CONTROLLERREVISION_TABLE = table(
    [
        name_column(),
        Column("Controller", description="Controller of the object"),
        Column("Revision", description="Revision indicates the revision of the state represented by Data."),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), _controller(obj), obj.get("revision", 0), age(obj, now)],
)


def tables() -> dict[tuple[str, str], TableSpec]:
    """(group prefix, plural) -> printer."""
    return {
        ("apps", "controllerrevisions"): CONTROLLERREVISION_TABLE,
        ("apps", "deployments"): DEPLOYMENT_TABLE,
        ("apps", "replicasets"): REPLICASET_TABLE,
        ("apps", "statefulsets"): STATEFULSET_TABLE,
        ("apps", "daemonsets"): DAEMONSET_TABLE,
        ("", "replicationcontrollers"): REPLICATIONCONTROLLER_TABLE,
        ("batch", "jobs"): JOB_TABLE,
        ("batch", "cronjobs"): CRONJOB_TABLE,
    }
