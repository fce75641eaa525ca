"""Pod-template defaulting and validation shared by every kind that embeds one, plus selectors and scale.

Defaults follow the reference v1 scheme defaulters (SetDefaults_PodSpec, SetDefaults_Container, ...).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from ..catalog import Obj, Subresource
from ..errors import BadRequest, FieldError, invalid, not_supported, required
from ..selectors import label_selector_from_object
from .common import child, dig, items, part, setdefault, setdefault_empty

RESTART_POLICIES = ["Always", "OnFailure", "Never"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
DEFAULT_MODE = 420  # 0644, the reference's default for secret/configMap/projected/downwardAPI volumes
_COMPUTE = ("cpu", "memory")

# -------------------------------------------------------------------------------- pod spec defaults


def image_pull_policy(image: str) -> str:
    """Always for `latest` or an untagged, undigested image; IfNotPresent otherwise."""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else ""
    if not tag and not digest:
        tag = "latest"
    return "Always" if tag == "latest" else "IfNotPresent"


def _default_probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    setdefault_empty(probe, "timeoutSeconds", 1)
    setdefault_empty(probe, "periodSeconds", 10)
    setdefault_empty(probe, "successThreshold", 1)
    setdefault_empty(probe, "failureThreshold", 3)
    http = probe.get("httpGet")
    if isinstance(http, dict):
        setdefault_empty(http, "path", "/")
        setdefault_empty(http, "scheme", "HTTP")


def default_container(c: Obj) -> None:
    if isinstance(c.get("image"), str) and not c.get("imagePullPolicy"):
        c["imagePullPolicy"] = image_pull_policy(c["image"])
    setdefault_empty(c, "terminationMessagePath", "/dev/termination-log")
    setdefault_empty(c, "terminationMessagePolicy", "File")
    setdefault(c, "resources", {})
    for port in items(c, "ports"):
        setdefault_empty(port, "protocol", "TCP")
    for env in items(c, "env"):
        field_ref = dig(env, "valueFrom", "fieldRef")
        if isinstance(field_ref, dict):
            setdefault_empty(field_ref, "apiVersion", "v1")
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        _default_probe(c.get(probe))


def _default_volume(v: Obj) -> None:
    sources = [k for k in v if k != "name"]
    if not sources:
        v["emptyDir"] = {}  # a volume without a source is an emptyDir
    for source in ("secret", "configMap", "projected", "downwardAPI"):
        if isinstance(v.get(source), dict):
            setdefault(v[source], "defaultMode", DEFAULT_MODE)
    if isinstance(v.get("hostPath"), dict):
        setdefault(v["hostPath"], "type", "")


def default_pod_spec(spec: Obj, *, restart_policy: bool = True) -> None:
    """SetDefaults_PodSpec and the per-container/volume defaulters; restart_policy=False leaves it unset."""
    setdefault_empty(spec, "dnsPolicy", "ClusterFirst")
    if restart_policy:
        setdefault_empty(spec, "restartPolicy", "Always")
    setdefault(spec, "terminationGracePeriodSeconds", 30)
    setdefault(spec, "securityContext", {})
    setdefault_empty(spec, "schedulerName", "default-scheduler")
    # the v1 wire form mirrors the deprecated serviceAccount field from serviceAccountName
    if not spec.get("serviceAccountName") and spec.get("serviceAccount"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]
    host_network = spec.get("hostNetwork") is True
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in items(spec, key):
            default_container(c)
            if host_network and key != "ephemeralContainers":
                for port in items(c, "ports"):
                    setdefault_empty(port, "hostPort", port.get("containerPort"))
    for v in items(spec, "volumes"):
        _default_volume(v)


def default_pod(pod: Obj) -> None:
    """SetDefaults_Pod: everything a template gets, plus requests-from-limits and enableServiceLinks."""
    spec = child(pod, "spec")
    for key in ("initContainers", "containers"):
        for c in items(spec, key):
            resources = c.get("resources")
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if isinstance(resources, dict) and isinstance(limits, dict) and limits:
                requests = resources.get("requests")
                if not isinstance(requests, dict):
                    requests = resources["requests"] = {}
                for name, quantity in limits.items():
                    requests.setdefault(name, quantity)
    default_pod_spec(spec)
    setdefault(spec, "enableServiceLinks", True)


def default_template(template: Any, *, restart_policy: bool = True) -> None:
    """Defaults for a PodTemplateSpec embedded in a workload (absent templates stay absent)."""
    if isinstance(template, dict):
        default_pod_spec(child(template, "spec"), restart_policy=restart_policy)


def default_pvc(pvc: Obj) -> None:
    """SetDefaults_PersistentVolumeClaim (also used for StatefulSet volumeClaimTemplates)."""
    setdefault_empty(child(pvc, "spec"), "volumeMode", "Filesystem")
    setdefault_empty(child(pvc, "status"), "phase", "Pending")


# -------------------------------------------------------------------------------- quantities and QoS

_SUFFIXES: dict[str, int | Decimal] = {
    "": 1,
    "m": Decimal("0.001"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}


def parse_quantity(value: Any) -> Decimal | None:
    """A resource quantity ("500m", "1Gi", "2e3", 3) as a Decimal; None when unparseable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if suffix and text.endswith(suffix):
            number, multiplier = text[: -len(suffix)], Decimal(_SUFFIXES[suffix])
            break
    else:
        number, multiplier = text, Decimal(1)
    try:
        return Decimal(number) * multiplier
    except InvalidOperation:
        return None


def pod_qos_class(spec: Obj) -> str:
    """The reference's GetPodQOS over cpu and memory of all (init) containers."""
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    for c in items(spec, "initContainers") + items(spec, "containers"):
        resources = part(c, "resources")
        for name, q in part(resources, "requests").items():
            amount = parse_quantity(q)
            if name in _COMPUTE and amount:
                requests[name] = requests.get(name, Decimal(0)) + amount
        found = set()
        for name, q in part(resources, "limits").items():
            amount = parse_quantity(q)
            if name in _COMPUTE and amount:
                found.add(name)
                limits[name] = limits.get(name, Decimal(0)) + amount
        if not set(_COMPUTE) <= found:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(k) == v for k, v in requests.items()) and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


# -------------------------------------------------------------------------------- pod spec validation


def validate_pod_spec(spec: Any, path: str, *, restart_policies: list[str] | None = None) -> list[FieldError]:
    """Structural checks: containers with names and images, known restart policy and port protocols."""
    if not isinstance(spec, dict):
        return [required(f"{path}.containers")]
    errors: list[FieldError] = []
    containers = items(spec, "containers")
    if not containers:
        errors.append(required(f"{path}.containers"))
    seen: set[str] = set()
    for key in ("initContainers", "containers"):
        for i, c in enumerate(items(spec, key)):
            cpath = f"{path}.{key}[{i}]"
            name = c.get("name")
            if not name:
                errors.append(required(f"{cpath}.name"))
            elif str(name) in seen:
                errors.append(FieldError("FieldValueDuplicate", f"{cpath}.name", "", name))
            else:
                seen.add(str(name))
            if not c.get("image"):
                errors.append(required(f"{cpath}.image"))
            for j, port in enumerate(items(c, "ports")):
                proto = port.get("protocol")
                if proto not in PROTOCOLS:
                    errors.append(not_supported(f"{cpath}.ports[{j}].protocol", proto, PROTOCOLS))
                number = port.get("containerPort")
                if not isinstance(number, int) or not 1 <= number <= 65535:
                    errors.append(
                        invalid(
                            f"{cpath}.ports[{j}].containerPort", number or 0, "must be between 1 and 65535, inclusive"
                        )
                    )
    allowed = restart_policies or RESTART_POLICIES
    policy = spec.get("restartPolicy", "")
    if policy not in allowed:
        errors.append(not_supported(f"{path}.restartPolicy", policy, allowed))
    return errors


def validate_template(template: Any, path: str, *, restart_policies: list[str] | None = None) -> list[FieldError]:
    """A workload's pod template: it must exist and hold a valid pod spec."""
    spec = template.get("spec") if isinstance(template, dict) else None
    return validate_pod_spec(spec, f"{path}.spec", restart_policies=restart_policies)


def template_labels(template: Any) -> dict:
    labels = dig(template, "metadata", "labels")
    return labels if isinstance(labels, dict) else {}


# -------------------------------------------------------------------------------- label selectors

_OPERATORS = {"In": "in", "NotIn": "notin"}


def label_selector_string(selector: Any) -> str:
    """A metav1.LabelSelector rendered as the reference's selector string, requirements sorted by key.

    `{"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In",
    "values": ["b", "a"]}]}` -> `app=web,tier in (a,b)`.
    """
    if not isinstance(selector, dict):
        return ""
    terms: list[tuple[str, str]] = []
    for key, value in part(selector, "matchLabels").items():
        terms.append((key, f"{key}={value}"))
    for expr in items(selector, "matchExpressions"):
        key, op = str(expr.get("key", "")), expr.get("operator")
        values = ",".join(sorted({str(v) for v in expr.get("values") or []}))
        if op in _OPERATORS:
            terms.append((key, f"{key} {_OPERATORS[op]} ({values})"))
        elif op == "Exists":
            terms.append((key, key))
        elif op == "DoesNotExist":
            terms.append((key, f"!{key}"))
    return ",".join(text for _, text in sorted(terms, key=lambda t: t[0]))


def map_selector_string(selector: Any) -> str:
    """A plain label map (ReplicationController, Service) rendered as `k=v,...` sorted by key."""
    if not isinstance(selector, dict):
        return ""
    return ",".join(f"{k}={selector[k]}" for k in sorted(selector))


def selector_errors(selector: Any, path: str) -> list[FieldError]:
    """A structured selector that cannot be parsed (bad operator, empty `in` values, bad key)."""
    try:
        label_selector_from_object(selector)
    except BadRequest as exc:
        return [invalid(path, selector, exc.message)]
    return []


def selector_matches(selector: Any, labels: dict) -> bool:
    try:
        return label_selector_from_object(selector).matches(labels)
    except BadRequest:
        return False


def is_empty_selector(selector: Any) -> bool:
    return isinstance(selector, dict) and not selector.get("matchLabels") and not selector.get("matchExpressions")


def workload_selector_errors(spec: Obj, *, kind: str, backticks: bool = True) -> list[FieldError]:
    """spec.selector required, non-empty, parseable and matching spec.template's labels (apps, batch)."""
    selector = spec.get("selector")
    if selector is None:
        return [required("spec.selector")]
    if is_empty_selector(selector):
        return [invalid("spec.selector", selector, f"empty selector is invalid for {kind}")]
    errors = selector_errors(selector, "spec.selector")
    labels = template_labels(spec.get("template"))
    if not errors and not selector_matches(selector, labels):
        detail = (
            "`selector` does not match template `labels`" if backticks else "selector does not match template labels"
        )
        errors.append(invalid("spec.template.metadata.labels", labels, detail))
    return errors


# -------------------------------------------------------------------------------- scale subresource


def scale_subresource(selector_string: Callable[[Obj], str]) -> Subresource:
    """`/scale`: an autoscaling/v1 Scale view of spec.replicas, writable back into the object."""

    def view(obj: Obj) -> Obj:
        md = obj.get("metadata") or {}
        meta = {k: md[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in md}
        status: Obj = {"replicas": dig(obj, "status", "replicas", default=0)}
        selector = selector_string(obj)
        if selector:
            status["selector"] = selector
        return {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": meta,
            "spec": {"replicas": dig(obj, "spec", "replicas", default=0)},
            "status": status,
        }

    def merge(old: Obj, scale: Obj) -> Obj:
        out = copy.deepcopy(old)
        child(out, "spec")["replicas"] = dig(scale, "spec", "replicas", default=0)
        return out

    return Subresource("scale", kind="Scale", group="autoscaling", version="v1", view=view, merge=merge)
