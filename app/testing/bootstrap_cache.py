"""The objects every fresh test server writes alike at start come from a per-machine template too.

The system namespaces, the default RBAC policy, the Local APIServices and the priority-and-fairness configuration
(about 200 objects, one transaction each, the APIServices a second one for their status) are the same on every
start with the same code, API domain and flags. The first fresh server without further flags copies them, with their
change log, into `bootstrap-<digest>.sqlite` beside the schema template once it is ready; the digest names the
migrations, the package's code, the API domain and the simulated node count. Later fresh servers start from a copy
in which every object gets a uid of its own and the current time as its creation, managedFields and condition times;
their post-start hooks and controllers still run, find the objects in place and write nothing. What must be fresh
per server (certificates, keys, the `kubernetes` Service and its endpoints, leases, service accounts, the CA
ConfigMaps) is never in it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from .schema_cache import cache_dir, migrations_digest, schema_template

PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: templates kept, the most recently used: a source tree makes one per edit; a removed one costs one ordinary start
KEPT_TEMPLATES = 10

#: seconds the first server of a template waits for its controllers' bootstrap objects (else leaves them out)
SETTLE_WAIT = 10.0
_KEYS_UNDER = "(key >= ? AND key < ?)"


def code_stamp(package: Path = PACKAGE_DIR) -> str:
    """Names the package's code by its files' paths, sizes and times: an edit or an upgrade makes a new template."""
    files = []
    folders = [package]
    while folders:
        for entry in os.scandir(folders.pop()):
            if entry.is_dir():
                if entry.name != "__pycache__":
                    folders.append(Path(entry.path))
            elif entry.name.endswith(".py"):
                stat = entry.stat()
                files.append(f"{entry.path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(sorted(files)).encode()).hexdigest()[:20]


def bootstrap_template(api_domain: str, simulate_nodes: int, fault_injection: bool = False) -> Path | None:
    """Where the template of this code, domain and node count is (or will be); None when the code cannot be read."""
    from ..storage.schema import migrations_dir

    try:
        # the Fault kind's group is served or not: its APIService is in the template or not
        name = (
            f"{migrations_digest(migrations_dir())}\0{code_stamp()}\0{api_domain}\0{simulate_nodes}\0{fault_injection}"
        )
    except OSError:  # a file removed while it was read
        return None
    return cache_dir() / f"bootstrap-{hashlib.sha256(name.encode()).hexdigest()[:20]}.sqlite"


def bootstrap_prefixes(app: Any) -> list[str]:
    """The storage prefixes of the kinds the template holds: namespaces and the four RBAC kinds (written by the
    post-start hooks), and the APIServices and priority-and-fairness objects once their controllers' first rounds
    have written them all (else they are left out: a later server writes them itself)."""
    from ..controllers.apfbootstrap import VERSION as APF_VERSION
    from ..registry.keys import resource_prefix

    services = app.extensions["orch"]
    naming, deadline = services.naming, time.monotonic() + SETTLE_WAIT
    rbac, flowcontrol = naming.group("rbac.authorization"), naming.group("flowcontrol.apiserver")
    kinds = [("", "v1", "namespaces")]
    kinds += [(rbac, "v1", plural) for plural in ("clusterroles", "clusterrolebindings", "roles", "rolebindings")]
    if _apiservices_written(app, deadline):
        kinds.append((naming.group("apiregistration"), "v1", "apiservices"))
    if _flowcontrol_written(app, deadline):
        kinds += [(flowcontrol, APF_VERSION, plural) for plural in ("flowschemas", "prioritylevelconfigurations")]
    return [resource_prefix(services.catalog.known_type(*kind)) for kind in kinds]


def _apiservices_written(app: Any, deadline: float) -> bool:
    from ..api.aggregation import EXTENSION_KEY

    aggregation = app.extensions.get(EXTENSION_KEY)
    return aggregation is not None and bool(aggregation.loaded.wait(max(0.0, deadline - time.monotonic())))


def _flowcontrol_written(app: Any, deadline: float) -> bool:
    """Every bootstrap FlowSchema and PriorityLevelConfiguration is stored (the producer writes them in one round)."""
    from ..controllers.apfbootstrap import VERSION, flow_schemas, priority_levels
    from ..registry.keys import resource_prefix

    if not app.config.get("ENABLE_PRIORITY_AND_FAIRNESS"):
        return False
    services = app.extensions["orch"]
    group, wanted = services.naming.group("flowcontrol.apiserver"), []
    for plural, (mandatory, suggested) in (
        ("prioritylevelconfigurations", priority_levels(services.naming)),
        ("flowschemas", flow_schemas(services.naming)),
    ):
        prefix = resource_prefix(services.catalog.known_type(group, VERSION, plural))
        wanted += [prefix + obj["metadata"]["name"] for obj in mandatory + suggested]
    while any(services.storage.get(key) is None for key in wanted):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def seed_bootstrap(template: Path, database_file: str) -> bool:
    """Put a copy of the template, with fresh identities, at database_file. False when there is no template yet,
    database_file exists, or the copy fails: the caller seeds the empty schema instead."""
    if os.path.exists(database_file) or not template.exists():
        return False
    try:
        shutil.copyfile(template, database_file)
        _refresh_identities(database_file)
    except (OSError, sqlite3.Error, ValueError, KeyError, TypeError):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(database_file)
        return False
    with contextlib.suppress(OSError):  # a read-only cache still serves
        os.utime(template)  # in use: not stale
    return True


def _refresh_identities(database_file: str) -> None:
    """Each object a uid of its own and the current time; its change-log entries say the same."""
    from ..registry.meta import now_rfc3339

    now = now_rfc3339()
    with contextlib.closing(sqlite3.connect(database_file)) as db, db:
        objects = db.execute("SELECT key, data FROM objects").fetchall()
        uids = {key: str(uuid.uuid4()) for key, _ in objects}

        def fresh(key: str, text: str | None) -> str | None:
            if text is None:
                return None
            obj = orjson.loads(text)
            metadata = obj["metadata"]
            metadata["uid"], metadata["creationTimestamp"] = uids[key], now
            for entry in metadata.get("managedFields") or []:
                entry["time"] = now
            for condition in (obj.get("status") or {}).get("conditions") or []:
                if "lastTransitionTime" in condition:
                    condition["lastTransitionTime"] = now
            return orjson.dumps(obj).decode()

        db.executemany("UPDATE objects SET data = ? WHERE key = ?", [(fresh(key, data), key) for key, data in objects])
        changes = db.execute("SELECT rv, key, data, prev FROM changes").fetchall()
        written = time.time()  # the store's clock: seconds since the epoch
        db.executemany(
            "UPDATE changes SET data = ?, prev = ?, created_at = ? WHERE rv = ?",
            [(fresh(key, data), fresh(key, prev), written, rv) for rv, key, data, prev in changes],
        )


def capture_bootstrap(database_file: str, template: Path, prefixes: Iterable[str]) -> None:
    """Copy the objects under `prefixes`, with their change log, from a ready server's database into the template,
    renumbered from the empty schema's revision on. Nothing when they are not settled or the cache is unusable."""
    with contextlib.suppress(OSError, sqlite3.Error, KeyError, ValueError):
        objects, changes = _read_settled(database_file, list(prefixes))
        if objects:
            _write_template(template, objects, changes)
            _prune(template.parent)


def _read_settled(database_file: str, prefixes: list[str]) -> tuple[list[tuple], list[tuple]]:
    """(objects, change log) under the prefixes, read in one transaction; both empty unless every object's
    newest change is its current state and none was deleted."""
    from ..storage.store import prefix_end

    where = " OR ".join([_KEYS_UNDER] * len(prefixes))
    bounds = [bound for prefix in prefixes for bound in (prefix, prefix_end(prefix))]
    with contextlib.closing(sqlite3.connect(database_file, timeout=5.0, isolation_level=None)) as db:
        db.execute("BEGIN")
        objects = db.execute(f"SELECT key, rv, data FROM objects WHERE {where}", bounds).fetchall()
        changes = db.execute(
            f"SELECT rv, key, type, data, prev, username, manager, verb FROM changes WHERE {where} ORDER BY rv",
            bounds,
        ).fetchall()
        db.execute("COMMIT")
    newest = {key: (rv, kind, data) for rv, key, kind, data, *_ in changes}
    settled = len(newest) == len(objects) and all(
        newest.get(key) in ((rv, "ADDED", data), (rv, "MODIFIED", data)) for key, rv, data in objects
    )
    return (objects, changes) if settled else ([], [])


def _write_template(template: Path, objects: list[tuple], changes: list[tuple]) -> None:
    template.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(prefix=".bootstrap-", suffix=".sqlite", dir=template.parent)
    os.close(fd)
    try:
        shutil.copyfile(schema_template(), scratch)
        with contextlib.closing(sqlite3.connect(scratch)) as db, db:
            (base,) = db.execute("SELECT rv FROM sequence WHERE id = 1").fetchone()
            renumbered = {rv: base + n for n, (rv, *_) in enumerate(changes, start=1)}
            db.executemany(
                "INSERT INTO objects (key, rv, data) VALUES (?, ?, ?)",
                [(key, renumbered[rv], _at(data, renumbered)) for key, rv, data in objects],
            )
            db.executemany(
                "INSERT INTO changes (rv, key, type, data, prev, created_at, username, manager, verb) "
                "VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
                [
                    (renumbered[rv], key, kind, _at(data, renumbered), _at(prev, renumbered), *who)
                    for rv, key, kind, data, prev, *who in changes
                ],
            )
            db.execute("UPDATE sequence SET rv = ? WHERE id = 1", (base + len(changes),))
        os.replace(scratch, template)  # atomic: parallel sessions see the whole file or none
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(scratch)


def _at(text: str | None, renumbered: dict[int, int]) -> str | None:
    """The object's text with its resourceVersion renumbered."""
    if text is None:
        return None
    obj = orjson.loads(text)
    obj["metadata"]["resourceVersion"] = str(renumbered[int(obj["metadata"]["resourceVersion"])])
    return orjson.dumps(obj).decode()


def _prune(directory: Path) -> None:
    used: list[tuple[float, Path]] = []
    for template in directory.glob("bootstrap-*.sqlite"):
        with contextlib.suppress(OSError):
            used.append((template.stat().st_mtime, template))
    for _, old in sorted(used, reverse=True)[KEPT_TEMPLATES:]:
        with contextlib.suppress(OSError):
            old.unlink()
