"""`v1` ComponentStatus: the health of the parts of the control plane, computed at read time (deprecated in v1.19,
as in the reference). The server registers what it can check (app/factory.py): the store, the controllers."""

from __future__ import annotations

from collections.abc import Callable

from ..catalog import Deprecation, Obj, ResourceType
from ..naming import Naming
from .common import KindStrategy

#: a check: (healthy, message, error)
Probe = Callable[[], tuple[bool, str, str]]


class ComponentStatusStrategy(KindStrategy):
    """One object per registered probe, named after the component, with a `Healthy` condition."""

    generation = False

    def __init__(self, naming: Naming) -> None:
        super().__init__(naming)
        self.probes: dict[str, Probe] = {}

    def computed_objects(self) -> list[Obj]:
        objects = []
        for name, probe in sorted(self.probes.items()):
            try:
                healthy, message, error = probe()
            except Exception as err:  # noqa: BLE001 - a failing check is an unhealthy component, not a 500
                healthy, message, error = False, "", str(err) or type(err).__name__
            condition = {"type": "Healthy", "status": "True" if healthy else "False", "message": message}
            if error:
                condition["error"] = error
            objects.append(
                {
                    "kind": "ComponentStatus",
                    "apiVersion": "v1",
                    "metadata": {"name": name, "creationTimestamp": None},
                    "conditions": [condition],
                }
            )
        return objects


def component_status_type(naming: Naming) -> ResourceType:
    return ResourceType(
        "",
        "v1",
        "ComponentStatus",
        "componentstatuses",
        False,
        short_names=("cs",),
        verbs=("get", "list"),
        strategy=ComponentStatusStrategy(naming),
        computed=True,
        deprecation=Deprecation("1.19"),
    )
