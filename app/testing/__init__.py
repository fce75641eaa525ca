"""A real orch-apiserver for tests: the `TestServer` context manager and a pytest plugin (app.testing.plugin)."""

from app.testing.server import DEFAULT_API_DOMAIN, TestServer, TestServerError

__all__ = ["DEFAULT_API_DOMAIN", "TestServer", "TestServerError"]
