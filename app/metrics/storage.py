"""`apiserver_storage_objects`: objects per resource, counted at scrape time with one grouped query."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from app.storage.models import objects
from app.storage.store import Storage

HELP = "Number of stored objects at the time of last check split by kind."


def _prefix_expression(storage: Storage) -> Any:
    """`<group or core>/<plural>` of a key `/<group or core>/<plural>/...` (app/registry/keys.py)."""
    key = objects.c.key
    if not storage.is_sqlite:
        return sa.func.split_part(key, "/", 2) + "/" + sa.func.split_part(key, "/", 3)
    rest = sa.func.substr(key, 2)  # "<group>/<plural>/..."
    first_slash = sa.func.instr(rest, "/")
    after_group = sa.func.substr(rest, first_slash + 1)
    return sa.func.substr(rest, 1, first_slash + sa.func.instr(after_group, "/") - 1)


def count_objects(storage: Storage) -> dict[str, int]:
    """Objects per resource label: `<plural>` for the core group, `<plural>.<group>` otherwise."""
    prefix = _prefix_expression(storage).label("prefix")
    query = sa.select(prefix, sa.func.count()).select_from(objects).group_by(prefix)
    with storage.engine.connect() as conn:
        rows = conn.execute(query).all()
    counts: dict[str, int] = {}
    for text, count in rows:
        group, _, plural = str(text).partition("/")
        counts[plural if group == "core" else f"{plural}.{group}"] = int(count)
    return counts


class StorageObjectsCollector:
    """A prometheus-client collector; on a store error the value is -1 for every known resource, as the
    reference reports a failed check."""

    def __init__(self, storage: Storage, known: list[str]) -> None:
        self.storage = storage
        self.known = known

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily("apiserver_storage_objects", HELP, labels=["resource"])
        try:
            counts = {name: 0 for name in self.known}
            counts.update(count_objects(self.storage))
        except sa.exc.SQLAlchemyError:
            counts = {name: -1 for name in self.known}
        for resource in sorted(counts):
            family.add_metric([resource], counts[resource])
        yield family
