"""orch-apiserver: the HTTP API server of a container-cluster control plane.

The package itself imports nothing heavy, so `app.client` and `orchctl` load without the server's modules;
`create_app` (app/factory.py) wires storage, registry, auth and HTTP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app for `config`; without one, configured from ORCH_* variables and defaults as the server is
    (`flask db upgrade` run from any directory finds this factory in the installed package)."""
    from app.factory import create_app as build

    if config is None:
        from config import environment_flask_config

        config = environment_flask_config()
    return build(config)
