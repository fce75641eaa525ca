"""Apply manifests and manage namespaces over HTTPS as a client would (server-side apply, discovery)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..naming import Naming

FIELD_MANAGER = "orch-testserver"
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


class ManifestError(RuntimeError):
    pass


def _documents(source: str | os.PathLike[str] | dict | list) -> Iterator[dict]:
    if isinstance(source, dict):
        yield from _unlist(source)
    elif isinstance(source, list):
        for item in source:
            yield from _documents(item)
    elif isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and os.path.exists(source)):
        path = Path(source)
        files = sorted(p for p in path.rglob("*") if p.suffix in MANIFEST_SUFFIXES) if path.is_dir() else [path]
        for file in files:
            yield from _documents(file.read_text())
    elif isinstance(source, os.PathLike):
        raise ManifestError(f"no such manifest file or directory: {source}")
    else:
        for doc in yaml.safe_load_all(source):
            if doc:
                yield from _unlist(doc)


def _unlist(doc: dict) -> Iterator[dict]:
    if not isinstance(doc, dict) or "kind" not in doc or "apiVersion" not in doc:
        raise ManifestError(f"not an object with apiVersion and kind: {str(doc)[:200]}")
    if doc["kind"].endswith("List") and isinstance(doc.get("items"), list):
        for item in doc["items"]:
            yield from _unlist(item)
    else:
        yield doc


class Manifests:
    """The admin's view of the server through the project's own client (app.client)."""

    def __init__(self, kubeconfig: str, api_domain: str) -> None:
        from ..client import Client, load_config

        self.naming = Naming(api_domain)
        self.client = Client(load_config(kubeconfig, environ={}), timeout=30.0)
        self._discovery = self._fresh_discovery()

    def _fresh_discovery(self) -> Any:
        from ..client import Discovery

        return Discovery(self.client)

    def close(self) -> None:
        self.client.close()

    def raw_get(self, path: str) -> tuple[int, str]:
        from ..client import ApiError

        try:
            response = self.client.request("GET", path)
        except ApiError as err:
            return err.status, err.message
        return response.status, response.data.decode(errors="replace")

    def resource_path(self, obj: dict, namespace: str | None) -> str:
        from ..client import ResourceNotFound

        try:
            info = self._discovery.for_kind(obj["apiVersion"], obj["kind"])
        except ResourceNotFound:  # a kind from a CRD applied a moment ago
            self._discovery = self._fresh_discovery()
            info = self._discovery.for_kind(obj["apiVersion"], obj["kind"])
        name = obj.get("metadata", {}).get("name")
        if not name:
            raise ManifestError(f"{obj['kind']} without metadata.name cannot be applied")
        ns = (obj["metadata"].get("namespace") or namespace or "default") if info.namespaced else None
        return str(info.path(ns, name))

    def apply(self, source: str | os.PathLike[str] | dict | list, namespace: str | None = None) -> list[dict]:
        applied = []
        for obj in _documents(source):
            obj = {**obj, "apiVersion": self.naming.from_client_api_version(obj["apiVersion"])}
            path = self.resource_path(obj, namespace)
            applied.append(self.client.apply(path, obj, field_manager=FIELD_MANAGER, force=True))
        return applied

    def wait_established(self, name: str, timeout: float) -> dict:
        path = f"/apis/{self.naming.group('apiextensions')}/v1/customresourcedefinitions/{name}"
        deadline = time.monotonic() + timeout
        crd: dict = {}
        while time.monotonic() < deadline:
            crd = self.client.get(path)
            conditions = {c.get("type"): c.get("status") for c in crd.get("status", {}).get("conditions", [])}
            if conditions.get("Established") == "True":
                return crd
            time.sleep(0.02)
        raise ManifestError(
            f"CustomResourceDefinition {name} not Established after {timeout:.0f} s: {crd.get('status')}"
        )

    def create_namespace(self, prefix: str) -> str:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": prefix}}
        return str(self.client.create("/api/v1/namespaces", body)["metadata"]["name"])

    def delete_namespace(self, name: str) -> None:
        from ..client import ApiError

        try:
            self.client.delete(f"/api/v1/namespaces/{name}")
        except ApiError as err:
            if err.status != 404:
                raise
