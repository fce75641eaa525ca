"""orch-apiserver: the HTTP API server of a container-cluster control plane.

The package itself imports nothing heavy, so `app.client` and `orchctl` load without the server's modules;
`create_app` (app/factory.py) wires storage, registry, auth and HTTP.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: dict[str, Any] | None = None) -> Flask:
    from app.factory import create_app as build

    return build(config)
