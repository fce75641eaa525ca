"""orch-apiserver: the HTTP API server of a container-cluster control plane.

Installed as `orch_apiserver` (the repository keeps it in app/; docs/architecture.md "One import name"), and it
refers to itself only relatively, so the same file is never loaded under a second name. The package itself imports
nothing heavy, so `orch_apiserver.client` and `orchctl` load without the server's modules; `create_app`
(factory.py) wires storage, registry, auth and HTTP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

if __name__ != "orch_apiserver":  # e.g. `import app` with the repository on sys.path: a second copy of every module
    raise ImportError(
        f"orch-apiserver is imported as orch_apiserver, not {__name__}: pip install -e . then use that name"
    )


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app for `config`; without one, configured from ORCH_* variables and defaults as the server is
    (`FLASK_APP=orch_apiserver flask db upgrade` finds this factory from any directory)."""
    from .factory import create_app as build

    if config is None:
        from .config import environment_flask_config

        config = environment_flask_config()
    return build(config)
