"""The wired services of one app, reachable from request handlers as `services()`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import current_app

if TYPE_CHECKING:
    from app.catalog import Catalog
    from app.naming import Naming
    from app.registry.store import Registry
    from app.storage.hub import WatchHub
    from app.storage.store import Storage


@dataclass
class Services:
    naming: Naming
    catalog: Catalog
    storage: Storage
    registry: Registry
    hub: WatchHub
    settings: dict[str, Any] = field(default_factory=dict)
    #: set when the process is shutting down (readiness then fails).
    shutting_down: bool = False


def services() -> Services:
    return current_app.extensions["orch"]
