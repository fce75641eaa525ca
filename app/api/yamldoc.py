"""YAML request bodies (create, update, patch, apply), read as the reference reads them: sigs.k8s.io/yaml on
go-yaml v2, then JSON (app/goyaml), within the bounds of app/goyaml/bounds.py (oversized expansion, recursive
aliases and nesting are refused with 400). Only the first document of a body counts, as in go-yaml's Unmarshal."""

from __future__ import annotations

from ..goyaml import GoYamlError, YamlTooComplex, compose, load

__all__ = ["GoYamlError", "YamlTooComplex", "compose", "load"]
