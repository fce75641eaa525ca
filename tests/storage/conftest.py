"""The storage tests' store, on the database the session's `database_url` names (both stores)."""

from __future__ import annotations

import pytest
from orch_apiserver.storage.store import Storage


@pytest.fixture
def storage(database_url: str):
    store = Storage(database_url, history_window=60)
    yield store
    store.dispose()
