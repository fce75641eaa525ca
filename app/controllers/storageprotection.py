"""pvc-protection and pv-protection: a deleted claim goes once no scheduled pod mounts it, a deleted volume once no
claim is bound to it; until then their protection finalizer (added by the StorageObjectInUseProtection admission
plugin) holds them, as the reference's controllers do."""

from __future__ import annotations

from ..catalog import ResourceType
from ..errors import Conflict, NotFound
from .base import Context, Controller


class Protection(Controller):
    """Shared shape: remove `finalizer` from each deleted object of `target` that nothing uses any more."""

    resync_seconds = 30.0
    min_sync_interval = 0.2
    plural = ""
    finalizer_name = ""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.target = ctx.kind("", self.plural)
        self.finalizer = ctx.naming.key(self.finalizer_name)

    def in_use(self, obj: dict, pods_of: dict[str, list[dict]]) -> bool:
        raise NotImplementedError

    def sync(self) -> None:
        pods_of: dict[str, list[dict]] = {}
        for obj in self.client.list(self.target):
            metadata = obj.get("metadata") or {}
            if not metadata.get("deletionTimestamp") or self.finalizer not in (metadata.get("finalizers") or []):
                continue
            if self.in_use(obj, pods_of):
                continue
            metadata["finalizers"] = [f for f in metadata["finalizers"] if f != self.finalizer]
            try:
                self.client.update(self.target, metadata.get("namespace"), obj)
            except (Conflict, NotFound):
                pass  # changed or gone meanwhile: the change brings another sync


class PvcProtection(Protection):
    name = "pvc-protection"
    account = "pvc-protection-controller"
    plural, finalizer_name = "persistentvolumeclaims", "pvc-protection"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.pods = ctx.kind("", "pods")

    def watches(self) -> list[ResourceType]:
        return [self.target, self.pods]

    def in_use(self, obj: dict, pods_of: dict[str, list[dict]]) -> bool:
        namespace, name = obj["metadata"].get("namespace", ""), obj["metadata"].get("name")
        if namespace not in pods_of:
            pods_of[namespace] = self.client.list(self.pods, namespace)
        for pod in pods_of[namespace]:
            spec = pod.get("spec") or {}
            if not spec.get("nodeName"):
                continue  # the node agent never starts an unscheduled pod with a claim that is being deleted
            pod_name = (pod.get("metadata") or {}).get("name")
            for volume in spec.get("volumes") or []:
                volume = volume or {}
                if (volume.get("persistentVolumeClaim") or {}).get("claimName") == name:
                    return True
                ended = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
                if volume.get("ephemeral") is not None and not ended and f"{pod_name}-{volume.get('name')}" == name:
                    return True
        return False


class PvProtection(Protection):
    name = "pv-protection"
    account = "pv-protection-controller"
    plural, finalizer_name = "persistentvolumes", "pv-protection"

    def watches(self) -> list[ResourceType]:
        return [self.target]

    def in_use(self, obj: dict, pods_of: dict[str, list[dict]]) -> bool:
        return (obj.get("status") or {}).get("phase") == "Bound"
