"""A Python client for orch-apiserver: client config files, TLS, exec credential plugins, REST verbs, watch,
an informer, discovery and bootstrap (signed cluster-info) discovery. Importing it starts no server."""

from __future__ import annotations

from .bootstrap import BootstrapError, discover_cluster_info
from .config import ClientConfig, ConfigError, load_config
from .discovery import Discovery, ResourceInfo, ResourceNotFound
from .exec import ExecPluginError
from .informer import Informer
from .rest import ApiError, Client, ConnectionFailed, Response

__all__ = [
    "ApiError",
    "BootstrapError",
    "Client",
    "ClientConfig",
    "ConfigError",
    "ConnectionFailed",
    "Discovery",
    "ExecPluginError",
    "Informer",
    "ResourceInfo",
    "ResourceNotFound",
    "Response",
    "discover_cluster_info",
    "load_config",
]
