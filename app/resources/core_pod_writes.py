"""Writes to pods that are not edits of a pod: `pods/binding` and `bindings` (a scheduler assigns a node) and
`pods/eviction` (a drain asks to delete a pod within its PodDisruptionBudget), with the reference's rules
(pkg/registry/core/pod/storage). Both answer a `Success` Status."""

from __future__ import annotations

import copy

import orjson

from ..catalog import CreateCall, Obj, ResourceType, Strategy, Subresource
from ..errors import (
    ApiError,
    BadRequest,
    Conflict,
    FieldError,
    Forbidden,
    Invalid,
    TooManyRequests,
    forbidden,
    not_supported,
    required,
)
from ..registry import meta
from ..registry.options import DeleteOptions, ListOptions, unsupported_dry_run
from ..selectors import label_selector_from_object
from .defaults import default_pod

POLICY_VERSIONS = ("policy/v1", "policy/v1beta1")
#: the reference refuses evictions while this many are recorded and not yet seen by the disruption controller
MAX_DISRUPTED_PODS = 2000
BUDGET_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."


def success() -> Obj:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def _pods(call: CreateCall) -> ResourceType:
    return _known(call, "", "v1", "pods")


def _known(call: CreateCall, group: str, version: str, plural: str) -> ResourceType:
    """Found among all declared types: a write on behalf of a request works whatever --runtime-config serves."""
    for rt in call.registry.catalog.known():
        if (rt.group, rt.version, rt.plural) == (group, version, plural):
            return rt
    raise LookupError(f"{group}/{version} {plural} is not declared")


def _name(obj: Obj) -> str:
    md = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    return str(md.get("name") or "")


# ----------------------------------------------------------------------------------- binding


def _binding_errors(binding: Obj) -> list[FieldError]:
    target = binding["target"] if isinstance(binding.get("target"), dict) else {}
    errors = []
    if target.get("kind") not in (None, "", "Node"):  # the reference's ValidatePodBinding
        errors.append(not_supported("target.kind", target.get("kind"), ["Node", "<empty>"]))
    if not target.get("name"):
        errors.append(required("target.name"))
    return errors


def bind(call: CreateCall, pod_name: str, binding: Obj) -> Obj:
    """Set spec.nodeName of an unbound pod, merge the binding's annotations, mark it PodScheduled."""
    if _name(binding) != pod_name:
        raise BadRequest("name in URL does not match name in Binding object")
    errors = _binding_errors(binding)
    if errors:  # the reference answers these with a 500; an Invalid says the same with the right code
        raise Invalid("Binding", "", pod_name, errors)
    md = binding["metadata"] if isinstance(binding.get("metadata"), dict) else {}
    node = str(binding["target"]["name"])
    pods = _pods(call)

    def assign(pod: Obj) -> None:
        pod_md = pod.setdefault("metadata", {})
        if md.get("uid") and md["uid"] != pod_md.get("uid"):
            raise Conflict(
                "pods",
                "",
                pod_name,
                f"Precondition failed: UID in precondition: {md['uid']}, UID in object meta: {pod_md.get('uid')}",
            )
        if md.get("resourceVersion") and str(md["resourceVersion"]) != str(pod_md.get("resourceVersion")):
            raise Conflict(
                "pods",
                "",
                pod_name,
                "Precondition failed: ResourceVersion in precondition: "
                f"{md['resourceVersion']}, ResourceVersion in object meta: {pod_md.get('resourceVersion')}",
            )
        if pod_md.get("deletionTimestamp"):
            raise Conflict(
                "pods/binding", "", pod_name, f"pod {pod_name} is being deleted, cannot be assigned to a host"
            )
        spec = pod.setdefault("spec", {})
        if spec.get("nodeName"):
            raise Conflict(
                "pods/binding", "", pod_name, f'pod {pod_name} is already assigned to node "{spec["nodeName"]}"'
            )
        spec["nodeName"] = node
        if isinstance(md.get("annotations"), dict) and md["annotations"]:
            pod_md["annotations"] = {**(pod_md.get("annotations") or {}), **md["annotations"]}
        meta.set_condition(pod.setdefault("status", {}), "PodScheduled", "True", lastProbeTime=None)

    call.registry.guaranteed_update(pods, call.namespace, pod_name, assign, call.dry_run, call.manager)
    return success()


def binding_subresource() -> Subresource:
    """POST pods/<name>/binding."""
    return Subresource(
        "binding",
        verbs=("create",),
        kind="Binding",
        group="",
        version="v1",
        create=lambda pod, body, call: bind(call, _name(pod), body),
    )


class BindingStrategy(Strategy):
    """POST namespaces/<ns>/bindings: the older spelling of pods/<name>/binding (the pod is metadata.name)."""

    generation = False

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        return bind(call, _name(obj), obj)


def bindings_type() -> ResourceType:
    return ResourceType(
        "",
        "v1",
        "Binding",
        "bindings",
        True,
        verbs=("create",),
        virtual=True,
        strategy=BindingStrategy(),
        example={"target": {"kind": "Node", "name": "node-1"}},
    )


# ----------------------------------------------------------------------------------- eviction


def _delete_options(eviction: Obj, call: CreateCall, meta_group: str) -> DeleteOptions:
    """The eviction's deleteOptions, with the request's dryRun pushed in (they must agree when both are set)."""
    body = eviction.get("deleteOptions")
    if body is not None and not isinstance(body, dict):
        raise BadRequest("deleteOptions: must be an object")
    body = dict(body or {})
    in_body = body.get("dryRun") or []
    query = ["All"] if call.dry_run else []
    if in_body and query and in_body != query:
        raise BadRequest(f"Non-matching dry-run options in request and content: {query} and {in_body}")
    if in_body and in_body != ["All"]:
        raise unsupported_dry_run(in_body)
    if not isinstance(body.get("preconditions", {}), dict):
        raise BadRequest("deleteOptions.preconditions: must be an object")
    return DeleteOptions.parse(body or None, {}, call.dry_run, meta_group)


def _ignores_budgets(pod: Obj) -> bool:
    """A finished, pending or already terminating pod disrupts nothing more: it is deleted without a budget."""
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def _pins_revision(pod: Obj) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not (pod.get("metadata") or {}).get("deletionTimestamp")


def _ready(pod: Obj) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
        if isinstance(c, dict)
    )


def _budgets(call: CreateCall, pdbs: ResourceType, pod: Obj) -> list[Obj]:
    """The namespace's PodDisruptionBudgets that select the pod; an empty or invalid selector selects nothing."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    found = []
    for text in call.registry.list(pdbs, call.namespace, ListOptions()).items:
        pdb = orjson.loads(text)
        try:
            selector = label_selector_from_object((pdb.get("spec") or {}).get("selector"))
        except ApiError:  # the reference skips a budget whose selector does not parse
            continue
        if not selector.empty and selector.matches(labels):
            found.append(pdb)
    return found


def _too_many(message: str, retry_after: int = 0) -> TooManyRequests:
    return TooManyRequests(BUDGET_MESSAGE, retry_after, [{"reason": "DisruptionBudget", "message": message}])


def _take_disruption(call: CreateCall, pdbs: ResourceType, pod_name: str, pdb_name: str, dry_run: bool) -> None:
    """Check the budget allows one more disruption and record it (decrement, disruptedPods) in its status."""

    def take(pdb: Obj) -> None:
        status = pdb.setdefault("status", {})
        generation = int((pdb.get("metadata") or {}).get("generation") or 0)
        if int(status.get("observedGeneration") or 0) < generation:
            raise _too_many(f"The disruption budget {pdb_name} is still being processed by the server.", 10)
        allowed = int(status.get("disruptionsAllowed") or 0)
        if allowed < 0:
            raise Forbidden(
                f'poddisruptionbudget.policy "{pdb_name}" is forbidden: pdb disruptions allowed is negative',
                "poddisruptionbudget",
                "policy",
                pdb_name,
            )
        if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
            raise Forbidden(
                f'poddisruptionbudget.policy "{pdb_name}" is forbidden: DisruptedPods map too big - '
                "too many evictions not confirmed by PDB controller",
                "poddisruptionbudget",
                "policy",
                pdb_name,
            )
        if allowed == 0:
            raise _too_many(
                f"The disruption budget {pdb_name} needs {int(status.get('desiredHealthy') or 0)} "
                f"healthy pods and has {int(status.get('currentHealthy') or 0)} currently"
            )
        status["disruptionsAllowed"] = allowed - 1
        if allowed - 1 == 0:
            meta.set_condition(
                status,
                "DisruptionAllowed",
                "False",
                reason="InsufficientPods",
                message="",
                observedGeneration=status.get("observedGeneration") or 0,
            )
        status["disruptedPods"] = {**(status.get("disruptedPods") or {}), pod_name: meta.now_rfc3339()}

    if dry_run:  # checked, not recorded
        take(call.registry.get(pdbs, call.namespace, pdb_name))
        return
    call.registry.guaranteed_update(pdbs, call.namespace, pdb_name, take, False, call.manager)


def evict(call: CreateCall, pod: Obj, eviction: Obj) -> Obj:
    pod_name = _name(pod)
    if eviction.get("apiVersion") not in (None, *POLICY_VERSIONS) or eviction.get("kind") not in (None, "Eviction"):
        raise BadRequest(f"not a Eviction object: {eviction.get('apiVersion')}, Kind={eviction.get('kind')}")
    if _name(eviction) != pod_name:
        raise BadRequest("name in URL does not match name in Eviction object")
    registry = call.registry
    options = _delete_options(eviction, call, registry.naming.meta_group)
    pods = _pods(call)
    pinned = options.precondition_rv is not None

    def delete(pin: bool) -> None:
        opts = options
        if pin and not pinned:  # not racing a pod that turns ready meanwhile
            opts = DeleteOptions(
                **{**vars(options), "precondition_rv": (pod.get("metadata") or {}).get("resourceVersion")}
            )
        registry.delete(pods, call.namespace, pod_name, opts)

    if _ignores_budgets(pod):
        delete(_pins_revision(pod))
        return success()
    pdbs = _known(call, "policy", "v1", "poddisruptionbudgets")
    budgets = _budgets(call, pdbs, pod)
    if len(budgets) > 1:  # the reference's answer, a 500 without a reason
        raise ApiError(
            500, "", "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
        )
    unready_with_room = False
    if budgets:
        status = budgets[0].get("status") or {}
        desired = int(status.get("desiredHealthy") or 0)
        unready_with_room = not _ready(pod) and int(status.get("currentHealthy") or 0) >= desired > 0
        if not unready_with_room:
            _take_disruption(call, pdbs, pod_name, _name(budgets[0]), options.dry_run)
    try:
        delete(unready_with_room)
    except Conflict:
        if unready_with_room and not pinned:  # the pod changed meanwhile: the client tries again
            raise _too_many(
                f"The disruption budget {_name(budgets[0])} is still being processed by the server.", 10
            ) from None
        raise
    return success()


def eviction_subresource() -> Subresource:
    """POST pods/<name>/eviction (policy/v1 Eviction; policy/v1beta1 accepted)."""
    return Subresource(
        "eviction",
        verbs=("create",),
        kind="Eviction",
        group="policy",
        version="v1",
        create=lambda pod, body, call: evict(call, pod, body),
    )


# ----------------------------------------------------------------------------------- ephemeral containers

#: what an ephemeral container may not set (it gets no resources, ports or probes of its own)
EPHEMERAL_FORBIDDEN = ("ports", "resources", "lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def _ephemeral(pod: Obj) -> list[dict]:
    spec = pod["spec"] if isinstance(pod.get("spec"), dict) else {}
    value = spec.get("ephemeralContainers")
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []


def _ephemeral_errors(old: Obj, new: Obj) -> list[FieldError]:
    """The reference's rules: existing ephemeral containers stay as they are, new ones are complete and named
    apart from every other container, and set none of the fields reserved to regular containers."""
    errors: list[FieldError] = []
    before = {c.get("name"): c for c in _ephemeral(old)}
    after = _ephemeral(new)
    names = {
        c.get("name")
        for key in ("containers", "initContainers")
        for c in (old.get("spec") or {}).get(key) or []
        if isinstance(c, dict)
    }
    for name, container in before.items():
        now = next((c for c in after if c.get("name") == name), None)
        if now is None:
            errors.append(
                forbidden("spec.ephemeralContainers", f'existing ephemeral containers "{name}" may not be removed')
            )
        elif now != container:
            errors.append(
                forbidden(
                    f"spec.ephemeralContainers[{after.index(now)}]",
                    f'existing ephemeral containers "{name}" may not be changed',
                )
            )
    for i, container in enumerate(after):
        path, name = f"spec.ephemeralContainers[{i}]", container.get("name")
        if name in before:
            continue
        if not name:
            errors.append(required(f"{path}.name"))
        elif name in names:
            errors.append(FieldError("FieldValueDuplicate", f"{path}.name", "", name))
        names.add(name)
        if not container.get("image"):
            errors.append(required(f"{path}.image"))
        errors += [
            forbidden(f"{path}.{key}", "cannot be set for an Ephemeral Container")
            for key in EPHEMERAL_FORBIDDEN
            if container.get(key)
        ]
    return errors


def ephemeral_containers_subresource() -> Subresource:
    """pods/ephemeralcontainers (get, patch, update of the Pod): only spec.ephemeralContainers changes, and
    only by additions (`kubectl debug`)."""

    def merge(old: Obj, new: Obj) -> Obj:
        out = copy.deepcopy(old)
        containers = (new.get("spec") or {}).get("ephemeralContainers") if isinstance(new.get("spec"), dict) else None
        spec = out.setdefault("spec", {})
        if containers:
            spec["ephemeralContainers"] = copy.deepcopy(containers)
        else:
            spec.pop("ephemeralContainers", None)
        default_pod(out)  # what decoding the sent Pod does in the reference (pull policy, termination message)
        errors = _ephemeral_errors(old, out)
        if errors:
            raise Invalid("Pod", "", _name(old), errors)
        return out

    return Subresource("ephemeralcontainers", merge=merge)


def pod_write_subresources() -> tuple[Subresource, ...]:
    return binding_subresource(), ephemeral_containers_subresource(), eviction_subresource()
