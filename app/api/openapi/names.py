"""Names in the OpenAPI documents: schema names, group-version keys, operationId words, GVK extensions.

Schema names: `<reversed group or "core">.<version>.<Type>`, e.g. `core.v1.ConfigMap`,
`apps.v1.Deployment`, `io.orch.certificates.v1.CertificateSigningRequest`; shared metadata types
live in the reversed meta group (`io.orch.meta.v1.ObjectMeta`), the apimachinery leaf types
(Quantity, IntOrString, RawExtension) under the reversed API domain.
"""

from __future__ import annotations

from typing import Any

from ...naming import CLIENT_GVK_EXTENSION, Naming

Schema = dict[str, Any]


def reversed_group(group: str) -> str:
    return ".".join(reversed(group.split("."))) if group else "core"


def schema_name(group: str, version: str, kind: str) -> str:
    return f"{reversed_group(group)}.{version}.{kind}"


def meta_schema_name(naming: Naming, kind: str) -> str:
    return schema_name(naming.meta_group, "v1", kind)


def machinery_schema_name(naming: Naming, path: str) -> str:
    """A leaf type outside any API group, e.g. `io.orch.api.resource.Quantity`."""
    return f"{reversed_group(naming.domain)}.{path}"


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
