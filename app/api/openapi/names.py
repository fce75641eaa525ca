"""Names in the OpenAPI documents: schema names, group-version keys, operationId words, GVK extensions.

Schema names: `<reversed group or "core">.<version>.<Type>`, e.g. `core.v1.ConfigMap`,
`apps.v1.Deployment`, `io.orch.certificates.v1.CertificateSigningRequest`; shared metadata types
live in the reversed meta group (`io.orch.meta.v1.ObjectMeta`), the apimachinery leaf types
(Quantity, IntOrString, RawExtension) under the reversed API domain. In the reference's domain the built-in
types take the reference's names, from its Go packages (`io.k8s.api.core.v1.ConfigMap`,
`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`), which generators and some tools key on; a custom
resource keeps its reversed group (`com.example.v1.Widget`), as there.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...naming import CLIENT_GVK_EXTENSION, Naming
from ...schema.objects import MODULES, served_api_version

Schema = dict[str, Any]


def reversed_group(group: str) -> str:
    return ".".join(reversed(group.split("."))) if group else "core"


def schema_name(naming: Naming, group: str, version: str, kind: str) -> str:
    package = reference_packages(naming.domain).get(group) if naming.is_reference else None
    return f"{package or reversed_group(group)}.{version}.{kind}"


@lru_cache(maxsize=8)
def reference_packages(domain: str) -> dict[str, str]:
    """Built-in group -> the reference's Go package its types are named by (`rbac.authorization.k8s.io` ->
    `io.k8s.api.rbac`)."""
    naming = Naming(domain)
    out: dict[str, str] = {}
    for module in MODULES:
        group = served_api_version(module, naming).rpartition("/")[0]
        for struct in module.KINDS.values():
            out.setdefault(group, "io.k8s.api." + struct.package.partition("/")[0])
    out[""] = "io.k8s.api.core"  # a module of the core group may declare meta types too
    out[naming.group("apiextensions")] = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions"
    out[naming.group("apiregistration")] = "io.k8s.kube-aggregator.pkg.apis.apiregistration"
    out[naming.meta_group] = "io.k8s.apimachinery.pkg.apis.meta"
    return out


def meta_schema_name(naming: Naming, kind: str) -> str:
    return schema_name(naming, naming.meta_group, "v1", kind)


def machinery_schema_name(naming: Naming, path: str) -> str:
    """A leaf type outside any API group, e.g. `io.orch.api.resource.Quantity`
    (`io.k8s.apimachinery.pkg.api.resource.Quantity` in the reference's domain)."""
    return f"io.k8s.apimachinery.pkg.{path}" if naming.is_reference else f"{reversed_group(naming.domain)}.{path}"


def gv_path(group: str, version: str) -> str:
    """The key of a group-version in the /openapi/v3 index (`api/v1`, `apis/apps/v1`)."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


def camel(word: str) -> str:
    return word[:1].upper() + word[1:]


def gv_word(naming: Naming, group: str, version: str) -> str:
    """`CoreV1`, `AppsV1`, `CertificatesV1`: the group-version part of an operationId."""
    if not group:
        return "Core" + camel(version)
    short = group.removesuffix("." + naming.domain)
    parts = short.replace("-", ".").split(".")
    return "".join(camel(p) for p in parts) + camel(version)


def gvk(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "version": version, "kind": kind}


def gvk_extensions(naming: Naming, value: Any) -> dict[str, Any]:
    # Our spelling plus the one stock kubectl reads (it would otherwise find no operation or schema).
    return {naming.openapi_extension("group-version-kind"): value, CLIENT_GVK_EXTENSION: value}
