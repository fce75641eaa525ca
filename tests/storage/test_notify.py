"""The change listener on libpq's multi-host URL forms (issue 55: `?host=a:p&host=b:q` once broke it)."""

from __future__ import annotations

import threading

import psycopg
import pytest
from orch_apiserver.storage.notify import CHANNEL, ChangeListener, conninfo
from sqlalchemy.engine import make_url

from tests.e2e import free_port


def _multi_host(url: str, form: str) -> str:
    """`url` with a dead host first (nothing listens on its port), then the real one, in one of libpq's forms."""
    parsed = make_url(url)
    dead, host, port = free_port(), parsed.host, parsed.port or 5432
    query = {
        "repeated": f"host=127.0.0.1:{dead}&host={host}:{port}",
        "lists": f"host=127.0.0.1,{host}&port={dead},{port}",
    }[form]
    return f"{parsed.drivername}://{parsed.username}@/{parsed.database}?{query}&target_session_attrs=read-write"


@pytest.mark.parametrize("form", ["repeated", "lists"])
def test_the_change_listener_follows_a_multi_host_url(pg_database: str, form: str) -> None:
    url = _multi_host(pg_database, form)
    assert "host=127.0.0.1," in conninfo(url)
    woken = threading.Event()
    listener = ChangeListener(url, woken.set, own_sender="me")
    listener.start()
    try:
        assert listener.listening.wait(10), "the listener never connected"
        with psycopg.connect(conninfo(pg_database), autocommit=True) as other:
            other.execute("SELECT pg_notify(%s, 'another process')", (CHANNEL,))
        assert woken.wait(10), "a NOTIFY from another process did not wake the listener"
    finally:
        listener.stop()
