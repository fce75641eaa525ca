"""The `coordination.<domain>/v1` group: leases (leader election, node heartbeats)."""

from __future__ import annotations

from ..catalog import Obj, ResourceType
from ..errors import FieldError
from ..naming import Naming
from .common import NoSpecStrategy, dig, non_negative, positive


class LeaseStrategy(NoSpecStrategy):
    allow_create_on_update = True

    def validate(self, obj: Obj) -> list[FieldError]:
        return positive("spec.leaseDurationSeconds", dig(obj, "spec", "leaseDurationSeconds")) + non_negative(
            "spec.leaseTransitions", dig(obj, "spec", "leaseTransitions")
        )


def resource_types(naming: Naming) -> list[ResourceType]:
    return [
        ResourceType(
            naming.group("coordination"),
            "v1",
            "Lease",
            "leases",
            True,
            strategy=LeaseStrategy(naming),
            example={"spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40}},
        )
    ]
