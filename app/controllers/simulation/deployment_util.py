"""The reference's deployment utilities (pkg/controller/deployment/util, v1.23) over plain objects: the pod-template
hash, revision and replica annotations, conditions, and the replica arithmetic of rollouts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from .workload_common import condition, meta, parse_time, rfc3339, round_half_away, scaled_value, spec, status

if TYPE_CHECKING:
    from ...naming import Naming

HASH_LABEL = "pod-template-hash"
#: the reference's SafeEncodeString alphabet (no vowels, no look-alikes)
SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
#: the longest revision-history annotation the reference keeps (maxRevHistoryLengthInChars)
MAX_REVISION_HISTORY_CHARS = 2000
#: progressDeadlineSeconds meaning "no deadline" (math.MaxInt32)
NO_DEADLINE = 2**31 - 1

# reasons of the Progressing and Available conditions
NEW_RS_CREATED, FOUND_NEW_RS, RS_UPDATED = "NewReplicaSetCreated", "FoundNewReplicaSet", "ReplicaSetUpdated"
NEW_RS_AVAILABLE, TIMED_OUT, FAILED_RS_CREATE = (
    "NewReplicaSetAvailable",
    "ProgressDeadlineExceeded",
    "ReplicaSetCreateError",
)
PAUSED, RESUMED = "DeploymentPaused", "DeploymentResumed"
MIN_AVAILABLE, MIN_UNAVAILABLE = "MinimumReplicasAvailable", "MinimumReplicasUnavailable"


class Keys:
    """The deployment annotations, in the configured domain (deployment.kubernetes.io/... upstream)."""

    def __init__(self, naming: Naming) -> None:
        group = naming.key_group("deployment")
        self.revision = f"{group}/revision"
        self.history = f"{group}/revision-history"
        self.desired = f"{group}/desired-replicas"
        self.max = f"{group}/max-replicas"
        #: never copied from a Deployment to its ReplicaSets (the reference's annotationsToSkip)
        self.skip = {
            self.revision,
            self.history,
            self.desired,
            self.max,
            "deprecated.deployment.rollback.to",
            f"{naming.key_group('kubectl')}/last-applied-configuration",
            "kubectl.kubernetes.io/last-applied-configuration",
        }


def fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def template_hash(template: dict, collision_count: int | None) -> str:
    """fnv-32a of the template's canonical JSON (sorted keys, without the hash label) and the collision count,
    its decimal spelled in the reference's safe alphabet. Stable, though not the reference's value (that hashes
    Go's spew dump of the typed struct)."""
    data = orjson.dumps(without_hash(template), option=orjson.OPT_SORT_KEYS)
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little")
    return "".join(SAFE_ALPHABET[ord(c) % len(SAFE_ALPHABET)] for c in str(fnv32a(data)))


def _no_nulls(value: object) -> object:
    """Nulls dropped: a typed client sends `creationTimestamp: null` where the reference's structs hold nothing."""
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def without_hash(template: dict) -> dict:
    """The template as the reference compares it (EqualIgnoreHash): no hash label, no nulls."""
    out = _no_nulls(template or {})
    assert isinstance(out, dict)
    labels = (out.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(HASH_LABEL, None)
        if not labels:
            out["metadata"].pop("labels")
    if out.get("metadata") == {}:
        out.pop("metadata")
    return out


def equal_ignore_hash(a: dict, b: dict) -> bool:
    return without_hash(a) == without_hash(b)


def replicas(obj: dict) -> int:
    value = spec(obj).get("replicas")
    return 1 if value is None else int(value)


def revision(rs: dict, keys: Keys) -> int:
    try:
        return int((meta(rs).get("annotations") or {}).get(keys.revision, "0"))
    except ValueError:
        return 0


def created(obj: dict) -> tuple[str, str]:
    return (meta(obj).get("creationTimestamp") or "", meta(obj).get("name") or "")


def is_rolling(d: dict) -> bool:
    return (spec(d).get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def fenceposts(d: dict) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) as pod counts: surge rounds up, unavailability down; both 0 means 1 unavailable."""
    rolling = (spec(d).get("strategy") or {}).get("rollingUpdate") or {}
    desired = replicas(d)
    surge = scaled_value(rolling.get("maxSurge", "25%"), desired, True)
    unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(d: dict) -> int:
    return fenceposts(d)[0] if is_rolling(d) else 0


def max_unavailable(d: dict) -> int:
    if not is_rolling(d) or replicas(d) == 0:
        return 0
    return min(fenceposts(d)[1], replicas(d))


def spec_total(sets: list[dict]) -> int:
    return sum(replicas(rs) for rs in sets)


def status_total(sets: list[dict], field: str) -> int:
    return sum(int(status(rs).get(field) or 0) for rs in sets)


def active(sets: list[dict]) -> list[dict]:
    return [rs for rs in sets if replicas(rs) > 0]


def annotation_int(rs: dict, key: str) -> int | None:
    try:
        return int((meta(rs).get("annotations") or {})[key])
    except (KeyError, ValueError, TypeError):
        return None


def set_replicas_annotations(rs: dict, keys: Keys, desired: int, maximum: int) -> bool:
    annotations = meta(rs).setdefault("annotations", {})
    changed = False
    for key, value in ((keys.desired, desired), (keys.max, maximum)):
        if annotations.get(key) != str(value):
            annotations[key] = str(value)
            changed = True
    return changed


def set_new_rs_annotations(d: dict, rs: dict, keys: Keys, new_revision: int, exists: bool) -> bool:
    """The reference's SetNewReplicaSetAnnotations: copy the Deployment's annotations, raise the revision (keeping
    the old one in the revision history when an old ReplicaSet comes back), and on creation the replica counts."""
    annotations = meta(rs).setdefault("annotations", {})
    changed = False
    for key, value in (meta(d).get("annotations") or {}).items():
        if key not in keys.skip and annotations.get(key) != value:
            annotations[key] = value
            changed = True
    old = annotations.get(keys.revision)
    try:
        old_revision = int(old) if old else 0
    except ValueError:
        return changed
    if old_revision < new_revision:
        annotations[keys.revision] = str(new_revision)
        changed = True
        if old:
            history = annotations.get(keys.history, "")
            if not history:
                annotations[keys.history] = old
            else:
                entries = history.split(",")
                total, start = len(history) + len(old) + 1, 0
                while total > MAX_REVISION_HISTORY_CHARS and start < len(entries):
                    total -= len(entries[start]) + 1
                    start += 1
                if total <= MAX_REVISION_HISTORY_CHARS:
                    annotations[keys.history] = ",".join([*entries[start:], old])
    if not exists and set_replicas_annotations(rs, keys, replicas(d), replicas(d) + max_surge(d)):
        changed = True
    return changed


def new_condition(kind: str, state: str, reason: str, message: str, now: datetime) -> dict:
    stamp = rfc3339(now)
    return {
        "type": kind,
        "status": state,
        "lastUpdateTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def set_condition(st: dict, new: dict) -> None:
    """The reference's SetDeploymentCondition: same status and reason is no change; same status keeps the
    transition time; the condition moves to the end."""
    conditions = [c for c in st.get("conditions") or [] if isinstance(c, dict)]
    current = condition(conditions, new["type"])
    if current is not None and current.get("status") == new["status"] and current.get("reason") == new["reason"]:
        return
    if current is not None and current.get("status") == new["status"]:
        new = {**new, "lastTransitionTime": current.get("lastTransitionTime")}
    st["conditions"] = [*(c for c in conditions if c.get("type") != new["type"]), new]


def remove_condition(st: dict, kind: str) -> None:
    conditions = [c for c in st.get("conditions") or [] if c.get("type") != kind]
    if conditions:
        st["conditions"] = conditions
    else:
        st.pop("conditions", None)


def has_deadline(d: dict) -> bool:
    deadline = spec(d).get("progressDeadlineSeconds")
    return deadline is not None and int(deadline) != NO_DEADLINE


def complete(d: dict, st: dict) -> bool:
    want = replicas(d)
    return (
        int(st.get("updatedReplicas") or 0) == want
        and int(st.get("replicas") or 0) == want
        and int(st.get("availableReplicas") or 0) == want
        and int(st.get("observedGeneration") or 0) >= int(meta(d).get("generation") or 0)
    )


def progressing(d: dict, new: dict) -> bool:
    old = status(d)

    def count(st: dict, key: str) -> int:
        return int(st.get(key) or 0)

    old_old = count(old, "replicas") - count(old, "updatedReplicas")
    new_old = count(new, "replicas") - count(new, "updatedReplicas")
    return (
        count(new, "updatedReplicas") > count(old, "updatedReplicas")
        or new_old < old_old
        or count(new, "readyReplicas") > count(old, "readyReplicas")
        or count(new, "availableReplicas") > count(old, "availableReplicas")
    )


def deadline_left(d: dict, st: dict, now: datetime) -> float | None:
    """Seconds until the Progressing condition times out (<= 0: timed out); None: no deadline applies."""
    if not has_deadline(d):
        return None
    cond = condition(st.get("conditions"), "Progressing")
    if cond is None or cond.get("reason") == NEW_RS_AVAILABLE:
        return None
    if cond.get("reason") == TIMED_OUT:
        return 0.0
    since = parse_time(cond.get("lastUpdateTime"))
    if since is None:
        return None
    return (since - now).total_seconds() + int(spec(d)["progressDeadlineSeconds"])


def proportion(rs: dict, d: dict, keys: Keys, to_add: int, added: int) -> int:
    """The reference's GetProportion: this ReplicaSet's share of a scaling of a Deployment in mid-rollout."""
    if replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    if replicas(d) == 0:
        fraction = -replicas(rs)
    else:
        annotated = annotation_int(rs, keys.max)
        if annotated is None:
            annotated = int(status(d).get("replicas") or 0)
        total = replicas(d) + max_surge(d)
        fraction = round_half_away(replicas(rs) * total / annotated) - replicas(rs) if annotated else 0
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)
