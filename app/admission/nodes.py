"""TaintNodesByCondition: a new Node starts tainted `node.orch.io/not-ready:NoSchedule`, so nothing is scheduled to
it before its agent reports it ready (the node lifecycle controller then takes the taint off)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry.admission import CREATE, Attributes, Plugin, is_kind

if TYPE_CHECKING:
    from ..registry.store import Registry


class TaintNodesByCondition(Plugin):
    name = "TaintNodesByCondition"
    operations = frozenset({CREATE})

    def __init__(self, registry: Registry) -> None:
        self.taint = {"key": registry.naming.key_group("node") + "/not-ready", "effect": "NoSchedule"}

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation == CREATE and is_kind(attrs, "", "nodes")

    def admit(self, attrs: Attributes) -> None:
        spec = (attrs.obj or {}).setdefault("spec", {})
        taints = [t for t in spec.get("taints") or [] if isinstance(t, dict)]
        if not any(t.get("key") == self.taint["key"] and t.get("effect") == self.taint["effect"] for t in taints):
            spec["taints"] = [*taints, dict(self.taint)]
