"""The `apiregistration.<domain>/v1` group: APIServices, the aggregation layer's registrations.

An APIService without `service` is Local (served by this server: every built-in and custom group version has
one, kept by app/controllers/aggregation.py); one with a service is proxied to that extension server."""

from __future__ import annotations

import re
from typing import Any

from ..catalog import Obj, ResourceType, status_subresource
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from ..registry.meta import SUBDOMAIN_MSG, name_errors
from .common import KindStrategy, dig

_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
CONDITION_STATUSES = ["True", "False", "Unknown"]
LOCAL_CONDITION = {
    "type": "Available",
    "status": "True",
    "reason": "Local",
    "message": "Local APIServices are always available",
}

#: the reference's discovery priorities of the built-in group versions: (group prefix, in the API domain,
#: version) -> (groupPriorityMinimum, versionPriority); /apis lists groups by them
PRIORITIES: dict[tuple[str, bool, str], tuple[int, int]] = {
    ("", False, "v1"): (18000, 1),
    ("apiregistration", True, "v1"): (18000, 15),
    ("apps", False, "v1"): (17800, 15),
    ("events", True, "v1"): (17750, 15),
    ("events", True, "v1beta1"): (17750, 5),
    ("authentication", True, "v1"): (17700, 15),
    ("authentication", True, "v1beta1"): (17700, 9),
    ("authorization", True, "v1"): (17600, 15),
    ("authorization", True, "v1beta1"): (17600, 9),
    ("autoscaling", False, "v1"): (17500, 15),
    ("autoscaling", False, "v2"): (17500, 30),
    ("autoscaling", False, "v2beta1"): (17500, 9),
    ("autoscaling", False, "v2beta2"): (17500, 1),
    ("batch", False, "v1"): (17400, 15),
    ("batch", False, "v1beta1"): (17400, 9),
    ("certificates", True, "v1"): (17300, 15),
    ("networking", True, "v1"): (17200, 15),
    ("policy", False, "v1"): (17100, 15),
    ("policy", False, "v1beta1"): (17100, 9),
    ("rbac.authorization", True, "v1"): (17000, 15),
    ("storage", True, "v1"): (16800, 15),
    ("storage", True, "v1beta1"): (16800, 9),
    ("apiextensions", True, "v1"): (16700, 15),
    ("admissionregistration", True, "v1"): (16700, 15),
    ("scheduling", True, "v1"): (16600, 15),
    ("coordination", True, "v1"): (16500, 15),
    ("node", True, "v1"): (16300, 15),
    ("node", True, "v1beta1"): (16300, 9),
    ("discovery", True, "v1"): (16200, 15),
    ("discovery", True, "v1beta1"): (16200, 12),
    ("flowcontrol.apiserver", True, "v1beta2"): (16100, 15),
    ("flowcontrol.apiserver", True, "v1beta1"): (16100, 12),
}
#: a CRD's group versions (the reference's crdregistration controller): low, and ordered by version name
CRD_PRIORITY = (1000, 100)


def builtin_priorities(naming: Naming) -> dict[tuple[str, str], tuple[int, int]]:
    """(group, version) -> priorities, with the groups spelled in this server's domain."""
    return {
        (naming.group(prefix) if in_domain else prefix, version): value
        for (prefix, in_domain, version), value in PRIORITIES.items()
    }


def automanaged_label(naming: Naming) -> str:
    """The label the server puts on the APIServices it keeps (the reference's automanaged label of its
    aggregator, under the key domain)."""
    return f"{naming.key_group(naming.namespace_prefix + '-aggregator')}/automanaged"


def apiservice_name(group: str, version: str) -> str:
    return f"{version}.{group}"


def condition(obj: Obj, kind: str = "Available") -> dict | None:
    return next(
        (
            c
            for c in dig(obj, "status", "conditions", default=[]) or []
            if isinstance(c, dict) and c.get("type") == kind
        ),
        None,
    )


class APIServiceStrategy(KindStrategy):
    generation = False  # the reference's APIService keeps no generation

    def default(self, obj: Obj) -> None:
        service = dig(obj, "spec", "service")
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443

    def prepare_for_create(self, obj: Obj) -> None:
        obj.pop("status", None)
        self.default(obj)

    def validate(self, obj: Obj) -> list[FieldError]:
        spec: dict[str, Any] = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        group, version = str(spec.get("group") or ""), str(spec.get("version") or "")
        errors: list[FieldError] = []
        name = dig(obj, "metadata", "name", default="")
        wanted = f"{version}.{group}"
        if not name_errors(name, "path") and name != wanted:
            errors.append(invalid("metadata.name", name, f'must be `spec.version+"."+spec.group`: "{wanted}"'))
        if not group and version != "v1":
            errors.append(required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
        if group and (len(group) > 253 or name_errors(group, "subdomain", "spec.group")):
            errors.append(invalid("spec.group", group, SUBDOMAIN_MSG))
        if not _DNS1035.match(version) or len(version) > 63:
            errors.append(invalid("spec.version", version, _DNS1035_MSG))
        errors += _priority_errors(spec)
        errors += _service_errors(spec)
        for i, cond in enumerate(dig(obj, "status", "conditions", default=[]) or []):
            if isinstance(cond, dict) and cond.get("status") not in CONDITION_STATUSES:
                errors.append(not_supported(f"status.conditions[{i}].status", cond.get("status"), CONDITION_STATUSES))
        return errors


def _priority_errors(spec: dict) -> list[FieldError]:
    errors = []
    group_minimum, version_priority = spec.get("groupPriorityMinimum") or 0, spec.get("versionPriority") or 0
    if not 0 < group_minimum <= 20000:
        errors.append(invalid("spec.groupPriorityMinimum", group_minimum, "must be positive and less than 20000"))
    if not 0 < version_priority <= 1000:
        errors.append(invalid("spec.versionPriority", version_priority, "must be positive and less than 1000"))
    return errors


def _service_errors(spec: dict) -> list[FieldError]:
    service, ca_bundle, insecure = (
        spec.get("service"),
        spec.get("caBundle") or "",
        bool(spec.get("insecureSkipTLSVerify")),
    )
    errors = []
    if not isinstance(service, dict):
        if ca_bundle:
            errors.append(
                invalid(
                    "spec.caBundle", f"{len(ca_bundle) * 3 // 4} bytes", "local APIServices may not have a caBundle"
                )
            )
        if insecure:
            errors.append(
                invalid("spec.insecureSkipTLSVerify", True, "local APIServices may not have insecureSkipTLSVerify")
            )
        return errors
    for key in ("namespace", "name"):
        if not service.get(key):
            errors.append(required(f"spec.service.{key}"))
    port = service.get("port")
    if not isinstance(port, int) or not 0 < port < 65536:
        errors.append(invalid("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    if insecure and ca_bundle:
        errors.append(invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return errors


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("apiregistration")
    example = {
        "spec": {
            "group": "metrics.example.com",
            "version": "v1beta1",
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
            "insecureSkipTLSVerify": True,
            "service": {"namespace": naming.system_namespace, "name": "metrics-server"},
        }
    }
    return [
        ResourceType(
            group,
            "v1",
            "APIService",
            "apiservices",
            False,
            subresources=(status_subresource(),),
            strategy=APIServiceStrategy(naming),
            name_rule="path",
            has_status=True,
            categories=("api-extensions",),
            example=example,
        )
    ]
