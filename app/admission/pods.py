"""The reference's admission plugins that complete a new pod from cluster objects: Priority (the class's value
and preemption policy), DefaultTolerationSeconds, RuntimeClass (overhead and scheduling)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from ..errors import NotFound
from ..registry.admission import CREATE, UPDATE, Attributes, Plugin, forbidden, is_kind, object_spec
from ..resources.scheduling import SYSTEM_CLASSES
from .source import ConfigurationSource

if TYPE_CHECKING:
    from ..registry.store import Registry
    from ..storage.hub import WatchHub

DEFAULT_PREEMPTION = "PreemptLowerPriority"


class Priority(Plugin):
    """A pod gets the value and preemption policy of its priorityClassName (or of the global default class); at
    most one class is the global default."""

    name = "Priority"
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, registry: Registry, hub: WatchHub | None) -> None:
        self.group = registry.naming.group("scheduling")
        self.classes = ConfigurationSource(
            registry, registry.catalog.known_type(self.group, "v1", "priorityclasses"), lambda obj: [obj], hub
        )

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation in self.operations and (
            (attrs.operation == CREATE and is_kind(attrs, "", "pods")) or is_kind(attrs, self.group, "priorityclasses")
        )

    def admit(self, attrs: Attributes) -> None:
        if attrs.rt.plural != "pods":
            return
        spec = object_spec(attrs)
        name = str(spec.get("priorityClassName") or "")
        policy: str | None = DEFAULT_PREEMPTION
        if not name:
            default = next((c for c in self.classes.current() if c.get("globalDefault") is True), None)
            if default is None:
                value = 0
            else:
                name, value, policy = (
                    default["metadata"]["name"],
                    int(default.get("value") or 0),
                    default.get("preemptionPolicy"),
                )
                spec["priorityClassName"] = name
        elif name in SYSTEM_CLASSES:
            value = SYSTEM_CLASSES[name]
        else:
            found = next((c for c in self.classes.current() if c["metadata"]["name"] == name), None)
            if found is None:
                raise forbidden(attrs, f"no PriorityClass with name {name} was found")
            value, policy = int(found.get("value") or 0), found.get("preemptionPolicy")
        if spec.get("priority") is not None and spec["priority"] != value:
            raise forbidden(
                attrs,
                f"the integer value of priority ({spec['priority']}) must not be provided in pod "
                f"spec; priority admission controller computed {value} from the given "
                "PriorityClass name",
            )
        spec["priority"] = value
        if policy:
            given = spec.get("preemptionPolicy")
            if given is not None and given != policy:
                raise forbidden(
                    attrs,
                    f"the string value of PreemptionPolicy ({given}) must not be provided in pod "
                    f"spec; priority admission controller computed {policy} from the given "
                    "PriorityClass name",
                )
            spec["preemptionPolicy"] = policy

    def validate(self, attrs: Attributes) -> None:
        if attrs.rt.plural != "priorityclasses" or not (attrs.obj or {}).get("globalDefault"):
            return
        for existing in self.classes.current():
            if existing.get("globalDefault") is True and existing["metadata"]["name"] != attrs.name:
                raise forbidden(
                    attrs,
                    f"PriorityClass {existing['metadata']['name']} is already marked as default. "
                    "Only one default can exist",
                )


class DefaultTolerationSeconds(Plugin):
    """A new pod tolerates the not-ready and unreachable NoExecute taints for 300 s unless it says otherwise."""

    name = "DefaultTolerationSeconds"
    operations = frozenset({CREATE})
    SECONDS = 300

    def __init__(self, registry: Registry) -> None:
        node = registry.naming.key_group("node")
        self.taints = (f"{node}/not-ready", f"{node}/unreachable")

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation == CREATE and is_kind(attrs, "", "pods")

    def admit(self, attrs: Attributes) -> None:
        spec = object_spec(attrs)
        tolerations: list = spec["tolerations"] if isinstance(spec.get("tolerations"), list) else []
        added = []
        for taint in self.taints:
            if not any(
                isinstance(t, dict) and t.get("key", "") in ("", taint) and t.get("effect", "") in ("", "NoExecute")
                for t in tolerations
            ):
                added.append(
                    {"key": taint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": self.SECONDS}
                )
        if added:
            spec["tolerations"] = [*tolerations, *added]


class RuntimeClass(Plugin):
    """A pod naming a RuntimeClass gets its pod overhead, node selector and tolerations; an unknown class is
    refused."""

    name = "RuntimeClass"
    operations = frozenset({CREATE})

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.rt = registry.catalog.known_type(registry.naming.group("node"), "v1", "runtimeclasses")

    def handles(self, attrs: Attributes) -> bool:
        return (
            attrs.operation == CREATE
            and is_kind(attrs, "", "pods")
            and bool(object_spec(attrs).get("runtimeClassName"))
        )

    def admit(self, attrs: Attributes) -> None:
        spec = object_spec(attrs)
        name = str(spec["runtimeClassName"])
        try:
            runtime = self.registry.get(self.rt, None, name)
        except NotFound:
            raise forbidden(attrs, f'pod rejected: RuntimeClass "{name}" not found') from None
        overhead = (runtime.get("overhead") or {}).get("podFixed")
        if overhead:
            if spec.get("overhead") is not None and spec["overhead"] != overhead:
                raise forbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
            spec["overhead"] = overhead
        scheduling = runtime.get("scheduling") or {}
        selector = scheduling.get("nodeSelector") or {}
        current = spec.get("nodeSelector") or {}
        if any(key in current and current[key] != value for key, value in selector.items()):
            raise forbidden(attrs, "pod rejected: conflict between pod and RuntimeClass node selector")
        if selector:
            spec["nodeSelector"] = {**current, **selector}
        tolerations = list(spec.get("tolerations") or [])
        seen = {orjson.dumps(t, option=orjson.OPT_SORT_KEYS) for t in tolerations}
        for toleration in scheduling.get("tolerations") or []:
            if orjson.dumps(toleration, option=orjson.OPT_SORT_KEYS) not in seen:
                tolerations.append(toleration)
        if tolerations:
            spec["tolerations"] = tolerations
