"""`server.fault(...)`: a Fault for the length of a `with` block, and how many requests it took."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..faults.manifest import fault_api_version, fault_manifest, faults_path

if TYPE_CHECKING:
    from .manifests import Manifests


class ActiveFault:
    """A Fault the server holds; `matched` is read from the server each time (status.matched), and after the
    `with` block is the count the Fault ended with."""

    def __init__(self, manifests: Manifests, path: str, name: str) -> None:
        self._manifests, self.path, self.name = manifests, path, name
        self.final_matched: int | None = None

    @property
    def object(self) -> dict:
        return self._manifests.client.get(self.path)

    @property
    def matched(self) -> int:
        if self.final_matched is not None:
            return self.final_matched
        return int((self.object.get("status") or {}).get("matched") or 0)


@contextmanager
def active_fault(manifests: Manifests, name: str | None, keywords: dict[str, Any]) -> Iterator[ActiveFault]:
    from ..client import ApiError

    collection = faults_path(manifests.naming)
    name = name or f"fault-{uuid.uuid4().hex[:10]}"
    manifests.client.create(collection, fault_manifest(name, fault_api_version(manifests.naming), **keywords))
    fault = ActiveFault(manifests, f"{collection}/{name}", name)
    try:
        yield fault
    finally:
        try:
            fault.final_matched = fault.matched
            manifests.client.delete(fault.path)
        except ApiError as err:
            if err.status != 404:  # the test deleted it itself
                raise
