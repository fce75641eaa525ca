"""A real orch-apiserver for tests: the `TestServer` context manager and a pytest plugin (app.testing.plugin)."""

from .server import DEFAULT_API_DOMAIN, TestServer, TestServerError

__all__ = ["DEFAULT_API_DOMAIN", "TestServer", "TestServerError"]
