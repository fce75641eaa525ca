"""The `networking.<domain>/v1` group: ingresses, ingress classes and network policies."""

from __future__ import annotations

import re
from typing import ClassVar

from ..catalog import Obj, ResourceType, status_subresource
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from .common import KindStrategy, as_list, child, dig, immutable, items, part, setdefault, setdefault_empty

PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"]
POLICY_TYPES = ["Ingress", "Egress"]
_DOMAIN_PATH = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/.+$")


def _backend_errors(backend: object, path: str) -> list[FieldError]:
    if not isinstance(backend, dict):
        return [required(path)]
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        return [invalid(path, "", "cannot set both resource and service backends")]
    if isinstance(service, dict):
        errors = [] if service.get("name") else [required(f"{path}.service.name")]
        port = service["port"] if isinstance(service.get("port"), dict) else {}
        if port.get("name") and port.get("number"):
            errors.append(invalid(f"{path}.service.port", port, "cannot set both port name & port number"))
        elif not port.get("name") and not port.get("number"):
            errors.append(required(f"{path}.service.port", "port name or number is required"))
        return errors
    if isinstance(resource, dict):
        return []
    return [invalid(path, "", "resource or service backend is required")]


class IngressStrategy(KindStrategy):
    initial_status: ClassVar[Obj] = {"loadBalancer": {}}

    def validate(self, obj: Obj) -> list[FieldError]:
        spec = part(obj, "spec")
        errors: list[FieldError] = []
        rules = items(spec, "rules")
        if spec.get("defaultBackend") is None and not rules:
            errors.append(invalid("spec", spec, "either `defaultBackend` or `rules` must be specified"))
        if spec.get("defaultBackend") is not None:
            errors += _backend_errors(spec["defaultBackend"], "spec.defaultBackend")
        for i, rule in enumerate(rules):
            http = rule.get("http")
            if http is None:
                continue
            paths = items(http, "paths")
            if not paths:
                errors.append(required(f"spec.rules[{i}].http.paths"))
            for j, p in enumerate(paths):
                errors += _path_errors(p, f"spec.rules[{i}].http.paths[{j}]")
        return errors


def _path_errors(p: Obj, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = p.get("pathType")
    if not kind:
        errors.append(required(f"{path}.pathType", "pathType must be specified"))
    elif kind not in PATH_TYPES:
        errors.append(not_supported(f"{path}.pathType", kind, PATH_TYPES))
    elif kind in ("Exact", "Prefix") and not str(p.get("path") or "").startswith("/"):
        errors.append(invalid(f"{path}.path", p.get("path", ""), "must be an absolute path"))
    return errors + _backend_errors(p.get("backend"), f"{path}.backend")


class IngressClassStrategy(KindStrategy):
    def validate(self, obj: Obj) -> list[FieldError]:
        controller = dig(obj, "spec", "controller")
        if not controller:
            return [required("spec.controller")]
        if not isinstance(controller, str) or not _DOMAIN_PATH.match(controller) or len(controller) > 250:
            return [invalid("spec.controller", controller, 'must be a domain-prefixed path (such as "acme.io/foo")')]
        return []

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        return immutable("spec.controller", dig(obj, "spec", "controller"), dig(old, "spec", "controller"))


class NetworkPolicyStrategy(KindStrategy):
    def default(self, obj: Obj) -> None:
        spec = child(obj, "spec")
        setdefault(spec, "podSelector", {})  # a non-pointer struct upstream: always serialized
        for direction in ("ingress", "egress"):
            for rule in items(spec, direction):
                for port in items(rule, "ports"):
                    setdefault_empty(port, "protocol", "TCP")
        if not spec.get("policyTypes"):
            spec["policyTypes"] = ["Ingress"] + (["Egress"] if spec.get("egress") else [])

    def validate(self, obj: Obj) -> list[FieldError]:
        types = as_list(dig(obj, "spec", "policyTypes"))
        return [
            not_supported(f"spec.policyTypes[{i}]", t, POLICY_TYPES)
            for i, t in enumerate(types)
            if t not in POLICY_TYPES
        ]


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("networking")
    backend = {"service": {"name": "web", "port": {"number": 80}}}
    return [
        ResourceType(
            group,
            "v1",
            "IngressClass",
            "ingressclasses",
            False,
            strategy=IngressClassStrategy(naming),
            example={"spec": {"controller": "example.com/ingress-controller"}},
        ),
        ResourceType(
            group,
            "v1",
            "Ingress",
            "ingresses",
            True,
            short_names=("ing",),
            subresources=(status_subresource(),),
            strategy=IngressStrategy(naming),
            has_status=True,
            example={
                "spec": {
                    "rules": [
                        {
                            "host": "web.example.com",
                            "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]},
                        }
                    ]
                }
            },
        ),
        ResourceType(
            group,
            "v1",
            "NetworkPolicy",
            "networkpolicies",
            True,
            short_names=("netpol",),
            strategy=NetworkPolicyStrategy(naming),
            example={"spec": {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"]}},
        ),
    ]
