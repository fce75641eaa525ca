"""A real orch-apiserver for tests: the `TestServer` context manager and a pytest plugin (app.testing.plugin)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import DEFAULT_API_DOMAIN, TestServer, TestServerError

__all__ = ["DEFAULT_API_DOMAIN", "TestServer", "TestServerError"]


def __getattr__(name: str) -> Any:
    """The server's modules load on first use: every pytest run loads the plugin beside them, most never start one."""
    if name in __all__:
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
