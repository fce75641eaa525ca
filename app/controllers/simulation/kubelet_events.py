"""The Events a kubelet records about a pod's containers, with its reasons and wording (v1.23's): `Pulling`,
`Pulled`, `Created`, `Started` as a pod starts and `Killing` as it stops, from component `kubelet` on its node.

An image counts as present on a node once a pod there pulled it: later pods whose pull policy is not `Always`
get the kubelet's `already present on machine` instead of a pull."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from ..base import Client
from .workload_common import record_event

COMPONENT = "kubelet"


def _go_duration(seconds: float) -> str:
    """How Go prints a short time.Duration (`200ms`, `1.5s`)."""
    return f"{round(seconds * 1000)}ms" if seconds < 1 else f"{seconds:g}s"


def _containers(pod: dict) -> Iterator[tuple[str, dict]]:
    """(field path, container) of the init containers, then the containers, in the kubelet's order."""
    spec = pod.get("spec") or {}
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                yield f"spec.{key}{{{c.get('name')}}}", c


class KubeletEvents:
    """One simulated kubelet's recorder for every simulated node (each event names its pod's node)."""

    def __init__(self, client: Client, pull_seconds: float) -> None:
        self.client = client
        self.pull_seconds = pull_seconds
        #: node name -> the images pulled there
        self.images: dict[str, set[str]] = {}

    def started(self, pod: dict, now: datetime) -> None:
        node = str(pod["spec"]["nodeName"])
        present = self.images.setdefault(node, set())
        for path, c in _containers(pod):
            image, name = str(c.get("image") or ""), c.get("name")
            if c.get("imagePullPolicy") == "Always" or image not in present:
                self._record(pod, now, path, "Pulling", f'Pulling image "{image}"')
                pulled = f'Successfully pulled image "{image}" in {_go_duration(self.pull_seconds)}'
                self._record(pod, now, path, "Pulled", pulled)
                present.add(image)
            else:
                self._record(pod, now, path, "Pulled", f'Container image "{image}" already present on machine')
            self._record(pod, now, path, "Created", f"Created container {name}")
            self._record(pod, now, path, "Started", f"Started container {name}")

    def stopping(self, pod: dict, now: datetime, running: set[str]) -> None:
        """`Killing` for each of the pod's containers that ran until now."""
        for path, c in _containers(pod):
            if path.startswith("spec.containers") and c.get("name") in running:
                self._record(pod, now, path, "Killing", f"Stopping container {c.get('name')}")

    def _record(self, pod: dict, now: datetime, path: str, reason: str, message: str) -> None:
        involved = {**pod, "apiVersion": "v1", "kind": "Pod"}
        node = str(pod["spec"]["nodeName"])
        record_event(
            self.client,
            involved,
            "Normal",
            reason,
            message,
            COMPONENT,
            now=now,
            instance=node,
            field_path=path,
            host=node,
        )
