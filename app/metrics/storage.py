"""`apiserver_storage_objects`: objects per resource, counted at scrape time with one grouped query."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from ..storage.models import objects
from ..storage.store import Storage
from . import child

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
            counts = dict.fromkeys(self.known, 0)
            counts.update(count_objects(self.storage))
        except sa.exc.SQLAlchemyError:
            counts = dict.fromkeys(self.known, -1)
        for resource in sorted(counts):
            family.add_metric([resource], counts[resource])
        yield family


# -- request latency, errors and pool use -------------------------------------------------------------------

#: Storage methods timed, by the operation label they report (the reference's etcd operations where they exist).
TIMED_OPERATIONS = {
    "get": "get",
    "list": "list",
    "create": "create",
    "update": "update",
    "delete": "delete",
    "changes_after": "watch",
    "compact": "compact",
    "current_revision": "revision",
}


def type_of(key: str) -> str:
    """`configmaps` or `deployments.apps` for a key or prefix `/<group or core>/<plural>/...`; empty otherwise."""
    parts = key.split("/", 3)
    if len(parts) < 3 or not parts[2]:
        return ""
    return parts[2] if parts[1] == "core" else f"{parts[2]}.{parts[1]}"


def instrument_storage(storage: Storage, metrics: Any) -> None:
    """Time every storage call and count database errors, by operation and type; count pooled connections.

    The bound methods of this one Storage are wrapped (not the class): several apps in one test process each
    count into their own registry."""
    import functools
    import time

    for name, operation in TIMED_OPERATIONS.items():
        method = getattr(storage, name, None)
        if method is None or getattr(method, "_timed", False):
            continue

        def timed(*args: Any, _method: Any = method, _operation: str = operation, **kwargs: Any) -> Any:
            kind = type_of(args[0]) if args and isinstance(args[0], str) else ""
            began = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            except sa.exc.SQLAlchemyError:
                child(metrics.storage_errors, _operation, kind).inc()
                raise
            finally:
                child(metrics.storage_duration, _operation, kind).observe(time.perf_counter() - began)

        functools.update_wrapper(timed, method)
        timed._timed = True  # type: ignore[attr-defined]
        setattr(storage, name, timed)
    in_use = metrics.db_connections.labels(state="in_use")
    idle = metrics.db_connections.labels(state="idle")

    def checked_out(*_: Any) -> None:
        in_use.inc()
        idle.dec()

    def checked_in(*_: Any) -> None:
        in_use.dec()
        idle.inc()

    def connected(*_: Any) -> None:
        idle.inc()

    def closed(*_: Any) -> None:
        idle.dec()

    observe_transformations(storage, metrics)
    sa.event.listen(storage.engine, "checkout", checked_out)
    sa.event.listen(storage.engine, "checkin", checked_in)
    sa.event.listen(storage.engine, "connect", connected)
    sa.event.listen(storage.engine, "close", closed)


def observe_transformations(storage: Storage, metrics: Any) -> None:
    """Count and time every encryption-at-rest transformation, by direction and provider prefix."""
    operations, durations = metrics.transformation_operations, metrics.transformation_duration

    def observe(kind: str, prefix: str, status: str, seconds: float) -> None:
        child(operations, kind, prefix, status).inc()
        if status == "OK":
            child(durations, kind, prefix).observe(seconds)

    storage.encryption.observe = observe
