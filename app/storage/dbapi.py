"""The hot statements run on the driver's own cursor, on a connection from SQLAlchemy's pool.

SQLAlchemy's execution layer (connection wrapper, execution context, result) costs about 110 µs a statement,
more than a primary-key read takes on PostgreSQL; the few statements every request runs skip it. The pool,
its events (liveness check, connection metrics) and SQLAlchemy's errors stay: a driver error is raised as
the SQLAlchemy error it would have been, and a broken connection is dropped from the pool.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, StatementError

_NAMED = re.compile(r"(?<![:\w]):(\w+)")


def for_driver(sql: str, database: str) -> str:
    """`sql` written with `:name` parameters, as the database's driver takes them: sqlite3 as written,
    psycopg as `%(name)s`."""
    if database == "sqlite":
        return sql
    if database == "postgresql":
        return _NAMED.sub(r"%(\1)s", sql.replace("%", "%%"))
    raise ValueError(f"no driver statements for {database!r}")


@contextlib.contextmanager
def driver_cursor(engine: Engine) -> Iterator[Any]:
    """A driver cursor on a pooled connection, given back when the block ends."""
    dialect = engine.dialect
    driver_error = dialect.loaded_dbapi.Error
    try:
        pooled = engine.raw_connection()
    except driver_error as exc:  # no connection to be had (the pool's own errors are SQLAlchemy's already)
        raise _as_sqlalchemy(exc, dialect, dialect.is_disconnect(exc, None, None)) from exc
    try:
        cursor = pooled.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            yield cursor
        finally:
            cursor.close()
    except driver_error as exc:
        gone = dialect.is_disconnect(exc, pooled.dbapi_connection, None)
        if gone:
            pooled.invalidate(exc)
        raise _as_sqlalchemy(exc, dialect, gone) from exc
    finally:
        pooled.close()


@contextlib.contextmanager
def driver_errors(engine: Engine, dbapi_connection: Any) -> Iterator[None]:
    """Driver errors raised as SQLAlchemy's, for statements run on the driver's cursor of a connection
    SQLAlchemy holds (its transaction ends it, and drops it when broken)."""
    dialect = engine.dialect
    try:
        yield
    except dialect.loaded_dbapi.Error as exc:
        raise _as_sqlalchemy(exc, dialect, dialect.is_disconnect(exc, dbapi_connection, None)) from exc


def _as_sqlalchemy(exc: Exception, dialect: Any, gone: bool) -> StatementError:
    return DBAPIError.instance(
        None, None, exc, dialect.loaded_dbapi.Error, connection_invalidated=gone, dialect=dialect
    )
